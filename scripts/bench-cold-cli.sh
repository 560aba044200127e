#!/usr/bin/env bash
# Cold one-shot CLI, side by side with notmuch on Enron: whole process, same queries, one run.
#
#   scripts/bench-cold-cli.sh            (or: make bench-cold)
#
# For each query, hyperfine (no shell, warm page cache) times `notmuch search --limit=20 Q` and
# `mailsearch search --mode keyword --no-history --limit 20 Q` as whole processes; /usr/bin/time -v
# gives each one's peak RSS; `mailsearch search --json` gives its in-process time (tookMs), so the
# rest is the cost of starting the process and opening the data. Counts: notmuch threads and
# messages, mailsearch conversations and keyword matches (notmuch threads only by
# References/In-Reply-To, so on Enron every message is its own thread; the counts are reported,
# not compared).
#
# Environment (defaults in brackets):
#   MAILSEARCH   the binary [.build/release/mailsearch]
#   DATA_DIR     mailsearch data dir with Enron imported [bench-data/cold-cli/enron: a copy of
#                bench-data/import-enron-indexed when that exists, else imported from CORPUS]
#   CORPUS       the Enron tree [corpora/enron-inbox/maildir]
#   NOTMUCH_DIR  notmuch config and database [bench-data/notmuch-enron], built once (minutes)
#   OUT          JSON exports and the summary [bench-data/cold-cli]
#   RUNS WARMUP  hyperfine runs and warmups [20 3];  RSS_RUNS: /usr/bin/time runs [5]
#   AB_RUNS      pairs of the interleaved comparison (scripts/ab.py), reported beside hyperfine [20]
#   BENCH_LOCK   measurements hold this lock, so benchmarks do not overlap [/tmp/benchlock]
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
MAILSEARCH=${MAILSEARCH:-$ROOT/.build/release/mailsearch}
CORPUS=${CORPUS:-$ROOT/corpora/enron-inbox/maildir}
DATA_DIR=${DATA_DIR:-$ROOT/bench-data/cold-cli/enron}
NOTMUCH_DIR=${NOTMUCH_DIR:-$ROOT/bench-data/notmuch-enron}
OUT=${OUT:-$ROOT/bench-data/cold-cli}
RUNS=${RUNS:-20}
AB_RUNS=${AB_RUNS:-20}
WARMUP=${WARMUP:-3}
RSS_RUNS=${RSS_RUNS:-5}
BENCH_LOCK=${BENCH_LOCK:-/tmp/benchlock}

# label | notmuch query | mailsearch query (each one argument; no single quotes)
QUERIES=(
  'gas prices california|gas prices california|gas prices california'
  'meeting|meeting|meeting'
  'enron|enron|enron'
  'dabhol|dabhol|dabhol'
  '"natural gas"|"natural gas"|"natural gas"'
  'contract from:kay|from:kay contract|contract from:kay'
)

# --- tools ---------------------------------------------------------------------------------------
"$ROOT/scripts/ensure-packages.sh" notmuch hyperfine time python3
[ -x "$MAILSEARCH" ] || { echo "error: no mailsearch binary at $MAILSEARCH (make release, or set MAILSEARCH)" >&2; exit 1; }
[ -d "$CORPUS" ] || { echo "error: no Enron corpus at $CORPUS (make corpora)" >&2; exit 1; }
mkdir -p "$OUT"

# --- mailsearch data ------------------------------------------------------------------------------
if [ ! -f "$DATA_DIR/mail.sqlite" ] || [ ! -f "$DATA_DIR/search.sqlite" ]; then
  mkdir -p "$DATA_DIR"
  imported=$ROOT/bench-data/import-enron-indexed   # written by `make bench` from the same corpus
  if [ "$CORPUS" = "$ROOT/corpora/enron-inbox/maildir" ] && [ -f "$imported/search.sqlite" ] && command -v sqlite3 >/dev/null; then
    # A copy, so that a benchmark re-importing that directory cannot change the data under us.
    echo "Copying $imported to $DATA_DIR"
    for db in mail search; do sqlite3 "$imported/$db.sqlite" ".backup '$DATA_DIR/$db.sqlite'"; done
  else
    echo "Importing $CORPUS into $DATA_DIR (a few minutes)"
    nice "$MAILSEARCH" import "$CORPUS" --account enron --data-dir "$DATA_DIR" --quiet
  fi
fi

