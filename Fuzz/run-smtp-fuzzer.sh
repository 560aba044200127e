#!/usr/bin/env bash
# Builds the SMTP protocol fuzzer (reply framer, capabilities, addresses, commands, dot-stuffing) with
# libFuzzer + AddressSanitizer and runs it.
# Usage: Fuzz/run-smtp-fuzzer.sh [SECONDS]   (default 600). Crashes land in Fuzz/bin/artifacts-smtp/.
#
# Sources/SMTPProtocol depends on nothing, so it is compiled with the harness as one module. The corpus
# (Fuzz/corpus-smtp/, git-ignored) is seeded with a few server streams and messages.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_RUN="${1:-600}"
mkdir -p Fuzz/bin Fuzz/corpus-smtp Fuzz/bin/artifacts-smtp

echo "building Fuzz/bin/smtp-fuzzer"
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name SMTPFuzz \
    Sources/SMTPProtocol/*.swift Fuzz/SMTPProtocolFuzzer.swift -o Fuzz/bin/smtp-fuzzer

if [ -z "$(ls -A Fuzz/corpus-smtp)" ]; then
    echo "seeding Fuzz/corpus-smtp"
    printf '220 mx.example ESMTP ready\r\n250-mx.example Hello\r\n250-SIZE 35882577\r\n250-8BITMIME\r\n250-AUTH LOGIN PLAIN XOAUTH2\r\n250-STARTTLS\r\n250 SMTPUTF8\r\n' > Fuzz/corpus-smtp/ehlo
    printf '550-5.1.1 <nobody@example.com>: Recipient\r\n550 5.1.1 address rejected\r\n421 4.3.2 Shutting down\r\n' > Fuzz/corpus-smtp/refusals
    printf 'alice+tag@example.org' > Fuzz/corpus-smtp/address
    printf '"john doe"@[192.0.2.1]' > Fuzz/corpus-smtp/quoted-address
    printf 'Subject: x\r\n\r\n.\r\n..\n.\rend' > Fuzz/corpus-smtp/message
fi
echo "seed files: $(ls Fuzz/corpus-smtp | wc -l)"

exec Fuzz/bin/smtp-fuzzer Fuzz/corpus-smtp \
    -max_total_time="$SECONDS_TO_RUN" -rss_limit_mb=2048 -timeout=10 -max_len=16384 \
    -artifact_prefix=Fuzz/bin/artifacts-smtp/ -print_final_stats=1
