#!/usr/bin/env bash
# Fuzzes SearchQueryParser with libFuzzer + AddressSanitizer.
#
#   Fuzz/run-query-fuzzer.sh [SECONDS]     (default 60)
#
# Builds MailModel as a static module into Fuzz/bin/ (git-ignored), compiles the parser sources
# and Fuzz/QueryParserFuzzer.swift against it, seeds Fuzz/corpus-query/ (git-ignored) and runs.
# Crash inputs land in Fuzz/bin/crashes/. Exit status is libFuzzer's: non-zero on a crash.
set -euo pipefail

seconds="${1:-60}"
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/Fuzz/bin/query"
corpus="$root/Fuzz/corpus-query"
swiftc="${SWIFTC:-swiftc}"
flags=(-parse-as-library -sanitize=fuzzer,address -O -g)

mkdir -p "$bin/crashes" "$corpus"

echo "building MailModel module"
"$swiftc" "${flags[@]}" -emit-module -emit-library -static -module-name MailModel \
    -emit-module-path "$bin/MailModel.swiftmodule" -o "$bin/libMailModel.a" \
    "$root"/Sources/MailModel/*.swift

# The parser reads free text with FTS5QueryBuilder's rules (negation, quotes); that file has no
# imports, so it is built alone as the SearchIndex module.
echo "building SearchIndex (FTS5QueryBuilder) module"
"$swiftc" "${flags[@]}" -emit-module -emit-library -static -module-name SearchIndex \
    -emit-module-path "$bin/SearchIndex.swiftmodule" -o "$bin/libSearchIndex.a" \
    "$root/Sources/SearchIndex/FTS5QueryBuilder.swift"

echo "building query-parser-fuzzer"
"$swiftc" "${flags[@]}" -module-name QueryParserFuzz -I "$bin" -L "$bin" -lMailModel -lSearchIndex \
    -o "$bin/query-parser-fuzzer" \
    "$root/Sources/SearchEngine/SearchQueryParser.swift" \
    "$root"/Sources/SearchEngine/QueryParsing/*.swift \
    "$root/Fuzz/QueryParserFuzzer.swift"

seeds=(
    "from john last week with attachments"
    "budget report from sarah"
    "unread promotions from john"
    "from:\"John Smith\" subject:\"two words\" is:unread has:attachment"
    "after:2024-03-01 before:2024/04/01 older_than:3d newer_than:1y"
    "in March 2024 before March since Monday 3 days ago past 2 weeks older than a month"
    "social emails in sent with a pdf to Sarah Jones label:Work category:forums"
    "read the budget report \"from john\" meeting in January notes"
    "emails to bob@example.com in the last 7 days starred"
    "(budget OR forecast) report -draft -\"first draft\" {q3 q4}"
    "from:john OR from:mary -in:trash -(is:unread has:attachment) budget OR from sarah"
)
for i in "${!seeds[@]}"; do
    printf '%s' "${seeds[$i]}" > "$corpus/seed-$i"
done

echo "fuzzing for ${seconds}s"
cd "$bin/crashes"
exec "$bin/query-parser-fuzzer" -max_total_time="$seconds" -print_final_stats=1 -max_len=4096 \
    -artifact_prefix="$bin/crashes/" "$corpus"