# --- notmuch database -----------------------------------------------------------------------------
# notmuch indexes every file under mail_root (non-mail files are skipped with a note); the database
# lives outside the corpus, so corpora/ stays untouched.
export NOTMUCH_CONFIG=$NOTMUCH_DIR/config
if [ ! -f "$NOTMUCH_DIR/db/xapian/iamglass" ] && [ ! -f "$NOTMUCH_DIR/db/iamglass" ]; then
  mkdir -p "$NOTMUCH_DIR/db"
  cat > "$NOTMUCH_CONFIG" <<EOF
[database]
path=$NOTMUCH_DIR/db
mail_root=$CORPUS
[new]
tags=
ignore=
[search]
exclude_tags=
[maildir]
synchronize_flags=false
EOF
  echo "Building the notmuch database of $CORPUS in $NOTMUCH_DIR (a few minutes, once)"
  nice notmuch new --quiet
fi

# --- measurements (under the lock) ----------------------------------------------------------------
exec 9>"$BENCH_LOCK"
if ! flock -n 9; then echo "Waiting for $BENCH_LOCK (another benchmark is running)"; flock 9; fi

ms_cmd=("$MAILSEARCH" search --data-dir "$DATA_DIR" --mode keyword --no-history --limit 20)
q() { printf "'%s'" "$1"; }   # one hyperfine (-N) argument
peak_rss_kb() {               # median peak RSS over RSS_RUNS runs of "$@"
  local i values=() report="$OUT/time-v.txt"
  for ((i = 0; i < RSS_RUNS; i++)); do
    /usr/bin/time -v -o "$report" "$@" >/dev/null 2>&1 || true
    values+=("$(sed -nE 's/.*Maximum resident set size \(kbytes\): ([0-9]+).*/\1/p' "$report")")
  done
  printf '%s\n' "${values[@]}" | sort -n | sed -n "$(( (RSS_RUNS + 1) / 2 ))p"
}

: > "$OUT/rows.tsv"
echo "mailsearch: $MAILSEARCH ($(git -C "$ROOT" rev-parse --short HEAD) in $ROOT; binary from $(date -r "$MAILSEARCH" '+%F %T'))"
echo "data: $DATA_DIR ($("$MAILSEARCH" stats --data-dir "$DATA_DIR" --json 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("emails", "?"), "emails")' 2>/dev/null || echo "?"))"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
echo "notmuch: $(notmuch --version), $(notmuch count '*') messages; load average: $LOAD_BEFORE ($(nproc) cores)"
echo

# The floor: starting each process and doing nothing.
hyperfine -N --style basic --warmup "$WARMUP" --runs "$RUNS" \
  -n "notmuch --version" "notmuch --version" -n "mailsearch --help" "$MAILSEARCH --help" \
  --export-json "$OUT/hyperfine-floor.json" >/dev/null
printf 'floor\t%s\t%s\t%s\t%s\t\t\t\t\t%s\n' "$OUT/hyperfine-floor.json" \
  "$(peak_rss_kb notmuch --version)" "$(peak_rss_kb "$MAILSEARCH" --help)" "" "process start, no work" >> "$OUT/rows.tsv"

