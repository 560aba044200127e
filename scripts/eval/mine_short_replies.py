#!/usr/bin/env python3
"""Candidates for the curated reply set (Sources/ThreadInsights/Resources/replies.tsv), mined from
the short replies people actually sent in the email (message, reply) pair sets.

Reads the cleaned pairs (bench-data/pairs/{usrp,spamassassin,enron}.jsonl: quotes, signatures,
greetings and sign-offs already removed; chitchat.jsonl is casual conversation, not email, and is
never mined, only read as a vocabulary of everyday words) and keeps a reply when it is

  - short: at most 12 words and one or two sentences, once leftovers the cleaner missed are cut
    ("Sent from my iPhone", "<end transmission>", attachment markers, a trailing line of initials or
    a name, emoticons);
  - free of names: a person addressed ("Thanks Jim", "Steve, ...", "..., Jim") is REMOVED; a reply
    that still has a capitalised word that the corpora never write in lower case (a name, a product)
    is dropped, never rewritten with other words;
  - free of numbers and dates (digits, number words above one, weekdays, months), URLs, email
    addresses, paths and file names, code-like tokens (underscores, camelCase, =, <>, {}, ...),
    acronyms, quoted terms, and not ending in a colon (what it pointed to, a link, was cut);
  - made of common words: each word (or the word it inflects) is in chitchat's everyday vocabulary,
    in replies.tsv, or written in lower case in at least two of the three email sets, so a
    technical term of one list is dropped;
  - not a near-duplicate of a reply already in replies.tsv (case and punctuation folded equal,
    word-set Jaccard >= 0.75, or difflib ratio >= 0.85).

Normalised lightly (emoticons out, spaces folded, repeated punctuation collapsed, a capital letter
opening each sentence, a final punctuation mark), then grouped by their folded form (case and
punctuation), each printed with the sets it comes from and how often, most frequent first. Whether
a candidate is generic enough to be a first reply to many emails is left to a human editor: this
only narrows the reading.

  python3 scripts/eval/mine_short_replies.py [--pairs bench-data/pairs] [--replies replies.tsv] [--show-dropped]

--replies: the set to deduplicate against, by default the shipped file; candidates once added to it
no longer show. The 32 replies added from this (the block under its comment in replies.tsv) were
chosen from the 119 candidates it printed against the 200 replies written before them.

Writes nothing; prints the candidates (and, with --show-dropped, every short reply it dropped and
why) to standard output, drop counts by reason at the end.
"""
import argparse
import collections
import difflib
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SETS = ["usrp", "spamassassin", "enron"]
MAX_WORDS = 12
MAX_SENTENCES = 2

WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)*")
ACRONYMS = {"I", "OK", "FYI", "ASAP", "BTW"}
NUMBER_WORDS = {"two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                "twelve", "twenty", "thirty", "forty", "fifty", "hundred", "thousand", "million",
                "billion", "half", "dozen", "first", "second", "third"}
DATE_WORDS = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
              "january", "february", "april", "june", "july", "august", "september", "october",
              "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept",
              "oct", "nov", "dec", "mon", "tue", "wed", "thu", "fri", "sat", "sun", "am", "pm",
              "thanksgiving", "christmas", "easter"}
# Words that open a reply followed by a comma and are not a person addressed.
OPENERS = {"yes", "no", "ok", "okay", "sure", "well", "thanks", "thank", "great", "sorry", "hi",
           "hello", "hey", "oh", "hmm", "right", "also", "actually", "so", "again", "agreed",
           "fine", "good", "cool", "yep", "yup", "yeah", "nope", "indeed", "absolutely", "perfect",
           "excellent", "done", "noted", "understood", "alright", "true", "correct", "exactly",
           "cheers", "anyway", "btw", "fyi", "please", "and", "but", "or", "all", "nice", "wow",
           "oops", "whoops", "ah", "aha", "hah", "ha", "unfortunately", "however", "otherwise",
           "then", "now", "here", "there", "this", "that", "it", "i", "we", "you", "not"}
NOISE_LINES = re.compile(r"^\s*(sent from my \w+.*|<end transmission>|-+\s*inline attachment follows\s*-+|"
                         r"_{3,}|-{3,}|\*{3,}|=+|hth\.?|--+)\s*$", re.I)
