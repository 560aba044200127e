#!/usr/bin/env python3
"""Generate the RFC 2047 reference decodings used by RFC2047PythonParityTests.

Picks distinct Subject and From values of messages of corpora/usrp-users.mbox whose Subject or From holds encoded words, decodes them
with Python's email package (policy.default) and writes OUT: a list of
{"messageId", "field" ("subject" | "fromName"), "raw", "expected"}.
The test runs it at test time: corpus text is never committed.

Usage: scripts/check-rfc2047.py --out OUT [--limit N]   (run from the package root)
"""
import email
import email.policy
import json
import mailbox
import re
import sys

limit = 40
out = None
if "--out" in sys.argv:
    out = sys.argv[sys.argv.index("--out") + 1]
if out is None:
    sys.exit("usage: scripts/check-rfc2047.py --out OUT [--limit N]")
if "--limit" in sys.argv:
    limit = int(sys.argv[sys.argv.index("--limit") + 1])

def collapse(s):
    return re.sub(r"\s+", " ", s).strip()

cases = []
seen = set()
box = mailbox.mbox("corpora/usrp-users.mbox", create=False)
for key in box.iterkeys():
    raw = box.get_bytes(key)
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    mid = msg.get("Message-ID")
    if not mid:
        continue
    mid = str(mid).strip().strip("<>")
    compat = email.message_from_bytes(raw, policy=email.policy.compat32)
    raw_subject = compat.get("Subject")
    raw_from = compat.get("From")
    if raw_subject is not None and "=?" in str(raw_subject) and str(raw_subject) not in seen:
        seen.add(str(raw_subject))
        cases.append({"messageId": mid, "field": "subject", "raw": str(raw_subject),
                      "expected": collapse(str(msg["Subject"]))})
    if raw_from is not None and "=?" in str(raw_from) and str(raw_from) not in seen:
        seen.add(str(raw_from))
        addrs = msg["From"].addresses
        if addrs:
            cases.append({"messageId": mid, "field": "fromName", "raw": str(raw_from),
                          "expected": collapse(addrs[0].display_name)})
    if len(cases) >= limit:
        break

with open(out, "w", encoding="utf-8") as f:
    json.dump(cases, f, ensure_ascii=False, indent=1)
print(f"wrote {len(cases)} cases")
