#!/usr/bin/env bash
# Import speed side by side with notmuch on Enron, whole processes, same machine, same run:
# `mailsearch import` (parse, store, thread, contacts, categories, FTS5) into a fresh data directory
# RUNS times, then `notmuch new` into a fresh database once, the corpus read once before either
# (a warm page cache for both). Prints wall seconds, CPU seconds, peak
# RSS and msgs/s of each, the load average before and after, and the CPU's features.
#
#   scripts/bench-import.sh [MAILSEARCH] [CORPUS] [RUNS]
#     MAILSEARCH  the release binary [.build/release/mailsearch]
#     CORPUS      a Maildir [corpora/enron-inbox/maildir]
#     RUNS        mailsearch imports [3]
# Scratch data goes to bench-data/import-bench/ (removed and made again each run).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MAILSEARCH=${1:-$ROOT/.build/release/mailsearch}
CORPUS=${2:-$ROOT/corpora/enron-inbox/maildir}
RUNS=${3:-3}
SCRATCH=$ROOT/bench-data/import-bench
"$ROOT/scripts/ensure-packages.sh" notmuch time
[ -x "$MAILSEARCH" ] || { echo "error: no mailsearch binary at $MAILSEARCH (make release)" >&2; exit 1; }
[ -d "$CORPUS" ] || { echo "error: no Maildir at $CORPUS (make corpora)" >&2; exit 1; }
CORPUS=$(cd "$CORPUS" && pwd)  # notmuch reads mail_root from its config: a relative path would be its own
messages=$(find "$CORPUS" -type f | wc -l)
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; features: $(grep -o -w 'avx2\|fma\|f16c\|avx512f\|avx512_vnni\|avx512_bf16' /proc/cpuinfo | sort -u | tr '\n' ' ')"
echo "corpus: $CORPUS ($messages files); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# Every file read once first, so that each run of either tool reads the mail from the page cache (a
# first run that read it from disk took 13.0 s against 8.5 s warm, which favoured whatever ran later).
find "$CORPUS" -type f -print0 | xargs -0 cat > /dev/null
echo "page cache: every file of the corpus read once before the runs"
row() {  # label, time file
  read -r wall user sys rss < "$2"
  awk -v l="$1" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" -v n="$messages" \
    'BEGIN { printf "%-22s wall %6.1f s  cpu %6.1f s  peak RSS %5d MB  %6.0f msgs/s\n", l, w, u + s, r / 1024, n / w }'
}
for i in $(seq 1 "$RUNS"); do
  rm -rf "$SCRATCH/ms" && mkdir -p "$SCRATCH/ms"
  /usr/bin/time -f "%e %U %S %M" -o "$SCRATCH/time" "$MAILSEARCH" import "$CORPUS" --account bench --data-dir "$SCRATCH/ms" --quiet >/dev/null
  row "mailsearch import #$i" "$SCRATCH/time"
done
rm -rf "$SCRATCH/nm" && mkdir -p "$SCRATCH/nm/db"
export NOTMUCH_CONFIG=$SCRATCH/nm/config
printf '[database]\npath=%s\nmail_root=%s\n[new]\ntags=\nignore=\n[search]\nexclude_tags=\n[maildir]\nsynchronize_flags=false\n' \
  "$SCRATCH/nm/db" "$CORPUS" > "$NOTMUCH_CONFIG"
/usr/bin/time -f "%e %U %S %M" -o "$SCRATCH/time" notmuch new --quiet
row "notmuch new" "$SCRATCH/time"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
