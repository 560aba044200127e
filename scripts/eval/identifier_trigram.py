#!/usr/bin/env python3
"""Parts of identifiers (issue 35): a trigram index on an identifiers-only column, measured against
the tokenizer that ships, on the queries of scripts/eval/identifier_queries.py.

    make eval-identifiers-trigram     (bench-data/insights-usrp and -spamassassin, --per-kind 8)
    scripts/eval/identifier_trigram.py DATA_DIR [DATA_DIR…] [--mailsearch BINARY] [--per-kind N]
        [--seed S] [--words N] [--runs N] [--work DIR] [--json OUT]

DATA_DIR: an imported mailbox (its mail.sqlite is read): the full imports of usrp-users and the
SpamAssassin lists that `make eval-insights` leaves in bench-data/insights-* (README's identifier
figures: --per-kind 8), or the eval sets' cleaned text in bench-data/eval-*-clean (`make eval`).
Needs gcc and sqlite3ext.h (libsqlite3-dev) for c, /usr/share/dict/words (wamerican) for the words.

Three schemes, each a file database of its own built from the emails' subject and body in SQLite's FTS5
(the system libsqlite3, through ctypes so that the `mailsearch` tokenizer can be loaded; Python's
sqlite3 module is built without extension loading):

  a  unicode61       fts5(subject, body, tokenize='unicode61 remove_diacritics 2', prefix='2'): the
                     keyword index before the identifier tokenizer
  b  + trigram ids   a, and an identifiers-only column: for every email the code-like tokens of its
                     subject and body (identifier_queries.PATTERNS: snake_case, dotted, paths,
                     letters+digits codes, camelCase, hex ids), each once, joined by spaces, in
                     fts5(ids, tokenize='trigram'). A query word of three or more characters that looks
                     code-like (a digit, `_`, `.` or `/` inside, or a capital after a small letter) is
                     also searched there as a substring; the matches are ORed with a's (an email's rank
                     the sum of its two BM25 values, so one matching both comes first)
  c  mailsearch      a with tokenize='mailsearch remove_diacritics 2' (Sources/CRanking/ms_tokenizer.c,
                     compiled here with gcc as a loadable extension): what ships

A query is the word as FTS5QueryBuilder writes it (`"word"*`, BM25 with the index's weights subject 10,
body 1); the conversations are ranked by their best email, the first 20 kept. A query succeeds as in
identifier_queries.py: one of the 20 holds an email whose text has the whole identifier. With
--mailsearch, the queries also run through the binary itself (identifier_queries.search, the figure
that ships); a data directory whose schema is older than the binary is copied into the work directory
and upgraded there (the original is left alone).

Reported: Success@20 per kind and corpus; each index's size (bytes of its file after VACUUM) and build
time (median of --runs; the identifiers column's is the Python extraction plus the FTS5 insert), per
message; query time p50/p95 (each query's best of --runs, the schemes interleaved) over the identifier
queries and over --words ordinary English words per corpus (in /usr/share/dict/words, in five or more
emails, drawn with the seed), with `b_all`: the trigram column searched for every word of three or
more characters, not only code-like ones, and the binary's own `tookMs` with --mailsearch; and b's false positives: emails matched only by the trigram
column with no identifier holding the query at a part boundary (its start, or after `_ . / - +`, a
camelCase boundary, a letters/digits boundary or `0x`), and the top-20 conversations held only by them.

The identifiers column is made with the very patterns the queries are drawn from, so b always has the
target identifier in its column: the comparison favours b.
"""
import argparse
import ctypes
import ctypes.util
import json
import math
import os
import random
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import identifier_queries as iq  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
KINDS = ["prefix", "snake", "dotted", "path", "digits", "camel", "hex"]
# FTS5QueryBuilder.stopWords and questionWords of four or more letters: not "ordinary" query words.
FUNCTION_WORDS = {"from", "have", "that", "their", "them", "then", "there", "these", "they", "this", "were", "will",
                  "with", "your", "about", "been", "could", "does", "here", "into", "just", "might", "must", "over",
                  "shall", "should", "some", "than", "those", "under", "what", "when", "where", "which", "whom",
                  "would"}
