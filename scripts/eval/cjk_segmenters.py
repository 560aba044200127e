#!/usr/bin/python3
"""ICU word break against the overlapping bigrams that ship (issue 35: "measure both on real CJK
text"), on the set that scripts/eval/build_cjk_set.py writes (eval-data/cjk: mail.mbox,
queries.jsonl). A simulation in Python's sqlite3 FTS5, as scripts/eval/cjk_eval.py simulates the old
tokenizer: no tokenizer is built, and the product is not changed.

The texts: Subject + body of each email as Python's email package decodes them (cjk_eval.mbox_texts),
two columns of an FTS5 table with tokenize='unicode61 remove_diacritics 2'. Each variant feeds that
table text it has cut into words itself, joined by spaces:

  icu     ICU's word break (Debian's libicu through python3-icu, BreakIterator.createWordInstance with
          the root locale: a dictionary for Chinese and Japanese, Korean cut at spaces only). A query's
          whitespace-separated words are each cut the same way and become FTS5 phrases, ANDed.
  bigram  what the tokenizer `mailsearch` (Sources/CRanking/ms_tokenizer.c) does, re-written in
          Python over unicode61's own tokens (read back through fts5vocab): a run of CJK characters
          (the same ranges) becomes its overlapping bigrams, a one-character run the character; the
          folds beyond unicode61 (ß → ss …) too. The characters that ms_tokenizer.c adds colocated
          in documents cannot be written as text: they are left out of the table that is searched
          (they add no length and are other terms, so for these queries of two or more characters
          matching and BM25 are those of the real tokenizer), and put in as tokens of their own in
          the table whose size is measured (the terms and token count are then the real ones; only
          the positions, hence a few varint bytes, differ). Identifier parts (RxFreq of setRxFreq)
          are left out of every variant. A query word becomes the phrase of its bigrams.
  icu+bigram  both indexes; the ICU results first, then the bigram ones not already there.

Each is scored two ways, as cjk_eval.py scores the old tokenizer: `exact` (every phrase as is) and
`prefix` (every phrase "…"*, as the product's FTS5QueryBuilder writes a typed word). A query
succeeds when its target email is among the first --limit (20) by BM25 (every email of the set is a
conversation of its own: cjk_eval.py's "target's conversation among the results" is the same
thing). Precision: of the results returned, how many hold the query's CJK word as written (subject +
body), as cjk_eval.py counts it: bigrams can match a word's pieces apart, and ICU may cut a
sentence so that a different word holds the query's.

Per variant also: the index's size (the table rebuilt contentless, content='', with the product's
prefix='2', in a file, optimized and VACUUMed: the pages of its shadow tables), its tokens and
distinct terms (fts5vocab), and the time to build it (cutting the text, in Python, + FTS5's insert
and optimize; best of --runs). The bigram cutting runs in Python here, in C in the product: its time
is not the product's (scripts/bench/tokenizer-cost.sh measures that).

Beyond the top 20: of all the emails that hold a query's CJK word as written, how many the word's
phrase alone matches (no limit), with the ICU misses printed as ICU cut the email there (a miss of
ICU is often a word that holds the query's characters without being that word: カウント in
アカウント).

The checks that the bigram simulation is the thing it stands for: the shipped Success@20 (the real
tokenizer in the release CLI, imported and searched) is read from --shipped
(bench-data/cjk/results.json, what `make eval-cjk` writes) and set beside it query by query; and,
when --binary exists, the CLI imports the set into a temporary directory, `index rebuild`s it (one
optimized segment), and the size of its real index is set beside the simulated bigrams over the
same five columns, read from its content table.

  /usr/bin/python3 scripts/eval/cjk_segmenters.py [--set eval-data/cjk] [--shipped bench-data/cjk/results.json]
                                                   [--show N] [--json OUT]
  make eval-cjk-segmenters

Needs Debian's python3-icu (`scripts/ensure-packages.sh python3-icu`), hence the system Python.
"""

import argparse
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cjk_eval import KINDS, LANGS, mbox_texts  # noqa: E402

try:
    import icu