i=0
for entry in "${QUERIES[@]}"; do
  IFS='|' read -r label nq mq <<<"$entry"
  i=$((i + 1))
  json="$OUT/hyperfine-$i.json"
  echo "[$i/${#QUERIES[@]}] $label"
  hyperfine -N --style basic --warmup "$WARMUP" --runs "$RUNS" \
    -n "notmuch: $nq" "notmuch search --limit=20 $(q "$nq")" \
    -n "mailsearch: $mq" "${ms_cmd[*]} $(q "$mq")" \
    --export-json "$json" >/dev/null
  nm_rss=$(peak_rss_kb notmuch search --limit=20 "$nq")
  ms_rss=$(peak_rss_kb "${ms_cmd[@]}" "$mq")
  took=$(for _ in 1 2 3 4 5; do "${ms_cmd[@]}" --json "$mq"; done | python3 -c '
import json, sys, statistics
dec = json.JSONDecoder(); text = sys.stdin.read(); pos = 0; took = []; last = None
while pos < len(text):
    while pos < len(text) and text[pos].isspace(): pos += 1
    if pos >= len(text): break
    obj, pos = dec.raw_decode(text, pos); took.append(obj["tookMs"]); last = obj
print("%.1f\t%d\t%d" % (statistics.median(took), last["conversationCount"], last["keywordMatches"]))')
  nm_threads=$(notmuch count --output=threads "$nq")
  nm_msgs=$(notmuch count "$nq")
  # The same pair interleaved (scripts/ab.py: A B, B A, …): drift of the machine's speed between
  # hyperfine's two blocks of runs lands on one side; here it lands on both.
  ab=$(python3 "$ROOT/scripts/ab.py" "$AB_RUNS" "notmuch search --limit=20 $(q "$nq")" "${ms_cmd[*]} $(q "$mq")" \
       | awk '{print $2}' | paste -sd '\t')
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$json" "$nm_rss" "$ms_rss" "$took" "$nm_threads" "$nm_msgs" "$nq" "$ab" >> "$OUT/rows.tsv"
done
flock -u 9
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

# --- table ----------------------------------------------------------------------------------------
python3 - "$OUT/rows.tsv" "$OUT/summary.md" "$LOAD_BEFORE" "$LOAD_AFTER" "$(nproc)" <<'PY'
import json, sys, statistics
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1])]
def stats(result):
    ms = sorted(t * 1000 for t in result["times"])
    p95 = ms[min(len(ms) - 1, -(-95 * len(ms) // 100) - 1)]   # nearest rank
    return statistics.mean(ms), p95, (result["user"] + result["system"]) * 1000
out = []
out.append("| query | notmuch mean / p95 ms (CPU) | mailsearch mean / p95 ms (CPU) | ratio (mean) | interleaved medians notmuch / mailsearch ms (ratio) | RSS notmuch / mailsearch MB | mailsearch in-process ms | notmuch threads / messages | mailsearch conversations / matches |")
out.append("|---|---|---|---|---|---|---|---|---|")
ratios = []
for r in rows:
    label, path, nm_rss, ms_rss = r[0], r[1], r[2], r[3]
    results = json.load(open(path))["results"]
    (nm_mean, nm_p95, nm_cpu), (ms_mean, ms_p95, ms_cpu) = stats(results[0]), stats(results[1])
    nm, ms = f"{nm_mean:.1f} / {nm_p95:.1f} ({nm_cpu:.0f})", f"{ms_mean:.1f} / {ms_p95:.1f} ({ms_cpu:.0f})"
    ratio = ms_mean / nm_mean
    if label != "floor": ratios.append(ratio)
    mb = lambda kb: f"{int(kb) / 1024:.0f}" if kb else "?"
    if label == "floor":
        out.append(f"| *floor: `notmuch --version` / `mailsearch --help`* | {nm} | {ms} | {ratio:.1f}× | — | {mb(nm_rss)} / {mb(ms_rss)} | — | — | — |")
    else:
        took, conv, matches, nm_threads, nm_msgs = r[4], r[5], r[6], r[7], r[8]
        try:
            ab_nm, ab_ms = float(r[10]), float(r[11])
            ab = f"{ab_nm:.1f} / {ab_ms:.1f} ({ab_ms / ab_nm:.1f}×)"
        except (IndexError, ValueError, ZeroDivisionError):
            ab = "?"
        out.append(f"| `{label}` | {nm} | {ms} | {ratio:.1f}× | {ab} | {mb(nm_rss)} / {mb(ms_rss)} | {took} | {nm_threads} / {nm_msgs} | {conv} / {matches} |")
out.append("")
out.append("Wall-clock mean and p95 over the runs; CPU = user + system ms, mean (less sensitive to a busy machine). "
           "Interleaved: the two commands alternated (scripts/ab.py), medians; for reading drift, not the bar. "
           "RSS: median of the peak resident set sizes. In-process: mailsearch's own tookMs (`--json`), median of 5. "
           f"Load average {sys.argv[3]} before, {sys.argv[4]} after ({sys.argv[5]} cores): other work on the machine inflates wall times.")
verdict = "MET" if ratios and max(ratios) <= 1.0 else "NOT MET"
out.append("")
out.append(f"Bar (cold `mailsearch search` at most as slow as `notmuch search`, every query): **{verdict}**; "
           f"mailsearch/notmuch mean ratio {min(ratios):.1f}–{max(ratios):.1f}×.")
text = "\n".join(out)
print(text)
open(sys.argv[2], "w").write(text + "\n")
PY
echo
echo "hyperfine JSON: $OUT/hyperfine-*.json; table: $OUT/summary.md"
