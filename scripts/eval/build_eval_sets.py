#!/usr/bin/env python3
"""Labelled evaluation sets for `mailsearch-bench eval`, built from the raw corpora with the
standard library only, independently of MailSearch's own parser and Threader.

For each corpus it writes, into OUT/<name>/:

  mail.mbox      an evaluation copy of the mail in which no subject can be found: every Subject
                 header is replaced by an opaque token (private-use characters, the same for the same
                 normalised subject, so the Threader's subject fallback still groups as it would;
                 FTS5 indexes it as one word nobody types, the BERT tokenizer drops it), Thread-Topic is
                 removed, and subject lines inside bodies (`Subject: …` in Original-Message and
                 forwarded blocks, `> Subject: …`, `<b>Subject:</b> …`, with their wrapped
                 continuations, and lines that repeat the message's own subject) are deleted from
                 every text/plain and text/html part.
  labels.jsonl   one query a line: {"id", "kind", "query", "relevant": [Message-IDs without <>], …}
  manifest.json  sizes, label statistics, reliability checks, the mbox's SHA-256 (the bench keys its
                 scratch data directory by it).

Sets (--only SET builds one):
  usrp          the usrp-users mailing list archive (corpus usrp-users), threaded by headers.
  enron         a --enron-size subset of the Enron inboxes (corpus enron-inbox), seed --seed.
  enron-b       a second subset of the same size (corpus enron-inbox-b, seed --enron-b-seed, default
                --seed + 1), disjoint from `enron`: none of its messages, no other copy of the same mail
                (same text; a short one from the same sender), and no message of a component any of
                those belongs to. The held-back sample.
  enron-c       a third subset of the same size (corpus enron-inbox-c, seed --enron-c-seed, default
                --seed + 2), disjoint in the same sense from both `enron` and `enron-b`.
  enron-d       a fourth (corpus enron-inbox-d, seed --enron-d-seed, default --seed + 3), disjoint in
                the same sense from `enron`, `enron-b` and `enron-c`: the sample held back from the
                length-aware floor (README, "Search quality").
  enron-e       a fifth (corpus enron-inbox-e, seed --enron-e-seed, default --seed + 4), disjoint in
                the same sense from the four above: the sample held back from the sentence floor.
  enron-f       a sixth (corpus enron-inbox-f, seed --enron-f-seed, default --seed + 5), disjoint in
                the same sense from the five above: the sample held back from the nearer hits and the
                one-word agreement rule (2026-11-28).
  spamassassin  2,403 messages of 2002 mailing lists and personal mail (corpus spamassassin-lists; the
                *.eml files of --lists in sorted order, scripts/fetch-list-corpus.sh), threaded by headers.
  newsgroups    2,954 Usenet posts of 1993 (comp.graphics, rec.sport.baseball, sci.space; corpus
                newsgroups-1993; --newsgroups, scripts/fetch-newsgroups-corpus.sh): no subjects, no real
                senders, no threading headers, so each post is its own conversation. Query kinds: short
                (a post's two rarest words, each in at most 3 posts), paraphrase and the nonsense kinds.
  NAME          any mbox with threading headers, --mbox NAME=PATH (repeatable; corpus NAME).

Labels:
  threaded sets (usrp, spamassassin, --mbox)
         threads = connected components of Message-ID / In-Reply-To / References (union-find over
         every <…> id, and bare ids holding an @ as Hyperkitty's web replies write them, including ids
         of messages missing from the archive); a thread of two or more archived messages is one
         label, its query words come from its first (oldest) message's subject.
  enron  Enron mail has no threading headers, but replies quote their original in an
         "-----Original Message-----" block (From:, Sent:, To:, Subject:). A quoting message is linked
         (a) to the archived message it quotes: same normalised subject, overlapping sender name
         tokens, a Sent time equal to the original's Date up to a whole-hour time-zone offset (at most
         14 h; the minute must agree), and the original not later than the reply; and (b) to every
         other message that quotes the same original (same subject, overlapping sender, same minute up
         to a whole-hour zone difference of at most 3 h). Components of two or
         more messages are the labels. A seeded sample of them, plus seeded random other inbox
         messages, makes a subset of --enron-size messages.

Query kinds: topic (the subject's content words, at most 6, lower-cased), short (its two longest
content words), from (`from:"Real Name" topic words`, the thread starter's own display name; for the
mailing list the name before " via USRP-users"; relevant = that person's messages in the thread),
paraphrase (hand-written questions in other words than the mail's, scripts/eval/paraphrase/),
nonsense (random letter strings, xyznonexistent12345, triples of unrelated words, keyboard mash
(nonsense-keyboard), invented words and code-like junk (nonsense-invented); every word checked absent
from the copy, also as a prefix, since the keyword search matches prefixes), incoherent (triples of
words the copy holds, never together in one message), nonsense-sentence (four to fourteen random
everyday words, some joined by function words, never all in one message). Kinds added later are drawn from generators
seeded apart and appended, so the earlier queries of a set keep their text and ids.

Two threads that give the same query text become one query relevant to both.
Deterministic: files are read in sorted order and every sample uses --seed; the copy's envelope
lines are fixed, so the same corpus and seed give a byte-identical mail.mbox.
"""

import argparse
import base64
import bisect
import datetime as dt
import email
import email.policy
import hashlib
import html
import json
import mailbox
import os
import random
import re
import sys
from email.header import Header, decode_header, make_header
from email.utils import parseaddr, parsedate_to_datetime

# ---------------------------------------------------------------- text helpers

SUBJECT_PREFIXES = {"re", "fwd", "fw", "aw", "sv", "wg", "antw", "vs", "tr", "rif", "ref"}


class UnionFind:
    """Connected components over hashable items; each component is named by its smallest item."""

    def __init__(self):
        self.parent = {}

    def find(self, x):
        parent = self.parent
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def fresh_mbox(out_dir):
    """An empty, locked mail.mbox in `out_dir` (created), replacing any earlier one."""
    os.makedirs(out_dir, exist_ok=True)
    mbox_path = os.path.join(out_dir, "mail.mbox")
    if os.path.exists(mbox_path):
        os.remove(mbox_path)
    out = mailbox.mbox(mbox_path)
    out.lock()
    return mbox_path, out


def normalize_subject(subject):
    """Port of MailStore's SubjectNormalizer: strips [tags] and Re:/Fwd:-style prefixes, collapses
    whitespace, lower-cases."""
    s = subject or ""
    while True:
        s = s.lstrip()
        if s.startswith("["):
            close = s.find("]")
            if close >= 0 and s[close + 1:].strip():
                s = s[close + 1:]
                continue
        colon = s.find(":")
        if colon < 0:
            break
        word = s[:colon]
        m = re.match(r"^(.*?)[\[(](\d*)[\])]$", word)
        if m:
            word = m.group(1)
        if word.strip().lower() not in SUBJECT_PREFIXES:
            break
        s = s[colon + 1:]
    return " ".join(s.split()).lower()


STOP_WORDS = set("""
a about above after again against all am an and any are aren as at be because been before being below
between both but by can cannot could did do does doing don down during each few for from further had has
have having he her here hers herself him himself his how i if in into is isn it its itself just let me more
most my myself no nor not now of off on once only or other ought our ours ourselves out over own same she
should so some such than that the their theirs them themselves then there these they this those through to
too under until up very was we were what when where which while who whom why will with would you your yours
yourself yourselves re fw fwd via us also get got still using use via please thanks thank hi hello dear
""".split())

