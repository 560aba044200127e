#!/usr/bin/env python3
"""A reply ranker over MiniLM and lexical overlap, fitted leave-one-set-out and judged by response
selection (the PolyAI protocol of reply_selection.py: the true reply among 100, seed 17).

The score of a candidate reply r for a message m, among a pool of candidates, is

    z(cos_minilm(m, r)) + w * z(cos_tfidf(m, r))

z: standardized over the pool (mean 0, deviation 1), so the two scales meet and the message's own
norm drops out. The TF-IDF is reply_selection.py's (unigrams, sublinear tf, smoothed idf) with its
document frequencies taken from the mail at hand: here the set's messages and replies, in the product
the mailbox's index (fts5vocab over email_fts). An idf fitted on the pool alone (the message and its
100 candidates) was tried too and is weaker: on Enron it stays below TF-IDF (0.468 vs 0.491).
`w` is chosen on the other sets (a grid, the best mean accuracy@1 over them) and judged on the
held-out one, for every set in turn; the product's `w` is the best over all of them.

  scripts/eval/reply_ranker.py NAME=PAIRS.jsonl ... [--mailsearch .build/release/mailsearch-full]

Vectors are cached beside each PAIRS file (PAIRS.minilm.npz). Prints, per held-out set: TF-IDF (the
baseline of reply_selection.py, idf fitted on all the set's texts), MiniLM alone, and the ranker
with the w fitted without that set.
"""
import argparse
import json
import os
import random
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reply_selection import draw_candidates, embed, load_pairs, select, tfidf  # noqa: E402

GRID = [round(0.05 * i, 2) for i in range(0, 41)]
SHIPPED = 0.5  # RetrievalReplySuggester.lexicalWeight


def load(path, seed, n_candidates):
    pairs = load_pairs(path)
    return pairs, draw_candidates(len(pairs), n_candidates, random.Random(seed))


def vectors(path, pairs, binary):
    cache = path + ".minilm.npz"
    if os.path.exists(cache):
        z = np.load(cache)
        if z["m"].shape[0] == len(pairs):
            return z["m"], z["r"]
    m = embed([p["message"] for p in pairs], binary)
    r = embed([p["reply"] for p in pairs], binary)
    np.savez(cache, m=m, r=r)
    return m, r


def standardized(a):
    return (a - a.mean(axis=1, keepdims=True)) / (a.std(axis=1, keepdims=True) + 1e-6)


def features(candidates, mm, mr, tm, tr):
    """Per message: the MiniLM and TF-IDF cosines of its 100 candidates (true reply first), each
    standardized over the pool."""
    pool = np.array(candidates)
    minilm = np.einsum("ijk,ik->ij", mr[pool], mm)
    lexical = np.einsum("ijk,ik->ij", tr[pool], tm)
    return standardized(minilm), standardized(lexical)


def accuracy(minilm, lexical, w):
    scores = minilm + w * lexical
    ranks = (scores > scores[:, :1]).sum(axis=1)
    return float((ranks == 0).mean()), float((1 / (ranks + 1)).mean())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("sets", nargs="+", help="NAME=PAIRS.jsonl")
    parser.add_argument("--mailsearch", default=".build/release/mailsearch-full")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--candidates", type=int, default=100)
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()

    data = {}
    for spec in args.sets:
        name, path = spec.split("=", 1)
        pairs, candidates = load(path, args.seed, args.candidates)
        mm, mr = vectors(path, pairs, args.mailsearch)
        tm, tr = tfidf([p["message"] for p in pairs], [p["reply"] for p in pairs])
        baseline = select(tm, tr, candidates)
        minilm, lexical = features(candidates, mm, mr, tm, tr)
        curve = {w: accuracy(minilm, lexical, w) for w in GRID}
        data[name] = dict(n=len(pairs), baseline=baseline, curve=curve)
        best = max(GRID, key=lambda w: curve[w][0])
        print(f"{name}: {len(pairs)} pairs; TF-IDF {baseline[0]:.3f}, MiniLM {curve[0.0][0]:.3f}, "
              f"best w on itself {best} → {curve[best][0]:.3f}", flush=True)

    print(f"\nleave one set out (w fitted on the others by mean accuracy@1; grid {GRID[0]}..{GRID[-1]}):")
    print(f"{'held out':<14}{'pairs':>6}{'w':>6}{'TF-IDF':>9}{'MiniLM':>9}{'ranker':>9}  MRR TF-IDF / ranker")
    report = []
    for name, d in data.items():
        others = [o for o in data if o != name]
        w = max(GRID, key=lambda g: (np.mean([data[o]["curve"][g][0] for o in others]), -abs(g - 1)))
        acc, mrr = d["curve"][w]
        ok = "✔" if acc > d["baseline"][0] else "✘"
        print(f"{name:<14}{d['n']:>6}{w:>6}{d['baseline'][0]:>9.3f}{d['curve'][0.0][0]:>9.3f}{acc:>9.3f} {ok}  "
              f"{d['baseline'][1]:.3f} / {mrr:.3f}")
        report.append(dict(heldOut=name, pairs=d["n"], w=w, tfidf=d["baseline"][0], minilm=d["curve"][0.0][0],
                           ranker=acc, mrrTfidf=d["baseline"][1], mrrRanker=mrr))
    fitted = max(GRID, key=lambda g: (np.mean([d["curve"][g][0] for d in data.values()]), -abs(g - 1)))
    print(f"\nw fitted on all sets: {fitted}; what ships (RetrievalReplySuggester.lexicalWeight): {SHIPPED}")
    for name, d in data.items():
        acc, mrr = d["curve"][SHIPPED]
        print(f"  {name:<14} shipped w: accuracy@1 {acc:.3f}, MRR {mrr:.3f} (TF-IDF {d['baseline'][0]:.3f} / {d['baseline'][1]:.3f})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
