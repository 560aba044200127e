#!/usr/bin/env bash
# Unpacks the shared corpora (../shared/corpus) into an ignored folder, once.
# Usage: unpack-corpora.sh SRC_DIR DEST_DIR
set -euo pipefail
src=${1:-../shared/corpus}; dest=${2:-corpora}
if [ ! -d "$src" ]; then
  echo "note: no shared corpora at $src; corpus tests will be skipped" >&2
  exit 0
fi
mkdir -p "$dest"
[ -d "$dest/enron-inbox/maildir" ] || { echo "Unpacking Enron corpus…"; zstd -qdc "$src/enron-inbox.tar.zst" | tar x -C "$dest"; }
[ -f "$dest/usrp-users.mbox" ] || { echo "Unpacking usrp-users sample…"; zstd -qdc "$src/usrp-users-sample.mbox.zst" > "$dest/usrp-users.mbox.part" && mv "$dest/usrp-users.mbox.part" "$dest/usrp-users.mbox"; }
[ -d "$dest/mimekit" ] || { echo "Unpacking MIME edge cases…"; mkdir -p "$dest/mimekit.part" && zstd -qdc "$src/mimekit-testdata.tar.zst" | tar x -C "$dest/mimekit.part" && mv "$dest/mimekit.part" "$dest/mimekit"; }
exit 0
