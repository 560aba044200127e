#!/usr/bin/env python3
"""How well MessageCleaner's prose filter (`Sentence.isProse`: what a thread summary may quote) holds
on real mail: sentences marked prose that are really code, diffs, logs, quotes, signatures or footers,
and real prose it drops. Judged by hand on random samples; the verdicts are docs/prose-judging.json.

  scripts/eval/prose_lines.py extract CORPUS LABEL [--bench .build-prose/debug/mailsearch-bench]
      every message of CORPUS parsed and cleaned by the Swift code (`mailsearch-bench insights
      sentences`) into bench-data/prose/CORPUS-LABEL.jsonl (LABEL: "old" for the cleaner before the
      prose classifier, "frozen" for its rules as they were when the held-out corpora were judged,
      "new" for the current code)
  scripts/eval/prose_lines.py sample CORPUS LABEL STRATUM N [--seed 33]
      N sentences drawn at random from one stratum ("prose": marked prose, "dropped": not,
      "newly-dropped": not prose now, prose under the old cleaner, same message and words), printed
      with the lines around them, each with the key its verdict is stored under; those already judged
      are marked
  scripts/eval/prose_lines.py judge CORPUS LABEL STRATUM N VERDICTS.txt [--seed 33]
      adds the verdicts on that sample ("NNN LABEL [note]" per line, NNN as `sample` numbered it;
      "rest LABEL" for all the others not judged before) to docs/prose-judging.json
  scripts/eval/prose_lines.py paired [--seed 33] [--n 120]
      the old cleaner's judged sample of prose-marked sentences looked up in the newer cleaners' output:
      what became of its junk and of its prose (a paired comparison, on the same sentences)
  scripts/eval/prose_lines.py score [--seed 33] [--n 120]
      per corpus and cleaner: sentences marked prose and dropped, and from the judged samples the share
      (and estimated count) of prose-marked sentences that are not prose and of dropped ones that are

CORPUS: usrp-users (corpora/usrp-users.mbox: the corpus the rules were written on), list-heldout
(corpora/list-heldout/original: scripts/fetch-list-corpus.sh) and enron (corpora/enron-inbox/maildir),
held out. A sample is the same on every run: the sentences of a stratum whose seeded hash ranks first, so
verdicts (keyed by corpus, message and sentence) carry over between runs and between the cleaners.

Labels: prose (a person's own sentence: what a summary may quote, inline code names and all); not
prose: code, diff, log, quote (someone else's words: "name>" lines, attributions), trailer
(Signed-off-by: …), signature (name, title, phone, disclaimer), footer (list or service boilerplate),
header (a quoted or forwarded header line), link (a URL, a path or an address alone), table (figures,
a table or a form), fragment (a scrap of a sentence or a greeting: not code, not worth quoting either).
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPORA = {
    "usrp-users": "corpora/usrp-users.mbox",
    "list-heldout": "corpora/list-heldout/original",
    "enron": "corpora/enron-inbox/maildir",
}
CALIBRATED_ON = {"usrp-users"}
JUDGING = os.path.join(ROOT, "docs/prose-judging.json")
STRATA = ["prose", "dropped", "newly-dropped"]
LABELS = {"prose", "code", "diff", "log", "quote", "trailer", "signature", "footer", "header", "link", "table", "fragment"}
# Not prose and what the classifier is meant to catch; "table" and "fragment" are not prose either, but
# not text a summary would misattribute (counted apart).
JUNK = LABELS - {"prose", "fragment", "table"}


def data_path(corpus, label):
    return os.path.join(ROOT, "bench-data/prose", f"{corpus}-{label}.jsonl")


def extract(args):
    os.makedirs(os.path.join(ROOT, "bench-data/prose"), exist_ok=True)
    source = os.path.join(ROOT, CORPORA[args.corpus])
    if not os.path.exists(source):
        sys.exit(f"{source} is missing: make corpora (or scripts/fetch-list-corpus.sh for list-heldout)")
    subprocess.run([args.bench, "insights", "sentences", source, data_path(args.corpus, args.label)], check=True, cwd=ROOT)


def load(corpus, label):
    rows = []
    with open(data_path(corpus, label)) as f:
        for line in f:
            if line.strip():
                row = json.loads(line)
                # Message names relative to the repository, whatever path the corpus was read from.
                row["name"] = row["name"].removeprefix(ROOT + "/")
                rows.append(row)
    return rows


def key(corpus, message, sentence):
    """A verdict's key: the corpus, the message and the sentence's text (the same under both cleaners)."""
    return f"{corpus}|{message}|{sentence}"


def stratum(rows, which, corpus=None):
    """(message row, sentence index) of every sentence in the stratum, in corpus order. "newly-dropped":
    the new cleaner's sentences that are not prose but were, word for word in the same message, under
    the old one."""
    if which == "newly-dropped":
        was = {(r["name"], s["t"]) for r in load(corpus, "old") for s in r["sentences"] if s["p"]}
        return [(r, i) for r in rows for i, s in enumerate(r["sentences"]) if not s["p"] and (r["name"], s["t"]) in was]
    want = which == "prose"
    return [(r, i) for r in rows for i, s in enumerate(r["sentences"]) if s["p"] == want]


def draw(corpus, label, which, n, seed):
    """The stratum and the N sentences of it that rank first by a seeded hash of their key: a sentence
    keeps its place whatever else changes, so a small change to the cleaner redraws few of them, and
    the old and the new cleaner's samples share most of theirs (and their verdicts)."""
    rows = load(corpus, label)
    population = stratum(rows, which, corpus)
    def rank(item):
        row, i = item
        return hashlib.sha256(f"{seed}|{which}|{key(corpus, row['name'], row['sentences'][i]['t'])}".encode()).hexdigest()
    return population, sorted(population, key=rank)[:n]


