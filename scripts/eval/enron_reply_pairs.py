#!/usr/bin/env python3
"""(message, reply) pairs of the Enron corpus, which has no In-Reply-To: a reply is paired with the
email that its first "-----Original Message-----" block quotes, found in the corpus by

  - the same subject (Re:/Fw: prefixes stripped, case and spaces folded),
  - the quoted "From:" sharing a name word with the original's sender (X-From or address),
  - the quoted "Sent:" within 14 hours of the original's Date, at a whole number of hours (the
    quoting client wrote it in its own time zone), and the original not later than the reply,
  - and the quoted text itself: the first 100 characters of the quoted body (whitespace folded)
    found in the original's body.

Writes JSON lines {"message", "reply", "messageId", "replyId"} with the raw plain-text bodies (the
reply's own part above the quote); `mailsearch-bench insights clean-pairs` cleans them as the reply
suggester reads mail (MessageCleaner) for scripts/eval/reply_selection.py.

  scripts/eval/enron_reply_pairs.py corpora/enron-inbox/maildir OUT.jsonl
"""
import datetime as dt
import email
import email.policy
import json
import os
import re
import sys
from email.utils import parsedate_to_datetime, parseaddr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from build_eval_sets import (ORIGINAL, QUOTED_HEADER, decode_header_value, message_ids, name_tokens,  # noqa: E402
                             normalize_subject, parse_sent, part_text, text_parts)


def folded(text):
    return " ".join(text.split())


def first_quote(text):
    """(sender tokens, Sent, normalised subject, quoted body start) of the first Original-Message block."""
    m = ORIGINAL.search(text)
    if not m:
        return None
    fields, body_start = {}, None
    lines = text[m.end():].split("\n")[1:]
    offset = 0
    for i, line in enumerate(lines[:16]):
        stripped = line.strip().lstrip(">").strip()
        hm = QUOTED_HEADER.match(stripped)
        if hm:
            key = hm.group(1).lower()
            fields.setdefault("sent" if key == "date" else key, hm.group(2).strip())
        elif fields and "subject" in fields and not stripped:
            body_start = i + 1
            break
    if body_start is None or not {"from", "sent", "subject"} <= fields.keys():
        return None
    body = "\n".join(l.lstrip(">") for l in lines[body_start:])
    body = ORIGINAL.split(body)[0]  # the quoted email's own text, not what it quoted in turn
    sent = parse_sent(fields["sent"])
    tokens = name_tokens(fields["from"])
    norm = normalize_subject(fields["subject"])
    if not (sent and tokens and norm):
        return None
    return tokens, sent, norm, folded(body)[:100]


def main():
    root, out = sys.argv[1], sys.argv[2]
    msgs, seen = [], set()
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for f in sorted(files):
            with open(os.path.join(d, f), "rb") as fh:
                msg = email.message_from_bytes(fh.read(), policy=email.policy.compat32)
            ids = message_ids(msg.get("Message-ID"), bare_needs_at=False)
            if not ids or ids[0] in seen:
                continue
            seen.add(ids[0])
            try:
                utc = parsedate_to_datetime(msg.get("Date")).astimezone(dt.timezone.utc).replace(tzinfo=None, second=0, microsecond=0)
            except Exception:
                utc = None
            text = "\n".join(part_text(p) for p in text_parts(msg) if p.get_content_subtype() == "plain")
            _, addr = parseaddr(decode_header_value(msg.get("From")))
            msgs.append({"mid": ids[0], "utc": utc, "norm": normalize_subject(decode_header_value(msg.get("Subject"))),
                         "sender": name_tokens(decode_header_value(msg.get("X-From"))) | name_tokens(addr),
                         "text": text, "folded": folded(text)})
    by_subject = {}
    for i, m in enumerate(msgs):
        if m["utc"] and m["norm"]:
            by_subject.setdefault(m["norm"], []).append(i)
    pairs, quoting = [], 0
    for i, m in enumerate(msgs):
        q = first_quote(m["text"])
        if not q or m["utc"] is None:
            continue
        quoting += 1
        tokens, sent, norm, quoted = q
        if len(quoted) < 30:
            continue
        matches = []
        for j in by_subject.get(norm, []):
            o = msgs[j]
            if j == i or not (tokens & o["sender"]) or o["utc"] > m["utc"]:
                continue
            delta = (sent - o["utc"]).total_seconds() / 60
            if -14 * 60 <= delta <= 14 * 60 and delta % 60 == 0 and quoted in o["folded"]:
                matches.append(j)
        if len(matches) != 1:
            continue  # none, or several copies of the original that differ: ambiguous
        o = msgs[matches[0]]
        reply = ORIGINAL.split(m["text"])[0]
        pairs.append({"message": o["text"], "reply": reply, "messageId": o["mid"], "replyId": m["mid"]})
    with open(out, "w") as f:
        for p in pairs:
            f.write(json.dumps(p) + "\n")
    print(f"{len(msgs)} messages, {quoting} quote an Original-Message block, {len(pairs)} (message, reply) pairs → {out}")


if __name__ == "__main__":
    main()
