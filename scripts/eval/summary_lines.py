#!/usr/bin/env python3
"""Summary lines judged one by one: is each line of a thread summary the shown author's own prose?
(issue 33's bar: no line of diff, code, log, quote or signature). The verdicts are
docs/summary-lines-judging.json ("lines": the first round; "round2": every line of the summaries of
extractive version 6, per set, with its verdict; "round3": versions 7 and 8 on two fresh samples).

  scripts/eval/summary_lines.py packets CORPUS DATA_DIR SUMMARIES.jsonl N SEED PARTS OUT_DIR \
      [--exclude-judged] [--only-unjudged]
      N conversations drawn from SUMMARIES.jsonl (`mailsearch-bench insights corpus DATA_DIR OUT`;
      Python random.seed(SEED) over the summarized conversations sorted by thread id) split into
      PARTS packets for judges: OUT_DIR/CORPUS-partK.txt gives each summary line and where its words
      stand in the conversation (message, sender, about 20 lines around them), -full.txt every
      message whole, -verdicts.json the entries to fill ({corpus, threadId, line, text, verdict,
      note}). --exclude-judged leaves out conversations already in the judging file;
      --only-unjudged takes every judged conversation and only its lines without a verdict (what a
      change of the summarizer brought in).
  scripts/eval/summary_lines.py compare CORPUS OLD.jsonl NEW.jsonl
      every line that differs between two `insights corpus` outputs (two versions of the summarizer),
      with its verdict from the judging file where it has one, and the totals by verdict.
  scripts/eval/summary_lines.py tally SET=CORPUS:SUMMARIES.jsonl:VERDICTS.json[,VERDICTS.json…] …
      per set: lines, verdicts, lines of the bar's kinds, not prose, and the lines still unjudged,
      reading verdicts from the judging file and the given files.

Verdicts: prose (the shown author's own sentence; for "Waiting on X:", the asker's), diff, code,
log, quote (someone else's words: quoted, forwarded, pasted), signature, header, footer,
other-not-prose (a table, a heading, a run-together list, a fragment). A line mixing a non-prose
fragment with prose counts under the fragment's kind.
"""
import argparse
import collections
import json
import os
import random
import re
import sqlite3
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
JUDGING = os.path.join(ROOT, "docs", "summary-lines-judging.json")
BAR = ["diff", "code", "log", "quote", "signature"]


def norm(s):
    return re.sub(r"\s+", " ", s).strip()


def judged():
    """(corpus, threadId, text) -> verdict, from both rounds of the judging file."""
    data = json.load(open(JUDGING))
    verdicts = {(l["corpus"], l["threadId"], l["text"]): l["verdict"] for l in data["lines"]}
    for l in later_lines(data):
        verdicts[(l["corpus"], l["threadId"], l["text"])] = l["verdict"]
    return data, verdicts


def later_lines(data):
    """The lines of every round after the first ("round2", "round3", …), in order."""
    rounds = sorted((k for k in data if k.startswith("round")), key=lambda k: int(k[5:]))
    return [l for k in rounds for l in data[k].get("lines", [])]


