#!/usr/bin/env python3
"""Parts of identifiers, searched as a person would, on real list mail.

    scripts/eval/identifier_queries.py MAILSEARCH DATA_DIR [DATA_DIR…] [--per-kind N] [--seed S] [--json OUT]

For each data directory (an imported mailbox: mail.sqlite, search.sqlite made on first search),
finds identifiers and code-like tokens in the emails' text and makes one query per identifier
from a part of it:

  prefix      the identifier without its last character (`TB019` for TB0193, `B200mi` for B200mini)
  snake       the last two parts of a snake_case name (`wired_entry` for add_wired_entry)
  dotted      the last two parts of a dotted name (`bar.baz` for foo.bar.baz, `28.1` for 2.28.1)
  path        the last two parts of a file path (`lib/libuhd.so` for /usr/local/lib/libuhd.so)
  digits      the digits after the letters of a letters+digits code (`0193` for TB0193)
  camel       a camelCase name of three or four words without its first (`RxFreq` for setRxFreq)
  hex         the first 8 characters of a long hexadecimal id

Only identifiers in at most 5 emails are used (so the top 20 can hold them), each once, drawn
with a fixed seed. A query succeeds when one of the top 20 conversations of
`mailsearch search QUERY --mode keyword --limit 20` holds an email whose text has the whole
identifier. Prints Success@20 per kind and corpus, and the failures.
"""
import argparse
import json
import random
import re
import sqlite3
import subprocess
import sys
from collections import defaultdict

PATTERNS = {
    "snake": re.compile(r"(?<![\w.])[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+){2,}(?![\w])"),
    "dotted": re.compile(r"(?<![\w./])[A-Za-z0-9]+(?:\.[A-Za-z0-9]+){2,}(?![\w/])"),
    "path": re.compile(r"(?<![\w/])(?:/[A-Za-z0-9_.+-]+){3,}"),
    "code": re.compile(r"(?<![\w.])[A-Za-z]{1,6}[0-9]{3,8}(?![\w])"),
    "camel": re.compile(r"(?<![\w.])[a-z]{2,}(?:[A-Z][a-z]{2,}){2,3}(?![\w])"),
    "hex": re.compile(r"(?<![\w])(?:0x)?[0-9a-f]{12,40}(?![\w])"),
}


def queries_for(kind, ident):
    """(query kind, query text) pairs made from one identifier of a pattern kind."""
    out = []
    if kind == "snake":
        parts = ident.split("_")
        out.append(("snake", "_".join(parts[-2:])))
    elif kind == "dotted":
        parts = ident.split(".")
        out.append(("dotted", ".".join(parts[-2:])))
    elif kind == "path":
        parts = [p for p in ident.split("/") if p]
        out.append(("path", "/".join(parts[-2:])))
    elif kind == "code":
        if len(ident) >= 5:
            out.append(("prefix", ident[:-1]))
        digits = re.match(r"[A-Za-z]+([0-9]+)", ident)
        if digits and len(digits.group(1)) >= 3:
            out.append(("digits", digits.group(1)))
    elif kind == "camel":
        capitals = [i for i, c in enumerate(ident) if c.isupper()]
        if capitals:
            out.append(("camel", ident[capitals[0]:]))
    elif kind == "hex":
        h = ident[2:] if ident.startswith("0x") else ident
        if re.search(r"[a-f]", h) and re.search(r"[0-9]", h):
            out.append(("hex", h[:8]))
    return out


def build(db_path, per_kind, rng):
    db = sqlite3.connect(db_path)
    rows = db.execute("SELECT id, threadId, subject || ' ' || bodyPlain FROM emails").fetchall()
    found = defaultdict(lambda: defaultdict(set))  # kind → identifier → email ids
    for email_id, _, text in rows:
        for kind, pattern in PATTERNS.items():
            for m in pattern.finditer(text):
                found[kind][m.group(0)].add(email_id)
    thread_of = {email_id: thread for email_id, thread, _ in rows}
    text_of = {email_id: text for email_id, _, text in rows}
    queries = []
    used = set()
    for kind in PATTERNS:
        candidates = sorted(ident for ident, ids in found[kind].items() if len(ids) <= 5)
        rng.shuffle(candidates)
        per_query_kind = defaultdict(int)
        for ident in candidates:
            for qkind, q in queries_for(kind, ident):
                if per_query_kind[qkind] >= per_kind or q in used or len(q) < 3 or q == ident:
                    continue
                # The emails whose text has the whole identifier (a substring count, as a person would check).
                holders = {e for e, t in text_of.items() if ident in t}
                if not holders or len(holders) > 5:
                    continue
                used.add(q)
                per_query_kind[qkind] += 1
                queries.append({"kind": qkind, "query": q, "identifier": ident,
                                "threads": sorted({thread_of[e] for e in holders if thread_of[e] is not None})})
    return queries


def search(binary, data_dir, query):
    out = subprocess.run([binary, "search", query, "--data-dir", data_dir, "--mode", "keyword", "--limit", "20",
                          "--json", "--no-history"], capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise RuntimeError(f"search {query!r} failed: {out.stderr.strip()}")
    return [r["threadId"] for r in json.loads(out.stdout)["results"]]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mailsearch")
    parser.add_argument("data_dirs", nargs="+")
    parser.add_argument("--per-kind", type=int, default=10)
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument("--json", help="write every query and its outcome here")
    args = parser.parse_args()
    report = []
    for data_dir in args.data_dirs:
        rng = random.Random(args.seed)
        queries = build(data_dir + "/mail.sqlite", args.per_kind, rng)
        by_kind = defaultdict(lambda: [0, 0])
        for q in queries:
            threads = search(args.mailsearch, data_dir, q["query"])
            q["found"] = any(t in q["threads"] for t in threads)
            q["results"] = len(threads)
            q["corpus"] = data_dir
            by_kind[q["kind"]][0] += q["found"]
            by_kind[q["kind"]][1] += 1
            report.append(q)
        total = [sum(v[0] for v in by_kind.values()), sum(v[1] for v in by_kind.values())]
        print(f"{data_dir}: {total[0]}/{total[1]} found in the top 20 ("
              + ", ".join(f"{k} {v[0]}/{v[1]}" for k, v in sorted(by_kind.items())) + ")")
        for q in queries:
            if not q["found"]:
                print(f"  not found: {q['kind']:7} {q['query']!r} (in {q['identifier']!r}; {q['results']} results)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1, ensure_ascii=False)


if __name__ == "__main__":
    sys.exit(main())
