#!/usr/bin/env bash
# What the `mailsearch` FTS5 tokenizer (Sources/CRanking/ms_tokenizer.c) costs against unicode61,
# the tokenizer the index used before it: the FTS5 table of an imported mailbox (subject, body,
# sender name and address, as the index holds them) built with each, RUNS times alternating, in the
# sqlite3 shell with the tokenizer loaded as an extension. Prints seconds per build, the index's
# pages in bytes, and its distinct terms.
#
# With QUERIES (a file of one query per line, e.g. the second column of a `make eval` queries TSV),
# also the time of each query's MATCH (words quoted and ANDed, the last one a prefix, BM25 order,
# top 20) on both indexes, each query 3 times, p50/p95 of the best of 3: what the tokenizer changes
# in a keyword search's FTS5 part.
#
#   scripts/bench/tokenizer-cost.sh MAIL_SQLITE [RUNS] [QUERIES]
#     MAIL_SQLITE  a mail.sqlite (e.g. bench-data/import-enron-indexed/mail.sqlite)
#     RUNS         builds per tokenizer [3]
#     QUERIES      queries to time on the last build of each tokenizer
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
MAIL=${1:?usage: $0 MAIL_SQLITE [RUNS]}
RUNS=${2:-3}
QUERIES=${3:-}
"$ROOT/scripts/ensure-packages.sh" sqlite3 gcc libsqlite3-dev bc
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cat > "$WORK/ext.c" <<'C'
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1
int ms_register_tokenizer(fts5_api *api);
int sqlite3_extension_init(sqlite3 *db, char **error, const sqlite3_api_routines *routines) {
    SQLITE_EXTENSION_INIT2(routines);
    fts5_api *api = 0;
    sqlite3_stmt *statement = 0;
    if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &statement, 0) != SQLITE_OK) return SQLITE_ERROR;
    sqlite3_bind_pointer(statement, 1, (void *)&api, "fts5_api_ptr", 0);
    sqlite3_step(statement);
    sqlite3_finalize(statement);
    return api ? ms_register_tokenizer(api) : SQLITE_ERROR;
}
C
gcc -O2 -shared -fPIC -I"$ROOT/Sources/CRanking/include" "$WORK/ext.c" "$ROOT/Sources/CRanking/ms_tokenizer.c" -o "$WORK/mstok.so"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "mailbox: $MAIL ($(sqlite3 "$MAIL" 'SELECT COUNT(*) FROM emails') emails, $(sqlite3 "$MAIL" 'SELECT SUM(length(CAST(subject || bodyPlain AS BLOB))) FROM emails') bytes of subject and body)"
build() {  # tokenizer name → "seconds bytes terms"
  rm -f "$WORK/index-$1.sqlite"
  local start end
  start=$(date +%s.%N)
  sqlite3 "$WORK/index-$1.sqlite" <<SQL >/dev/null
.load $WORK/mstok.so
PRAGMA journal_mode = OFF;
ATTACH '$MAIL' AS mail;
CREATE VIRTUAL TABLE email_fts USING fts5(email_id UNINDEXED, account_id UNINDEXED, subject, body, sender_name,
    sender_email, tokenize='$1 remove_diacritics 2', prefix='2');
INSERT INTO email_fts (rowid, email_id, account_id, subject, body, sender_name, sender_email)
    SELECT id, id, accountId, subject, bodyPlain, COALESCE(fromName, ''), COALESCE(fromEmail, '') FROM mail.emails ORDER BY id;
INSERT INTO email_fts (email_fts) VALUES ('optimize');
SQL
  end=$(date +%s.%N)
  local bytes terms
  bytes=$(sqlite3 "$WORK/index-$1.sqlite" "SELECT SUM(pgsize) FROM dbstat WHERE name LIKE 'email_fts%'" 2>/dev/null \
          || stat -c %s "$WORK/index-$1.sqlite")
  terms=$(sqlite3 "$WORK/index-$1.sqlite" ".load $WORK/mstok.so" \
          "CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, email_fts, row)" "SELECT COUNT(*) FROM temp.v")
  echo "$(echo "$end - $start" | bc) $bytes $terms"
}
for i in $(seq 1 "$RUNS"); do
  for tokenizer in unicode61 mailsearch; do
    read -r seconds bytes terms < <(build "$tokenizer")
    printf '%-10s run %d: %6.2f s  index %6.1f MB  %8d terms\n' "$tokenizer" "$i" "$seconds" "$(echo "$bytes / 1048576" | bc -l)" "$terms"
  done
done
[ -n "$QUERIES" ] || exit 0
python3 - "$WORK" "$QUERIES" <<'PY'
import re, statistics, subprocess, sys
work, path = sys.argv[1], sys.argv[2]
queries = []
for line in open(path, encoding="utf-8"):
    words = re.findall(r"\w+", line.strip())
    if words:
        quoted = ['"' + w.replace('"', '""') + '"' for w in words]
        quoted[-1] += "*"
        queries.append(" AND ".join(quoted))
for tokenizer in ("unicode61", "mailsearch"):
    script = [f".load {work}/mstok.so", ".timer on"]
    for q in queries:
        sql = "SELECT rowid FROM email_fts WHERE email_fts MATCH '" + q.replace("'", "''") + "' ORDER BY bm25(email_fts) LIMIT 20;"
        script += [sql] * 3
    out = subprocess.run(["sqlite3", f"{work}/index-{tokenizer}.sqlite"], input="\n".join(script), capture_output=True,
                         text=True).stdout
    times = [float(t) * 1000 for t in re.findall(r"Run Time: real ([0-9.]+)", out)]
    best = [min(times[i:i + 3]) for i in range(0, len(times), 3)]
    best.sort()
    p95 = best[min(len(best) - 1, int(round(0.95 * (len(best) - 1))))]
    print(f"{tokenizer:10} {len(best)} queries: MATCH top 20, best of 3: p50 {statistics.median(best):.2f} ms, p95 {p95:.2f} ms, max {best[-1]:.2f} ms")
PY
