#!/usr/bin/env python3
"""A labelled keyword-search set of real Chinese, Japanese and Korean prose (issue 35: words inside
CJK text written without spaces must be found).

The prose is Debian's own translations, fetched with `apt-get download` (no root needed) at pinned
versions, their SHA-256 checked, and unpacked with `dpkg-deb -x` into --cache (git-ignored):

  manpages-ja    0.5.0.0.20221215+dfsg-1   Japanese manual pages (usr/share/man/ja)
  manpages-zh    1.6.4.0-1                 Chinese manual pages (usr/share/man/zh_CN, simplified)
  debian-faq-ko  11.1                      the Debian FAQ in Korean (HTML, one email a section)

Man pages become plain prose (roff requests, macro definitions, conditionals and escapes stripped;
lines of one paragraph joined, without a space between two CJK characters); the FAQ's HTML becomes
text (navigation and tables of contents dropped). Each page or FAQ section is one email, its body the
first ~2,000 characters of that prose, its Subject the page name and its NAME line (or the section
title). Written into OUT (default eval-data/cjk, git-ignored):

  mail.mbox      --ja Japanese, --zh Chinese emails (a seeded sample of the pages holding at least
                 --min-cjk CJK characters) and every Korean FAQ section holding --min-cjk Hangul
                 syllables. Message-ID, From, Date, Subject (RFC 2047), MIME-Version, Content-Type
                 text/plain. A fifth of the Japanese emails are sent as charset=iso-2022-jp (7bit; only
                 pages that encode in it are chosen), a fifth of the Chinese as gb2312 (8bit; gb18030
                 when the page holds a character outside GB 2312), the rest utf-8, half 8bit, half base64.
  queries.jsonl  --per-lang queries a language, each {"id", "query", "kind", "lang", "position", "target"
                 (Message-ID without <>), "df" (emails of the set whose subject + body hold the CJK
                 word), "context" (the sentence it was taken from)}. Kinds:
                   word       a 2-character word from the middle of a sentence, never at the start of a
                              run of CJK text: the characters before and after it are CJK too (position
                              "mid-run"). Korean is written with spaces and the FAQ holds few compounds:
                              its mid-run nouns (봉사자 of 자원봉사자입니다) come first, then nouns that
                              begin a space-separated word with a particle attached, never a sentence's
                              first word (position "run-start", 패키지 of 패키지를),
                   long-word  a 3-4 character word, same rule,
                   mixed      a CJK word (2-4 characters, same rule) and an ASCII word of the same email
                              (a command, option or package name), as a person types "grep 正規表現".
                 Words come from a segmenter (jieba for Chinese, janome for Japanese, kiwipiepy for
                 Korean nouns without their particles); only words in at most --max-df emails of the
                 whole set are used (so the top 20 measures the tokenizer, not the ranking), every
                 target email and every word used once. Chinese words must be in jieba's dictionary
                 (frequency >= 20: no segmenter slips such as 详情请), Japanese words are nouns of kanji
                 or katakana, never a piece of a longer katakana word.
  manifest.json  package versions and SHA-256s, segmenter versions, counts per language and
                 charset, the SHA-256 of mail.mbox and queries.jsonl (checked against EXPECTED, what the
                 defaults gave with the pinned packages and segmenters: a difference is a warning).
  messages.jsonl each email's Message-ID, language, charset, transfer encoding, source file, subject.

The segmenters: scripts/eval/cjk-requirements.txt (pinned, hashed; `make eval-cjk` installs them).
Deterministic: pages are read in sorted order, every draw uses --seed, the mbox envelope lines and
dates are fixed, so the same packages, segmenter versions and seed give byte-identical files.

  python3 scripts/eval/build_cjk_set.py [--out eval-data/cjk] [--cache bench-data/cjk] [--seed 35]
"""

import argparse
import base64
import datetime as dt
import gzip
import html
import html.parser
import json
import os
import random
import re
import subprocess
import sys
from email.utils import format_datetime

from pinned import debian_package, sha256_file