CODE_LIKE = re.compile(r"[0-9]|[A-Za-z0-9][_./][A-Za-z0-9]|[a-z][A-Z]")
EXTENSION_C = r"""
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1
int ms_register_tokenizer(fts5_api *api);
int sqlite3_extension_init(sqlite3 *db, char **error, const sqlite3_api_routines *routines) {
    SQLITE_EXTENSION_INIT2(routines);
    fts5_api *api = 0;
    sqlite3_stmt *statement = 0;
    if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &statement, 0) != SQLITE_OK) return SQLITE_ERROR;
    sqlite3_bind_pointer(statement, 1, (void *)&api, "fts5_api_ptr", 0);
    sqlite3_step(statement);
    sqlite3_finalize(statement);
    return api ? ms_register_tokenizer(api) : SQLITE_ERROR;
}
"""


class Lite:
    """A connection to the system libsqlite3 through ctypes: the one driver of every build and query."""
    lib = None

    @classmethod
    def library(cls):
        if cls.lib is None:
            lib = ctypes.CDLL(ctypes.util.find_library("sqlite3") or "libsqlite3.so.0")
            p, i, s = ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p
            for name, res, args in [
                ("sqlite3_libversion", s, []),
                ("sqlite3_open_v2", i, [s, ctypes.POINTER(p), i, s]),
                ("sqlite3_close_v2", i, [p]),
                ("sqlite3_errmsg", s, [p]),
                ("sqlite3_exec", i, [p, s, p, p, ctypes.POINTER(s)]),
                ("sqlite3_enable_load_extension", i, [p, i]),
                ("sqlite3_load_extension", i, [p, s, s, ctypes.POINTER(s)]),
                ("sqlite3_prepare_v2", i, [p, s, i, ctypes.POINTER(p), p]),
                ("sqlite3_bind_text", i, [p, i, s, i, p]),
                ("sqlite3_step", i, [p]),
                ("sqlite3_reset", i, [p]),
                ("sqlite3_clear_bindings", i, [p]),
                ("sqlite3_finalize", i, [p]),
                ("sqlite3_column_count", i, [p]),
                ("sqlite3_column_type", i, [p, i]),
                ("sqlite3_column_int64", ctypes.c_int64, [p, i]),
                ("sqlite3_column_double", ctypes.c_double, [p, i]),
                ("sqlite3_column_text", s, [p, i]),
            ]:
                f = getattr(lib, name)
                f.restype, f.argtypes = res, args
            cls.lib = lib
        return cls.lib

    def __init__(self, path):
        self.l = self.library()
        self.db = ctypes.c_void_p()
        if self.l.sqlite3_open_v2(path.encode(), ctypes.byref(self.db), 0x2 | 0x4, None) != 0:
            raise RuntimeError(f"cannot open {path}")
        self.statements = {}

    def error(self, what):
        raise RuntimeError(f"{what}: {self.l.sqlite3_errmsg(self.db).decode()}")

    def load(self, path):
        self.l.sqlite3_enable_load_extension(self.db, 1)
        err = ctypes.c_char_p()
        if self.l.sqlite3_load_extension(self.db, path.encode(), None, ctypes.byref(err)) != 0:
            raise RuntimeError(f"cannot load {path}: {err.value}")

    def execute(self, sql):
        err = ctypes.c_char_p()
        if self.l.sqlite3_exec(self.db, sql.encode(), None, None, ctypes.byref(err)) != 0:
            raise RuntimeError(f"{sql[:80]}…: {err.value.decode() if err.value else ''}")

    def rows(self, sql, *params):
        """Every row of a (cached) statement with text parameters; ints, floats, text or None."""
        stmt = self.statements.get(sql)
        if stmt is None:
            stmt = ctypes.c_void_p()
            if self.l.sqlite3_prepare_v2(self.db, sql.encode(), -1, ctypes.byref(stmt), None) != 0:
                self.error(sql[:80])
            self.statements[sql] = stmt
        for k, v in enumerate(params, 1):
            b = v.encode()
            self.l.sqlite3_bind_text(stmt, k, b, len(b), ctypes.c_void_p(-1))  # SQLITE_TRANSIENT
        out = []
        n = self.l.sqlite3_column_count(stmt)
        while True:
            rc = self.l.sqlite3_step(stmt)
            if rc == 101:
                break
            if rc != 100:
                self.l.sqlite3_reset(stmt)
                self.error(sql[:80])
            row = []
            for c in range(n):
                t = self.l.sqlite3_column_type(stmt, c)
                row.append(self.l.sqlite3_column_int64(stmt, c) if t == 1 else
                           self.l.sqlite3_column_double(stmt, c) if t == 2 else
                           self.l.sqlite3_column_text(stmt, c).decode("utf-8", "replace") if t == 3 else None)
            out.append(row)
        self.l.sqlite3_reset(stmt)
        self.l.sqlite3_clear_bindings(stmt)
        return out

    def close(self):
        for stmt in self.statements.values():
            self.l.sqlite3_finalize(stmt)
        self.l.sqlite3_close_v2(self.db)


