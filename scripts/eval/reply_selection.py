#!/usr/bin/env python3
"""Response selection (the PolyAI protocol, Henderson et al. 2019): for each (message, reply) pair,
rank the true reply among 100 candidates (itself and 99 replies of other pairs, drawn at random with
a fixed seed) by the cosine between the message and each candidate; report accuracy@1 (and MRR).

Two scorers: MiniLM (all-MiniLM-L6-v2, the vectors of `mailsearch-full model embed`, the encoder
the reply suggester uses) and TF-IDF (unigrams, sublinear tf, smoothed idf, fitted on the pairs'
texts), the baseline.

  scripts/eval/reply_selection.py PAIRS.jsonl [--mailsearch .build/release/mailsearch-full] [--limit N]

PAIRS.jsonl: {"message": …, "reply": …} per line, from `mailsearch-bench insights pairs MBOX OUT`
(texts already cleaned by MessageCleaner: quotes, signatures, greetings and sign-offs removed).
"""
import argparse
import json
import math
import random
import re
import subprocess
import sys
from collections import Counter

import numpy as np


def embed(texts, binary):
    lines = "".join(json.dumps({"text": t}) + "\n" for t in texts)
    out = subprocess.run([binary, "model", "embed"], input=lines, capture_output=True, text=True, check=True).stdout
    vectors = [json.loads(line)["embedding"] for line in out.splitlines() if line.strip()]
    assert len(vectors) == len(texts), (len(vectors), len(texts))
    v = np.array(vectors, dtype=np.float32)
    return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)


TOKEN = re.compile(r"[a-z0-9]+")


def tfidf(messages, replies):
    docs = [Counter(TOKEN.findall(t.lower())) for t in messages + replies]
    df = Counter()
    for d in docs:
        df.update(d.keys())
    n = len(docs)
    vocabulary = {w: i for i, w in enumerate(sorted(df))}
    idf = {w: math.log((1 + n) / (1 + c)) + 1 for w, c in df.items()}
    matrix = np.zeros((n, len(vocabulary)), dtype=np.float32)
    for row, d in enumerate(docs):
        for w, c in d.items():
            matrix[row, vocabulary[w]] = (1 + math.log(c)) * idf[w]
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    return matrix[: len(messages)], matrix[len(messages):]


def select(message_vectors, reply_vectors, candidates):
    hits, reciprocal = 0, 0.0
    for i, pool in enumerate(candidates):
        scores = reply_vectors[pool] @ message_vectors[i]
        rank = int((scores > scores[0]).sum())  # pool[0] is the true reply; ties count for it
        hits += rank == 0
        reciprocal += 1 / (rank + 1)
    return hits / len(candidates), reciprocal / len(candidates)


def load_pairs(path):
    """The (message, reply) pairs of a JSON-lines file, each distinct pair once, in file order."""
    pairs, seen = [], set()
    with open(path) as f:
        for line in f:
            p = json.loads(line)
            key = (p["message"], p["reply"])
            if key not in seen:
                seen.add(key)
                pairs.append(p)
    return pairs


def draw_candidates(n, count, rng):
    """For each of n pairs: its own index first, then count - 1 others drawn at random."""
    return [[i] + rng.sample([j for j in range(n) if j != i], count - 1) for i in range(n)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("pairs")
    parser.add_argument("--mailsearch", default=".build/release/mailsearch-full")
    parser.add_argument("--limit", type=int, default=0, help="at most this many pairs (seeded sample)")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--candidates", type=int, default=100)
    args = parser.parse_args()

    pairs = load_pairs(args.pairs)
    rng = random.Random(args.seed)
    if args.limit and len(pairs) > args.limit:
        pairs = rng.sample(pairs, args.limit)
    n = len(pairs)
    if n < args.candidates:
        sys.exit(f"{n} pairs: fewer than {args.candidates} candidates")
    candidates = draw_candidates(n, args.candidates, rng)
    messages = [p["message"] for p in pairs]
    replies = [p["reply"] for p in pairs]

    tm, tr = tfidf(messages, replies)
    t_acc, t_mrr = select(tm, tr, candidates)
    mm = embed(messages, args.mailsearch)
    mr = embed(replies, args.mailsearch)
    m_acc, m_mrr = select(mm, mr, candidates)
    print(f"{args.pairs}: {n} pairs, 1 true reply among {args.candidates} (seed {args.seed}); chance {1 / args.candidates:.3f}")
    print(f"  TF-IDF cosine:  accuracy@1 {t_acc:.3f}  MRR {t_mrr:.3f}")
    print(f"  MiniLM cosine:  accuracy@1 {m_acc:.3f}  MRR {m_mrr:.3f}")


if __name__ == "__main__":
    main()