EMOTICON = re.compile(r"(?<!\w)(?:[:;8xX=]-?[()DPp\]\[/\\|]+|[(]-?[:;]|<g>|\*sigh\*|lol)(?!\w)")
URLISH = re.compile(r"(https?://|www\.|\w@\w|\b\w+\.(com|org|net|edu|gov|txt|py|c|h|v|cpp|xml|yml|yaml|"
                    r"json|conf|cfg|log|sh|pdf|doc|docx|xls|xlsx|ppt|zip|tar|gz|exe|dll|so)\b|"
                    r"[/\\]\w|\w[/\\])", re.I)
CODEISH = re.compile(r"[_{}=<>`|#$%^~\[\]]|\w\.\w|[a-z][A-Z]|--\w|\+\+")


def words(text):
    return WORD.findall(text)


def fold(text):
    """Case and punctuation folded: the key for deduplication."""
    return " ".join(w.lower().replace("’", "'") for w in words(text))


def load_replies_tsv(path):
    bank = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#") or "\t" not in line:
                continue
            intent, text = line.split("\t", 1)
            bank.append((intent, text))
    return bank


class Lexicon:
    """Everyday words, the words the corpora write in lower case, and name words."""

    def __init__(self, pairs_dir, bank):
        per_set = {}
        lower_count, cap_count = collections.Counter(), collections.Counter()
        for name in SETS + ["chitchat"]:
            seen = set()
            with open(os.path.join(pairs_dir, name + ".jsonl"), encoding="utf-8") as f:
                for line in f:
                    d = json.loads(line)
                    for t in (d.get("message", ""), d.get("reply", "")):
                        t = re.sub(r"\S*(@|://|www\.)\S*", " ", t)  # addresses: "john" of john.doe@
                        for m in WORD.finditer(t):
                            w = m.group(0).replace("’", "'")
                            before = t[:m.start()].rstrip(" \t\"'(")
                            if w.islower():
                                seen.add(w)
                                lower_count[w] += 1
                            elif w[0].isupper() and w[1:].islower() and before and before[-1] not in ".!?:\n-":
                                cap_count[w.lower()] += 1
            per_set[name] = seen
        # every word the corpora write in lower case somewhere
        self.lower_seen = set(lower_count)
        # written capitalised inside a sentence at least twice as often as in lower case: a name, also
        # when someone types it in lower case ("thanks rob")
        self.names = {w for w, c in cap_count.items() if c >= 2 and c >= 2 * lower_count[w]} - OPENERS
        # everyday words: chitchat's, replies.tsv's, or in lower case in at least two of the email sets
        in_two = {w for w in self.lower_seen if sum(w in per_set[s] for s in SETS) >= 2}
        self.common = (per_set["chitchat"] | in_two) - self.names
        for _, text in bank:
            self.common |= {w.lower().replace("’", "'") for w in words(text)}

    def is_name(self, token):
        """A person or a product: initials, a name word, or a capitalised word the corpora never
        write in lower case."""
        token = token.strip(".,:;!?-")
        if not token or token in ACRONYMS or token.startswith("I'"):
            return False
        if token.isupper() and len(token) <= 4:
            return True
        if token.lower() in self.names:
            return True
        return token[:1].isupper() and token.lower() not in self.lower_seen

    def is_initials(self, token):
        """A trailing signature token: initials ("JR", "sg", "-sv", "O") or a name."""
        token = token.strip(".,:;!?")
        return bool(re.fullmatch(r"-?[A-Z]{1,3}|-?[a-z]{1,3}", token) and token.lstrip("-").lower() not in self.common) \
            or self.is_name(token.lstrip("-"))

    def is_common(self, word):
        """An everyday word, or an inflection of one ("solved", "clearer", "discussions")."""
        if word in self.common:
            return True
        for suffix in ("s", "es", "d", "ed", "ing", "er", "ly"):
            if word.endswith(suffix) and len(word) > len(suffix) + 2:
                stem = word[:-len(suffix)]
                if stem in self.common or stem + "e" in self.common or \
                        (len(stem) > 2 and stem[-1] == stem[-2] and stem[:-1] in self.common):
                    return True
        return False