def compile_tokenizer(work):
    """The mailsearch tokenizer as a loadable extension, or None (and why) when it cannot be built."""
    if not shutil.which("gcc"):
        return None, "no gcc"
    src = os.path.join(work, "ext.c")
    with open(src, "w") as f:
        f.write(EXTENSION_C)
    so = os.path.join(work, "mstok.so")
    out = subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-I" + os.path.join(ROOT, "Sources/CRanking/include"),
                          src, os.path.join(ROOT, "Sources/CRanking/ms_tokenizer.c"), "-o", so],
                         capture_output=True, text=True)
    if out.returncode != 0:
        return None, out.stderr.strip()[-300:]
    return so, None


def identifiers_of(text):
    seen = []
    found = set()
    for pattern in iq.PATTERNS.values():
        for m in pattern.finditer(text):
            if m.group(0) not in found:
                found.add(m.group(0))
                seen.append(m.group(0))
    return seen


def size_after_vacuum(path, extension=None):
    db = Lite(path)
    if extension:
        db.load(extension)
    db.execute("VACUUM")
    rows = db.rows("SELECT page_count * page_size FROM pragma_page_count, pragma_page_size")
    db.close()
    return rows[0][0]


TOKENIZERS = {"a": "unicode61 remove_diacritics 2", "c": "mailsearch remove_diacritics 2"}


def build_body(path, mail, tokenizer, extension):
    """Seconds to build fts(subject, body) of `mail`'s emails into a fresh file `path`."""
    for p in (path, path + "-journal"):
        if os.path.exists(p):
            os.remove(p)
    db = Lite(path)
    if extension:
        db.load(extension)
    db.execute("PRAGMA journal_mode = OFF")
    db.execute(f"ATTACH '{mail}' AS mail")
    start = time.perf_counter()
    db.execute("BEGIN")
    db.execute(f"CREATE VIRTUAL TABLE fts USING fts5(subject, body, tokenize='{tokenizer}', prefix='2')")
    db.execute("INSERT INTO fts (rowid, subject, body) SELECT id, subject, bodyPlain FROM mail.emails ORDER BY id")
    db.execute("INSERT INTO fts (fts) VALUES ('optimize')")
    db.execute("COMMIT")
    seconds = time.perf_counter() - start
    db.execute("DETACH mail")
    db.close()
    return seconds


def build_trigram(path, rows):
    """(extraction seconds, insert seconds, {email id: identifiers}) for the identifiers-only column."""
    for p in (path, path + "-journal"):
        if os.path.exists(p):
            os.remove(p)
    start = time.perf_counter()
    idents = {email_id: identifiers_of(text) for email_id, _, text in rows}
    extract = time.perf_counter() - start
    staging = path + ".staging"
    if os.path.exists(staging):
        os.remove(staging)
    with sqlite3.connect(staging) as s:  # the column's text, written before the clock starts
        s.execute("CREATE TABLE ids (id INTEGER PRIMARY KEY, ids TEXT)")
        s.executemany("INSERT INTO ids VALUES (?, ?)", ((k, " ".join(v)) for k, v in idents.items() if v))
    s.close()
    db = Lite(path)
    db.execute("PRAGMA journal_mode = OFF")
    db.execute(f"ATTACH '{staging}' AS staging")
    start = time.perf_counter()
    db.execute("BEGIN")
    db.execute("CREATE VIRTUAL TABLE fts USING fts5(ids, tokenize='trigram')")
    db.execute("INSERT INTO fts (rowid, ids) SELECT id, ids FROM staging.ids ORDER BY id")
    db.execute("INSERT INTO fts (fts) VALUES ('optimize')")
    db.execute("COMMIT")
    insert = time.perf_counter() - start
    db.execute("DETACH staging")
    db.close()
    os.remove(staging)
    return extract, insert, idents


