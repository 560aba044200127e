#!/usr/bin/env bash
# Keyword search latency (`mailsearch-bench latency`, what `make bench` reports for Enron) of two builds
# of mailsearch-bench on the same real mail, runs alternating (old, new, old, new, …) so that the noise
# of a shared machine falls on both. Each build imports the corpora into its own working directory
# (`mailsearch-bench import`, FTS5 built by that build's tokenizer: no data directory is shared) and is
# then timed there, each run holding BENCH_LOCK so no other timed run overlaps it.
# Issue 35 asks this of the `mailsearch` tokenizer: keyword p95 not worse than 1.1x the build before it:
#
#   git worktree add --detach ../bench-old 152c9e7^      # the commit before the tokenizer
#   git worktree add --detach ../bench-new HEAD
#   (cd ../bench-old && swift build -c release --static-swift-stdlib --product mailsearch-bench --scratch-path .build-old)
#   (cd ../bench-new && swift build -c release --static-swift-stdlib --product mailsearch-bench --scratch-path .build-new)
#   NICE=-15 scripts/bench/keyword-latency-ab.sh ../bench-old/.build-old/release/mailsearch-bench \
#       ../bench-new/.build-new/release/mailsearch-bench /tmp/keyword-ab 30
#
#   OLD_BIN, NEW_BIN  the two mailsearch-bench executables
#   WORK              a scratch folder: WORK/old and WORK/new hold each build's imports and logs
#   ROUNDS            old/new pairs [3]
# Corpora: CORPORA (default ./corpora, `make corpora`): enron-inbox/maildir and usrp-users.mbox.
# `latency` times Enron on the bench's real-mail mix (27 queries: common, rare, filtered, phrase, prefix)
# and usrp-users (a folder name without "enron") on its general mix (16 text + 8 filtered queries, written
# for the synthetic corpus: on usrp-users 20 of them match nothing, and the p95 of the 480 times falls
# between "the", the one slow query, and the rest). So usrp-users is also timed on its own queries:
# USRP_QUERIES (default: every 13th topic/short/from query of bench-data/eval-usrp-users-queries.tsv, as
# `make eval` writes it; 60 queries), each searched 20 times a round (`phases`, BENCH_SEARCH_ONLY=20),
# compared by each query's p95 (the median over the rounds).
# NICE=-15 runs the timed runs at that priority (root only): on a machine shared with other work the
# other processes then take less from them (the same for both builds).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
USAGE="usage: $0 OLD_BIN NEW_BIN WORK [ROUNDS]"
OLD=$(realpath "${1:?$USAGE}")
NEW=$(realpath "${2:?$USAGE}")
WORK=${3:?$USAGE}
ROUNDS=${4:-3}
CORPORA=$(realpath "${CORPORA:-corpora}")
LOCK=${BENCH_LOCK:-/tmp/bench.lock}
PRIORITY=(${NICE:+nice -n "$NICE"})
mkdir -p "$WORK/old" "$WORK/new"
WORK=$(realpath "$WORK")
declare -A BIN=([old]="$OLD" [new]="$NEW")
if [ -z "${USRP_QUERIES:-}" ] && [ -f "$ROOT/bench-data/eval-usrp-users-queries.tsv" ]; then
  awk -F'\t' '$1 ~ /^(topic|short|from-direct|from-via-list)-/ && NR % 13 == 0 { print $2 }' \
    "$ROOT/bench-data/eval-usrp-users-queries.tsv" > "$WORK/usrp-queries.txt"
  USRP_QUERIES="$WORK/usrp-queries.txt"
fi
USRP=()
[ -n "${USRP_QUERIES:-}" ] && mapfile -t USRP < "$USRP_QUERIES"

echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores," \
     "$(grep -o -w 'avx2\|avx512f\|avx512_bf16\|avx512_vnni' /proc/cpuinfo | sort -u | xargs)"