except ImportError:
    sys.exit("error: no module icu: install Debian's python3-icu (scripts/ensure-packages.sh python3-icu) "
             "and run this with /usr/bin/python3")

TOKENIZE = "tokenize='unicode61 remove_diacritics 2'"
COLUMNS = ("subject", "body")

# ---------------------------------------------------------------- ms_tokenizer.c, in Python


def is_cjk(c):
    """ms_tokenizer.c's is_cjk: the scripts written without spaces."""
    o = ord(c)
    return (0x3040 <= o <= 0x30FF or 0x3005 <= o <= 0x3007 or 0x31F0 <= o <= 0x31FF or 0x3100 <= o <= 0x312F
            or 0x3130 <= o <= 0x318F or 0x3400 <= o <= 0x4DBF or 0x4E00 <= o <= 0x9FFF or 0xAC00 <= o <= 0xD7AF
            or 0x1100 <= o <= 0x11FF or 0xF900 <= o <= 0xFAFF or 0xFF66 <= o <= 0xFF9F or 0x20000 <= o <= 0x3FFFF)


FOLDS = {"ß": "ss", "ẞ": "ss", "æ": "ae", "Æ": "ae", "œ": "oe", "Œ": "oe", "ø": "o", "Ø": "o", "đ": "d", "Đ": "d",
         "ł": "l", "Ł": "l", "ħ": "h", "Ħ": "h", "ı": "i", "þ": "th", "Þ": "th", "ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl",
         "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st"}


def fold(s):
    out = []
    for c in s:
        o = ord(c)
        if c in FOLDS:
            out.append(FOLDS[c])
        elif 0xFF10 <= o <= 0xFF19:
            out.append(chr(0x30 + o - 0xFF10))
        elif 0xFF21 <= o <= 0xFF3A:
            out.append(chr(0x61 + o - 0xFF21))
        elif 0xFF41 <= o <= 0xFF5A:
            out.append(chr(0x61 + o - 0xFF41))
        else:
            out.append(c)
    return "".join(out)


def cjk_run(run, query, out):
    """emit_cjk: [(token, colocated chars)] of one run (a run of 256 characters or more cut after 255, as the C does)."""
    if len(run) >= 256:
        cjk_run(run[:255], query, out)
        cjk_run(run[255:], query, out)
        return
    if len(run) == 1:
        out.append((run, ()))
        return
    for i in range(len(run) - 1):
        chars = () if query else ((run[i], run[i + 1]) if i + 2 == len(run) else (run[i],))
        out.append((run[i:i + 2], chars))


def ms_tokens(token, query=False):
    """on_token: what ms_tokenizer.c emits for one unicode61 token: [(token, colocated chars)]."""
    if token.isascii():
        return [(token, ())]
    parts = []
    for c in token:
        k = is_cjk(c)
        if parts and parts[-1][0] == k:
            parts[-1][1].append(c)
        else:
            parts.append((k, [c]))
    if not any(k for k, _ in parts) or len(parts) > 64:
        return [(fold(token), ())]
    out = []
    for k, chars in parts:
        if k:
            cjk_run("".join(chars), query, out)
        else:
            out.append((fold("".join(chars)), ()))
    return out


def unicode61_tokens(db, table, rows):
    """{rowid: {column: [token, ...]}}: unicode61's tokens of each row, in order (fts5vocab instance)."""
    db.execute("DROP TABLE IF EXISTS %s" % table)
    db.execute("CREATE VIRTUAL TABLE %s USING fts5(%s, %s)" % (table, ", ".join(COLUMNS), TOKENIZE))
    db.executemany("INSERT INTO %s (rowid, %s) VALUES (?%s)" % (table, ", ".join(COLUMNS), ", ?" * len(COLUMNS)), rows)
    db.execute("CREATE VIRTUAL TABLE %s_v USING fts5vocab(%s, 'instance')" % (table, table))
    out = {}
    for doc, col, offset, term in db.execute("SELECT doc, col, offset, term FROM %s_v ORDER BY doc, col, offset"
                                             % table):
        toks = out.setdefault(doc, {}).setdefault(col, [])
        assert offset == len(toks), (doc, col, offset)
        toks.append(term)
    db.execute("DROP TABLE %s_v" % table)
    db.execute("DROP TABLE %s" % table)
    return out