def quoted(word):
    return '"' + word.replace('"', '""') + '"'


def code_like(word):
    return len(word) >= 3 and CODE_LIKE.search(word) is not None


# bm25() cannot be read from a flattened subquery: the matches are a materialized CTE.
SQL_BODY = """WITH m AS MATERIALIZED (SELECT rowid AS id, bm25(fts, 10.0, 1.0) AS r FROM {s}.fts WHERE fts MATCH ?1)
  SELECT t.thread FROM m JOIN thread_of t ON t.id = m.id GROUP BY t.thread ORDER BY MIN(m.r), t.thread LIMIT 20"""
SQL_BOTH = """WITH m1 AS MATERIALIZED (SELECT rowid AS id, bm25(fts, 10.0, 1.0) AS r FROM a.fts WHERE fts MATCH ?1),
  m2 AS MATERIALIZED (SELECT rowid AS id, bm25(fts) AS r FROM b.fts WHERE fts MATCH ?2),
  m AS (SELECT id, SUM(r) AS r FROM (SELECT * FROM m1 UNION ALL SELECT * FROM m2) GROUP BY id)
  SELECT t.thread FROM m JOIN thread_of t ON t.id = m.id GROUP BY t.thread ORDER BY MIN(m.r), t.thread LIMIT 20"""


def run_scheme(db, scheme, word):
    """The top-20 conversations of `word` under a scheme (b_all: trigram for any word of 3+ characters)."""
    prefix = quoted(word) + "*"
    if scheme in ("a", "c"):
        return [r[0] for r in db.rows(SQL_BODY.format(s=scheme), prefix)]
    if (scheme == "b" and code_like(word)) or (scheme == "b_all" and len(word) >= 3):
        return [r[0] for r in db.rows(SQL_BOTH, prefix, quoted(word))]
    return [r[0] for r in db.rows(SQL_BODY.format(s="a"), prefix)]


BOUNDARY_SEPARATORS = set("_./-+")


def at_part_boundary(ident, query):
    """True when `query` occurs in `ident` (any case) starting where a part of it starts."""
    low, q = ident.lower(), query.lower()
    i = low.find(q)
    while i >= 0:
        if i == 0 or ident[i - 1] in BOUNDARY_SEPARATORS:
            return True
        p, c = ident[i - 1], ident[i]
        nxt = ident[i + 1] if i + 1 < len(ident) else ""
        if ((p.islower() and c.isupper()) or (p.isupper() and c.isupper() and nxt.islower())
                or (p.isalpha() and c.isdigit()) or (p.isdigit() and c.isalpha())
                or (i == 2 and low.startswith("0x"))):
            return True
        i = low.find(q, i + 1)
    return False


def percentile(values, p):
    if not values:
        return None
    s = sorted(values)
    return s[max(0, math.ceil(p * len(s)) - 1)]


def english_words(rows, n, rng):
    dictionary = set()
    for path in ("/usr/share/dict/words", "/usr/share/dict/american-english"):
        if os.path.exists(path):
            with open(path, encoding="utf-8", errors="replace") as f:
                dictionary |= {w.strip() for w in f if re.fullmatch(r"[a-z]{4,12}", w.strip())}
            break
    if not dictionary:
        raise SystemExit("no /usr/share/dict/words (Debian: wamerican)")
    df = defaultdict(int)
    for _, _, text in rows:
        for w in set(re.findall(r"(?<![\w.])[a-z]{4,12}(?![\w])", text)):
            df[w] += 1
    candidates = sorted(w for w, c in df.items() if c >= 5 and w in dictionary and w not in FUNCTION_WORDS)
    words = rng.sample(candidates, min(n, len(candidates)))
    return words, {w: df[w] for w in words}


