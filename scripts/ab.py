#!/usr/bin/env python3
"""Interleaved A/B timing of whole processes: the fairer comparison on a shared, noisy machine.

    scripts/ab.py N "COMMAND A" "COMMAND B" [...]

Runs every command N times, alternating them (A B, then B A, …) so that a machine getting busier or
quieter affects each the same, and prints for each its median and p95 wall time and its mean CPU
(user + system of the child). hyperfine runs all of one command before the next, so drift between
the two blocks lands on one side; `make bench-cold` keeps hyperfine, this is for checking a change.
Output goes to /dev/null; commands are split as a shell would (shlex), not run through one.
"""
import os
import resource
import shlex
import statistics
import subprocess
import sys
import time


def main() -> None:
    if len(sys.argv) < 3 or not sys.argv[1].isdigit():
        sys.exit(__doc__)
    n = int(sys.argv[1])
    commands = [shlex.split(c) for c in sys.argv[2:]]
    wall = [[] for _ in commands]
    cpu = [[] for _ in commands]
    with open(os.devnull, "w") as devnull:
        for i in range(n):
            order = range(len(commands)) if i % 2 == 0 else reversed(range(len(commands)))
            for k in order:
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                subprocess.run(commands[k], stdout=devnull, stderr=devnull, check=False)
                end = time.perf_counter()
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                wall[k].append((end - start) * 1000)
                cpu[k].append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    for k, command in enumerate(sys.argv[2:]):
        times = sorted(wall[k])
        p95 = times[max(0, -(-95 * len(times) // 100) - 1)]
        print(f"median {statistics.median(times):6.2f} ms  p95 {p95:6.2f}  cpu {statistics.mean(cpu[k]):6.2f} ms  {command}")


if __name__ == "__main__":
    main()
