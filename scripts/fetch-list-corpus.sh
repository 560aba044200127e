#!/usr/bin/env bash
# The held-out list archive for category accuracy: real mail of 2002 (the SpamAssassin public
# corpus' "easy ham": ~15 discussion lists run by Mailman 2, Yahoo Groups, ezmlm, SmartList and
# older list software, plus personal mail, feeds and newsletters), 2,403 messages. Debian ships it
# as the test data of the Go package golang-github-gatherstars-com-jwz-dev (Apache-2.0), so it
# comes from the one registry this machine reaches; the package is downloaded, not installed.
#
#   scripts/fetch-list-corpus.sh [DEST]          (DEST defaults to corpora/list-heldout, ignored by git)
#
# Writes two one-file-per-message folders of the same messages:
#   DEST/original/        the messages as they are
#   DEST/old-list-software/  the same with every RFC 2369/2919 List-* header and Mailman's X-BeenThere /
#                         X-Mailman-Version removed, as majordomo-era list software wrote mail (what a
#                         1996-2019 kernel-list archive mostly looks like): only Sender, Errors-To,
#                         Return-Path, Precedence, X-Loop, Mailing-List and the To/Cc list address are left.
#   DEST/precedence-only/ the same with every list header removed but Precedence (List-*, X-BeenThere,
#                         X-Mailman-Version, Mailing-List, X-Mailing-List, Sender, Errors-To, X-Loop,
#                         Delivered-To, Return-Path): what is left is Precedence and the To/Cc list address.
# scripts/eval/category_confusion.py heldout DATA_DIR DEST/original takes its truth from DEST/original.
set -euo pipefail
cd "$(dirname "$0")/.."
DEST=${1:-corpora/list-heldout}
PKG=golang-github-gatherstars-com-jwz-dev
HAM=usr/share/gocode/src/github.com/gatherstars-com/jwz/test/testdata/ham
if [ -d "$DEST/precedence-only" ] && [ "$(ls "$DEST/precedence-only" | wc -l)" -ge 2400 ]; then
    echo "$DEST already holds $(ls "$DEST/original" | wc -l) messages"; exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
( cd "$work" && apt-get download "$PKG" >/dev/null 2>&1 ) || {
    apt-get update >/dev/null && ( cd "$work" && apt-get download "$PKG" >/dev/null ); }
dpkg-deb -x "$work"/${PKG}_*.deb "$work/x"
mkdir -p "$DEST/original" "$DEST/old-list-software" "$DEST/precedence-only"
cp "$work/x/$HAM"/*.eml "$DEST/original/"
strip() {  # SOURCE DEST REGEX: copies every message without the header fields whose name REGEX matches
    python3 - "$@" <<'PY'
import os, re, sys
src, dst = sys.argv[1], sys.argv[2]
drop = re.compile(sys.argv[3].encode(), re.I)
for name in sorted(os.listdir(src)):
    raw = open(os.path.join(src, name), "rb").read()
    cut = raw.find(b"\n\n")
    head, body = (raw, b"") if cut < 0 else (raw[:cut + 1], raw[cut + 1:])
    out, skipping = [], False
    for line in head.splitlines(keepends=True):
        if line[:1] in (b" ", b"\t"):
            if not skipping: out.append(line)
            continue
        skipping = bool(drop.match(line))
        if not skipping: out.append(line)
    open(os.path.join(dst, name), "wb").write(b"".join(out) + body)
PY
}
strip "$DEST/original" "$DEST/old-list-software" '^(list-[a-z-]+|x-beenthere|x-mailman-version)\s*:'
strip "$DEST/original" "$DEST/precedence-only" \
    '^(list-[a-z-]+|x-beenthere|x-mailman-version|x-mailing-list|mailing-list|sender|errors-to|x-loop|delivered-to|return-path)\s*:'
echo "$DEST: $(ls "$DEST/original" | wc -l) messages in original/, old-list-software/ and precedence-only/"
