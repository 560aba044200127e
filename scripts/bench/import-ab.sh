#!/usr/bin/env bash
# Two builds' imports side by side: the same corpus imported by each in turn, ROUNDS times
# (interleaved, so a change in the host's speed falls on both), wall and CPU seconds and peak RSS
# of each run; then what each stored compared: every email's category and how it was decided,
# every thread (its members, subject, dates, counts, participants, snippet), every attachment's text.
#
#   scripts/bench/import-ab.sh DIR_A DIR_B [ROUNDS] [CORPUS]
#     DIR_A, DIR_B  folders each holding a `mailsearch` and its `mailsearch-full` (copies of
#                   .build/release of each build: the lean binary runs the full one beside it)
#     ROUNDS        imports by each [5]
#     CORPUS        [corpora/enron-inbox/maildir]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
A=$1; B=$2; ROUNDS=${3:-5}; CORPUS=${4:-$ROOT/corpora/enron-inbox/maildir}
SCRATCH=$ROOT/bench-data/import-ab
for d in "$A" "$B"; do
  [ -x "$d/mailsearch" ] && [ -x "$d/mailsearch-full" ] || { echo "error: $d needs mailsearch and mailsearch-full" >&2; exit 1; }
done
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; features: $(grep -o -w 'avx2\|fma\|f16c\|avx512f\|avx512_vnni\|avx512_bf16' /proc/cpuinfo | sort -u | tr '\n' ' ')"
echo "corpus: $CORPUS; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$ROUNDS"); do
  for side in A B; do
    dir=$A; [ $side = B ] && dir=$B
    rm -rf "$SCRATCH/$side" && mkdir -p "$SCRATCH/$side"
    /usr/bin/time -f "$side (round $r): %e s wall, %U + %S s CPU, peak RSS %M KB" -o "$SCRATCH/time" \
      "$dir/mailsearch" import "$CORPUS" --account ab --data-dir "$SCRATCH/$side" --quiet >/dev/null
    cat "$SCRATCH/time"
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
same=0
dump() {  # side, what, SQL
  sqlite3 "$SCRATCH/$1/mail.sqlite" "$3" > "$SCRATCH/$1.$2"
}
for side in A B; do
  dump $side categories "SELECT e.messageId, e.category, c.method, c.reason, c.confidence, c.signals FROM emails e JOIN email_categories c ON c.emailId = e.id ORDER BY e.messageId"
  dump $side threads "SELECT (SELECT group_concat(messageId, ' ') FROM (SELECT messageId FROM emails e WHERE e.threadId = t.id ORDER BY messageId)), t.subject, t.latestDate, t.messageCount, t.unreadCount, t.isStarred, t.participants, t.snippet FROM threads t ORDER BY 1"
  dump $side attachments "SELECT e.messageId, a.filename, t.status, t.detail, t.text FROM attachment_text t JOIN attachments a ON a.id = t.attachmentId JOIN emails e ON e.id = a.emailId ORDER BY e.messageId, a.id"
  dump $side emails "SELECT messageId, normalizedSubject, toAddresses, ccAddresses, snippet, sortDate, isRead FROM emails ORDER BY messageId"
done
for what in categories threads attachments emails; do
  if cmp -s "$SCRATCH/A.$what" "$SCRATCH/B.$what"; then
    echo "$what: the same ($(wc -l < "$SCRATCH/A.$what") rows)"
  else
    same=1
    echo "$what: DIFFERENT ($(diff "$SCRATCH/A.$what" "$SCRATCH/B.$what" | grep -c '^<') of $(wc -l < "$SCRATCH/A.$what") rows of A differ; diff $SCRATCH/A.$what $SCRATCH/B.$what)"
  fi
done
exit $same