def bigram_text(tokens, chars):
    """The text of ms_tokenizer.c's tokens: bigrams only, or (chars) each colocated char after its bigram."""
    out = []
    for t in tokens:
        for tok, colocated in ms_tokens(t):
            out.append(tok)
            if chars:
                out.extend(colocated)
    return " ".join(out)


def bigram_query_word(word, db):
    """A query word as ms_tokenizer.c cuts it in a query: the phrase of its bigrams."""
    toks = unicode61_tokens(db, "qtok", [(1, word, "")]).get(1, {}).get(COLUMNS[0], [])
    return [tok for t in toks for tok, _ in ms_tokens(t, query=True)]

# ---------------------------------------------------------------- ICU


class ICUWords:
    def __init__(self, locale):
        self.bi = icu.BreakIterator.createWordInstance(icu.Locale(locale) if locale else icu.Locale.getRoot())

    def words(self, text):
        """ICU's word segments of text (spaces and punctuation, rule status 0 … 99, left out)."""
        self.bi.setText(text)
        out = []
        start = self.bi.first()
        for end in self.bi:
            if self.bi.getRuleStatus() >= 100 or any(ch.isalnum() for ch in text[start:end]):
                out.append(text[start:end])
            start = end
        return out

# ---------------------------------------------------------------- tables


def fts_table(db, name, docs, contentless=False, prefix=False):
    opts = [TOKENIZE]
    if contentless:
        opts.append("content=''")
    if prefix:
        opts.append("prefix='2'")
    db.execute("CREATE VIRTUAL TABLE %s USING fts5(%s%s, %s)" % (
        name, "" if contentless else "mid UNINDEXED, ", ", ".join(COLUMNS), ", ".join(opts)))
    if contentless:
        db.executemany("INSERT INTO %s (rowid, %s) VALUES (?%s)" % (name, ", ".join(COLUMNS), ", ?" * len(COLUMNS)),
                       [(i + 1,) + tuple(d[1:]) for i, d in enumerate(docs)])
    else:
        db.executemany("INSERT INTO %s (mid, %s) VALUES (?%s)" % (name, ", ".join(COLUMNS), ", ?" * len(COLUMNS)),
                       docs)


def measure(name, make_docs, runs, workdir):
    """(size figures, best build seconds, cut seconds): the contentless table with prefix='2', in a file."""
    best = best_cut = None
    for run in range(runs):
        path = os.path.join(workdir, "%s-%d.sqlite" % (name, run))
        if os.path.exists(path):
            os.remove(path)
        t0 = time.perf_counter()
        docs = make_docs()
        t1 = time.perf_counter()
        db = sqlite3.connect(path)
        with db:
            fts_table(db, "t", docs, contentless=True, prefix=True)
            db.execute("INSERT INTO t(t) VALUES('optimize')")
        t2 = time.perf_counter()
        if best is None or t2 - t0 < best:
            best, best_cut = t2 - t0, t1 - t0
        if run == runs - 1:
            db.execute("VACUUM")
            pages = dict(db.execute("SELECT name, SUM(pgsize) FROM dbstat WHERE name GLOB 't_*' GROUP BY name"))
            db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'row')")
            terms, tokens = db.execute("SELECT COUNT(*), SUM(cnt) FROM v").fetchone()
            db.close()
            size = {"bytes": sum(pages.values()), "data_bytes": pages.get("t_data", 0), "tables": pages,
                    "file_bytes": os.path.getsize(path), "terms": terms, "tokens": tokens}
        else:
            db.close()
        os.remove(path)
    return size, best, best_cut


