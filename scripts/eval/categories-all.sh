#!/usr/bin/env bash
# Category accuracy on every corpus, truth taken from the mail (scripts/eval/category_confusion.py):
# the held-out list archive as it is, with its List-* headers removed and with every list header but
# Precedence removed (scripts/fetch-list-corpus.sh),
# usrp-users (Mailman 3), Enron's person-to-person mail, the generated labelled set (seeds 5 and 11)
# and mimekit's MIME test messages (no truth: the categories it gets are printed). No embeddings
# are made here: where a data folder has them (`mailsearch index embed --data-dir DATA/NAME`), the
# classifier decides the rules' unsure cases, as it does for a user.
#
#   scripts/eval/categories-all.sh [BIN] [DATA]     (BIN=.build/debug/mailsearch DATA=eval-data/categories)
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${1:-.build/debug/mailsearch}
DATA=${2:-eval-data/categories}
CORPORA=${CORPORA:-corpora}
HELD=${HELD:-corpora/list-heldout}
EVAL=scripts/eval/category_confusion.py
[ -d "$HELD/original" ] || scripts/fetch-list-corpus.sh "$HELD"
mkdir -p "$DATA"

load() {  # name source
    if [ ! -f "$DATA/$1/mail.sqlite" ]; then
        "$BIN" import "$2" --account "$1" --data-dir "$DATA/$1" --quiet >/dev/null
    fi
    "$BIN" recategorize --data-dir "$DATA/$1" >/dev/null
}

load heldout "$HELD/original"
python3 $EVAL heldout "$DATA/heldout" "$HELD/original"
echo
load heldout-old "$HELD/old-list-software"
python3 $EVAL heldout "$DATA/heldout-old" "$HELD/original" | sed '1s/^/List-* headers removed: /'
echo
load heldout-precedence "$HELD/precedence-only"
python3 $EVAL heldout "$DATA/heldout-precedence" "$HELD/original" | sed '1s/^/every list header but Precedence removed: /'
echo
load usrp "$CORPORA/usrp-users.mbox"
python3 $EVAL forums "$DATA/usrp"
echo
load enron "$CORPORA/enron-inbox/maildir"
python3 $EVAL enron "$DATA/enron"
for seed in 5 11; do
    echo
    [ -f "$DATA/generated-$seed.mbox" ] || "$BIN" demo --categories --count 3000 --seed "$seed" --end-date 2024-06-30 \
        -o "$DATA/generated-$seed.mbox" >/dev/null
    load "generated-$seed" "$DATA/generated-$seed.mbox"
    python3 $EVAL labels "$DATA/generated-$seed" "$DATA/generated-$seed.mbox.labels.tsv" | sed "1s/$/ (seed $seed)/"
done
echo
load mimekit "$CORPORA/mimekit"
echo "mimekit (no truth): $(sqlite3 "$DATA/mimekit/mail.sqlite" "SELECT group_concat(category || ' ' || n, ', ') FROM (SELECT category, COUNT(*) n FROM emails GROUP BY category)")"