WORD = re.compile(r"[^\W_]+(?:[.'+\-][^\W_]+)*", re.UNICODE)


def content_words(normalized_subject):
    out = []
    for w in WORD.findall(normalized_subject):
        w = w.lower().strip("'")
        if len(w) < 2 or w in STOP_WORDS or w in out:
            continue
        out.append(w)
    return out


def decode_header_value(value):
    if value is None:
        return ""
    try:
        return str(make_header(decode_header(str(value))))
    except Exception:
        return str(value)


def message_ids(value, bare_needs_at=True):
    """The <…> ids of a header value, without brackets and whitespace (as MailSearch stores them).
    Without any <…>, the bare words holding an @ (Hyperkitty's web replies write In-Reply-To bare)."""
    if not value:
        return []
    value = str(value)
    if "<" in value:
        ids = [re.sub(r"\s+", "", m) for m in re.findall(r"<([^<>]*)>", value)]
    else:
        ids = [w for w in re.split(r"[\s,]+", value) if w and ("@" in w or not bare_needs_at)]
    return [i for i in ids if i]


def part_text(part):
    payload = part.get_payload(decode=True) or b""
    charset = part.get_content_charset() or "us-ascii"
    try:
        return payload.decode(charset, errors="replace")
    except LookupError:
        return payload.decode("latin-1", errors="replace")


def text_parts(msg):
    for part in msg.walk():
        if part.is_multipart():
            continue
        if part.get_content_maintype() == "text" and part.get_content_subtype() in ("plain", "html"):
            yield part


# ---------------------------------------------------------------- hiding subjects

# "Subject" as mail clients write it in quoted and forwarded headers, in the languages of the corpora.
SUBJECT_WORDS = (r"(?:subject|betreff|objet|asunto|oggetto|assunto|onderwerp|ämne|emne|temat|konu|tárgy|předmět|"
                 r"aihe|тема|主题|主旨|件名|제목)")
SUBJECT_LINE = re.compile(
    r"^(?P<prefix>[\s>|]*)(?:[*_]{0,2})" + SUBJECT_WORDS + r"(?:[*_]{0,2})\s*[:：]\s*(?P<value>.*)$", re.IGNORECASE)
HEADER_LIKE = re.compile(r"^[\w][\w\- ]{0,30}:\s")
HTML_SUBJECT = re.compile(
    r"(?is)(?<![\w-])" + SUBJECT_WORDS +
    r"\s*(?:</?[a-z][^>]*>\s*)*[:：].{0,600}?(?=<br|</p|</div|</td|</tr|</li|</blockquote|$)")
HTML_TEXT_NODE = re.compile(r">([^<>]{3,600})<")
# A subject inside a line ("… cc: Subject: re: the deal"): wrapped Notes headers.
INLINE_SUBJECT = re.compile(r"(?i)(?<![\w-])" + SUBJECT_WORDS + r"\s*[:：]\s*(?P<value>.*)$")


class SubjectHider:
    """Removes subject lines from bodies. `known` is every normalised subject of the corpus (headers
    and quoted Subject: values), used to recognise a subject line's wrapped continuation."""

    def __init__(self, known):
        self.known = sorted(s for s in set(known) if s)

    def _is_prefix_of_known(self, s):
        i = bisect.bisect_left(self.known, s)
        return i < len(self.known) and self.known[i].startswith(s)

    def _is_known(self, s):
        i = bisect.bisect_left(self.known, s)
        return i < len(self.known) and self.known[i] == s

    def plain(self, text, own_subjects):
        lines = text.split("\n")
        out = []
        removed = 0
        i = 0
        while i < len(lines):
            line = lines[i]
            m = SUBJECT_LINE.match(line)
            if m:
                removed += 1
                value = m.group("value").strip()
                prefix = m.group("prefix")
                quote = prefix.replace(" ", "").replace("\t", "")
                i += 1
                # Wrapped continuation: following lines (same quote depth) while the subject so far is
                # a proper prefix of a known subject and grows towards it.
                accumulated = normalize_subject(value)
                while i < len(lines) and accumulated and not self._is_known(accumulated) \
                        and self._is_prefix_of_known(accumulated):
                    nxt = lines[i]
                    body = nxt.lstrip(" \t>|")
                    if nxt.replace(" ", "").replace("\t", "")[:len(quote)] != quote or not body.strip() \
                            or HEADER_LIKE.match(body):
                        break
                    candidate = normalize_subject(value + " " + body)
                    if not self._is_prefix_of_known(candidate):
                        break
                    value += " " + body
                    accumulated = candidate
                    removed += 1
                    i += 1
                continue
            inline = INLINE_SUBJECT.search(line)
            if inline:
                value = normalize_subject(inline.group("value"))
                if len(value) >= 3 and self._is_prefix_of_known(value):
                    removed += 1
                    line = line[:inline.start()]
            stripped = normalize_subject(line.strip(" \t>|*"))
            if stripped and len(stripped) >= 3 and stripped in own_subjects:
                removed += 1
                i += 1
                continue
            out.append(line)
            i += 1
        return "\n".join(out), removed

    def html(self, text, own_subjects):
        new, n = HTML_SUBJECT.subn("", text)

        def node(m):
            nonlocal n
            if normalize_subject(html.unescape(m.group(1)).strip(" \t\r\n>|*")) in own_subjects:
                n += 1
                return "><"
            return m.group(0)

        return HTML_TEXT_NODE.sub(node, new), n


def opaque_token(normalized_subject):
    """Six private-use characters derived from the normalised subject: one FTS5 token nobody types,
    removed by BERT's tokenizer (private use = control), equal for equal subjects."""
    digest = hashlib.sha256(normalized_subject.encode("utf-8")).digest()
    return "".join(chr(0xE000 + b) for b in digest[:6])


def hide_subjects(msg, hider, own_subjects, from_override=None):
    """Rewrites `msg` in place; returns the number of body lines removed."""
    subject = decode_header_value(msg.get("Subject"))
    if "Subject" in msg:
        del msg["Subject"]
    norm = normalize_subject(subject)
    if norm:
        msg["Subject"] = Header(opaque_token(norm), "utf-8").encode()
    for h in ("Thread-Topic", "X-Original-Subject"):
        while h in msg:
            del msg[h]
    if from_override:
        del msg["From"]
        msg["From"] = from_override
    # A fixed envelope line: mailbox would stamp the current time, and the copy must be reproducible.
    msg.set_unixfrom("From eval@mailsearch.invalid Thu Jan  1 00:00:00 1970")
    removed = 0
    for part in text_parts(msg):
        text = part_text(part)
        if part.get_content_subtype() == "html":
            new, n = hider.html(text, own_subjects)
        else:
            new, n = hider.plain(text, own_subjects)
        if n:
            removed += n
            del part["Content-Transfer-Encoding"]
            part.set_param("charset", "utf-8")
            part["Content-Transfer-Encoding"] = "base64"
            part.set_payload(base64.encodebytes(new.encode("utf-8")).decode("ascii"))
    return removed