def binary_dir(binary, data_dir, work, name):
    """A data directory the binary can search with --no-history: data_dir, or an upgraded copy in work."""
    try:
        iq.search(binary, data_dir, "hello")
        return data_dir, None
    except RuntimeError as e:
        if "schema is older" not in str(e):
            raise
    copy = os.path.join(work, name + "-upgraded")
    shutil.rmtree(copy, ignore_errors=True)
    os.makedirs(copy)
    for f in ("mail.sqlite", "search.sqlite"):
        if os.path.exists(os.path.join(data_dir, f)):
            shutil.copy2(os.path.join(data_dir, f), copy)
    subprocess.run([binary, "search", "hello", "--data-dir", copy, "--mode", "keyword", "--limit", "1", "--json"],
                   capture_output=True, text=True, check=True, timeout=600)
    return copy, f"{data_dir}: schema older than {binary}; searched an upgraded copy"


def binary_search(binary, data_dir, word):
    out = subprocess.run([binary, "search", word, "--data-dir", data_dir, "--mode", "keyword", "--limit", "20",
                          "--json", "--no-history"], capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise RuntimeError(f"search {word!r} failed: {out.stderr.strip()}")
    page = json.loads(out.stdout)
    return [r["threadId"] for r in page["results"]], page.get("tookMs")


def cpu():
    info = open("/proc/cpuinfo").read()
    name = re.search(r"model name\s*:\s*(.*)", info)
    flags = set(re.search(r"flags\s*:\s*(.*)", info).group(1).split())
    return "%s, %d cores (%s)" % (name.group(1).strip() if name else "?", os.cpu_count(),
                                  " ".join(f for f in ("avx2", "avx512f") if f in flags) or "no avx2")


def fmt_ms(v):
    return "-" if v is None else ("%.2f" % (v * 1000))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data_dirs", nargs="+")
    parser.add_argument("--mailsearch", help="also run the queries through this binary (what ships)")
    parser.add_argument("--per-kind", type=int, default=10)
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument("--words", type=int, default=50, help="ordinary English words per corpus")
    parser.add_argument("--runs", type=int, default=3, help="builds per index; runs per query (the best kept)")
    parser.add_argument("--work", help="keep the indexes here (default: a temporary directory, removed)")
    parser.add_argument("--json", help="write every query, its outcome and every figure here")
    args = parser.parse_args()

    if sqlite3.sqlite_version_info < (3, 34, 0):
        raise SystemExit(f"SQLite {sqlite3.sqlite_version}: FTS5's trigram tokenizer needs 3.34")
    lib_version = Lite.library().sqlite3_libversion().decode()
    work = args.work or tempfile.mkdtemp(prefix="identifier-trigram-")
    os.makedirs(work, exist_ok=True)
    extension, why = compile_tokenizer(work)
    schemes = ["a", "b"] + (["c"] if extension else [])
    print(f"CPU: {cpu()}; load average at start: {open('/proc/loadavg').read().split()[:3]}")
    print(f"SQLite {sqlite3.sqlite_version} (Python's sqlite3), {lib_version} (ctypes); "
          f"mailsearch tokenizer: {'compiled with gcc -O2' if extension else 'not built: ' + why}")
    report = {"cpu": cpu(), "sqlite": lib_version, "corpora": [], "queries": [], "words": []}
    notes = []

    for data_dir in args.data_dirs:
        name = os.path.basename(os.path.normpath(data_dir))
        mail = os.path.join(data_dir, "mail.sqlite")
        queries = iq.build(mail, args.per_kind, random.Random(args.seed))
        with sqlite3.connect(mail) as m:
            rows = m.execute("SELECT id, threadId, subject || ' ' || bodyPlain FROM emails").fetchall()
            thread_rows = m.execute("SELECT id, COALESCE(threadId, -id) FROM emails").fetchall()
        m.close()
        words, word_df = english_words(rows, args.words, random.Random(args.seed))
        emails = len(rows)
        text_bytes = sum(len(t.encode()) for _, _, t in rows)

        # Builds, alternating, the median of --runs; the sizes of the last after VACUUM.
        paths = {"a": os.path.join(work, name + "-unicode61.sqlite"), "b": os.path.join(work, name + "-trigram.sqlite"),
                 "c": os.path.join(work, name + "-mailsearch.sqlite")}
        times = defaultdict(list)
        idents = {}
        for _ in range(args.runs):
            times["a"].append(build_body(paths["a"], mail, TOKENIZERS["a"], None))
            extract, insert, idents = build_trigram(paths["b"], rows)
            times["b_extract"].append(extract)
            times["b_insert"].append(insert)
            times["b"].append(extract + insert)
            if extension:
                times["c"].append(build_body(paths["c"], mail, TOKENIZERS["c"], extension))
        build = {k: statistics.median(v) for k, v in times.items()}
        sizes = {k: size_after_vacuum(paths[k], extension) for k in schemes}
        ident_count = sum(len(v) for v in idents.values())
        ident_bytes = sum(len(" ".join(v).encode()) for v in idents.values())

        db = Lite(":memory:")
        if extension:
            db.load(extension)
        db.execute("CREATE TABLE thread_of (id INTEGER PRIMARY KEY, thread INTEGER)")
        db.execute("BEGIN")
        for email_id, thread in thread_rows:
            db.rows("INSERT INTO thread_of VALUES (?1, ?2)", str(email_id), str(thread))
        db.execute("COMMIT")
        for k in schemes:
            db.execute(f"ATTACH '{paths[k]}' AS {k}")

        # Every query under every scheme: the outcome, then the best time of --runs, schemes interleaved.
        timed = schemes + ["b_all"]
        best = defaultdict(lambda: defaultdict(lambda: math.inf))
        for q in queries:
            q["corpus"] = name
            q["code_like"] = code_like(q["query"])
            for s in schemes:
                q[s] = any(t in q["threads"] for t in run_scheme(db, s, q["query"]))
        for item in [("q", q["query"]) for q in queries] + [("w", w) for w in words]:
            for _ in range(args.runs):
                for s in timed:
                    start = time.perf_counter()
                    run_scheme(db, s, item[1])
                    best[item][s] = min(best[item][s], time.perf_counter() - start)

        # b's false positives: emails only the trigram column matched, with no identifier holding the query at a
        # part boundary; and the top-20 conversations that only such emails put there.
        thread_of = dict(thread_rows)
        fp = {"queries": 0, "trigram_emails": 0, "substring_only": 0, "queries_with_any": 0, "top20": 0,
              "top20_substring_only": 0}
        for q in queries:
            if not q["code_like"]:
                continue
            word = q["query"]
            tri = {r[0] for r in db.rows("SELECT rowid FROM b.fts WHERE fts MATCH ?1", quoted(word))}
            body = {r[0] for r in db.rows("SELECT rowid FROM a.fts WHERE fts MATCH ?1", quoted(word) + "*")}
            bad = {e for e in tri - body if not any(at_part_boundary(i, word) for i in idents.get(e, []))}
            top = run_scheme(db, "b", word)
            by_thread = defaultdict(set)
            for e in tri | body:
                by_thread[thread_of[e]].add(e)
            bad_threads = [t for t in top if by_thread[t] and by_thread[t] <= bad]
            q["trigram_matches"], q["substring_only"] = len(tri), len(bad)
            q["top20_substring_only"] = len(bad_threads)
            fp["queries"] += 1
            fp["trigram_emails"] += len(tri)
            fp["substring_only"] += len(bad)
            fp["queries_with_any"] += bool(bad_threads)
            fp["top20"] += len(top)
            fp["top20_substring_only"] += len(bad_threads)
        db.close()

        binary_note = None
        if args.mailsearch:
            search_dir, binary_note = binary_dir(args.mailsearch, data_dir, work, name)
            if binary_note:
                notes.append(binary_note)
                print(binary_note)
            for q in queries:
                threads, took = binary_search(args.mailsearch, search_dir, q["query"])
                q["ships"] = any(t in q["threads"] for t in threads)
                q["ships_ms"] = took
            word_ms = {w: binary_search(args.mailsearch, search_dir, w)[1] for w in words}
        for q in queries:
            q["ms"] = {s: best[("q", q["query"])][s] * 1000 for s in timed}
        report["queries"] += queries
        for w in words:
            report["words"].append({"corpus": name, "word": w, "emails": word_df[w],
                                    "ms": {s: best[("w", w)][s] * 1000 for s in timed},
                                    **({"ships_ms": word_ms[w]} if args.mailsearch else {})})
        corpus = {"name": name, "emails": emails, "text_bytes": text_bytes, "identifiers": ident_count,
                  "identifier_bytes": ident_bytes, "build_s": build, "size_bytes": sizes, "false_positives": fp,
                  "queries": len(queries), "words": len(words), "note": binary_note}
        report["corpora"].append(corpus)

        # This corpus's lines.
        print(f"\n{name}: {emails:,} emails, {text_bytes:,} bytes of subject and body; identifiers column: "
              f"{ident_count:,} identifiers, {ident_bytes:,} bytes")
        cols = schemes + (["ships"] if args.mailsearch else [])
        label = {"a": "a unicode61", "b": "b +trigram ids", "c": "c mailsearch (sim.)", "ships": "c mailsearch (binary)"}
        print("  Success@20    " + "".join(f"{label[c]:>24}" for c in cols))
        for kind in KINDS + ["all"]:
            qs = [q for q in queries if kind == "all" or q["kind"] == kind]
            if qs:
                print(f"  {kind:12}" + "".join(f"{'%d/%d' % (sum(q[c] for q in qs), len(qs)):>24}" for c in cols))
        for s in schemes:
            per = build[s] / emails * 1e6
            extra = "" if s == "a" else f"  (+{sizes[s] if s == 'b' else sizes[s] - sizes['a']:,} bytes over a)"
            detail = (f" = extraction {build['b_extract']:.3f} s + FTS5 insert {build['b_insert']:.3f} s"
                      if s == "b" else "")
            print(f"  index {label[s]:20} {sizes[s]:>12,} bytes{extra}; build {build[s]:.3f} s{detail}"
                  f" ({per:.0f} µs/email)")
        print(f"  b's trigram matches on {fp['queries']} code-like queries: {fp['trigram_emails']} emails, "
              f"{fp['substring_only']} of them substring-only (no identifier with the query at a part boundary); "
              f"top-20 conversations held only by those: {fp['top20_substring_only']} of {fp['top20']} "
              f"({fp['queries_with_any']} queries)")

    # Query times over every corpus.
    print("\nquery time, ms, each query's best of %d (p50 / p95, n queries):" % args.runs)
    for label, items in (("identifier queries", [q["ms"] for q in report["queries"]]),
                         ("English words", [w["ms"] for w in report["words"]])):
        parts = []
        for s in schemes + ["b_all"]:
            v = [i[s] / 1000 for i in items]
            parts.append(f"{s} {fmt_ms(percentile(v, .5))} / {fmt_ms(percentile(v, .95))}")
        print(f"  {label} (n={len(items)}): " + "; ".join(parts))
    if args.mailsearch:
        for label, items in (("identifier queries", report["queries"]), ("English words", report["words"])):
            v = [i["ships_ms"] / 1000 for i in items if i.get("ships_ms") is not None]
            print(f"  the binary's own tookMs, {label} (n={len(v)}): {fmt_ms(percentile(v, .5))} / "
                  f"{fmt_ms(percentile(v, .95))}")
    print(f"load average at end: {open('/proc/loadavg').read().split()[:3]}")
    for q in report["queries"]:
        misses = [s for s in schemes + (["ships"] if args.mailsearch else []) if not q[s]]
        if misses:
            print(f"  not found by {','.join(misses)}: {q['kind']:7} {q['query']!r} (in {q['identifier']!r}, "
                  f"{q['corpus']})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1, ensure_ascii=False)
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