def load_judging():
    if not os.path.exists(JUDGING):
        return {"about": __doc__.split("\n\n")[0], "verdicts": []}
    with open(JUDGING) as f:
        return json.load(f)


def save_judging(judging):
    # One verdict a line: diffs stay readable.
    lines = ["{", f' "about": {json.dumps(judging["about"], ensure_ascii=False)},', ' "verdicts": [']
    body = [" " + json.dumps(v, ensure_ascii=False, sort_keys=True) for v in judging["verdicts"]]
    lines.append(",\n".join(body))
    lines += [" ]", "}"]
    with open(JUDGING, "w") as f:
        f.write("\n".join(lines) + "\n")


def context(row, sentence, width=170):
    """The cleaned text's line holding the sentence, with the line before and after it."""
    lines = row["text"].split("\n")
    at = next((i for i, l in enumerate(lines) if sentence in l), None)
    if at is None:
        return ["     (not in the cleaned text)"]
    out = []
    for i in range(max(0, at - 1), min(len(lines), at + 2)):
        if i == at:
            continue
        text = lines[i] if len(lines[i]) <= width else lines[i][:width - 1] + "…"
        out.append(f"     {'before' if i < at else 'after '}: {text}")
    return out


def sample(args):
    judged = {v["key"]: v for v in load_judging()["verdicts"]}
    population, picked = draw(args.corpus, args.label, args.stratum, args.n, args.seed)
    print(f"{args.corpus} {args.label} {args.stratum}: {len(picked)} of {len(population)}")
    for n, (row, i) in enumerate(picked):
        s = row["sentences"][i]["t"]
        k = key(args.corpus, row["name"], s)
        verdict = judged.get(k)
        print(f"#{n:03d} {row['name']}" + (f"   [judged: {verdict['label']}]" if verdict else ""))
        print(f"  » {s if len(s) <= 400 else s[:399] + '…'}")
        if not args.brief:
            print("\n".join(context(row, s)))


def judge(args):
    """VERDICTS: "NNN LABEL [note]" per line, NNN a number `sample` printed for the same CORPUS LABEL
    STRATUM N; "rest LABEL" gives LABEL to every other item of the sample (after reading them all)."""
    judging = load_judging()
    by_key = {v["key"]: v for v in judging["verdicts"]}
    _, picked = draw(args.corpus, args.label, args.stratum, args.n, args.seed)
    given, rest = {}, None
    with open(args.verdicts) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            number, label, *note = line.split(None, 2)
            assert label in LABELS, line
            if number == "rest":
                rest = label
            else:
                given[int(number)] = (label, note[0].strip() if note else "")
    added = 0
    for n, (row, i) in enumerate(picked):
        k = key(args.corpus, row["name"], row["sentences"][i]["t"])
        if n not in given and k in by_key:
            continue  # judged before (in another sample): the verdict stands
        assert n in given or rest, f"#{n:03d} needs a verdict"
        label, note = given.get(n, (rest, ""))
        entry = {"key": k, "label": label}
        if note:
            entry["note"] = note
        if k in by_key and by_key[k]["label"] != label:
            print(f"#{n:03d}: {by_key[k]['label']} before, now {label}: {k[:120]}")
        added += k not in by_key
        by_key[k] = entry
    judging["verdicts"] = sorted(by_key.values(), key=lambda v: v["key"])
    save_judging(judging)
    print(f"{added} verdicts added, {len(judging['verdicts'])} in {JUDGING}")


