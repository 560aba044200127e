#!/usr/bin/env python3
"""How alike a question and its answer are: the floor `ExtractiveSummarizer.withAnswers` asks of
the sentence it takes from the reply as the answer to a chosen question.

For each (message, reply) pair whose message asks a question (a sentence ending in "?"), the best
MiniLM cosine between that question and a statement (a sentence not ending in "?") of its true
reply, against the same for a reply drawn at random from another pair of the set (seeded): what
a floor keeps of true answers and lets through of unrelated text. Calibrated on one set, judged on
the others:

  scripts/eval/answer_threshold.py --calibrate usrp=PAIRS.jsonl --judge enron=PAIRS.jsonl ... \
      [--mailsearch .build/release/mailsearch-full] [--limit 400]

The floor chosen: the lowest that lets in at most 5 % of the calibration set's random replies (a
wrong answer in a summary costs more than a missing one).
Sentences are split at . ? ! followed by a space or a line end (the product's split is
MessageCleaner's; this is close enough for a distribution).
"""
import argparse
import json
import os
import random
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reply_selection import embed  # noqa: E402

SPLIT = re.compile(r"(?<=[.?!])\s+|\n+")


def sentences(text):
    return [s.strip() for s in SPLIT.split(text) if len(s.strip().split()) >= 3]


def best_cosines(path, limit, seed, binary):
    pairs = [json.loads(line) for line in open(path)]
    rng = random.Random(seed)
    asking = [i for i, p in enumerate(pairs) if any(s.endswith("?") for s in sentences(p["message"]))]
    if limit and len(asking) > limit:
        asking = rng.sample(asking, limit)
    items = []  # (question, true statements, random statements)
    for i in asking:
        question = [s for s in sentences(pairs[i]["message"]) if s.endswith("?")][-1]
        other = rng.choice([j for j in range(len(pairs)) if j != i])
        true = [s for s in sentences(pairs[i]["reply"]) if not s.endswith("?")]
        fake = [s for s in sentences(pairs[other]["reply"]) if not s.endswith("?")]
        if true and fake:
            items.append((question, true, fake))
    texts = sorted({t for q, a, b in items for t in [q] + a + b})
    index = {t: k for k, t in enumerate(texts)}
    vectors = embed(texts, binary)
    true_best, fake_best = [], []
    for q, a, b in items:
        v = vectors[index[q]]
        true_best.append(max(float(vectors[index[s]] @ v) for s in a))
        fake_best.append(max(float(vectors[index[s]] @ v) for s in b))
    return np.array(true_best), np.array(fake_best)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--calibrate", required=True, help="NAME=PAIRS.jsonl")
    parser.add_argument("--judge", action="append", default=[], help="NAME=PAIRS.jsonl (repeatable)")
    parser.add_argument("--mailsearch", default=".build/release/mailsearch-full")
    parser.add_argument("--limit", type=int, default=400)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--let-in", type=float, default=0.05, help="share of random replies the floor lets in on the calibration set")
    parser.add_argument("--floor", type=float, help="judge this floor instead of fitting one")
    args = parser.parse_args()

    name, path = args.calibrate.split("=", 1)
    true_best, fake_best = best_cosines(path, args.limit, args.seed, args.mailsearch)
    floor = args.floor if args.floor is not None else float(np.quantile(fake_best, 1 - args.let_in))
    print(f"floor {floor:.3f} ({'given' if args.floor is not None else f'lets in {args.let_in:.0%} of {name} random replies'})")
    print(f"{'set':<14}{'questions':>10}{'true kept':>11}{'random let in':>15}   best cosine p10/p50/p90 true | random")
    for label, (t, f) in [(name + " (fit)", (true_best, fake_best))] + [
            (spec.split("=", 1)[0], best_cosines(spec.split("=", 1)[1], args.limit, args.seed, args.mailsearch)) for spec in args.judge]:
        q = lambda a: "/".join(f"{x:.2f}" for x in np.quantile(a, [0.1, 0.5, 0.9]))  # noqa: E731
        print(f"{label:<14}{len(t):>10}{(t >= floor).mean():>11.3f}{(f >= floor).mean():>15.3f}   {q(t)} | {q(f)}", flush=True)


if __name__ == "__main__":
    main()