def corpus_tokens(msg):
    """Lower-cased words of what the keyword index sees (sender and bodies), for the nonsense check."""
    tokens = set()
    name, addr = parseaddr(decode_header_value(msg.get("From")))
    for t in (name, addr):
        tokens.update(w.lower() for w in re.findall(r"[^\W_]+", t))
    for part in text_parts(msg):
        text = part_text(part)
        if part.get_content_subtype() == "html":
            text = re.sub(r"<[^>]*>", " ", text)
        tokens.update(w.lower() for w in re.findall(r"[^\W_]+", text))
    return tokens


def leaked(msg, phrase):
    """Whether the (normalised) subject phrase still occurs in the copy's text parts."""
    for part in text_parts(msg):
        text = " ".join(part_text(part).split()).lower()
        if phrase in text:
            return True
    return False


# ---------------------------------------------------------------- queries

NONSENSE_WORDS = """zebra tango quartz giraffe saxophone marzipan flamingo origami kangaroo tuba lavender volcano
harpsichord igloo pelican accordion mango walrus trombone cinnamon glacier koala pistachio banjo octopus meringue
armadillo tambourine papaya narwhal xylophone platypus bagpipe hummingbird sapphire yodel gazebo zucchini aardvark
mandolin jellyfish nutmeg lemur ukulele pineapple toucan marimba avocado cactus dolphin pretzel lollipop tulip
chameleon waffle penguin tiramisu oboe carousel raccoon""".split()


PRESENT_WORDS = """window river guitar carpet orange engine bottle garden pencil mirror ladder blanket candle
basket bridge castle cloud doctor dragon feather forest hammer island jacket kitchen lemon magnet monkey needle
ocean painter pillow planet pocket rabbit rocket saddle shadow silver spider sugar tiger tunnel umbrella valley
violin wallet whale winter wizard anchor apple balloon barrel cactus camera cheese circus coffee cookie cotton
desert diamond eagle farmer finger flower ghost honey horse jungle kettle lizard marble meadow mountain""".split()


def present_nonsense_queries(seed, message_tokens, count=20):
    """Triples of everyday words that each occur somewhere in the copy but never together in one
    message: incoherent queries made of words the mailbox knows (keyword search finds nothing; a
    semantic ranker must not find anything either). Seeded apart, so the other queries stay as they were."""
    rng = random.Random(seed * 7919 + 1)
    present = sorted({w for w in PRESENT_WORDS if any(w in t for t in message_tokens)})
    out = []
    tries = 0
    while len(out) < count and len(present) >= 3 and tries < 10000:
        tries += 1
        words = rng.sample(present, 3)
        if not any(all(w in t for w in words) for t in message_tokens):
            out.append(("incoherent", " ".join(words)))
    return out


def absence_test(tokens):
    """A test of whether a word is absent from `tokens`, also as a prefix of any of them (the keyword
    search matches prefixes)."""
    sorted_tokens = sorted(tokens)

    def absent(word):
        i = bisect.bisect_left(sorted_tokens, word)
        return not (i < len(sorted_tokens) and sorted_tokens[i].startswith(word))
    return absent


FUNCTION_WORDS = "on with the and in of at for".split()


def sentence_nonsense_queries(seed, tokens, message_tokens, count=40):
    """Strings of four to fourteen random everyday words, some of them joined by function words
    (`nonsense-sentence`: "purple elephant tapdancing on jupiter"): random words are nonsense at any
    length, and a long one must not pass for a question because it is long. A third of them made only
    of words the copy holds (never all together in one message), the rest a mix of those and words it
    lacks (also as a prefix). Seeded apart, so the other queries stay as they were."""
    rng = random.Random(seed * 7919 + 5)
    absent = absence_test(tokens)

    present = sorted({w for w in PRESENT_WORDS if any(w in t for t in message_tokens)})
    missing = [w for w in NONSENSE_WORDS if absent(w)]
    out, seen, tries = [], set(), 0
    while len(out) < count and tries < 100000 and len(present) >= 14:
        tries += 1
        n = rng.randint(4, 14)
        only_present = len(out) % 3 == 0 or not missing
        words = []
        while len(words) < n:
            w = rng.choice(present if only_present or rng.random() < 0.5 else missing)
            if w not in words:
                words.append(w)
        if any(all(w in t for w in words) for t in message_tokens):
            continue
        text = []
        for i, w in enumerate(words):
            if i and rng.random() < 0.3:
                text.append(rng.choice(FUNCTION_WORDS))
            text.append(w)
        q = " ".join(text)
        if q not in seen:
            seen.add(q)
            out.append(("nonsense-sentence", q))
    return out


def sender_nonsense_queries(queries, nonsense, count=30):
    """The `from:` part of the first `count` from queries with a nonsense text instead of the topic:
    a filter narrows the mail, it does not make nonsense mean something (no result either)."""
    texts = [q for kind, q in nonsense if kind.startswith("nonsense")]
    out = []
    for i, q in enumerate([q for q in queries if q["kind"].startswith("from")][:count]):
        m = re.match(r'(from:(?:"[^"]*"|\S+))', q["query"])
        if m and texts:
            out.append(("nonsense-from", m.group(1) + " " + texts[i % len(texts)]))
    return out


KEYBOARD_ROWS = ["qwertyuiop", "asdfghjkl", "zxcvbnm"]
SYLLABLE_ONSETS = ("b bl br d dr f fl fr g gl gr j k kr l m n p pl pr qu r s sk sn sp st sw t tr thr v vr w "
                   "z zh x").split()
SYLLABLE_VOWELS = "a e i o u a e i o u oo ai ee ou".split()
SYLLABLE_CODAS = ["", "", "", "rp", "nk", "x", "z", "b", "g", "m", "ft", "sk", "lp", "rb", "zz", "nd"]
INVENTED_SUFFIXES = ("tastic ified ulator omatic widget ster ix izer oid ulous ination ometer flux wock "
                     "ling").split()


def keyboard_word(rng):
    """A keyboard mash of 3 to 8 letters: a run along one qwerty row (either way), or a walk over
    neighbouring keys."""
    length = rng.randint(3, 8)
    if rng.random() < 0.55:
        row = rng.choice(KEYBOARD_ROWS)
        row = row if rng.random() < 0.5 else row[::-1]
        length = min(length, len(row))
        start = rng.randint(0, len(row) - length)
        return row[start:start + length]
    r = rng.randrange(3)
    c = rng.randrange(len(KEYBOARD_ROWS[r]))
    word = KEYBOARD_ROWS[r][c]
    while len(word) < length:
        steps = [(r, c - 1), (r, c + 1), (r - 1, c), (r - 1, c + 1), (r + 1, c), (r + 1, c - 1)]
        steps = [(a, b) for a, b in steps if 0 <= a < 3 and 0 <= b < len(KEYBOARD_ROWS[a])
                 and KEYBOARD_ROWS[a][b] not in word[-2:]]
        if not steps:
            break
        r, c = rng.choice(steps)
        word += KEYBOARD_ROWS[r][c]
    return word


def invented_word(rng):
    """A pronounceable invented word (two or three syllables, sometimes a made-up suffix), or a
    code-like token (digits and letters)."""
    roll = rng.random()
    if roll < 0.2:
        return "%d%s" % (rng.randint(100, 99999), "".join(rng.choice("qxzjkvw") for _ in range(rng.randint(1, 3))))
    syllables = rng.randint(2, 3)
    suffix = rng.choice(INVENTED_SUFFIXES) if rng.random() < 0.4 else ""
    word = "".join(rng.choice(SYLLABLE_ONSETS) + rng.choice(SYLLABLE_VOWELS) + rng.choice(SYLLABLE_CODAS)
                   for _ in range(syllables - 1 if suffix else syllables)) + suffix
    if roll > 0.88:
        word += str(rng.randint(2, 9999))
    return word