def shipped_index(binary, mbox, workdir):
    """The release CLI's own index of the set (`import`, then `index rebuild`: one optimized segment)
    against this script's bigrams over the same five columns it indexes, read from its content table."""
    data = os.path.join(workdir, "shipped")
    run = lambda *a: subprocess.run([binary] + list(a) + ["--data-dir", data, "--json", "--quiet"],  # noqa: E731
                                    check=True, capture_output=True)
    run("import", os.path.abspath(mbox))
    t0 = time.perf_counter()
    run("index", "rebuild")
    seconds = time.perf_counter() - t0
    src = sqlite3.connect("file:%s?mode=ro" % os.path.join(data, "search.sqlite"), uri=True)
    sql = src.execute("SELECT sql FROM sqlite_master WHERE name = 'email_fts'").fetchone()[0]
    declared = [c.split() for c in sql[sql.index("(") + 1:sql.rindex(")")].split(",") if "=" not in c]
    indexed = [i for i, words in enumerate(declared) if len(words) == 1]  # not UNINDEXED
    cols = [declared[i][0] for i in indexed]
    pages = dict(src.execute("SELECT name, SUM(pgsize) FROM dbstat WHERE name GLOB 'email_fts_*' GROUP BY name"))
    real = sum(v for k, v in pages.items() if k != "email_fts_content")
    rows = [(r[0],) + tuple(r[1:]) for r in src.execute(
        "SELECT id, %s FROM email_fts_content ORDER BY id" % ", ".join("IFNULL(c%d, '')" % i for i in indexed))]
    src.close()
    global COLUMNS
    saved, COLUMNS = COLUMNS, tuple(cols)
    try:
        scratch = sqlite3.connect(":memory:")
        toks = unicode61_tokens(scratch, "doc", rows)
        path = os.path.join(workdir, "check.sqlite")
        db = sqlite3.connect(path)
        with db:
            fts_table(db, "t", [(r[0],) + tuple(bigram_text(toks.get(r[0], {}).get(c, []), True) for c in cols)
                                for r in rows], contentless=True, prefix=True)
            db.execute("INSERT INTO t(t) VALUES('optimize')")
        db.execute("VACUUM")
        sim = sum(v for _, v in db.execute("SELECT name, SUM(pgsize) FROM dbstat WHERE name GLOB 't_*' GROUP BY name"))
        db.close()
    finally:
        COLUMNS = saved
    return {"columns": cols, "real_bytes": real, "simulated_bytes": sim, "rebuild_seconds": seconds}

# ---------------------------------------------------------------- search


def phrase(tokens, star):
    return '"%s"%s' % (" ".join(t.replace('"', '""') for t in tokens), star)


def search(db, table, phrases, star, limit):
    if not phrases or any(not p for p in phrases):
        return []
    match = " AND ".join(phrase(p, star) for p in phrases)
    return [r[0] for r in db.execute("SELECT mid FROM %s WHERE %s MATCH ? ORDER BY bm25(%s) LIMIT ?"
                                     % (table, table, table), (match, limit))]


def cjk_word(q):
    return [w for w in q["query"].split() if not w.isascii()][0]


def groups_of(queries):
    groups = []
    for lang in LANGS:
        for kind in KINDS:
            groups.append(("%s %s" % (lang, kind), [q for q in queries if q["lang"] == lang and q["kind"] == kind]))
        groups.append(("%s all" % lang, [q for q in queries if q["lang"] == lang]))
        positions = sorted(set(q.get("position", "mid-run") for q in queries if q["lang"] == lang))
        if len(positions) > 1:
            for pos in positions:
                groups.append(("%s %s" % (lang, pos),
                               [q for q in queries if q["lang"] == lang and q.get("position", "mid-run") == pos]))
    for kind in KINDS:
        groups.append(("all %s" % kind, [q for q in queries if q["kind"] == kind]))
    groups.append(("overall", queries))
    return [(label, qs) for label, qs in groups if qs]


