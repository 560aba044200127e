#!/usr/bin/env python3
"""Keyword search on Chinese, Japanese and Korean mail (issue 35): Success@20 of the set that
scripts/eval/build_cjk_set.py writes (eval-data/cjk: mail.mbox, queries.jsonl).

Now: the mbox is imported with the CLI into a fresh data directory (`mailsearch import`), and each
query runs as `mailsearch search QUERY --mode keyword --json --limit 20 --no-history`; a query
succeeds when its target email's conversation is among the results. A failure is searched again
with --limit 500 to tell "ranked below 20" from "not matched".

Before (a simulation of the old tokenizer, not the old binary): the same texts (Subject + body as
Python's email package decodes them from the mbox) in an in-memory sqlite3 FTS5 table with
tokenize='unicode61 remove_diacritics 2', the tokenizer the index used before; each query an FTS5
phrase per whitespace-separated word, ANDed, BM25 order, the first 20. Two columns: `prefix`, every
phrase matched as a prefix ("word"*, as FTS5QueryBuilder writes a typed word), and `exact`.

Precision: how many results hold the query's CJK word as written (a phrase of bigrams could match
its pieces apart).

Snippets: whether the found target's snippet shows the query's CJK word, highlighted (what a person
reads in the result list).

Decoding: every email's stored subject and body (mail.sqlite) are compared with Python's decoding
of the same message (whitespace ignored; U+FFFD counts as a failure): the emails the import could
not decode, per charset, besides the import's own `failed` count.

  python3 scripts/eval/cjk_eval.py [--binary .build/release/mailsearch] [--set eval-data/cjk]
                                   [--data-dir DIR] [--json OUT] [--show N]
"""

import argparse
import email
import email.policy
import hashlib
import json
import mailbox
import os
import shutil
import sqlite3
import subprocess
import sys

LANGS = ("ja", "zh", "ko")
KINDS = ("word", "long-word", "mixed")


def run_json(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), out.returncode, out.stderr.strip()[-500:]))
    return json.loads(out.stdout)


def mbox_texts(path):
    """{Message-ID without <>: (subject, body, charset)} as Python's email package decodes them."""
    out = {}
    for msg in mailbox.mbox(path, factory=lambda f: email.message_from_binary_file(f, policy=email.policy.default)):
        mid = msg["Message-ID"].strip().strip("<>")
        part = msg.get_body(preferencelist=("plain",))
        out[mid] = (str(msg["Subject"] or ""), part.get_content(), part.get_content_charset())
    return out


def squash(s):
    return "".join(s.split())


