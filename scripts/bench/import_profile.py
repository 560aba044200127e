#!/usr/bin/env python3
"""Where an import's CPU time goes, by the part of the pipeline and by half second.

    scripts/bench/import_profile.py record MAILSEARCH_FULL CORPUS [OUT_DIR]
        runs `MAILSEARCH_FULL import CORPUS` into a fresh data directory under perf
        (`perf record -F 199 --call-graph dwarf`), then prints the report below
    scripts/bench/import_profile.py report PERF_SCRIPT_TXT [--functions PATTERN ...]
        the report from `perf script -F tid,time,ip,sym` output

The parts are told by the Swift frames on each sample's stack: the categoriser's queue
(`CategorizationQueue`), the index thread (`didCommit`), FTS5's final merge (`optimizeAfterImport`),
reading and parsing (`forEachMessage`, `concurrentMap`), the mail writer (`BlockingPool`), and other.
A 2-core machine takes at most 2 x 199 samples a second; a part's share of a column is its share of
that half second's CPU. `--functions` adds inclusive sample counts of frames matching each pattern
(for example `storeCategoryDecisions` or `ThreadMetadata`). Needs Debian's linux-perf.
"""
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

HEADER = re.compile(r"^\s*(\d+)\s+(\d+\.\d+):")
PARTS = ["read+parse", "writer", "index", "categoriser", "optimize", "other"]


def samples(path):
    current = None
    with open(path, errors="replace") as lines:
        for line in lines:
            if not line.strip():
                if current:
                    yield current
                current = None
                continue
            m = HEADER.match(line)
            if m:
                current = {"tid": m.group(1), "t": float(m.group(2)), "frames": []}
            elif current is not None:
                parts = line.strip().split(None, 1)
                current["frames"].append(parts[1] if len(parts) > 1 else "?")
    if current:
        yield current


def part(frames):
    stack = "\n".join(frames)
    if "optimizeAfterImport" in stack:
        return "optimize"
    if "CategorizationQueue" in stack:
        return "categoriser"
    if "didCommit" in stack:
        return "index"
    if "forEachMessage" in stack or "concurrentMap" in stack:
        return "read+parse"
    if "BlockingPool" in stack:
        return "writer"
    return "other"


def report(path, functions):
    all_samples = list(samples(path))
    if not all_samples:
        sys.exit(f"error: no samples in {path} (is it `perf script -F tid,time,ip,sym` output?)")
    start = min(s["t"] for s in all_samples)
    columns = collections.defaultdict(collections.Counter)
    totals = collections.Counter()
    for s in all_samples:
        p = part(s["frames"])
        columns[int((s["t"] - start) / 0.5)][p] += 1
        totals[p] += 1
    print("t (s) " + " ".join(f"{p:>12}" for p in PARTS))
    for column in sorted(columns):
        print(f"{column * 0.5:5.1f} " + " ".join(f"{columns[column][p]:12d}" for p in PARTS))
    print("total " + " ".join(f"{totals[p]:12d}" for p in PARTS) + f"   ({len(all_samples)} samples)")
    for pattern in functions:
        n = sum(1 for s in all_samples if any(pattern in f for f in s["frames"]))
        print(f"frames matching {pattern!r}: {n} samples")


def record(binary, corpus, out_dir):
    if not shutil.which("perf"):
        sys.exit("error: perf not found (apt-get install linux-perf)")
    out_dir = out_dir or tempfile.mkdtemp(prefix="import-profile-")
    data_dir = os.path.join(out_dir, "data")
    shutil.rmtree(data_dir, ignore_errors=True)
    os.makedirs(data_dir)
    perf_data = os.path.join(out_dir, "perf.data")
    subprocess.run(["perf", "record", "-F", "199", "--call-graph", "dwarf,16384", "-o", perf_data, "--",
                    binary, "import", corpus, "--account", "profile", "--data-dir", data_dir, "--quiet"],
                   check=True, stdout=subprocess.DEVNULL)
    text = os.path.join(out_dir, "perf.txt")
    with open(text, "w") as out:
        subprocess.run(["perf", "script", "-i", perf_data, "-F", "tid,time,ip,sym"], check=True, stdout=out,
                       stderr=subprocess.DEVNULL)
    print(f"perf data and script output in {out_dir}")
    return text


def main(argv):
    if len(argv) >= 3 and argv[0] == "record":
        text = record(argv[1], argv[2], argv[3] if len(argv) > 3 else None)
        report(text, [])
    elif len(argv) >= 2 and argv[0] == "report":
        functions = argv[argv.index("--functions") + 1:] if "--functions" in argv else []
        report(argv[1], functions)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