def score(args):
    judged = {v["key"]: v["label"] for v in load_judging()["verdicts"]}
    for corpus in CORPORA:
        role = "calibrated on" if corpus in CALIBRATED_ON else "held out"
        for label in ("old", "frozen", "new"):
            if not os.path.exists(data_path(corpus, label)):
                continue
            rows = load(corpus, label)
            total = sum(len(r["sentences"]) for r in rows)
            print(f"\n{corpus} ({role}), {label} cleaner: {len(rows)} messages, {total} sentences")
            for which in ("prose", "dropped") + (("newly-dropped",) if label != "old" else ()):
                if which == "newly-dropped" and not os.path.exists(data_path(corpus, "old")):
                    continue
                population, picked = draw(corpus, label, which, args.n, args.seed)
                labels = [judged.get(key(corpus, r["name"], r["sentences"][i]["t"])) for r, i in picked]
                done = [l for l in labels if l]
                if not done:
                    print(f"  {which}: {len(population)} sentences, not judged")
                    continue
                counts = Counter(done)
                if which == "prose":
                    wrong = sum(counts[l] for l in JUNK)
                    what = "code, diff, log, quote, trailer, signature, footer, header or link"
                elif which == "dropped":
                    wrong = counts["prose"]
                    what = "real prose (wrongly dropped)"
                else:
                    wrong = counts["prose"]
                    what = "real prose that the old cleaner kept (dropped by this change)"
                share = wrong / len(done)
                print(f"  {which}: {len(population)} sentences; judged {len(done)} of a sample of {len(picked)}: "
                      f"{wrong} {what} = {share:.1%} ≈ {share * len(population):,.0f} sentences"
                      f"  [{', '.join(f'{l} {c}' for l, c in counts.most_common())}]")
                if which == "prose":
                    other = counts["table"] + counts["fragment"]
                    print(f"         and {other} table or fragment = {other / len(done):.1%}")


def paired(args):
    """The old cleaner's sample of prose-marked sentences, each looked up in a newer cleaner's output
    (same message, same words): how many of its junk sentences are no longer prose, and how many of its
    real prose sentences still are. A sentence whose words changed (joined, split) is counted apart."""
    judged = {v["key"]: v["label"] for v in load_judging()["verdicts"]}
    for corpus in CORPORA:
        if not os.path.exists(data_path(corpus, "old")):
            continue
        _, picked = draw(corpus, "old", "prose", args.n, args.seed)
        for label in ("frozen", "new"):
            if not os.path.exists(data_path(corpus, label)):
                continue
            now = {(r["name"], s["t"]): s["p"] for r in load(corpus, label) for s in r["sentences"]}
            tally = Counter()
            for row, i in picked:
                text = row["sentences"][i]["t"]
                verdict = judged.get(key(corpus, row["name"], text))
                if verdict is None:
                    continue
                kind = "junk" if verdict in JUNK else "prose" if verdict == "prose" else "other"
                state = now.get((row["name"], text))
                tally[(kind, "changed" if state is None else "prose" if state else "dropped")] += 1
            junk = sum(tally[("junk", s)] for s in ("prose", "dropped", "changed"))
            prose = sum(tally[("prose", s)] for s in ("prose", "dropped", "changed"))
            print(f"{corpus}, the old cleaner's {len(picked)} prose-marked sentences under the {label} cleaner: "
                  f"of {junk} not prose, {tally[('junk', 'dropped')]} dropped, {tally[('junk', 'prose')]} still marked prose, "
                  f"{tally[('junk', 'changed')]} changed; of {prose} real prose, {tally[('prose', 'prose')]} kept, "
                  f"{tally[('prose', 'dropped')]} dropped, {tally[('prose', 'changed')]} changed")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("extract")
    p.add_argument("corpus", choices=CORPORA)
    p.add_argument("label")
    p.add_argument("--bench", default=os.path.join(ROOT, ".build-prose/debug/mailsearch-bench"))
    p = sub.add_parser("sample")
    p.add_argument("corpus", choices=CORPORA)
    p.add_argument("label")
    p.add_argument("stratum", choices=STRATA)
    p.add_argument("n", type=int)
    p.add_argument("--seed", type=int, default=33)
    p.add_argument("--brief", action="store_true", help="the sentences only, no lines around them")
    p = sub.add_parser("judge")
    p.add_argument("corpus", choices=CORPORA)
    p.add_argument("label")
    p.add_argument("stratum", choices=STRATA)
    p.add_argument("n", type=int)
    p.add_argument("verdicts")
    p.add_argument("--seed", type=int, default=33)
    p = sub.add_parser("paired")
    p.add_argument("--seed", type=int, default=33)
    p.add_argument("--n", type=int, default=120)
    p = sub.add_parser("score")
    p.add_argument("--seed", type=int, default=33)
    p.add_argument("--n", type=int, default=120)
    args = parser.parse_args()
    {"extract": extract, "sample": sample, "judge": judge, "score": score, "paired": paired}[args.command](args)


if __name__ == "__main__":
    main()
