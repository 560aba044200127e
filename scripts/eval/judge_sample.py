#!/usr/bin/env python3
"""Draw conversations of an imported mailbox for side-by-side judging (docs/insights-judging.json):
each conversation's messages in one file, what MailSearch says of them (the summary, and the reply
suggestions of every message that asks something) in another, so that a judge writes the key facts
from the mail before reading the summary.

  scripts/eval/judge_sample.py DATA_DIR CORPUS COUNT SEED OUT_DIR [--min 3] [--max 12] \
      [--mailsearch .build/release/mailsearch-full] [--exclude docs/insights-judging.json]

OUT_DIR/threads.txt: "== <firstMessageId>" then each message (author, date, text as stored);
OUT_DIR/insights.jsonl: per conversation {"corpus", "firstMessageId", "threadId", "summary": the
`show tN --summary --json` answer, "replies": [{"emailId", "position", "answer": `show eN --replies
--json`}]}. Conversations already judged (by first Message-ID) are not drawn again.
"""
import argparse
import json
import os
import random
import sqlite3
import subprocess


def show(binary, data_dir, target, flag):
    env = dict(os.environ, MAILSEARCH_DATA_DIR=os.path.abspath(data_dir))
    run = subprocess.run([binary, "show", target, flag, "--json"], capture_output=True, text=True, env=env)
    if run.returncode != 0:
        return {"error": run.stderr.strip()}
    return json.loads(run.stdout)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data_dir")
    parser.add_argument("corpus")
    parser.add_argument("count", type=int)
    parser.add_argument("seed", type=int)
    parser.add_argument("out_dir")
    parser.add_argument("--min", type=int, default=3)
    parser.add_argument("--max", type=int, default=12)
    parser.add_argument("--mailsearch", default=".build/release/mailsearch-full")
    parser.add_argument("--exclude", default="docs/insights-judging.json")
    args = parser.parse_args()

    judged = set()
    if os.path.exists(args.exclude):
        judged = {t["firstMessageId"] for t in json.load(open(args.exclude))["threads"]}
    db = sqlite3.connect(f"file:{os.path.join(args.data_dir, 'mail.sqlite')}?mode=ro", uri=True)
    threads = [r[0] for r in db.execute(
        "SELECT id FROM threads WHERE messageCount BETWEEN ? AND ? ORDER BY id", (args.min, args.max))]
    rng = random.Random(args.seed)
    rng.shuffle(threads)
    os.makedirs(args.out_dir, exist_ok=True)
    drawn = 0
    with open(os.path.join(args.out_dir, "threads.txt"), "w") as text, \
            open(os.path.join(args.out_dir, "insights.jsonl"), "w") as insights:
        for thread in threads:
            if drawn == args.count:
                break
            emails = db.execute(
                "SELECT id, messageId, fromName, fromEmail, datetime(sortDate, 'unixepoch'), subject, bodyPlain "
                "FROM emails WHERE threadId = ? ORDER BY sortDate, id", (thread,)).fetchall()
            if not emails or emails[0][1] in judged:
                continue
            drawn += 1
            first = emails[0][1]
            text.write(f"== {first} (t{thread}, {len(emails)} messages)\n")
            for position, (eid, _, name, address, date, subject, body) in enumerate(emails, 1):
                text.write(f"--- [{position}] e{eid} {name or ''} <{address or ''}> {date} — {subject}\n{body.strip()[:3000]}\n")
            text.write("\n")
            replies = [{"emailId": eid, "position": position, "answer": show(args.mailsearch, args.data_dir, f"e{eid}", "--replies")}
                       for position, (eid, *_) in enumerate(emails, 1)]
            replies = [r for r in replies if r["answer"].get("replies", {}).get("triggered")]
            insights.write(json.dumps({"corpus": args.corpus, "firstMessageId": first, "threadId": thread,
                                       "summary": show(args.mailsearch, args.data_dir, f"t{thread}", "--summary"),
                                       "replies": replies}) + "\n")
    print(f"{drawn} conversations of {args.min}–{args.max} messages → {args.out_dir}")


if __name__ == "__main__":
    main()