def packets(args):
    data, verdicts = judged()
    rows = [json.loads(l) for l in open(args.summaries)]
    rows = [r for r in rows if r["points"]]
    seen = {(l["corpus"], l["threadId"]) for l in data["lines"]} | {
        (l["corpus"], l["threadId"]) for l in later_lines(data)}
    if args.only_unjudged:
        pick = [r for r in rows if (args.corpus, r["threadId"]) in seen
                and any((args.corpus, r["threadId"], p) not in verdicts for p in r["points"])]
    else:
        if args.exclude_judged:
            rows = [r for r in rows if (args.corpus, r["threadId"]) not in seen]
        rows.sort(key=lambda r: r["threadId"])
        random.seed(args.seed)
        pick = random.sample(rows, min(args.n, len(rows)))
    db = sqlite3.connect(os.path.join(args.data_dir, "mail.sqlite"))
    os.makedirs(args.out_dir, exist_ok=True)
    for part in range(args.parts):
        base = os.path.join(args.out_dir, f"{args.corpus}-part{part + 1}")
        entries = []
        with open(base + ".txt", "w") as out, open(base + "-full.txt", "w") as full:
            for r in pick[part::args.parts]:
                messages = list(db.execute(
                    "select fromName, fromEmail, datetime(sortDate, 'unixepoch'), bodyPlain from emails "
                    "where threadId = ? order by sortDate", (r["threadId"],)))
                head = f"\n\n################ CONVERSATION {args.corpus} thread {r['threadId']}: {r['subject']} ({len(messages)} messages)\n"
                out.write(head)
                full.write(head)
                for k, (name, email, date, body) in enumerate(messages):
                    full.write(f"\n----- message {k + 1}: from {name} <{email}> at {date}\n{body}\n")
                for i, point in enumerate(r["points"]):
                    if args.only_unjudged and (args.corpus, r["threadId"], point) in verdicts:
                        continue
                    entries.append({"corpus": args.corpus, "threadId": r["threadId"], "line": i, "text": point,
                                    "verdict": None, "note": ""})
                    out.write(f"\n=== LINE [{i}] {point}\n")
                    sentence = point.split(": ", 1)[1] if ": " in point else point
                    words = norm(sentence).split(" ")
                    probe = " ".join(words[:6])
                    found = False
                    for k, (name, email, date, body) in enumerate(messages):
                        if probe not in norm(body):
                            continue
                        found = True
                        lines = body.split("\n")
                        at = next((n for n in range(len(lines)) if probe[:25] in norm(" ".join(lines[n:n + 3]))
                                   and words[0] in lines[n]), 0)
                        low, high = max(0, at - 12), min(len(lines), at + 8)
                        out.write(f"  -- found in message {k + 1} (from {name} <{email}> at {date}), lines {low + 1}-{high} of {len(lines)}:\n")
                        for n in range(low, high):
                            out.write(("  >>| " if n == at else "    | ") + lines[n][:200] + "\n")
                    if not found:
                        out.write("  -- (not found verbatim: the cleaner joins wrapped lines; see the full file)\n")
        json.dump(entries, open(base + "-verdicts.json", "w"), indent=1)
        print(f"{base}: {len(pick[part::args.parts])} conversations, {len(entries)} lines")


def tally(args):
    _, verdicts = judged()
    for spec in args.sets:
        name, rest = spec.split("=", 1)
        corpus, summaries, files = rest.split(":", 2)
        extra = {}
        for f in files.split(","):
            for l in json.load(open(f)):
                if l.get("verdict"):
                    extra[(l["corpus"], l["threadId"], l["text"])] = l["verdict"]
        threads = {l["threadId"] for f in files.split(",") for l in json.load(open(f))}
        counts, lines = collections.Counter(), 0
        for l in open(summaries):
            r = json.loads(l)
            if r["threadId"] not in threads:
                continue
            for p in r["points"]:
                lines += 1
                counts[extra.get((corpus, r["threadId"], p)) or verdicts.get((corpus, r["threadId"], p)) or "UNJUDGED"] += 1
        bar = sum(counts[k] for k in BAR)
        print(f"{name}: {len(threads)} conversations, {lines} lines, {dict(counts)}; bar kinds {bar}, "
              f"not prose {lines - counts['prose'] - counts['UNJUDGED']}, unjudged {counts['UNJUDGED']}")


def compare(args):
    """Every line that differs between two `insights corpus` outputs of one corpus, with its verdict
    from the judging file where it has one ("?" where not), and the totals removed/added by verdict."""
    _, verdicts = judged()
    old = {r["threadId"]: r for r in map(json.loads, open(args.old))}
    new = {r["threadId"]: r for r in map(json.loads, open(args.new))}
    removed, added, changed = collections.Counter(), collections.Counter(), 0
    for thread in sorted(old):
        before, after = old[thread]["points"], new.get(thread, {}).get("points", [])
        if before == after:
            continue
        changed += 1
        print(f"== thread {thread}: {old[thread].get('subject', '')[:70]}")
        for sign, lines, other, counter in (("-", before, after, removed), ("+", after, before, added)):
            for line in lines:
                if line not in other:
                    verdict = verdicts.get((args.corpus, thread, line), "?")
                    counter[verdict] += 1
                    print(f"  {sign} [{verdict}] {line[:160]}")
    print(f"{args.corpus}: {changed} conversations changed; removed {dict(removed)}; added {dict(added)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("packets")
    for name in ["corpus", "data_dir", "summaries"]:
        p.add_argument(name)
    p.add_argument("n", type=int)
    p.add_argument("seed", type=int)
    p.add_argument("parts", type=int)
    p.add_argument("out_dir")
    p.add_argument("--exclude-judged", action="store_true")
    p.add_argument("--only-unjudged", action="store_true")
    t = sub.add_parser("tally")
    t.add_argument("sets", nargs="+")
    c = sub.add_parser("compare")
    for name in ["corpus", "old", "new"]:
        c.add_argument(name)
    args = parser.parse_args()
    {"packets": packets, "tally": tally, "compare": compare}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