PACKAGES = {
    # name: (version, deb SHA-256)
    "manpages-ja": ("0.5.0.0.20221215+dfsg-1",
                    "4d270e9a1e83be4de0c072a110892a17dc9caa4b501257324006ac28d82c5743"),
    "manpages-zh": ("1.6.4.0-1",
                    "81bae29495f6445db290e3f329f1203eb19b651c2a7ea165b74ebdc853a32ac1"),
    "debian-faq-ko": ("11.1",
                      "1e010227c0e7497b836e195beedcda60f3e9b8856f19f211cbbdc5e91b4a5d7a"),
}
# The segmenters the queries were drawn with (others may cut words differently: a warning).
SEGMENTERS = {"jieba": "0.42.1", "janome": "0.5.1", "kiwipiepy": "0.24.1"}

# What the default arguments give with those versions (a difference is reported, not fatal).
EXPECTED = {"mail.mbox": "743a7ef524db600b2afbe3f218066a1f4a3a6c4ff01e271d62aed8ad05de0cc3",
            "queries.jsonl": "98cc79f8957626ca866411936c0eebe81e8d0bc6ffb2bdbb001e6b2ea02c7cd1"}

BODY_CHARS = 2000

# ---------------------------------------------------------------- scripts


def is_han(c):
    o = ord(c)
    return 0x4E00 <= o <= 0x9FFF or 0x3400 <= o <= 0x4DBF or 0xF900 <= o <= 0xFAFF or 0x20000 <= o <= 0x2FFFF


def is_kana(c):
    o = ord(c)
    return 0x3040 <= o <= 0x30FF or 0x31F0 <= o <= 0x31FF or 0xFF66 <= o <= 0xFF9D


def is_hangul(c):
    o = ord(c)
    return 0xAC00 <= o <= 0xD7A3 or 0x1100 <= o <= 0x11FF or 0x3130 <= o <= 0x318F


def is_cjk(c):
    return is_han(c) or is_kana(c) or is_hangul(c) or c in "々〆ー"


def cjk_count(text):
    return sum(1 for c in text if is_cjk(c))


# ---------------------------------------------------------------- packages


def fetch_packages(cache):
    """The pinned .debs in CACHE/debs (apt-get download when missing), checked, unpacked into CACHE/root."""
    debs = os.path.join(cache, "debs")
    root = os.path.join(cache, "root")
    os.makedirs(debs, exist_ok=True)
    info = {}
    for name, (version, digest) in sorted(PACKAGES.items()):
        path, fname = debian_package(name, version, digest, debs)
        stamp = os.path.join(root, ".unpacked-" + name + "-" + digest[:16])
        if not os.path.exists(stamp):
            os.makedirs(root, exist_ok=True)
            subprocess.run(["dpkg-deb", "-x", path, root], check=True)
            open(stamp, "w").close()
        info[name] = {"version": version, "deb": fname, "sha256": digest}
    return root, info


# ---------------------------------------------------------------- roff → prose

ROFF_CHARS = {
    "em": "—", "en": "–", "lq": "“", "rq": "”", "oq": "‘", "cq": "’", "aq": "'", "dq": '"', "co": "©",
    "bu": "•", "hy": "-", "mi": "-", "ti": "~", "rs": "\\", "ga": "`", "ha": "^", "rg": "®", "tm": "™",
    "la": "<", "ra": ">", "Fo": "«", "Fc": "»", "<=": "≤", ">=": "≥", "mu": "×", "de": "°", "ua": "↑",
    "da": "↓", "->": "→", "<-": "←", "pl": "+", "eq": "=", "sl": "/", "ba": "|", "or": "|", "at": "@",
    "sh": "#", "Do": "$", "ct": "¢", "bv": "|", "lB": "[", "rB": "]", "lC": "{", "rC": "}",
}
ROFF_STRINGS = {"lq": "“", "rq": "”", "R": "®", "Tm": "™", "Lq": "“", "Rq": "”"}
FONT_MACROS = {"B", "I", "R", "SM", "SB"}
ALT_MACROS = {"BI", "IB", "RB", "BR", "RI", "IR"}
BREAK_MACROS = {"PP", "P", "LP", "br", "sp", "RS", "RE", "nf", "fi", "HP", "TQ", "Pp", "Bl", "El", "Bd", "Ed",
                "ne", "in", "ti", "TE", "TS", "EX", "EE", "UE", "ME"}
