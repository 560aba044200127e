#!/usr/bin/env python3
"""Pairwise agreement between MailSearch's threads and an independent reading of spec 001 §5.2.4.

    scripts/thread-agreement.py MBOX DATA_DIR [--account NAME] [--brackets-only] [--show N]

Reads MBOX with Python's `mailbox`/`email` stdlib, threads it independently of the Swift code, reads
the store's email → thread assignment from DATA_DIR/mail.sqlite, and prints pair precision, pair
recall and pair-F1 over the pairs of messages that share a thread (the reference being this script),
then the largest threads of each side and the worst disagreements.

The reference algorithm, in mbox order (the order `mailsearch import` reads an mbox):
  * identity: the first <...> of Message-ID (a bare value when it has no brackets); a Message-ID
    seen before is a duplicate and skipped, as the store skips it;
  * threading ids: the <...> tokens of References and In-Reply-To. A field without any '<' counts
    only when it is nothing but bare ids (words holding '@', as mailing-list archives that strip the
    brackets write them); prose such as "Message from a@b of 10 Jul 1997" gives no id.
    --brackets-only takes <...> tokens alone;
  * an id that is an email address (From/To/Cc/Reply-To of the message itself, or From/To/Cc of an
    earlier message: the store's contacts) is not a Message-ID: compared in lower case, without a
    trailing "'s" and surrounding punctuation;
  * Message-ID graph: union-find over a message's own id and every id it references;
  * subject fallback, for a message with no threading id whose own id no earlier message referenced:
    the nearest-dated earlier message with the same normalised subject within 30 days (ties: the
    earlier one) joins its component. Normalised: Re:/Fwd:/Fw: forms (any case, also Re[2]:) are
    stripped recursively, also right after a leading [tag], which is kept; then trimmed.
"""

import argparse
import collections
import email.header
import email.utils
import mailbox
import re
import sqlite3
import sys

WINDOW = 30 * 24 * 3600
ANGLE = re.compile(r"<([^<>]*)>")
COMMENT = re.compile(r"\([^()]*\)")
PREFIX = re.compile(r"(?:re|fwd|fw)(?:\[\d+\]|\(\d+\))?[ \t]*:", re.IGNORECASE)


def header_text(value):
    if value is None:
        return None
    try:
        text = str(email.header.make_header(email.header.decode_header(str(value))))
    except Exception:
        text = str(value)
    return " ".join(text.split())


def raw_header(msg, name):
    value = msg.get(name)
    return None if value is None else str(value)


def ids(value, brackets_only):
    """Message ids of a References/In-Reply-To value."""
    if value is None:
        return []
    value = value.replace("\r", " ").replace("\n", " ")
    while True:
        stripped = COMMENT.sub(" ", value)
        if stripped == value:
            break
        value = stripped
    found = [i.replace(" ", "").replace("\t", "") for i in ANGLE.findall(value)]
    found = [i for i in found if i]
    if "<" in value or brackets_only:
        return found
    words = [w for w in re.split(r"[\s,]+", value) if w]
    if words and all(bare_id(w) for w in words):
        return words
    return []


def bare_id(word):
    local, at, domain = word.partition("@")
    return bool(at) and bool(local) and bool(domain) and "@" not in domain and '"' not in word


EDGE = "\"'()[].,;:"


def address_key(value):
    key = value.lower().strip(EDGE)
    for suffix in ("'s", "\u2019s"):
        if key.endswith(suffix):
            key = key[: -len(suffix)].strip(EDGE)
    return key


def addresses(msg, names):
    values = [str(v) for name in names for v in (msg.get_all(name) or [])]
    return {a.lower() for _, a in email.utils.getaddresses(values) if a}


def own_id(msg):
    value = raw_header(msg, "Message-ID")
    if value is None:
        return None
    found = ANGLE.findall(value)
    if found:
        first = found[0].replace(" ", "").replace("\t", "")
        return first or None
    words = value.split()
    return words[0] if words else None


def strip_prefixes(s):
    s = s.lstrip()
    while True:
        m = PREFIX.match(s)
        if not m:
            return s
        s = s[m.end():].lstrip()


def normalize_subject(subject):
    s = strip_prefixes(subject or "")
    if s.startswith("["):
        close = s.find("]")
        if close > 0:
            rest = strip_prefixes(s[close + 1:])
            s = s[: close + 1] + (" " + rest if rest else "")
    return " ".join(s.split())


def message_date(msg):
    value = raw_header(msg, "Date")
    if value:
        try:
            d = email.utils.parsedate_to_datetime(value)
            if d is not None:
                return d.timestamp()
        except Exception:
            pass
    from_line = msg.get_from() or ""
    parts = from_line.split(None, 1)
    if len(parts) == 2:
        try:
            import time
            return time.mktime(time.strptime(parts[1].strip(), "%a %b %d %H:%M:%S %Y")) - time.timezone
        except Exception:
            pass
    return None


class UnionFind:
    def __init__(self):
        self.parent = {}

    def find(self, x):
        self.parent.setdefault(x, x)
        root = x
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[x] != root:
            self.parent[x], x = root, self.parent[x]
        return root

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra


def reference_threads(path, brackets_only):
    uf = UnionFind()
    referenced = set()
    contacts = set()
    by_subject = collections.defaultdict(list)  # normalised subject -> [(date, order, id)]
    order = []
    info = {}
    no_id = 0
    for msg in mailbox.mbox(path, create=False):
        mid = own_id(msg)
        if mid is None:
            no_id += 1
            continue
        if mid in info:
            continue
        subject = header_text(msg.get("Subject")) or ""
        date = message_date(msg)
        refs = ids(raw_header(msg, "References"), brackets_only) + ids(raw_header(msg, "In-Reply-To"), brackets_only)
        own = addresses(msg, ("From", "To", "Cc", "Reply-To"))
        refs = [r for r in refs if r != mid and not ("@" in r and (address_key(r) in own or address_key(r) in contacts))]
        contacts |= addresses(msg, ("From", "To", "Cc"))
        uf.find(mid)
        if refs:
            for r in refs:
                uf.union(mid, r)
                referenced.add(r)
        elif mid not in referenced:
            norm = normalize_subject(subject)
            if norm and date is not None:
                best = None
                for d, seq, other in by_subject[norm]:
                    if abs(d - date) <= WINDOW:
                        key = (abs(d - date), seq)
                        if best is None or key < best[0]:
                            best = (key, other)
                if best is not None:
                    uf.union(best[1], mid)
        norm = normalize_subject(subject)
        if norm and date is not None:
            by_subject[norm].append((date, len(order), mid))
        info[mid] = subject
        order.append(mid)
    return {mid: uf.find(mid) for mid in order}, info, no_id


def store_threads(data_dir, account):
    db = sqlite3.connect(f"file:{data_dir}/mail.sqlite?mode=ro", uri=True)
    sql = "SELECT e.messageId, e.threadId FROM emails e JOIN accounts a ON a.id = e.accountId"
    args = ()
    if account:
        sql += " WHERE a.name = ?"
        args = (account,)
    return {mid: tid for mid, tid in db.execute(sql, args)}


def pairs(sizes):
    return sum(n * (n - 1) // 2 for n in sizes)


def describe(title, groups, subjects, limit):
    print(title)
    for members in sorted(groups.values(), key=len, reverse=True)[:limit]:
        print(f"  {len(members):5d}  {subjects.get(members[0], '')[:90]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mbox")
    ap.add_argument("data_dir")
    ap.add_argument("--account", help="only this account's emails (default: all)")
    ap.add_argument("--brackets-only", action="store_true", help="threading ids from <...> tokens only")
    ap.add_argument("--show", type=int, default=5, help="threads and disagreements to list (default 5)")
    args = ap.parse_args()

    ref, subjects, no_id = reference_threads(args.mbox, args.brackets_only)
    ours = store_threads(args.data_dir, args.account)
    common = [m for m in ref if m in ours]
    missing = len(ref) - len(common)

    ref_groups = collections.defaultdict(list)
    our_groups = collections.defaultdict(list)
    cells = collections.Counter()
    for m in common:
        ref_groups[ref[m]].append(m)
        our_groups[ours[m]].append(m)
        cells[(ours[m], ref[m])] += 1
    tp = pairs(cells.values())
    our_pairs = pairs(len(v) for v in our_groups.values())
    ref_pairs = pairs(len(v) for v in ref_groups.values())
    precision = tp / our_pairs if our_pairs else 1.0
    recall = tp / ref_pairs if ref_pairs else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0

    print(f"messages: {len(common)} compared ({missing} of the mbox not in the store, {no_id} without Message-ID)")
    print(f"threads: store {len(our_groups)}, reference {len(ref_groups)}")
    print(f"pairs: store {our_pairs}, reference {ref_pairs}, shared {tp}")
    print(f"pair precision {precision:.4f}  pair recall {recall:.4f}  pair-F1 {f1:.4f}")
    describe("largest store threads:", our_groups, subjects, args.show)
    describe("largest reference threads:", ref_groups, subjects, args.show)

    # Worst false merges (a store thread holding several reference threads) and false splits.
    inner_ours = collections.Counter()
    inner_ref = collections.Counter()
    for (o, r), c in cells.items():
        inner_ours[o] += pairs([c])
        inner_ref[r] += pairs([c])
    merges = sorted(our_groups.items(), key=lambda kv: inner_ours[kv[0]] - pairs([len(kv[1])]))
    print("store threads joining reference threads (wrong pairs, members by reference thread):")
    for tid, members in merges[: args.show]:
        parts = collections.Counter(ref[m] for m in members)
        wrong = pairs([len(members)]) - pairs(parts.values())
        if wrong == 0:
            break
        print(f"  store {tid}: {len(members)} msgs, {wrong} wrong pairs")
        for r, n in parts.most_common(4):
            first = next(m for m in members if ref[m] == r)
            print(f"      {n:4d}  {subjects.get(first, '')[:80]}  <{first}>")
    splits = sorted(ref_groups.items(), key=lambda kv: inner_ref[kv[0]] - pairs([len(kv[1])]))
    print("reference threads split in the store (missed pairs, members by store thread):")
    for rid, members in splits[: args.show]:
        parts = collections.Counter(ours[m] for m in members)
        missed = pairs([len(members)]) - pairs(parts.values())
        if missed == 0:
            break
        print(f"  reference thread of {len(members)} msgs, {missed} missed pairs")
        for o, n in parts.most_common(4):
            first = next(m for m in members if ours[m] == o)
            print(f"      {n:4d}  store {o}  {subjects.get(first, '')[:70]}  <{first}>")
    return 0


if __name__ == "__main__":
    sys.exit(main())