def context_words(icuw, text, word, width=12):
    """ICU's cut of the text around the first place that holds `word` (what the index holds there)."""
    i = text.find(word)
    if i < 0:
        return None
    a = max(0, i - width)
    piece = text[a:i + len(word) + width]
    return " | ".join(icuw.words(piece))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", default="eval-data/cjk", help="what build_cjk_set.py wrote")
    ap.add_argument("--shipped", default="bench-data/cjk/results.json",
                    help="cjk_eval.py's --json of the release CLI (make eval-cjk), for the cross-check")
    ap.add_argument("--binary", default=".build/release/mailsearch",
                    help="the release CLI: its index of the set checks the simulated index size (skipped if missing)")
    ap.add_argument("--locale", default="", help="ICU locale of the word break (default: the root locale)")
    ap.add_argument("--limit", type=int, default=20)
    ap.add_argument("--runs", type=int, default=3, help="index builds per variant; the best time is kept")
    ap.add_argument("--show", type=int, default=8, help="failures printed per variant")
    ap.add_argument("--json", metavar="OUT", help="save the figures and every query's ranks")
    args = ap.parse_args()

    texts = mbox_texts(os.path.join(args.set, "mail.mbox"))
    queries = [json.loads(line) for line in open(os.path.join(args.set, "queries.jsonl"), encoding="utf-8")]
    mids = sorted(texts)
    raw = [(mid, texts[mid][0], texts[mid][1]) for mid in mids]
    full_text = {mid: texts[mid][0] + "\n" + texts[mid][1] for mid in mids}
    icuw = ICUWords(args.locale)
    scratch = sqlite3.connect(":memory:")

    def u61_docs():
        return raw

    def icu_docs():
        return [(mid, " ".join(icuw.words(s)), " ".join(icuw.words(b))) for mid, s, b in raw]

    def bigram_docs(chars=False):
        def make():
            toks = unicode61_tokens(scratch, "doc", [(i + 1, s, b) for i, (_, s, b) in enumerate(raw)])
            return [(mid,) + tuple(bigram_text(toks.get(i + 1, {}).get(c, []), chars) for c in COLUMNS)
                    for i, (mid, _, _) in enumerate(raw)]
        return make

    # Sizes, tokens, build times (contentless, prefix='2', in files).
    sizes = {}
    with tempfile.TemporaryDirectory() as workdir:
        for name, make in (("unicode61", u61_docs), ("icu", icu_docs), ("bigram", bigram_docs(chars=True)),
                           ("bigram, no chars", bigram_docs(chars=False))):
            size, seconds, cut = measure(name, make, args.runs, workdir)
            sizes[name] = dict(size, build_seconds=seconds, cut_seconds=cut)
        check = shipped_index(args.binary, os.path.join(args.set, "mail.mbox"), workdir) \
            if args.binary and os.path.exists(args.binary) else None

    # The searched tables (in memory, with the Message-ID).
    db = sqlite3.connect(":memory:")
    fts_table(db, "u61", u61_docs())
    fts_table(db, "icu", icu_docs())
    fts_table(db, "big", bigram_docs(chars=False)())

    query_words = {}
    for q in queries:
        words = q["query"].split()
        query_words[q["id"]] = {"icu": [icuw.words(w) for w in words],
                                "bigram": [bigram_query_word(w, scratch) for w in words],
                                "unicode61": [[w] for w in words]}

    ranks = {}
    hits = {}
    for star, mode in (("", "exact"), ("*", "prefix")):
        for variant, table in (("icu", "icu"), ("bigram", "big"), ("unicode61", "u61")):
            col = "%s %s" % (variant, mode)
            ranks[col], hits[col] = {}, {}
            for q in queries:
                found = search(db, table, query_words[q["id"]][variant], star, args.limit)
                hits[col][q["id"]] = found
                ranks[col][q["id"]] = found.index(q["target"]) + 1 if q["target"] in found else None
        col = "icu+bigram %s" % mode
        ranks[col], hits[col] = {}, {}
        for q in queries:
            found = hits["icu " + mode][q["id"]][:]
            found += [m for m in hits["bigram " + mode][q["id"]] if m not in found]
            found = found[:args.limit]
            hits[col][q["id"]] = found
            ranks[col][q["id"]] = found.index(q["target"]) + 1 if q["target"] in found else None

    shipped = None
    if args.shipped and os.path.exists(args.shipped):
        shipped = json.load(open(args.shipped, encoding="utf-8"))
        ranks["shipped"] = {r["id"]: r["now"] for r in shipped["ranks"]}
    columns = [c for c in ("icu exact", "icu prefix", "bigram exact", "bigram prefix", "icu+bigram prefix",
                           "shipped", "unicode61 prefix") if c in ranks]

    # Success@limit per group.
    print("ICU word break against bigrams, Success@%d (%s: %d emails, %d queries; ICU %s, locale %s)" % (
        args.limit, args.set, len(texts), len(queries), icu.ICU_VERSION, args.locale or "root"))
    print("simulated in Python's sqlite3 FTS5 (SQLite %s) over Subject + body; 'shipped' is the release CLI (%s)" % (
        sqlite3.sqlite_version, args.shipped if shipped else "no --shipped file"))
    print()
    print("%-16s %3s " % ("", "n") + " ".join("%17s" % c for c in columns))
    success = []
    for label, qs in groups_of(queries):
        vals = {c: sum(1 for q in qs if ranks[c].get(q["id"]) is not None) / len(qs) for c in columns}
        success.append({"group": label, "n": len(qs), **vals})
        print("%-16s %3d " % (label, len(qs)) + " ".join("%17.3f" % vals[c] for c in columns))

    # Precision: results holding the query's CJK word as written.
    print()
    precision = {}
    for col in [c for c in columns if c != "shipped"]:
        returned = holding = 0
        for q in queries:
            w = cjk_word(q)
            for m in hits[col][q["id"]]:
                returned += 1
                holding += w in full_text[m]
        precision[col] = {"holding": holding, "returned": returned}
    if shipped:
        precision["shipped"] = {k: shipped["precision"][k] for k in ("holding", "returned")}
    print("results holding the query's CJK word as written (precision):")
    for col, p in precision.items():
        print("  %-18s %4d of %4d = %.3f" % (col, p["holding"], p["returned"],
                                             p["holding"] / p["returned"] if p["returned"] else 0))

    # Beyond the top 20: of all the emails that hold a query's CJK word as written, how many its
    # phrase matches (no limit), and how many emails it matches that do not hold it.
    print()
    print("every email holding the query's CJK word as written (df), matched by the word's phrase alone, no limit:")
    print("  %-18s " % "" + " ".join("%18s" % ("%s found/df" % lang) for lang in LANGS)
          + "  %18s" % "matched, not holding")
    coverage = {}
    missed = {}
    for col in ("icu exact", "icu prefix", "bigram exact", "bigram prefix", "unicode61 prefix"):
        variant, mode = col.split()
        table = {"icu": "icu", "bigram": "big", "unicode61": "u61"}[variant]
        per = {lang: [0, 0] for lang in LANGS}
        strays = 0
        for q in queries:
            w = cjk_word(q)
            holders = {m for m in mids if w in full_text[m]}
            words = {"icu": icuw.words(w), "bigram": bigram_query_word(w, scratch), "unicode61": [w]}[variant]
            found = set(search(db, table, [words], "*" if mode == "prefix" else "", len(mids)))
            per[q["lang"]][0] += len(found & holders)
            if variant == "icu":
                missed.setdefault(col, []).extend(
                    {"id": q["id"], "lang": q["lang"], "word": w, "query_cut": words, "email": m,
                     "text_cut": context_words(icuw, full_text[m], w)} for m in sorted(holders - found))
            per[q["lang"]][1] += len(holders)
            strays += len(found - holders)
        coverage[col] = {"found_df": per, "matched_not_holding": strays}
        print("  %-18s " % col + " ".join("%18s" % ("%d/%d = %.3f" % (f, n, f / n if n else 0))
                                          for f, n in per.values()) + "  %18d" % strays)

    for col, ms in missed.items():
        if not ms:
            continue
        print("  %s misses %d, e.g.:" % (col, len(ms)))
        for lang in LANGS:
            for x in [x for x in ms if x["lang"] == lang][:args.show]:
                print("    %s %s: query [%s], the email: %s" % (x["id"], x["word"], " ".join(x["query_cut"]),
                                                                  x["text_cut"]))

    # Index size, tokens, build time.
    print()
    print("index (contentless FTS5 over Subject + body, prefix='2' as the product's, optimized, VACUUMed; best of %d)"
          % args.runs)
    print("  %-18s %10s %10s %9s %8s %9s %9s" % ("", "index B", "data B", "tokens", "terms", "build s", "cut s"))
    for name, s in sizes.items():
        print("  %-18s %10d %10d %9d %8d %9.3f %9.3f" % (name, s["bytes"], s["data_bytes"], s["tokens"], s["terms"],
                                                         s["build_seconds"], s["cut_seconds"]))
    if check:
        print("  the release CLI's own index of the set (%s; `index rebuild`, %.2f s): %d B; the simulated bigrams over"
              " the same columns: %d B (%+.1f%%)" % (", ".join(check["columns"]), check["rebuild_seconds"],
                                                    check["real_bytes"], check["simulated_bytes"],
                                                    100.0 * (check["simulated_bytes"] / check["real_bytes"] - 1)))
    print("  (bigram: each character colocated in ms_tokenizer.c is here a token of its own: the real terms and"
          " tokens; 'cut s' is Python's, in C in the product. icu+bigram holds both indexes.)")

    # The simulated bigrams against the release CLI, query by query.
    if shipped:
        same = sum(1 for q in queries
                   if (ranks["bigram prefix"][q["id"]] is None) == (ranks["shipped"].get(q["id"]) is None))
        equal = sum(1 for q in queries if ranks["bigram prefix"][q["id"]] == ranks["shipped"].get(q["id"]))
        print()
        print("cross-check, simulated bigrams (prefix) against the release CLI: same success for %d of %d queries, "
              "same rank for %d" % (same, len(queries), equal))
        for q in queries:
            a, b = ranks["bigram prefix"][q["id"]], ranks["shipped"].get(q["id"])
            if a != b:
                print("  %s %r: simulated rank %s, shipped %s" % (q["id"], q["query"], a, b))

    # Failures, with what each variant made of the query and of the target's text.
    failures = {}
    for col in ("icu exact", "icu prefix", "bigram exact", "bigram prefix", "icu+bigram prefix"):
        variant = col.split()[0]
        fails = []
        for q in queries:
            if ranks[col][q["id"]] is not None:
                continue
            star = "*" if col.endswith("prefix") else ""
            words = query_words[q["id"]]["icu" if variant.startswith("icu") else "bigram"]
            deep = search(db, "icu" if variant.startswith("icu") else "big", words, star, 500)
            if variant == "icu+bigram":
                deep += [m for m in search(db, "big", query_words[q["id"]]["bigram"], star, 500) if m not in deep]
            rank = deep.index(q["target"]) + 1 if q["target"] in deep else None
            fails.append({"id": q["id"], "query": q["query"], "lang": q["lang"], "kind": q["kind"],
                          "position": q.get("position"), "df": q.get("df"), "query_cut": words,
                          "rank_500": rank, "matched_500": len(deep),
                          "target_cut": context_words(icuw, full_text[q["target"]], cjk_word(q)),
                          "context": q.get("context")})
        failures[col] = fails
    for col, fails in failures.items():
        print()
        print("failures, %s (%d)%s" % (col, len(fails), ":" if fails else ""))
        for f in fails[:args.show]:
            print("  %s [%s %s %s, df %s] %r: query %s; %s" % (
                f["id"], f["lang"], f["kind"], f["position"], f["df"], f["query"],
                " ".join("[%s]" % " ".join(w) for w in f["query_cut"]),
                "rank %d" % f["rank_500"] if f["rank_500"] else "not matched (%d emails matched)" % f["matched_500"]))
            if col.startswith("icu"):
                print("      ICU in the target: %s" % f["target_cut"])
        if len(fails) > args.show:
            print("  … %d more (--show N)" % (len(fails) - args.show))

    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"set": args.set, "limit": args.limit, "icu": icu.ICU_VERSION, "locale": args.locale or "root",
                       "sqlite": sqlite3.sqlite_version, "shipped": args.shipped if shipped else None,
                       "success": success, "precision": precision, "coverage": coverage, "icu_misses": missed,
                       "index": sizes, "shipped_index": check, "failures": failures,
                       "ranks": [{"id": q["id"], "query": q["query"], "lang": q["lang"], "kind": q["kind"],
                                  **{c: ranks[c].get(q["id"]) for c in ranks}} for q in queries]},
                      f, indent=1, ensure_ascii=False)
            f.write("\n")


if __name__ == "__main__":
    main()