HEAD_MACROS = {"SH", "SS", "Sh", "Ss"}
ITEM_MACROS = {"TP", "IP", "It"}
MDOC_WORD = re.compile(r"^(?:[A-Z][a-z]{1,2}|Ns|Pf|Op|Oo|Oc|Xo|Xc|Pq|Po|Pc|Bq|Bo|Bc|Dq|Do|Dc|Sq|So|Sc|Ql)$")


def roff_escapes(s):
    s = re.sub(r'\\".*$', "", s)
    s = re.sub(r"\\f(?:\[[^\]]*\]|\(..|.)", "", s)
    s = re.sub(r"\\\[([^\]]*)\]", lambda m: ROFF_CHARS.get(m.group(1), ""), s)
    s = re.sub(r"\\\((..)", lambda m: ROFF_CHARS.get(m.group(1), ""), s)
    s = re.sub(r"\\\*(?:\[([^\]]*)\]|\((..)|(.))",
               lambda m: ROFF_STRINGS.get(m.group(1) or m.group(2) or m.group(3), ""), s)
    s = re.sub(r"\\[sS][+-]?(?:\d|\(\d\d|\[\d+\])", "", s)
    s = re.sub(r"\\n(?:\[[^\]]*\]|\(..|.)", "", s)
    s = re.sub(r"\\[hvwlLxkHoDXYzbZ]'[^']*'", "", s)
    s = re.sub(r"\\[hvwlLxHoDXYzbZ]\[[^\]]*\]", "", s)
    s = s.replace("\\c", "")
    out = []
    i = 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            n = s[i + 1]
            out.append({"-": "-", "e": "\\", "\\": "\\", "&": "", "|": "", "^": "", ",": "", "/": "", ":": "",
                        " ": " ", "~": " ", "0": " ", "%": "", ".": ".", "'": "'", "`": "`", "t": " "}.get(n, n))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def roff_args(rest):
    """The arguments of a request line, quotes honoured."""
    args = []
    for m in re.finditer(r'"((?:[^"]|"")*)"?|(\S+)', rest):
        args.append(m.group(1).replace('""', '"') if m.group(1) is not None else m.group(2))
    return args


def join_lines(a, b):
    if not a:
        return b
    if not b:
        return a
    if is_cjk(a[-1]) and is_cjk(b[0]) and not (is_hangul(a[-1]) and is_hangul(b[0])):
        return a + b
    if is_cjk(a[-1]) and b[0] in "，。、：；）」』】" or a[-1] in "（「『【" and is_cjk(b[0]):
        return a + b
    return a + " " + b


def roff_to_sections(src):
    """[(heading, [paragraph, ...]), ...] of a man page's roff source (man or mdoc macros)."""
    sections = [("", [])]
    para = ""
    skip_until = None
    depth = 0

    def flush():
        nonlocal para
        text = " ".join(para.split()) if not any(is_cjk(c) for c in para) else re.sub(r"[ \t]+", " ", para).strip()
        if text:
            sections[-1][1].append(text)
        para = ""

    for raw in src.split("\n"):
        line = raw.rstrip()
        if skip_until == "..":
            if line.strip() == "..":
                skip_until = None
            continue
        if depth > 0:
            depth += line.count("\\{") - line.count("\\}")
            continue
        if line.startswith(('.\\"', "'\\\"", ".\\#", '\\"')) or line.strip() in (".", "'"):
            continue
        if line.startswith((".", "'")):
            m = re.match(r"^[.']\s*(\S+)\s*(.*)$", line)
            if not m:
                continue
            req, rest = m.group(1), m.group(2)
            if req in ("de", "de1", "am", "ig"):
                skip_until = ".."
                continue
            if req in ("if", "ie", "el", "while"):
                depth = max(0, line.count("\\{") - line.count("\\}"))
                continue
            args = roff_args(rest)
            if req in HEAD_MACROS:
                flush()
                sections.append((roff_escapes(" ".join(args)).strip(), []))
            elif req in ITEM_MACROS:
                flush()
                if req == "IP" and args and args[0] not in ("\\(bu", "\\[bu]", "-", "*", "o", "\\-"):
                    para = roff_escapes(args[0])
                    flush()
            elif req in BREAK_MACROS:
                flush()
            elif req in FONT_MACROS:
                para = join_lines(para, roff_escapes(" ".join(args)))
            elif req in ALT_MACROS:
                para = join_lines(para, roff_escapes("".join(args)))
            elif req in ("Nm", "Nd", "Fl", "Ar", "Cm", "Pa", "Xr", "Ev", "Dv", "Va", "Fn", "Fa", "Em", "Sy",
                         "Li", "Dq", "Sq", "Ql", "Op", "Aq", "Pq", "Ic", "Er", "Ns", "No", "Tn", "Ux", "Bx"):
                words = [a for a in args if not MDOC_WORD.match(a)]
                if req == "Fl":
                    words = ["-" + w for w in words] or ["-"]
                if req == "Xr" and len(words) == 2:
                    words = ["%s(%s)" % (words[0], words[1])]
                if req == "Nd":
                    para = join_lines(para, "- ")
                para = join_lines(para, roff_escapes(" ".join(words)))
            # every other request (TH, ds, nr, so, hy, ad, ft, ta, Dd, Dt, Os, …) is formatting only
            continue
        text = roff_escapes(line)
        if not text.strip():
            flush()
            continue
        para = join_lines(para, text.strip())
    flush()
    return sections