for side in old new; do
  cd "$WORK/$side"   # mailsearch-bench writes under ./bench-data
  if [ ! -f bench-data/usrp-users/search.sqlite ]; then
    flock "$LOCK" "${BIN[$side]}" import "$CORPORA/usrp-users.mbox" | sed "s/^/$side: usrp-users: /"
    rm -rf bench-data/usrp-users bench-data/import-enron-plain
    mv bench-data/import-enron-indexed bench-data/usrp-users   # the bench labels every import "enron"
  fi
  if [ ! -f bench-data/import-enron-indexed/search.sqlite ]; then
    flock "$LOCK" "${BIN[$side]}" import "$CORPORA/enron-inbox/maildir" | sed "s/^/$side: /"
    rm -rf bench-data/import-enron-plain
  fi
  for dir in import-enron-indexed usrp-users; do
    echo "$side: $dir: FTS5 $(sqlite3 "bench-data/$dir/search.sqlite" \
      "SELECT sql FROM sqlite_master WHERE name = 'email_fts'" | grep -o "tokenize='[^']*'")"
  done
done

for round in $(seq 1 "$ROUNDS"); do
  for side in old new; do
    cd "$WORK/$side"
    echo "== round $round $side, load $(cut -d' ' -f1-3 /proc/loadavg) (before the lock)${NICE:+, nice $NICE}"
    flock "$LOCK" "${PRIORITY[@]}" "${BIN[$side]}" latency bench-data/import-enron-indexed bench-data/usrp-users \
      > "latency-$round.log"
    cat "latency-$round.log"
    if [ ${#USRP[@]} -gt 0 ]; then
      BENCH_SEARCH_ONLY=20 flock "$LOCK" "${PRIORITY[@]}" "${BIN[$side]}" phases bench-data/usrp-users "${USRP[@]}" \
        > "usrp-queries-$round.log"
    fi
  done
done

python3 - "$WORK" "$ROUNDS" <<'PY'
import re, statistics as st, sys
work, rounds = sys.argv[1], int(sys.argv[2])
def latency(side, r):  # corpus -> (p50, p95, raw FTS5 p95) of the "all" line
    out, corpus = {}, None
    for line in open(f"{work}/{side}/latency-{r}.log"):
        if line.startswith("["):
            corpus = "enron" if line.startswith("[import-enron") else "usrp-users"
        m = re.match(r"  all +end to end p50=([\d.]+) ms  p95=([\d.]+) ms .*top-50 p50=[\d.]+ ms  p95=([\d.]+)", line)
        if m: out[corpus] = tuple(map(float, m.groups()))
    return out
runs = {s: [latency(s, r) for r in range(1, rounds + 1)] for s in ("old", "new")}
print("\n| round | build | corpus | end-to-end p50 ms | end-to-end p95 ms | raw FTS5 top-50 p95 ms |\n|---|---|---|---|---|---|")
for r in range(rounds):
    for s in ("old", "new"):
        for c, (p50, p95, raw) in runs[s][r].items():
            print(f"| {r + 1} | {s} | {c} | {p50:.3f} | {p95:.3f} | {raw:.3f} |")
print()
for c in ("enron", "usrp-users"):
    for i, name in ((1, "p95"), (0, "p50")):
        o = [x[c][i] for x in runs["old"]]; n = [x[c][i] for x in runs["new"]]
        print(f"{c} end-to-end {name} over {rounds} rounds: median old {st.median(o):.3f} ms, new {st.median(n):.3f} ms,"
              f" new/old {st.median(n) / st.median(o):.3f}; best run old {min(o):.3f}, new {min(n):.3f}, new/old {min(n) / min(o):.3f};"
              f" median of the rounds' new/old {st.median(b / a for a, b in zip(o, n)):.3f}")
try:
    def queries(side, r):
        return [tuple(map(float, m.groups())) for m in
                (re.search(r"whole p50 +([\d.]+) ms +p95 +([\d.]+) ms", l) for l in open(f"{work}/{side}/usrp-queries-{r}.log")) if m]
    q = {s: [queries(s, r) for r in range(1, rounds + 1)] for s in ("old", "new")}
except FileNotFoundError:
    sys.exit(0)
count = len(q["old"][0])
for i, name in ((1, "p95"), (0, "p50")):
    per = {s: [st.median(run[k][i] for run in q[s]) for k in range(count)] for s in q}
    ratios = sorted(b / a for a, b in zip(per["old"], per["new"]))
    print(f"usrp-users, {count} of its own queries x 20 a round, each query's {name} (median of {rounds} rounds): sum old"
          f" {sum(per['old']):.2f} ms, new {sum(per['new']):.2f} ms, new/old {sum(per['new']) / sum(per['old']):.3f};"
          f" per query new/old median {st.median(ratios):.3f}, quartiles {ratios[count // 4]:.3f}-{ratios[3 * count // 4]:.3f}")
PY