def mash_nonsense_queries(seed, tokens, count=25):
    """Keyboard mash (`nonsense-keyboard`: "kjhgf lkjhg mnbvc") and invented words and code-like junk
    (`nonsense-invented`: "blorptastic zanderfloop 4471zz"), one to three words, each absent from the
    copy also as a prefix. Seeded apart, so the other queries stay as they were."""
    absent = absence_test(tokens)

    out = []
    for kind, offset, make in (("nonsense-keyboard", 2, keyboard_word), ("nonsense-invented", 3, invented_word)):
        rng = random.Random(seed * 7919 + offset)
        made, seen, tries = 0, set(), 0
        while made < count and tries < 100000:
            tries += 1
            words = [make(rng) for _ in range(rng.randint(1, 3))]
            q = " ".join(words)
            if len(set(words)) == len(words) and q not in seen and all(absent(w) for w in words):
                seen.add(q)
                out.append((kind, q))
                made += 1
    return out


def nonsense_queries(rng, tokens, count_random=30, count_words=20):
    absent = absence_test(tokens)

    out = []
    fixed = ["xyznonexistent12345", "zebra tango quartz", "qwxzvb plmkrtq", "asdfghjkl zxcvbnm"]
    for q in fixed:
        if all(absent(w) for w in q.split()):
            out.append(("nonsense-fixed", q))
    letters = "abcdefghijklmnopqrstuvwxyz"
    made = 0
    while made < count_random:
        words = ["".join(rng.choice(letters) for _ in range(rng.randint(7, 12)))
                 for _ in range(1 if made % 3 else 2)]
        if all(absent(w) for w in words):
            out.append(("nonsense-letters", " ".join(words)))
            made += 1
    pool = [w for w in NONSENSE_WORDS if absent(w)]
    if len(pool) >= 3:
        for _ in range(count_words):
            out.append(("nonsense-words", " ".join(rng.sample(pool, 3))))
    return out, len(pool)


def topic_query(words):
    return " ".join(words[:6])


def short_query(words):
    ranked = sorted(enumerate(words[:6]), key=lambda p: (-len(p[1]), p[0]))[:2]
    return " ".join(w for _, w in sorted(ranked))


def quoted_name(name):
    return '"' + name.replace('"', "") + '"' if (" " in name or ":" in name) else name


# ---------------------------------------------------------------- threaded mail (usrp-users, lists, --mbox)

VIA = re.compile(r"\s+via\s+\S.*$", re.IGNORECASE)


def mbox_messages(path):
    """The raw bytes of each message of an mbox, in file order."""
    box = mailbox.mbox(path, factory=None, create=False)
    for key in box.iterkeys():
        yield box.get_bytes(key)


def eml_messages(directory):
    """The raw bytes of each *.eml file of a directory, in sorted file-name order."""
    for name in sorted(os.listdir(directory)):
        if name.endswith(".eml"):
            with open(os.path.join(directory, name), "rb") as f:
                yield f.read()


def build_threaded(raw_messages, source, corpus, out_dir, seed, max_topic, max_short, max_from):
    """A set from mail with threading headers (`raw_messages`: the bytes of each message, in a fixed
    order); `corpus` is the manifest's corpus name (the bench names its scratch data after it)."""
    messages = []  # (msgid, msg)
    seen = set()
    for raw in raw_messages:
        msg = email.message_from_bytes(raw, policy=email.policy.compat32)
        ids = message_ids(msg.get("Message-ID"), bare_needs_at=False)
        if not ids or ids[0] in seen:
            continue
        seen.add(ids[0])
        messages.append((ids[0], msg))

    links = UnionFind()
    find, union = links.find, links.union

    info = {}
    for mid, msg in messages:
        find(mid)
        for ref in message_ids(msg.get("In-Reply-To")) + message_ids(msg.get("References")):
            union(mid, ref)
        subject = decode_header_value(msg.get("Subject"))
        name, addr = parseaddr(decode_header_value(msg.get("From")))
        try:
            date = parsedate_to_datetime(msg.get("Date")).timestamp()
        except Exception:
            date = float("inf")
        real = VIA.sub("", name).strip().strip('"').strip()
        info[mid] = {"subject": subject, "norm": normalize_subject(subject), "name": real,
                     "via": bool(VIA.search(name)), "address": addr.lower(), "date": date}

    threads = {}
    for mid, _ in messages:
        threads.setdefault(find(mid), []).append(mid)
    threads = {k: sorted(v, key=lambda m: (info[m]["date"], m)) for k, v in threads.items() if len(v) >= 2}

    known = [i["norm"] for i in info.values()]
    hider = SubjectHider(known)
    mbox_path, out = fresh_mbox(out_dir)
    tokens = set()
    message_tokens = []
    removed_lines = 0
    copies = {}
    for mid, msg in messages:
        removed_lines += hide_subjects(msg, hider, {info[mid]["norm"]})
        message_tokens.append(corpus_tokens(msg))
        tokens |= message_tokens[-1]
        out.add(msg)
        copies[mid] = msg
    out.flush()
    out.unlock()
    out.close()

    rng = random.Random(seed)
    eligible = sorted((members for members in threads.values()
                       if len(content_words(info[members[0]]["norm"])) >= 2), key=lambda m: m[0])
    queries = []
    sample = rng.sample(eligible, min(max_topic, len(eligible)))
    for members in sample:
        words = content_words(info[members[0]]["norm"])
        queries.append({"kind": "topic", "query": topic_query(words), "relevant": members,
                        "thread_size": len(members)})
    for members in [m for m in sample if len(content_words(info[m[0]]["norm"])) >= 3][:max_short]:
        words = content_words(info[members[0]]["norm"])
        queries.append({"kind": "short", "query": short_query(words), "relevant": members,
                        "thread_size": len(members)})
    starters = [m for m in eligible if len(info[m[0]]["name"]) >= 3 and "@" not in info[m[0]]["name"]]
    for members in rng.sample(starters, min(max_from, len(starters))):
        root = info[members[0]]
        mine = [m for m in members if info[m]["name"].lower() == root["name"].lower()]
        words = content_words(root["norm"])
        queries.append({"kind": "from-via-list" if root["via"] else "from-direct",
                        "query": "from:%s %s" % (quoted_name(root["name"]), topic_query(words)),
                        "relevant": mine, "thread_size": len(members)})
    nonsense, pool = nonsense_queries(rng, tokens)
    nonsense += present_nonsense_queries(seed, message_tokens)
    nonsense += sender_nonsense_queries(queries, nonsense)
    nonsense += mash_nonsense_queries(seed, tokens)
    nonsense += sentence_nonsense_queries(seed, tokens, message_tokens)
    for kind, q in nonsense:
        queries.append({"kind": kind, "query": q, "relevant": []})

    leaks = leak_stats(queries, copies, lambda q: info[q["relevant"][0]]["norm"] if q["kind"] == "topic" else None)
    stats = {
        "corpus": corpus, "source": os.path.abspath(source), "messages": len(messages),
        "threads_2plus": len(threads), "threads_eligible": len(eligible),
        "messages_in_threads_2plus": sum(len(v) for v in threads.values()),
        "via_list_from": sum(1 for i in info.values() if i["via"]),
        "subject_lines_removed_from_bodies": removed_lines,
        "nonsense_word_pool_absent": pool, **leaks,
    }
    finish(out_dir, queries, stats)