def strip_leftovers(reply, lex):
    """Cut the lines the cleaner missed: device footers, attachment markers, a trailing sign-off line
    of a name or initials, a leading line that only addresses someone, trailing initials."""
    lines = [l.strip() for l in reply.replace("\r", "").split("\n")]
    lines = [l for l in lines if l and not NOISE_LINES.match(l)]
    while len(lines) > 1:
        last = lines[-1]
        toks = last.replace(",", " ").split()
        # a signature's phone number, postal address (a 5-digit code) or email address; not a link
        contact = re.fullmatch(r"[\d\s().+/-]{7,}|\S+@\S+|.*\b\d{5}\b.*", last)
        if contact or 0 < len(toks) <= 3 and (all(lex.is_initials(t) for t in toks) or (last.endswith(",") and len(toks) <= 2)):
            lines.pop()
        else:
            break
    if len(lines) > 1 and re.fullmatch(r"[A-Z][a-z]+\s*(,|:|--|-)?", lines[0]) and lex.is_name(lines[0].split()[0]):
        lines.pop(0)
    text = " ".join(lines)
    # initials after the last sentence on the same line: "i'm good for Friday... O", "...  JR"
    m = re.search(r"([.!?]|\s{2,})\s*(\S+)$", text)
    if m and lex.is_initials(m.group(2)) and not re.search(r"[.!?]$", m.group(2)) or \
            m and re.fullmatch(r"-[A-Z][a-z]+", m.group(2)):
        text = text[:m.start(2)].rstrip()
    return text


def remove_vocatives(text, lex):
    """Remove a person addressed ("Steve, ...", "Thanks Jim!", "... for your reply Sam.")."""
    # "Steve, ..." / "Lindy: ..." / "Jeff -- ..." at the start
    m = re.match(r"^([A-Za-z]+)\s*(,|:|--|-)\s+", text)
    if m and m.group(1).lower() not in OPENERS and lex.is_name(m.group(1).capitalize()):
        text = text[m.end():]
    # "Thanks Jim!" / "Thank you Jeff" / "Thanks Rob, I ..." / "Hi Bob." / "thanks rob!"
    def drop(mm):
        return mm.group(1) + mm.group(3) if lex.is_name(mm.group(2).capitalize()) else mm.group(0)
    text = re.sub(r"\b((?:[Tt]hanks|[Tt]hank you|[Tt]hx|[Hh]i|[Hh]ey|[Cc]heers)(?: again| so much| very much| a lot)?),?"
                  r"\s+([A-Za-z]+)\b(\s*[.!,;:–-]|\s*$)", drop, text)
    # "..., Jim." at the end, or "Thanks for your quick reply Wade!"
    m = re.search(r",?\s+([A-Za-z]+)\s*([.!?]*)\s*$", text)
    if m and m.group(1)[0].isupper() and lex.is_name(m.group(1)) and (
            text[m.start()] == "," or re.match(r"(?i)(many )?thank", text)):
        text = text[:m.start()] + m.group(2)
    return text


def normalise(text):
    """Light: emoticons out, spaces and repeated punctuation folded, a capital letter opening each
    sentence, a final punctuation mark."""
    text = EMOTICON.sub(" ", text)
    text = text.replace("’", "'").replace("–", "-").replace("—", "-")
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s+([,.!?;:])", r"\1", text)
    text = re.sub(r"([!?])[!?.]+", r"\1", text)
    text = re.sub(r"\.{2,}", ".", text)
    text = re.sub(r",+", ",", text)
    text = re.sub(r"^[-,;:.\s]+|[-,;:\s]+$", "", text)
    text = re.sub(r"\bi\b", "I", text)
    text = re.sub(r"\bi'(m|ll|ve|d)\b", lambda m: "I'" + m.group(1), text)
    text = re.sub(r"(^|[.!?]\s+)([a-z])", lambda m: m.group(1) + m.group(2).upper(), text)
    text = re.sub(r"\b([A-Z])([A-Z])([a-z]+)\b", lambda m: m.group(1) + m.group(2).lower() + m.group(3), text)
    text = re.sub(r"\b[Ff]yi\b", "FYI", text)
    text = re.sub(r"[.!]?\s*(Best |Kind |Warm )?[Rr]egards[.!,]*$", ".", text).strip()
    if text and text[-1] not in ".!?":
        last = sentences(text)[-1]
        text += "?" if re.match(r"(?i)(is|are|do|does|did|can|could|would|will|should|have|has|what|"
                                r"where|when|why|who|how|which|any)\b", last) else "."
    return text


def sentences(text):
    return [s for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()]


def near_duplicate(key, bank_keys):
    """The reply of replies.tsv a folded candidate repeats, if any."""
    a = set(key.split())
    for bkey, btext in bank_keys:
        b = set(bkey.split())
        if key == bkey or (a and b and len(a & b) / len(a | b) >= 0.75) \
                or difflib.SequenceMatcher(None, key, bkey).ratio() >= 0.85:
            return btext
    return None