NAME_HEADINGS = {"名前", "名称", "名字", "NAME", "Name", "名稱"}


def man_page(path):
    """(name line, prose) of a man page, or None for a .so redirect."""
    raw = gzip.open(path).read()
    for enc in ("utf-8", "gb18030", "euc-jp"):
        try:
            src = raw.decode(enc)
            break
        except UnicodeDecodeError:
            continue
    else:
        return None
    if re.match(r"^\.so\s", src.strip()) and len(src.strip().splitlines()) <= 3:
        return None
    sections = roff_to_sections(src)
    name_line = ""
    prose = []
    for heading, paras in sections:
        if heading in NAME_HEADINGS or heading.upper() == "NAME":
            if not name_line:
                name_line = " ".join(paras)
            continue
        if not heading and not paras:
            continue
        if heading:
            prose.append(heading)
        prose.extend(paras)
    return " ".join(name_line.split()), "\n".join(prose)


def cut(text, limit=BODY_CHARS):
    """The first `limit` characters, cut at the last line or sentence end before it."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    best = max(head.rfind("\n"), head.rfind("。"), head.rfind(". "), head.rfind("다."))
    return head[:best + 1].rstrip() if best > limit // 2 else head.rstrip()


# ---------------------------------------------------------------- HTML (the FAQ) → sections


class FAQParser(html.parser.HTMLParser):
    """Sections (title, text) at every h2/h3/h4 heading; navigation, tables of contents skipped."""

    SKIP_CLASSES = {"navheader", "navfooter", "toc", "list-of-tables", "list-of-examples"}
    BLOCKS = {"p", "div", "li", "pre", "br", "dt", "dd", "tr", "table", "ul", "ol", "dl", "blockquote"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.sections = []
        self.stack = []  # (tag, skipping)
        self.skip = 0
        self.heading = None
        self.title = ""
        self.buf = []
        self.pre = 0

    def handle_starttag(self, tag, attrs):
        cls = set((dict(attrs).get("class") or "").split())
        skipping = tag in ("script", "style", "head") or bool(cls & self.SKIP_CLASSES)
        if tag not in ("br", "img", "hr", "meta", "link", "col", "input"):
            self.stack.append((tag, skipping))
            if skipping:
                self.skip += 1
        if self.skip:
            return
        if tag in ("h1", "h2", "h3", "h4") and "title" in cls:
            self.finish()
            self.heading = tag
            self.title = ""
        elif tag in self.BLOCKS:
            self.buf.append("\n")
        if tag == "pre":
            self.pre += 1

    def handle_endtag(self, tag):
        while self.stack:
            t, skipping = self.stack.pop()
            if skipping:
                self.skip -= 1
            if t == tag:
                break
        if self.skip:
            return
        if tag == self.heading:
            self.heading = None
        elif tag in self.BLOCKS:
            self.buf.append("\n")
        if tag == "pre":
            self.pre = max(0, self.pre - 1)

    def handle_data(self, data):
        if self.skip:
            return
        if self.heading:
            self.title += data
        else:
            self.buf.append(data if self.pre else re.sub(r"\s+", " ", data))

    def finish(self):
        text = "".join(self.buf)
        lines = [" ".join(line.split()) for line in text.split("\n")]
        text = "\n".join(line for line in lines if line)
        title = " ".join(self.title.split())
        if title and text:
            self.sections.append((title, text))
        self.buf = []
        self.title = ""


def faq_sections(path):
    p = FAQParser()
    p.feed(open(path, encoding="utf-8").read())
    p.finish()
    return p.sections


# ---------------------------------------------------------------- mail


def encoded_words(text, charset):
    """RFC 2047 B encoded words, each at most 75 characters, folded."""
    words = []
    chunk = ""
    for c in text:
        trial = chunk + c
        if len(base64.b64encode(trial.encode(charset))) > 75 - len(charset) - 7 and chunk:
            words.append(chunk)
            chunk = c
        else:
            chunk = trial
    if chunk:
        words.append(chunk)
    return "\n ".join("=?%s?B?%s?=" % (charset.upper(), base64.b64encode(w.encode(charset)).decode())
                      for w in words)


def message_bytes(m):
    body_text = m["body"].replace("\r", "") + "\n"
    charset, cte = m["charset"], m["cte"]
    if cte == "base64":
        raw = base64.encodebytes(body_text.encode(charset)).decode("ascii")
    else:
        raw = body_text.encode(charset).decode("latin-1")
    headers = [
        "From: %s" % m["from"],
        "To: cjk-eval@mailsearch.invalid",
        "Subject: %s" % encoded_words(m["subject"], charset),
        "Date: %s" % m["date"],
        "Message-ID: <%s>" % m["id"],
        "MIME-Version: 1.0",
        "Content-Type: text/plain; charset=%s" % charset,
        "Content-Transfer-Encoding: %s" % cte,
    ]
    lines = []
    for line in raw.split("\n"):
        lines.append(">" + line if re.match(r"^>*From ", line) else line)
    text = "From cjk-eval@mailsearch.invalid Thu Jan  1 00:00:00 2026\n" + "\n".join(headers) + "\n\n" + \
        "\n".join(lines).rstrip("\n") + "\n\n"
    return text.encode("latin-1")


def encodable(text, charset):
    try:
        text.encode(charset)
        return True
    except UnicodeEncodeError:
        return False


# ---------------------------------------------------------------- queries


class Segmenters:
    def __init__(self):
        import jieba
        import jieba.posseg
        from janome.tokenizer import Tokenizer
        from kiwipiepy import Kiwi
        jieba.setLogLevel(60)
        jieba.initialize()
        self.jieba = jieba.posseg
        self.jieba_freq = jieba.dt.FREQ
        self.janome = Tokenizer()
        self.kiwi = Kiwi()

    def words(self, lang, sentence):
        """[(word, start offset)] of the content words of `sentence`."""
        out = []
        if lang == "zh":
            pos = 0
            for w in self.jieba.cut(sentence):
                start = sentence.find(w.word, pos)
                pos = start + len(w.word) if start >= 0 else pos
                if start >= 0 and w.flag[:1] in ("n", "v", "a") and w.flag not in ("nr", "nrt", "ns") \
                        and all(is_han(c) for c in w.word) and self.jieba_freq.get(w.word, 0) >= 20:
                    out.append((w.word, start))
        elif lang == "ja":
            pos = 0
            for t in self.janome.tokenize(sentence):
                start = sentence.find(t.surface, pos)
                pos = start + len(t.surface) if start >= 0 else pos
                p = t.part_of_speech.split(",")
                if start >= 0 and p[0] == "名詞" and p[1] in ("一般", "サ変接続", "形容動詞語幹", "固有名詞") \
                        and all(is_han(c) or (is_kana(c) and 0x30A0 <= ord(c) <= 0x30FF) for c in t.surface):
                    out.append((t.surface, start))
        else:
            for t in self.kiwi.tokenize(sentence):
                if t.tag in ("NNG", "NNP") and all(is_hangul(c) for c in t.form) \
                        and sentence[t.start:t.start + t.len] == t.form:
                    out.append((t.form, t.start))
        return out


def is_katakana(c):
    return 0x30A0 <= ord(c) <= 0x30FF


def position(lang, sentence, word, start):
    """"mid-run" when the word sits inside a run of CJK text: a CJK character before it and after it
    (Korean: inside a word written without spaces, Hangul before it, a particle or suffix after it,
    as 봉사자 in 자원봉사자입니다). A Korean noun that begins its space-separated word, with a particle
    or suffix attached, not the sentence's first word, is "run-start" (Korean is written with spaces:
    the FAQ holds too few compounds for 30 mid-run queries). Otherwise None. A katakana word is never
    a piece of a longer katakana word (the segmenter's slips: トーク of トークン)."""
    end = start + len(word)
    if end >= len(sentence) or not is_cjk(sentence[end]):
        return None
    if lang == "ko":
        if start > 0 and is_hangul(sentence[start - 1]):
            return "mid-run"
        return "run-start" if sentence[:start].strip() else None
    if is_katakana(word[0]) and ((start > 0 and is_katakana(sentence[start - 1])) or is_katakana(sentence[end])):
        return None
    return "mid-run" if start > 0 and is_cjk(sentence[start - 1]) else None


SENTENCE = re.compile(r"(?:[^。！？!?.\n]|\.(?!\s))+[。！？!?.]?")
ASCII_WORD = re.compile(r"(?<![\w.\-/])([a-z][a-z0-9]{2,15})(?![\w\-/@])")
ASCII_STOP = set("""the and for with from this that are not you can use used using all any one has have was
were but its out how get set new see also may will should must more other than then there their which when
where what who why into onto over under about such each only both some most http https www html org com net
debian linux gnu""".split())


def build_queries(messages, seg, per_lang, max_df, seed):
    corpus = [(m["subject"] + "\n" + m["body"]) for m in messages]

    def df(word):
        return sum(1 for c in corpus if word in c)

    quotas = {"word": per_lang * 2 // 5, "long-word": per_lang * 3 // 10}
    quotas["mixed"] = per_lang - quotas["word"] - quotas["long-word"]
    queries = []
    for lang in ("ja", "zh", "ko"):
        rng = random.Random("%s-%s" % (seed, lang))
        msgs = [m for m in messages if m["lang"] == lang]
        cands = {}  # message id -> {kind: [(position, word, df, context)]}
        df_cache = {}
        for m in msgs:
            per = {"word": [], "long-word": [], "mixed": []}
            seen = set()
            for sent in SENTENCE.findall(m["body"]):
                if cjk_count(sent) < 8:
                    continue
                for word, start in seg.words(lang, sent):
                    pos = position(lang, sent, word, start)
                    if (word, pos) in seen or not pos:
                        continue
                    seen.add((word, pos))
                    if word not in df_cache:
                        df_cache[word] = df(word)
                    d = df_cache[word]
                    if d > max_df:
                        continue
                    kind = "word" if len(word) == 2 else "long-word" if 3 <= len(word) <= 4 else None
                    if kind:
                        per[kind].append((pos, word, d, sent[max(0, start - 30):start + len(word) + 30].strip()))
            # ASCII words a translator left inside the CJK text (commands, options, package names).
            ascii_words = set()
            for am in ASCII_WORD.finditer(m["body"]):
                w = am.group(1)
                before = m["body"][:am.start()].rstrip(" ")[-1:]
                after = m["body"][am.end():].lstrip(" ")[:1]
                if w not in ASCII_STOP and (is_cjk(before or " ") or is_cjk(after or " ")):
                    ascii_words.add(w)
            ascii_words = sorted(ascii_words)
            if ascii_words:
                per["mixed"] = per["word"] + per["long-word"]
            per["ascii"] = ascii_words
            cands[m["id"]] = per
        order = [m["id"] for m in msgs]
        rng.shuffle(order)
        used = set()
        used_words = set()
        for kind in ("mixed", "long-word", "word"):
            n = 0
            for tier in ("mid-run", "run-start"):
                for mid in order:
                    if n >= quotas[kind]:
                        break
                    if mid in used:
                        continue
                    options = sorted(c for c in cands[mid][kind] if c[0] == tier and c[1] not in used_words)
                    if not options:
                        continue
                    pos, word, d, context = rng.choice(options)
                    used_words.add(word)
                    query = word
                    if kind == "mixed":
                        a = rng.choice(cands[mid]["ascii"])
                        query = "%s %s" % (a, word) if rng.random() < 0.5 else "%s %s" % (word, a)
                    used.add(mid)
                    n += 1
                    queries.append({"query": query, "kind": kind, "lang": lang, "position": pos, "target": mid,
                                    "df": d, "context": context[:160]})
            if n < quotas[kind]:
                print("warning: %s %s: only %d queries" % (lang, kind, n), file=sys.stderr)
    for i, q in enumerate(queries):
        q["id"] = "cjk-%03d" % (i + 1)
    keys = ("id", "query", "kind", "lang", "position", "target", "df", "context")
    return [{k: q[k] for k in keys} for q in queries]


# ---------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="eval-data/cjk", help="where mail.mbox, queries.jsonl, manifest.json go")
    ap.add_argument("--cache", default="bench-data/cjk", help="the .debs (debs/) and their unpacked tree (root/)")
    ap.add_argument("--seed", type=int, default=35)
    ap.add_argument("--ja", type=int, default=150, help="Japanese emails (man pages)")
    ap.add_argument("--zh", type=int, default=120, help="Chinese emails (man pages)")
    ap.add_argument("--min-cjk", type=int, default=150, help="CJK characters a body must hold")
    ap.add_argument("--per-lang", type=int, default=30, help="queries a language")
    ap.add_argument("--max-df", type=int, default=10, help="a query word is in at most this many emails")
    args = ap.parse_args()

    import importlib.metadata as md
    versions = {}
    for name, want in SEGMENTERS.items():
        try:
            versions[name] = md.version(name)
        except md.PackageNotFoundError:
            sys.exit("error: %s is missing (pip install jieba==0.42.1 janome==0.5.1 kiwipiepy==0.24.1)" % name)
        if versions[name] != want:
            print("warning: %s %s, the set was drawn with %s: the queries may differ" % (name, versions[name], want),
                  file=sys.stderr)

    root, pkg_info = fetch_packages(args.cache)
    messages = []
    rng = random.Random(args.seed)
    base = {"ja": dt.datetime(2026, 3, 1, 9, 0, tzinfo=dt.timezone(dt.timedelta(hours=9))),
            "zh": dt.datetime(2026, 5, 1, 9, 0, tzinfo=dt.timezone(dt.timedelta(hours=8))),
            "ko": dt.datetime(2026, 7, 1, 9, 0, tzinfo=dt.timezone(dt.timedelta(hours=9)))}
    senders = {"ja": "manpages-ja <manpages-ja@lists.cjk-eval.invalid>",
               "zh": "manpages-zh <manpages-zh@lists.cjk-eval.invalid>",
               "ko": "debian-faq-ko <debian-faq-ko@lists.cjk-eval.invalid>"}
    for lang, mandir, count in (("ja", "usr/share/man/ja", args.ja), ("zh", "usr/share/man/zh_CN", args.zh)):
        pages = []
        seen_bodies = set()
        top = os.path.join(root, mandir)
        for sec in sorted(os.listdir(top)):
            for fname in sorted(os.listdir(os.path.join(top, sec))):
                path = os.path.join(top, sec, fname)
                if os.path.islink(path) or not fname.endswith(".gz"):
                    continue
                got = man_page(path)
                if not got:
                    continue
                name_line, prose = got
                body = cut(prose)
                if cjk_count(body) < args.min_cjk or not name_line or body in seen_bodies:
                    continue
                seen_bodies.add(body)
                page = fname[:-3]
                stem, _, section = page.rpartition(".")
                pages.append({"page": "%s(%s)" % (stem, section), "name": name_line, "body": body,
                              "source": os.path.join(mandir, sec, fname)})
        print("%s: %d pages with prose" % (lang, len(pages)), file=sys.stderr)
        if len(pages) < count:
            sys.exit("error: only %d %s pages" % (len(pages), lang))
        for p in sorted(rng.sample(pages, count), key=lambda p: p["source"]):
            subject = "%s: %s" % (p["page"], p["name"])
            slug = re.sub(r"[^A-Za-z0-9.+_-]", "_", p["source"].split("/", 3)[-1])
            messages.append({"lang": lang, "subject": " ".join(subject.split())[:200], "body": p["body"],
                             "source": p["source"], "id": "%s.%s@cjk-eval.mailsearch.invalid" % (lang, slug)})
    faqdir = os.path.join(root, "usr/share/doc/debian/FAQ/ko")
    n = 0
    for fname in sorted(os.listdir(faqdir)):
        if not fname.endswith(".html"):
            continue
        for title, text in faq_sections(os.path.join(faqdir, fname)):
            body = cut(text)
            if sum(1 for c in body if is_hangul(c)) < args.min_cjk:
                continue
            n += 1
            messages.append({"lang": "ko", "subject": "Debian FAQ %s" % title, "body": body,
                             "source": "usr/share/doc/debian/FAQ/ko/%s#%d" % (fname, n),
                             "id": "ko.faq-%03d.%s@cjk-eval.mailsearch.invalid" % (n, fname.split(".")[0])})
    print("ko: %d FAQ sections with prose" % n, file=sys.stderr)

    # Charsets: a fifth of the Japanese as iso-2022-jp, a fifth of the Chinese as gb2312 (or gb18030).
    for lang, legacy, fallback in (("ja", "iso-2022-jp", None), ("zh", "gb2312", "gb18030")):
        msgs = [m for m in messages if m["lang"] == lang]
        ok = [m for m in msgs if encodable(m["subject"] + m["body"], legacy) or fallback]
        chosen = set(m["id"] for m in rng.sample(ok, min(len(ok), round(len(msgs) / 5))))
        for m in msgs:
            if m["id"] in chosen:
                m["charset"] = legacy if encodable(m["subject"] + m["body"], legacy) else fallback
                m["cte"] = "7bit" if m["charset"] == "iso-2022-jp" else "8bit"
    for m in messages:
        if "charset" not in m:
            m["charset"] = "utf-8"
            m["cte"] = "base64" if rng.random() < 0.5 else "8bit"
    counters = {}
    for m in messages:
        i = counters[m["lang"]] = counters.get(m["lang"], 0) + 1
        m["from"] = senders[m["lang"]]
        m["date"] = format_datetime(base[m["lang"]] + dt.timedelta(hours=7 * i))

    os.makedirs(args.out, exist_ok=True)
    mbox = os.path.join(args.out, "mail.mbox")
    with open(mbox, "wb") as f:
        for m in messages:
            f.write(message_bytes(m))
    with open(os.path.join(args.out, "messages.jsonl"), "w", encoding="utf-8") as f:
        for m in messages:
            f.write(json.dumps({k: m[k] for k in ("id", "lang", "charset", "cte", "source", "subject")},
                               ensure_ascii=False) + "\n")

    seg = Segmenters()
    queries = build_queries(messages, seg, args.per_lang, args.max_df, args.seed)
    qpath = os.path.join(args.out, "queries.jsonl")
    with open(qpath, "w", encoding="utf-8") as f:
        for q in queries:
            f.write(json.dumps(q, ensure_ascii=False) + "\n")

    stats = {}
    for m in messages:
        s = stats.setdefault(m["lang"], {"emails": 0, "charsets": {}})
        s["emails"] += 1
        key = "%s/%s" % (m["charset"], m["cte"])
        s["charsets"][key] = s["charsets"].get(key, 0) + 1
    qstats = {}
    for q in queries:
        qstats.setdefault(q["lang"], {}).setdefault(q["kind"], 0)
        qstats[q["lang"]][q["kind"]] += 1
    manifest = {"packages": pkg_info, "segmenters": versions, "seed": args.seed, "emails": len(messages),
                "languages": stats, "queries": len(queries), "query_kinds": qstats, "max_df": args.max_df,
                "mail.mbox": sha256_file(mbox), "queries.jsonl": sha256_file(qpath)}
    with open(os.path.join(args.out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=2, ensure_ascii=False)
        f.write("\n")
    defaults = vars(ap.parse_args([]))
    if all(getattr(args, k) == v for k, v in defaults.items() if k not in ("out", "cache")):
        for name, digest in EXPECTED.items():
            if manifest[name] != digest:
                print("warning: %s has SHA-256 %s, not the %s the pinned packages and segmenters gave"
                      % (name, manifest[name], digest), file=sys.stderr)
    print(json.dumps({k: manifest[k] for k in ("emails", "languages", "queries", "query_kinds", "mail.mbox",
                                               "queries.jsonl")}, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