def before_simulation(texts, queries, limit):
    """{variant: {query id: rank or None}} over an FTS5 table with the old tokenizer."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(mid UNINDEXED, subject, body, "
               "tokenize='unicode61 remove_diacritics 2')")
    db.executemany("INSERT INTO t (mid, subject, body) VALUES (?, ?, ?)",
                   [(mid, s, b) for mid, (s, b, _) in sorted(texts.items())])
    results = {}
    for variant, star in (("prefix", "*"), ("exact", "")):
        ranks = {}
        for q in queries:
            match = " ".join('"%s"%s' % (w.replace('"', '""'), star) for w in q["query"].split())
            rows = db.execute("SELECT mid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT ?", (match, limit)).fetchall()
            ids = [r[0] for r in rows]
            ranks[q["id"]] = ids.index(q["target"]) + 1 if q["target"] in ids else None
        results[variant] = ranks
    return results


def table(queries, columns):
    """Rows (label, n, {column: success}) per language and kind, per language, per kind, overall."""
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
    groups.append(("all mid-run", [q for q in queries if q.get("position", "mid-run") == "mid-run"]))
    groups.append(("overall", queries))
    rows = []
    for label, qs in groups:
        if not qs:
            continue
        rows.append((label, len(qs), {c: sum(1 for q in qs if ranks[q["id"]] is not None) / len(qs)
                                      for c, ranks in columns.items()}))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=".build/release/mailsearch", help="the mailsearch CLI")
    ap.add_argument("--set", default="eval-data/cjk", help="what build_cjk_set.py wrote")
    ap.add_argument("--data-dir", help="the fresh data directory (emptied first; default bench-data/cjk/data-SHA)")
    ap.add_argument("--limit", type=int, default=20)
    ap.add_argument("--json", metavar="OUT", help="save the figures, every query's ranks and the failures")
    ap.add_argument("--show", type=int, default=0, help="print the top 3 results of N queries a language")
    args = ap.parse_args()

    mbox = os.path.join(args.set, "mail.mbox")
    queries = [json.loads(line) for line in open(os.path.join(args.set, "queries.jsonl"), encoding="utf-8")]
    with open(mbox, "rb") as f:
        mbox_sha = hashlib.sha256(f.read()).hexdigest()
    manifest_path = os.path.join(args.set, "manifest.json")
    if os.path.exists(manifest_path):
        manifest = json.load(open(manifest_path, encoding="utf-8"))
        if manifest.get("mail.mbox") != mbox_sha:
            sys.exit("error: %s does not match its manifest (SHA-256 %s)" % (mbox, mbox_sha))
    data_dir = args.data_dir or os.path.join("bench-data", "cjk", "data-" + mbox_sha[:12])
    shutil.rmtree(data_dir, ignore_errors=True)
    os.makedirs(data_dir)

    binary = os.path.abspath(args.binary)
    imported = run_json([binary, "import", os.path.abspath(mbox), "--data-dir", data_dir, "--json", "--quiet"])
    stats = run_json([binary, "stats", "--data-dir", data_dir, "--json"])

    texts = mbox_texts(mbox)
    db = sqlite3.connect("file:%s?mode=ro" % os.path.join(data_dir, "mail.sqlite"), uri=True)
    stored = {mid: (tid, subj, body) for mid, tid, subj, body in
              db.execute("SELECT messageId, threadId, subject, bodyPlain FROM emails")}
    thread_of = {mid: v[0] for mid, v in stored.items()}
    subject_of = {mid: t[0] for mid, t in texts.items()}
    lang_of = {mid: mid.split(".", 1)[0] for mid in texts}
    undecoded = []
    by_charset = {}
    for mid, (subject, body, charset) in sorted(texts.items()):
        key = "%s %s" % (lang_of[mid], charset)
        by_charset.setdefault(key, [0, 0])
        by_charset[key][0] += 1
        got = stored.get(mid)
        ok = got is not None and squash(got[1]) == squash(subject) and "\ufffd" not in got[2] \
            and squash(body)[:300] in squash(got[2])
        if not ok:
            by_charset[key][1] += 1
            undecoded.append({"id": mid, "charset": charset, "missing": got is None,
                              "subject": subject, "stored_subject": got[1] if got else None,
                              "stored_body": got[2][:120] if got else None})

    now = {}
    hits_of = {}
    for q in queries:
        page = run_json([binary, "search", q["query"], "--mode", "keyword", "--json", "--limit", str(args.limit),
                         "--no-history", "--data-dir", data_dir])
        tids = [r["threadId"] for r in page["results"]]
        hits_of[q["id"]] = page["results"]
        target = thread_of.get(q["target"])
        now[q["id"]] = tids.index(target) + 1 if target in tids else None
    # Precision of the match: every result (top --limit) should hold the query's CJK word as written
    # (subject + body as Python decodes them; bigrams could match the word's pieces apart).
    mids_of_thread = {}
    for mid, tid in thread_of.items():
        mids_of_thread.setdefault(tid, []).append(mid)
    holding = returned = 0
    strays = []
    for q in queries:
        word = [w for w in q["query"].split() if not w.isascii()][0]
        for r in hits_of[q["id"]]:
            returned += 1
            if any(word in texts[m][0] + "\n" + texts[m][1] for m in mids_of_thread.get(r["threadId"], []) if m in texts):
                holding += 1
            else:
                strays.append({"id": q["id"], "query": q["query"], "subject": r["subject"]})
    # What a person sees: does the target's snippet show the CJK word of the query, highlighted?
    snippet_misses = []
    for q in queries:
        if now[q["id"]] is None:
            continue
        r = hits_of[q["id"]][now[q["id"]] - 1]
        word = [w for w in q["query"].split() if not w.isascii()][0]
        snip = r.get("snippet", "")
        lit = [snip[h["start"]:h["start"] + h["length"]] for h in r.get("highlights", []) if h.get("field") == "snippet"]
        if word not in snip or not any(word in x or x in word for x in lit if x):
            snippet_misses.append({"id": q["id"], "query": q["query"], "word": word, "in_snippet": word in snip,
                                   "highlighted": lit, "snippet": snip})
    failures = []
    for q in queries:
        if now[q["id"]] is not None:
            continue
        page = run_json([binary, "search", q["query"], "--mode", "keyword", "--json", "--limit", "500",
                         "--no-history", "--data-dir", data_dir])
        tids = [r["threadId"] for r in page["results"]]
        target = thread_of.get(q["target"])
        failures.append({"id": q["id"], "query": q["query"], "kind": q["kind"], "lang": q["lang"],
                         "position": q.get("position"), "target_subject": subject_of.get(q["target"]), "df": q.get("df"),
                         "rank": tids.index(target) + 1 if target in tids else None,
                         "matched": page.get("matchedConversations"), "context": q.get("context")})

    before = before_simulation(texts, queries, args.limit)
    columns = {"now": now, "before-sim prefix": before["prefix"], "before-sim exact": before["exact"]}
    rows = table(queries, columns)

    langs = {}
    for mid, (_, _, charset) in texts.items():
        langs.setdefault(lang_of[mid], {}).setdefault(charset, 0)
        langs[lang_of[mid]][charset] += 1
    print("CJK keyword search, Success@%d (%s; %d queries)" % (args.limit, args.set, len(queries)))
    print("emails in the mbox: %d (%s)" % (len(texts), "; ".join(
        "%s %d: %s" % (lang, sum(c.values()), ", ".join("%s %d" % kv for kv in sorted(c.items())))
        for lang, c in sorted(langs.items()))))
    print("import: %d imported, %d failed, %d duplicates; stats: %d emails, %d threads" % (
        imported.get("imported", 0), imported.get("failed", 0), imported.get("duplicates", 0),
        stats.get("emails", 0), stats.get("threads", 0)))
    print("not decoded as Python decodes them (subject or body differs, or U+FFFD): %d of %d%s" % (
        len(undecoded), len(texts), "".join("\n  %s: %d of %d" % (k, v[1], v[0])
                                             for k, v in sorted(by_charset.items()) if v[1])))
    print()
    print("%-16s %4s  %8s  %18s  %17s" % ("", "n", "now", "before-sim prefix", "before-sim exact"))
    for label, n, vals in rows:
        print("%-16s %4d  %8.3f  %18.3f  %17.3f" % (label, n, vals["now"], vals["before-sim prefix"],
                                                    vals["before-sim exact"]))
    print("(before-sim: a simulation of the old tokenizer, unicode61 remove_diacritics 2, in Python's sqlite3 FTS5)")
    print()
    print("failures now (%d):" % len(failures))
    for f in failures:
        print("  %s [%s %s, df %s] %r -> %s; target %s" % (
            f["id"], f["lang"], f["kind"], f["df"], f["query"],
            "rank %d" % f["rank"] if f["rank"] else "not matched (%s conversations matched)" % f["matched"],
            f["target_subject"]))
    print()
    print("results holding the query's CJK word as written: %d of %d%s" % (
        holding, returned, "".join("\n  %s %r: %s" % (x["id"], x["query"], x["subject"][:70]) for x in strays[:20])))
    found = sum(1 for q in queries if now[q["id"]] is not None)
    print()
    print("snippets: the target's snippet shows its CJK query word highlighted for %d of %d found targets; not for:"
          % (found - len(snippet_misses), found))
    for m in snippet_misses:
        print("  %s %r: %s%s" % (m["id"], m["query"], "word in the snippet but not highlighted (highlights %s)"
                                 % m["highlighted"] if m["in_snippet"] else "word not in the snippet", " | " + m["snippet"][:70]))
    if args.show:
        print()
        for lang in LANGS:
            for q in [q for q in queries if q["lang"] == lang][:args.show]:
                print("%s %r (target rank %s): %s" % (q["id"], q["query"], now[q["id"]], q["target"]))
                for r in hits_of[q["id"]][:3]:
                    print("    %s | %s" % (r["subject"][:70], r.get("snippet", "")[:90]))
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"set": args.set, "mbox_sha256": mbox_sha, "binary": binary, "limit": args.limit,
                       "emails": len(texts), "languages": langs, "import": imported,
                       "stats": {k: stats.get(k) for k in ("emails", "threads")},
                       "undecoded": undecoded,
                       "success": [{"group": label, "n": n, **vals} for label, n, vals in rows],
                       "ranks": [{"id": q["id"], "query": q["query"], "lang": q["lang"], "kind": q["kind"],
                                  "position": q.get("position"),
                                  "now": now[q["id"]], "before_prefix": before["prefix"][q["id"]],
                                  "before_exact": before["exact"][q["id"]]} for q in queries],
                       "failures": failures, "snippet_misses": snippet_misses,
                       "precision": {"holding": holding, "returned": returned, "strays": strays}}, f, indent=1, ensure_ascii=False)
            f.write("\n")


if __name__ == "__main__":
    main()
