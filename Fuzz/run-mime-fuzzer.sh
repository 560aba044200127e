#!/usr/bin/env bash
# Builds the MIME parser fuzzer with libFuzzer + AddressSanitizer and runs it.
# Usage: Fuzz/run-mime-fuzzer.sh [SECONDS]   (default 600). Crashes land in Fuzz/bin/artifacts-mime/.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_RUN="${1:-600}"
mkdir -p Fuzz/bin Fuzz/corpus-mime Fuzz/bin/artifacts-mime

echo "building Fuzz/bin/mime-fuzzer"
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name MIMEFuzz \
    Sources/MailParsing/*.swift Fuzz/MIMEParserFuzzer.swift -o Fuzz/bin/mime-fuzzer

# Seed the corpus once from the shared corpora (when unpacked).
if [ -z "$(ls -A Fuzz/corpus-mime)" ] && [ -d corpora ]; then
    echo "seeding Fuzz/corpus-mime"
    if [ -d corpora/mimekit ]; then
        find corpora/mimekit -type f -size -256k | while read -r f; do cp "$f" "Fuzz/corpus-mime/mimekit-$(basename "$f")"; done
    fi
    if [ -d corpora/enron-inbox/maildir ]; then
        find corpora/enron-inbox/maildir -type f -size -64k | awk 'NR % 200 == 0' | head -250 | \
            while read -r f; do cp "$f" "Fuzz/corpus-mime/enron-$(echo "$f" | md5sum | cut -c1-12)"; done
    fi
    if [ -f corpora/usrp-users.mbox ]; then
        python3 - <<'PY'
import mailbox
box = mailbox.mbox("corpora/usrp-users.mbox", create=False)
for i, key in enumerate(box.iterkeys()):
    if i % 12 == 0:
        raw = box.get_bytes(key)
        if len(raw) < 256 * 1024:
            open(f"Fuzz/corpus-mime/usrp-{i}", "wb").write(raw)
PY
    fi
fi
echo "seed files: $(ls Fuzz/corpus-mime | wc -l)"

exec Fuzz/bin/mime-fuzzer Fuzz/corpus-mime \
    -max_total_time="$SECONDS_TO_RUN" -rss_limit_mb=2048 -timeout=10 -max_len=262144 \
    -artifact_prefix=Fuzz/bin/artifacts-mime/ -print_final_stats=1
