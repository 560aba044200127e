#!/usr/bin/env bash
# Categorising the Enron inbox once embeddings exist, on one core (release build): the whole
# `mailsearch recategorize` (every email sent back to the categoriser, rules + classifier over the
# stored embeddings, decisions written), pinned to CPU 0 with taskset.
#
#   scripts/bench-categories.sh          (BIN=.build/release/mailsearch DATA=bench-data/categories-enron SAMPLE=500)
#
# Embedding all 44.7K emails takes ~25 minutes of every core, so the embeddings table is filled
# with the real vectors of the SAMPLE newest emails (embedded by `index embed`), reused cyclically
# for the rest: the categoriser reads them as it reads any stored embedding. The output says so.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.build/release/mailsearch}
DATA=${DATA:-bench-data/categories-enron}
SAMPLE=${SAMPLE:-500}
[ -x "$BIN" ] || { echo "build it first: make release (mailsearch and mailsearch-full)" >&2; exit 1; }
[ -d corpora/enron-inbox/maildir ] || { echo "corpora/enron-inbox is missing (make corpora)" >&2; exit 1; }

if [ ! -f "$DATA/mail.sqlite" ]; then
    "$BIN" import corpora/enron-inbox/maildir --account enron --data-dir "$DATA" --quiet
fi
emails=$(sqlite3 "$DATA/mail.sqlite" "SELECT COUNT(*) FROM emails")
embedded=$(sqlite3 "$DATA/mail.sqlite" "SELECT COUNT(*) FROM embeddings")
if [ "$embedded" -lt "$emails" ]; then
    if [ "$embedded" -eq 0 ]; then "$BIN" index embed --limit "$SAMPLE" --data-dir "$DATA" >/dev/null; fi
    python3 - "$DATA/mail.sqlite" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
real = db.execute("SELECT model, vector FROM embeddings ORDER BY emailId").fetchall()
missing = [r[0] for r in db.execute("SELECT id FROM emails WHERE id NOT IN (SELECT emailId FROM embeddings) ORDER BY id")]
db.executemany("INSERT INTO embeddings (emailId, model, vector) VALUES (?, ?, ?)",
               ((e, real[i % len(real)][0], real[i % len(real)][1]) for i, e in enumerate(missing)))
db.commit()
print(f"embeddings: {len(real)} real vectors, reused cyclically for {len(missing)} more emails")
PY
fi
real=$(sqlite3 "$DATA/mail.sqlite" "SELECT COUNT(DISTINCT vector) FROM embeddings")
echo "corpus: $emails Enron emails, $(sqlite3 "$DATA/mail.sqlite" "SELECT COUNT(*) FROM embeddings") embeddings ($real distinct real vectors, reused cyclically)"
for run in 1 2 3; do
    /usr/bin/time -f "run $run: %e s wall, %U s user + %S s sys CPU, on CPU 0 only" \
        taskset -c 0 "$BIN" recategorize --data-dir "$DATA" | head -1
done
echo "methods: $(sqlite3 "$DATA/mail.sqlite" "SELECT group_concat(method || ' ' || n, ', ') FROM (SELECT method, COUNT(*) n FROM email_categories GROUP BY method)")"