def leak_stats(queries, copies, subject_of):
    """How many topic labels still have their full subject (3+ words) verbatim in a relevant copy."""
    checked = hits = 0
    for q in queries:
        s = subject_of(q)
        if not s or len(s.split()) < 3:
            continue
        checked += 1
        if any(leaked(copies[m], s) for m in q["relevant"] if m in copies):
            hits += 1
    return {"leak_check_topic_labels": checked, "leak_check_full_subject_still_in_a_relevant_body": hits}


def paraphrase_queries(out_dir, queries, stats, post_ids=None):
    """The hand-written paraphrase queries of this set (scripts/eval/paraphrase/<set>.jsonl): questions
    a person would ask, sharing few words with the mail, each written for one topic label (its
    conversation, `from_label`) and kept only when that label, with the same relevant messages, is in
    this build (another --seed or size picks other conversations). A set without topic labels passes
    `post_ids` (the Message-IDs of its copy): its lines have `from_label` "post" and are kept when
    every relevant message is in the copy."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "paraphrase",
                        os.path.basename(os.path.normpath(out_dir)) + ".jsonl")
    if not os.path.exists(path):
        return []
    by_id = {q["id"]: q for q in queries}
    kept, dropped = [], 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            p = json.loads(line)
            source = by_id.get(p.get("from_label"))
            if post_ids is not None and p.get("from_label") == "post":
                if p["relevant"] and all(m in post_ids for m in p["relevant"]):
                    kept.append(p)
                else:
                    dropped += 1
            elif source is not None and sorted(source["relevant"]) == sorted(p["relevant"]):
                kept.append(p)
            else:
                dropped += 1
    stats["paraphrase_queries_kept"] = len(kept)
    stats["paraphrase_queries_dropped_not_in_this_build"] = dropped
    return kept


def finish(out_dir, queries, stats, post_ids=None):
    # Two labelled threads that yield the same query (same subject, not linked by headers or quotes:
    # a repost, or a conversation the labels could not join) make one query relevant to both.
    merged, by_text = [], {}
    for q in queries:
        key = (q["kind"], q["query"])
        if key in by_text and q["relevant"]:
            first = by_text[key]
            first["relevant"] = first["relevant"] + [m for m in q["relevant"] if m not in first["relevant"]]
            first["thread_size"] = first.get("thread_size", 0) + q.get("thread_size", 0)
            first["merged_threads"] = first.get("merged_threads", 1) + 1
            continue
        by_text[key] = q
        merged.append(q)
    stats["queries_merged_same_text"] = len(queries) - len(merged)
    queries = merged
    for i, q in enumerate(queries):
        q["id"] = "%s-%04d" % (q["kind"], i)
    queries += paraphrase_queries(out_dir, queries, stats, post_ids)
    with open(os.path.join(out_dir, "labels.jsonl"), "w", encoding="utf-8") as f:
        for q in queries:
            f.write(json.dumps(q, ensure_ascii=False, sort_keys=True) + "\n")
    h = hashlib.sha256()
    with open(os.path.join(out_dir, "mail.mbox"), "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    kinds = {}
    for q in queries:
        kinds[q["kind"]] = kinds.get(q["kind"], 0) + 1
    stats.update({"queries": kinds, "mbox_sha256": h.hexdigest()})
    with open(os.path.join(out_dir, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(stats, f, indent=2, sort_keys=True)
        f.write("\n")
    print("%s: %d messages, queries %s (label statistics in %s/manifest.json)"
          % (out_dir, stats["messages"], json.dumps(kinds, sort_keys=True), out_dir))


# ---------------------------------------------------------------- Enron

ORIGINAL = re.compile(r"-{2,}\s*Original Message\s*-{2,}", re.IGNORECASE)
QUOTED_HEADER = re.compile(r"^(From|Sent|Date|To|Cc|Subject)\s*:\s*(.*)$", re.IGNORECASE)
SENT_FORMATS = ["%A, %B %d, %Y %I:%M %p", "%B %d, %Y %I:%M %p", "%d %B %Y %H:%M", "%a %m/%d/%Y %I:%M %p",
                "%m/%d/%Y %I:%M %p", "%a %b %d %H:%M:%S %Y", "%A, %B %d, %Y %H:%M"]


def parse_sent(value):
    v = " ".join(value.replace("=09", " ").replace("=20", " ").split())
    v = re.sub(r"^=\d\d", "", v).strip()
    for f in SENT_FORMATS:
        try:
            return dt.datetime.strptime(v, f)
        except ValueError:
            continue
    return None


def name_tokens(value):
    """Lower-case name tokens of a sender: display name words, or an address's local part."""
    v = re.sub(r"\[mailto:[^\]]*\]", " ", value or "")
    v = re.sub(r"</O=[^>]*>", " ", v)
    addresses = re.findall(r"[\w.+\-']+@[\w.\-]+", v)
    rest = re.sub(r"<[^>]*>|[\w.+\-']+@[\w.\-]+", " ", v)
    words = {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z'\-]+", rest) if len(w) >= 2}
    if not words:
        for a in addresses:
            words |= {w.lower() for w in re.split(r"[._\-+]", a.split("@")[0]) if len(w) >= 2 and w.isalpha()}
    return frozenset(words - {"enron", "ect", "hou", "mailto", "on", "behalf", "of"})


def display_name(x_from):
    """'Brown, Sharon </O=ENRON/…>' → 'Sharon Brown'; None when it is not a plain person name."""
    v = re.sub(r"<[^>]*>", "", x_from or "").replace('"', "").strip()
    v = re.sub(r"@\w+$", "", v).strip()
    if not v or "@" in v or not re.fullmatch(r"[A-Za-z][A-Za-z .,'\-]*", v):
        return None
    if v.count(",") == 1:
        last, first = [p.strip() for p in v.split(",")]
        v = (first + " " + last).strip()
    elif "," in v:
        return None
    v = " ".join(v.split())
    return v if len(v.split()) >= 2 else None


def enron_quotes(text):
    """(sender tokens, naive Sent datetime, normalised subject) of each Original-Message block."""
    out = []
    for m in ORIGINAL.finditer(text):
        fields = {}
        for line in text[m.end():m.end() + 3000].split("\n")[1:14]:
            line = line.strip().lstrip(">").strip()
            hm = QUOTED_HEADER.match(line)
            if hm:
                key = hm.group(1).lower()
                key = "sent" if key == "date" else key
                fields.setdefault(key, hm.group(2).strip())
            elif fields and not line:
                if "subject" in fields:
                    break
        if "from" in fields and "sent" in fields and "subject" in fields:
            sent = parse_sent(fields["sent"])
            norm = normalize_subject(fields["subject"])
            tokens = name_tokens(fields["from"])
            if sent and norm and tokens:
                out.append((tokens, sent, norm))
    return out


def copy_key(address, text):
    """Equal for copies of one mail: the same mail delivered to several inboxes has a Message-ID per
    copy, and broadcasts come from several sender addresses (a short text counts with its sender)."""
    text = " ".join(text.split())
    return hashlib.sha1(((address.lower() if len(text) < 200 else "") + "\0" + text).encode("utf-8")).digest()


def build_enron(root, out_dir, seed, size, max_topic, max_short, max_from, max_component, corpus="enron-inbox",
                apart_from_seed=None):
    """The Enron set of `seed`. With `apart_from_seed`, a set disjoint from the one that seed gives (same
    size and limits): none of its messages, and no message of any component it holds a message of. A list
    of seeds is a chain of sets, each built apart from those before it (enron, then enron-b apart from
    it): the set of `seed` is then disjoint in that sense from every one of them."""
    paths = []
    for d, dirs, files in os.walk(root):
        dirs.sort()
        paths += [os.path.join(d, f) for f in sorted(files)]
    msgs = []  # dicts
    seen = set()
    for p in paths:
        with open(p, "rb") as f:
            raw = f.read()
        msg = email.message_from_bytes(raw, policy=email.policy.compat32)
        ids = message_ids(msg.get("Message-ID"), bare_needs_at=False)
        if not ids or ids[0] in seen:
            continue
        seen.add(ids[0])
        try:
            date = parsedate_to_datetime(msg.get("Date"))
            utc = date.astimezone(dt.timezone.utc).replace(tzinfo=None, second=0, microsecond=0)
        except Exception:
            utc = None
        text = "\n".join(part_text(p) for p in text_parts(msg) if p.get_content_subtype() == "plain")
        subject = decode_header_value(msg.get("Subject"))
        _, addr = parseaddr(decode_header_value(msg.get("From")))
        x_from = decode_header_value(msg.get("X-From"))
        msgs.append({"path": p, "mid": ids[0], "utc": utc, "norm": normalize_subject(subject),
                     "sender": name_tokens(x_from) | name_tokens(addr), "address": addr.lower(),
                     "name": display_name(x_from), "quotes": enron_quotes(text),
                     "copy": copy_key(addr, text),
                     "own": text.split("-----Original Message-----")[0] if "Original Message" in text else None})

    links = UnionFind()
    find, union = links.find, links.union
    next_node = len(msgs)

    by_subject = {}
    for i, m in enumerate(msgs):
        if m["utc"] and m["norm"]:
            by_subject.setdefault(m["norm"], []).append(i)

    # Quote nodes live after the messages in the union-find.
    quote_nodes = {}  # (norm, minute) -> [(node, tokens, sent)]
    original_links = quote_links = 0
    pairs = []  # (quoting message, original message) for the reliability check
    for i, m in enumerate(msgs):
        for tokens, sent, norm in m["quotes"]:
            # (a) the archived original.
            for j in by_subject.get(norm, []):
                o = msgs[j]
                if j == i or not (tokens & o["sender"]):
                    continue
                delta = (sent - o["utc"]).total_seconds() / 60
                later = m["utc"] is not None and o["utc"] > m["utc"]
                if -14 * 60 <= delta <= 14 * 60 and delta % 60 == 0 and not later:
                    union(i, j)
                    original_links += 1
                    pairs.append((i, j))
            # (b) other messages quoting the same original.
            bucket = quote_nodes.setdefault((norm, sent.minute), [])
            node = None
            for other, other_tokens, other_sent in bucket:
                if tokens & other_tokens and abs((sent - other_sent).total_seconds()) <= 3 * 3600:
                    node = other
                    break
            if node is None:
                node = next_node  # a node of its own for the quoted original, past the messages
                next_node += 1
                bucket.append((node, tokens, sent))
            else:
                quote_links += 1
            union(i, node)

    components = {}
    for i in range(len(msgs)):
        components.setdefault(find(i), []).append(i)
    components = [sorted(v, key=lambda k: (msgs[k]["utc"] or dt.datetime.max, msgs[k]["mid"]))
                  for v in components.values() if len(v) >= 2]

    def subject_of(members):
        # The earliest quoted original's subject, else the earliest message's.
        quoted = sorted((sent, norm) for k in members for _, sent, norm in msgs[k]["quotes"])
        return quoted[0][1] if quoted else msgs[members[0]]["norm"]

    # Reliability: does the matched original's own text occur in the quoting message?
    agree = checked = 0
    for i, j in pairs:
        own = " ".join((msgs[j]["own"] or "").split())[:120] if msgs[j]["own"] is not None else None
        if own is None:
            with open(msgs[j]["path"], "rb") as f:
                o = email.message_from_bytes(f.read(), policy=email.policy.compat32)
            own = " ".join("\n".join(part_text(p) for p in text_parts(o)).split())[:120]
        if len(own) < 40:
            continue
        with open(msgs[i]["path"], "rb") as f:
            q = email.message_from_bytes(f.read(), policy=email.policy.compat32)
        quoting = " ".join("\n".join(part_text(p) for p in text_parts(q)).replace(">", " ").split()).lower()
        checked += 1
        agree += " ".join(own.replace(">", " ").split()).lower()[:60] in quoting

    def select(seed, excluded):
        """(rng after the draws, eligible components, chosen components, the subset's message indices)."""
        rng = random.Random(seed)
        eligible = sorted((c for c in components if 2 <= len(c) <= max_component
                           and len(content_words(subject_of(c))) >= 2 and not excluded.intersection(c)),
                          key=lambda c: msgs[c[0]]["mid"])
        rng.shuffle(eligible)
        chosen, included = [], set()
        for c in eligible:
            if len(chosen) >= max_topic or len(included) + len(c) > size * 0.6:
                break
            chosen.append(c)
            included.update(c)
        rest = [i for i in range(len(msgs)) if i not in included and i not in excluded]
        included.update(rng.sample(rest, max(0, min(len(rest), size - len(included)))))
        return rng, eligible, chosen, sorted(included)

    apart = {}
    excluded = set()
    if isinstance(apart_from_seed, int):
        apart_from_seed = [apart_from_seed]
    if apart_from_seed:
        # Each earlier set is drawn as it was built: the first of the chain from everything, every later
        # one apart from those before it. Then each set's messages, every other copy of the same mail, and
        # the components any of those belong to are excluded.
        component_of = {k: c for c in components for k in c}
        others, same_mail = [], set()
        for other_seed in apart_from_seed:
            _, _, _, other = select(other_seed, excluded)
            others.append(other)
            copies_of_other = {msgs[k]["copy"] for k in other}
            same = [i for i in range(len(msgs)) if msgs[i]["copy"] in copies_of_other]
            same_mail.update(same)
            excluded.update(same)
            for k in same:
                excluded.update(component_of.get(k, ()))
        if len(apart_from_seed) == 1:
            apart = {"apart_from_seed": apart_from_seed[0], "apart_from_messages": len(others[0])}
        else:
            apart = {"apart_from_seeds": list(apart_from_seed), "apart_from_messages": [len(o) for o in others]}
        apart.update({"apart_other_copies_of_the_same_mail": len(same_mail) - sum(len(o) for o in others),
                      "apart_excluded_messages_with_their_components": len(excluded)})
    rng, eligible, chosen, subset = select(seed, excluded)
    assert not excluded.intersection(subset)

    subjects_known = [m["norm"] for m in msgs] + [norm for m in msgs for _, _, norm in m["quotes"]]
    hider = SubjectHider(subjects_known)
    mbox_path, out = fresh_mbox(out_dir)
    tokens = set()
    message_tokens = []
    removed_lines = 0
    named = 0
    copies = {}
    for k in subset:
        m = msgs[k]
        with open(m["path"], "rb") as f:
            msg = email.message_from_bytes(f.read(), policy=email.policy.compat32)
        own = {m["norm"]} | {norm for _, _, norm in m["quotes"]}
        override = None
        if m["name"] and m["address"]:
            override = '"%s" <%s>' % (m["name"], m["address"])
            named += 1
        removed_lines += hide_subjects(msg, hider, own, from_override=override)
        message_tokens.append(corpus_tokens(msg))
        tokens |= message_tokens[-1]
        out.add(msg)
        copies[m["mid"]] = msg
    out.flush()
    out.unlock()
    out.close()

    queries = []
    for c in chosen:
        queries.append({"kind": "topic", "query": topic_query(content_words(subject_of(c))),
                        "relevant": [msgs[k]["mid"] for k in c], "thread_size": len(c)})
    for c in [c for c in chosen if len(content_words(subject_of(c))) >= 3][:max_short]:
        queries.append({"kind": "short", "query": short_query(content_words(subject_of(c))),
                        "relevant": [msgs[k]["mid"] for k in c], "thread_size": len(c)})
    with_names = [c for c in chosen if any(msgs[k]["name"] for k in c)]
    for c in rng.sample(with_names, min(max_from, len(with_names))):
        starter = next(k for k in c if msgs[k]["name"])
        mine = [msgs[k]["mid"] for k in c if msgs[k]["address"] == msgs[starter]["address"]]
        queries.append({"kind": "from-direct",
                        "query": "from:%s %s" % (quoted_name(msgs[starter]["name"]),
                                                 topic_query(content_words(subject_of(c)))),
                        "relevant": mine, "thread_size": len(c)})
    nonsense, pool = nonsense_queries(rng, tokens)
    nonsense += present_nonsense_queries(seed, message_tokens)
    nonsense += sender_nonsense_queries(queries, nonsense)
    nonsense += mash_nonsense_queries(seed, tokens)
    nonsense += sentence_nonsense_queries(seed, tokens, message_tokens)
    for kind, q in nonsense:
        queries.append({"kind": kind, "query": q, "relevant": []})

    subject_by_first = {msgs[c[0]]["mid"]: subject_of(c) for c in chosen}
    leaks = leak_stats(queries, copies,
                       lambda q: subject_by_first.get(q["relevant"][0]) if q["kind"] == "topic" else None)
    sizes = sorted(len(c) for c in components)
    stats = {
        "corpus": corpus, "source": os.path.abspath(root), "messages_total": len(msgs), **apart,
        "messages": len(subset), "messages_with_original_message_blocks": sum(1 for m in msgs if m["quotes"]),
        "quoted_originals_parsed": sum(len(m["quotes"]) for m in msgs),
        "links_to_archived_original": original_links, "links_via_same_quoted_original": quote_links,
        "components_2plus": len(components), "messages_in_components": sum(sizes),
        "component_size_median": sizes[len(sizes) // 2] if sizes else 0, "component_size_max": sizes[-1] if sizes else 0,
        "components_eligible": len(eligible), "components_chosen": len(chosen),
        "reliability_pairs_checked": checked, "reliability_original_text_found_in_quoting_message": agree,
        "display_names_restored_from_x_from": named,
        "subject_lines_removed_from_bodies": removed_lines, "nonsense_word_pool_absent": pool, **leaks,
    }
    # Paraphrases may also be written for one email ("post": enron-e has no conversations left to label).
    finish(out_dir, queries, stats, post_ids=set(copies))


# ---------------------------------------------------------------- 20 Newsgroups (no subjects, no senders)

NG_QUOTED = re.compile(r"^\s*[>|]")
NG_ATTRIBUTION = re.compile(r"(?i)\bin article\b|\b(?:writes|wrote|says)\s*:")
NG_ADDRESS = re.compile(r"\S+@\S+|<[^<>]*>|\b(?:https?|ftp|news|gopher)://\S+|\b(?:ftp|www)\.\S+")


def newsgroups_own_words(msg):
    """The content words of a post's own lines, in order of first occurrence: no quoted ("> ", "| ")
    lines, no "In article … writes:" lines, no addresses or URLs; letters only, 4 to 20 of them,
    lower-cased, not stop words (split as FTS5's unicode61 splits: at anything not a letter or digit)."""
    text = "\n".join(part_text(p) for p in text_parts(msg) if p.get_content_subtype() == "plain")
    out, seen = [], set()
    for line in text.split("\n"):
        if NG_QUOTED.match(line) or NG_ATTRIBUTION.search(line):
            continue
        for w in re.findall(r"[^\W_]+", NG_ADDRESS.sub(" ", line).lower()):
            if w.isascii() and w.isalpha() and 4 <= len(w) <= 20 and w not in STOP_WORDS and w not in seen:
                seen.add(w)
                out.append(w)
    return out


def build_newsgroups(path, out_dir, seed, max_short=100, corpus="newsgroups-1993"):
    """The newsgroups set from scripts/fetch-newsgroups-corpus.sh's mbox: posts with an empty subject,
    a synthetic sender each and no threading headers, so every post is a conversation of its own.
    `short` queries: for `max_short` seeded posts, the post's two rarest own content words among those
    held by at most 3 posts (a post holds a word when one of its indexed words starts with it: the
    keyword search matches prefixes; neither word a prefix of the other), written in the post's order;
    relevant = every post holding both."""
    messages = []  # (msgid, group, msg)
    seen = set()
    for raw in mbox_messages(path):
        msg = email.message_from_bytes(raw, policy=email.policy.compat32)
        ids = message_ids(msg.get("Message-ID"), bare_needs_at=False)
        if not ids or ids[0] in seen:
            continue
        seen.add(ids[0])
        messages.append((ids[0], (msg.get("Newsgroups") or "").strip(), msg))

    # No subjects to hide (they are empty); subject lines inside bodies go as in every other set.
    hider = SubjectHider([])
    mbox_path, out = fresh_mbox(out_dir)
    tokens = set()
    message_tokens = []
    own_words = []
    removed_lines = 0
    for mid, _, msg in messages:
        removed_lines += hide_subjects(msg, hider, set())
        message_tokens.append(corpus_tokens(msg))
        tokens |= message_tokens[-1]
        own_words.append(newsgroups_own_words(msg))
        out.add(msg)
    out.flush()
    out.unlock()
    out.close()

    postings = {}
    for i, t in enumerate(message_tokens):
        for w in t:
            postings.setdefault(w, []).append(i)
    vocabulary = sorted(postings)
    holders_of = {}

    def holders(word):
        """The posts holding a word that starts with `word`."""
        if word not in holders_of:
            found = set()
            i = bisect.bisect_left(vocabulary, word)
            while i < len(vocabulary) and vocabulary[i].startswith(word):
                found.update(postings[vocabulary[i]])
                i += 1
            holders_of[word] = found
        return holders_of[word]

    rng = random.Random(seed)
    order = list(range(len(messages)))
    rng.shuffle(order)
    queries = []
    relevant_sizes = []
    for i in order:
        if len(queries) >= max_short:
            break
        rare = sorted((len(holders(w)), -len(w), k, w) for k, w in enumerate(own_words[i]) if len(holders(w)) <= 3)
        pair = None
        for a in range(len(rare)):
            for b in range(a + 1, len(rare)):
                x, y = rare[a][3], rare[b][3]
                if not x.startswith(y) and not y.startswith(x):
                    pair = sorted((rare[a], rare[b]), key=lambda r: r[2])
                    break
            if pair:
                break
        if not pair:
            continue
        relevant = sorted(holders(pair[0][3]) & holders(pair[1][3]))
        assert i in relevant
        relevant_sizes.append(len(relevant))
        queries.append({"kind": "short", "query": " ".join(r[3] for r in pair),
                        "relevant": [messages[k][0] for k in relevant]})
    nonsense, pool = nonsense_queries(rng, tokens)
    nonsense += present_nonsense_queries(seed, message_tokens)
    nonsense += mash_nonsense_queries(seed, tokens)
    nonsense += sentence_nonsense_queries(seed, tokens, message_tokens)
    for kind, q in nonsense:
        queries.append({"kind": kind, "query": q, "relevant": []})

    groups = {}
    for _, group, _ in messages:
        groups[group] = groups.get(group, 0) + 1
    stats = {
        "corpus": corpus, "source": os.path.abspath(path), "messages": len(messages), "groups": groups,
        "conversations": len(messages), "posts_without_own_words": sum(1 for w in own_words if not w),
        "short_relevant_posts": {str(n): relevant_sizes.count(n) for n in sorted(set(relevant_sizes))},
        "subject_lines_removed_from_bodies": removed_lines, "nonsense_word_pool_absent": pool,
    }
    finish(out_dir, queries, stats, post_ids=seen)


BUILT_IN_SETS = ["usrp", "enron", "enron-b", "enron-c", "enron-d", "enron-e", "enron-f", "spamassassin", "newsgroups"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--usrp", default="corpora/usrp-users.mbox")
    ap.add_argument("--enron", default="corpora/enron-inbox/maildir")
    ap.add_argument("--lists", default="corpora/list-heldout/original",
                    help="folder of *.eml list mail for the spamassassin set (scripts/fetch-list-corpus.sh)")
    ap.add_argument("--newsgroups", default="corpora/newsgroups.mbox",
                    help="mbox of the newsgroups set (scripts/fetch-newsgroups-corpus.sh)")
    ap.add_argument("--mbox", action="append", default=[], metavar="NAME=PATH",
                    help="also build OUT/NAME from the mbox PATH, threaded by its headers (corpus NAME); repeatable")
    ap.add_argument("--out", default="eval-data")
    ap.add_argument("--seed", type=int, default=8)
    ap.add_argument("--enron-b-seed", type=int, default=None,
                    help="seed of enron-b, disjoint from the enron set of --seed (default --seed + 1)")
    ap.add_argument("--enron-c-seed", type=int, default=None,
                    help="seed of enron-c, disjoint from both the enron and the enron-b set (default --seed + 2)")
    ap.add_argument("--enron-d-seed", type=int, default=None,
                    help="seed of enron-d, disjoint from the enron, enron-b and enron-c sets (default --seed + 3)")
    ap.add_argument("--enron-e-seed", type=int, default=None,
                    help="seed of enron-e, disjoint from the enron, enron-b, enron-c and enron-d sets (default --seed + 4)")
    ap.add_argument("--enron-f-seed", type=int, default=None,
                    help="seed of enron-f, disjoint from the enron and enron-b to enron-e sets (default --seed + 5)")
    ap.add_argument("--enron-size", type=int, default=5000)
    ap.add_argument("--topic", type=int, default=400)
    ap.add_argument("--short", type=int, default=200)
    ap.add_argument("--from-queries", type=int, default=200)
    ap.add_argument("--only", metavar="SET", help="build only this set: %s, or a --mbox NAME" % ", ".join(BUILT_IN_SETS))
    args = ap.parse_args()
    extra = {}
    for spec in args.mbox:
        name, sep, path = spec.partition("=")
        if not sep or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name) or not path:
            ap.error("--mbox wants NAME=PATH (NAME of letters, digits, . _ -), not %r" % spec)
        if name in BUILT_IN_SETS or name in extra:
            ap.error("--mbox %s: that set name is taken" % name)
        extra[name] = path
    if args.only is not None and args.only not in BUILT_IN_SETS and args.only not in extra:
        ap.error("--only %s: not one of %s" % (args.only, ", ".join(BUILT_IN_SETS + list(extra))))

    def wanted(name):
        return args.only in (None, name)

    if wanted("usrp"):
        if not os.path.exists(args.usrp):
            sys.exit("%s not found (make corpora)" % args.usrp)
        build_threaded(mbox_messages(args.usrp), args.usrp, "usrp-users", os.path.join(args.out, "usrp"),
                       args.seed, args.topic, args.short, args.from_queries)
    enron_b_seed = args.seed + 1 if args.enron_b_seed is None else args.enron_b_seed
    enron_c_seed = args.seed + 2 if args.enron_c_seed is None else args.enron_c_seed
    enron_d_seed = args.seed + 3 if args.enron_d_seed is None else args.enron_d_seed
    enron_e_seed = args.seed + 4 if args.enron_e_seed is None else args.enron_e_seed
    enron_f_seed = args.seed + 5 if args.enron_f_seed is None else args.enron_f_seed
    for name, corpus, seed, apart in (("enron", "enron-inbox", args.seed, None),
                                      ("enron-b", "enron-inbox-b", enron_b_seed, args.seed),
                                      ("enron-c", "enron-inbox-c", enron_c_seed, [args.seed, enron_b_seed]),
                                      ("enron-d", "enron-inbox-d", enron_d_seed, [args.seed, enron_b_seed, enron_c_seed]),
                                      ("enron-e", "enron-inbox-e", enron_e_seed,
                                       [args.seed, enron_b_seed, enron_c_seed, enron_d_seed]),
                                      ("enron-f", "enron-inbox-f", enron_f_seed,
                                       [args.seed, enron_b_seed, enron_c_seed, enron_d_seed, enron_e_seed])):
        if wanted(name):
            if not os.path.isdir(args.enron):
                sys.exit("%s not found (make corpora)" % args.enron)
            build_enron(args.enron, os.path.join(args.out, name), seed, args.enron_size, args.topic,
                        args.short, args.from_queries, max_component=40, corpus=corpus, apart_from_seed=apart)
    if wanted("spamassassin"):
        if not os.path.isdir(args.lists):
            sys.exit("%s not found (scripts/fetch-list-corpus.sh)" % args.lists)
        build_threaded(eml_messages(args.lists), args.lists, "spamassassin-lists",
                       os.path.join(args.out, "spamassassin"), args.seed, args.topic, args.short, args.from_queries)
    if wanted("newsgroups"):
        if not os.path.isfile(args.newsgroups):
            sys.exit("%s not found (scripts/fetch-newsgroups-corpus.sh)" % args.newsgroups)
        build_newsgroups(args.newsgroups, os.path.join(args.out, "newsgroups"), args.seed)
    for name, path in extra.items():
        if wanted(name):
            if not os.path.isfile(path):
                sys.exit("--mbox %s: %s not found" % (name, path))
            build_threaded(mbox_messages(path), path, name, os.path.join(args.out, name), args.seed, args.topic,
                           args.short, args.from_queries)


if __name__ == "__main__":
    main()
