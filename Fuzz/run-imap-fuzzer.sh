#!/usr/bin/env bash
# Builds the IMAP response fuzzer (framer + parser + encoder) with libFuzzer + AddressSanitizer and runs it.
# Usage: Fuzz/run-imap-fuzzer.sh [SECONDS]   (default 600). Crashes land in Fuzz/bin/artifacts-imap/.
#
# Sources/IMAPProtocol depends on nothing, so it is compiled with the harness as one module. The
# corpus (Fuzz/corpus-imap/, git-ignored) is seeded from the transcripts in Tests/Fixtures/imap:
# each whole server stream, and each of its responses on its own.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_RUN="${1:-600}"
mkdir -p Fuzz/bin Fuzz/corpus-imap Fuzz/bin/artifacts-imap

echo "building Fuzz/bin/imap-fuzzer"
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name IMAPFuzz \
    Sources/IMAPProtocol/*.swift Fuzz/IMAPResponseFuzzer.swift -o Fuzz/bin/imap-fuzzer

# Seed once: server lines (S:) joined with CRLF, as Tests/IMAPProtocolTests/Transcript.swift reads them.
if [ -z "$(ls -A Fuzz/corpus-imap)" ]; then
    echo "seeding Fuzz/corpus-imap"
    python3 - <<'PY'
import glob, os, re
for path in sorted(glob.glob("Tests/Fixtures/imap/*.txt")):
    name = os.path.splitext(os.path.basename(path))[0]
    server = b""
    for line in open(path, encoding="utf-8").read().split("\n"):
        if line.startswith("S:"):
            content = line[2:]
            server += (content[1:] if content.startswith(" ") else content).encode("utf-8") + b"\r\n"
    # The whole stream (its first byte, "*", also picks the harness's chunking: 1, 2, 3, 5, 8… bytes).
    open(f"Fuzz/corpus-imap/{name}-stream", "wb").write(server)
    # Each response alone: split after CRLF unless the line announced a literal.
    responses, current, rest = [], b"", server
    while rest:
        line, sep, rest = rest.partition(b"\r\n")
        current += line + sep
        m = re.search(rb"~?\{(\d+)\+?\}$", line)
        if m and not current.startswith(b"+"):
            n = int(m.group(1))
            current, rest = current + rest[:n], rest[n:]
            continue
        responses.append(current)
        current = b""
    for i, response in enumerate(responses):
        open(f"Fuzz/corpus-imap/{name}-{i:03d}", "wb").write(response)
PY
fi
echo "seed files: $(ls Fuzz/corpus-imap | wc -l)"

exec Fuzz/bin/imap-fuzzer Fuzz/corpus-imap \
    -max_total_time="$SECONDS_TO_RUN" -rss_limit_mb=2048 -timeout=10 -max_len=65536 \
    -artifact_prefix=Fuzz/bin/artifacts-imap/ -print_final_stats=1