def judge(reply, lex):
    """(normalised text, None) for a candidate, or (text, reason) for a drop."""
    text = strip_leftovers(reply, lex)
    if len(words(text)) > MAX_WORDS + 2:  # a name or an emoticon may still go
        return text, "long"
    if EMOTICON.sub(" ", text).rstrip().endswith(":"):  # "See amounts below:", "Also:" before a link
        return text, "points to what was cut"
    if URLISH.search(text):
        return text, "url, address or file"
    if re.search(r"\d", text):
        return text, "number"
    text = normalise(remove_vocatives(text, lex))
    ws = words(text)
    if not ws:
        return text, "empty once cleaned"
    if len(ws) > MAX_WORDS:
        return text, "long"
    if len(sentences(text)) > MAX_SENTENCES:
        return text, "more than two sentences"
    if re.search(r"[\"“”]|(?<!\w)'\w[^']*'(?!\w)", text):
        return text, "quoted term"
    if CODEISH.search(text):
        return text, "code-like"
    lows = [w.lower() for w in ws]
    if any(w in NUMBER_WORDS for w in lows):
        return text, "number"
    if any(w in DATE_WORDS and (len(w) > 3 or w in ("june", "july") or t[0].isupper()) and w not in ("am", "pm")
           for w, t in zip(lows, ws)):
        return text, "date"
    sentence_start = True
    for t in re.findall(r"[A-Za-z]+(?:'[A-Za-z]+)*|[.!?]", text):
        if t in ".!?":
            sentence_start = True
            continue
        if lex.is_name(t) or (not sentence_start and t[0].isupper() and t not in ACRONYMS and not t.startswith("I'")):
            return text, "name or product"
        sentence_start = False
    rare = [w for w in lows if not lex.is_common(w)]
    if rare:
        return text, "uncommon word: " + ", ".join(rare)
    return text, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", default=os.path.join(ROOT, "bench-data", "pairs"))
    ap.add_argument("--replies", default=os.path.join(ROOT, "Sources", "ThreadInsights", "Resources", "replies.tsv"))
    ap.add_argument("--show-dropped", action="store_true", help="also print each short reply dropped and why")
    args = ap.parse_args()

    bank = load_replies_tsv(args.replies)
    bank_keys = [(fold(t), t) for _, t in bank]
    lex = Lexicon(args.pairs, bank)

    groups = {}  # folded text -> {"forms": Counter, "sets": Counter}
    drops = collections.Counter()
    dropped = []
    total = kept = 0
    for name in SETS:
        with open(os.path.join(args.pairs, name + ".jsonl"), encoding="utf-8") as f:
            for line in f:
                reply = json.loads(line)["reply"]
                total += 1
                if len(words(reply)) > 3 * MAX_WORDS:  # far too long even with a signature left
                    drops["long"] += 1
                    continue
                text, reason = judge(reply, lex)
                if reason is None:
                    dup = near_duplicate(fold(text), bank_keys)
                    if dup is not None:
                        reason = "near-duplicate of replies.tsv: " + dup
                if reason is not None:
                    drops[reason.split(":")[0]] += 1
                    if reason != "long":
                        dropped.append((name, reason, reply.replace("\n", " / ")))
                    continue
                kept += 1
                g = groups.setdefault(fold(text), {"forms": collections.Counter(), "sets": collections.Counter()})
                g["forms"][text] += 1
                g["sets"][name] += 1

    ranked = sorted(groups.items(), key=lambda kv: (-sum(kv[1]["sets"].values()), kv[0]))
    print(f"# {total} replies read ({', '.join(SETS)}); {kept} kept, {len(ranked)} distinct candidates")
    print("# count\tsets\tcandidate")
    for _, g in ranked:
        sets = ",".join(f"{s}:{c}" for s, c in sorted(g["sets"].items()))
        print(f"{sum(g['sets'].values())}\t{sets}\t{g['forms'].most_common(1)[0][0]}")
    if args.show_dropped:
        print("\n# dropped short replies (set, reason, reply)")
        for name, reason, reply in dropped:
            print(f"{name}\t{reason}\t{reply}")
    print("\n# dropped, by reason: " + "; ".join(f"{r} {c}" for r, c in drops.most_common()))


if __name__ == "__main__":
    sys.exit(main())
