#!/usr/bin/env python3
"""(message, reply) pairs from the BYU PCC chitchat dataset (MIT; `pip download chitchat-dataset
--no-deps` gives a wheel holding chitchat_dataset/dataset.json): one pair of consecutive turns per
conversation (a turn: one person's messages joined), a seeded random turn, for reply_selection.py.

  scripts/eval/chitchat_pairs.py chitchat_dataset-0.9.0-py3-none-any.whl OUT.jsonl [--limit 2000]
"""
import argparse
import json
import random
import zipfile


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("source", help="the wheel, or dataset.json")
    parser.add_argument("output")
    parser.add_argument("--limit", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=17)
    args = parser.parse_args()
    if args.source.endswith(".whl"):
        with zipfile.ZipFile(args.source) as z:
            data = json.loads(z.read("chitchat_dataset/dataset.json"))
    else:
        with open(args.source) as f:
            data = json.load(f)
    rng = random.Random(args.seed)
    pairs = []
    for key in sorted(data):
        turns = [" ".join(m["text"].strip() for m in turn).strip() for turn in data[key]["messages"]]
        turns = [t for t in turns if len(t) >= 10]
        if len(turns) < 2:
            continue
        i = rng.randrange(len(turns) - 1)
        pairs.append({"message": turns[i], "reply": turns[i + 1], "conversation": key})
    rng.shuffle(pairs)
    with open(args.output, "w") as f:
        for p in pairs[: args.limit]:
            f.write(json.dumps(p) + "\n")
    print(f"{len(data)} conversations, {min(len(pairs), args.limit)} pairs -> {args.output}")


if __name__ == "__main__":
    main()
