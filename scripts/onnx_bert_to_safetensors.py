#!/usr/bin/env python3
"""Turns a BERT sentence encoder exported to ONNX by PyTorch into the files MailSearch's encoder
reads: model.safetensors (Hugging Face tensor names, float32) and config.json.

    scripts/onnx_bert_to_safetensors.py MODEL.onnx OUT_DIR

PyTorch's exporter keeps the names of biases and LayerNorm parameters
(`model.0.auto_model.encoder.layer.0.attention.self.query.bias`) but renames the linear layers'
weights (`onnx::MatMul_470`) and stores them transposed ([in, out]). Each such weight is named
after the bias its MatMul's output is added to, and transposed back to PyTorch's [out, in].
The shape of the encoder (layers, heads, sizes) is read from the weights and the graph; the
script refuses a graph it does not understand rather than guessing.

Reads the ONNX protobuf with a small reader of its own (no onnx package needed): only the
fields used here (ModelProto.graph, GraphProto.node/initializer, NodeProto.input/output/op_type,
TensorProto.dims/data_type/name/raw_data/float_data).
"""
import json
import os
import re
import struct
import sys


def varint(buf, pos):
    result = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def fields(buf):
    """Yields (field number, wire type, value) of one protobuf message."""
    pos, end = 0, len(buf)
    while pos < end:
        key, pos = varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = varint(buf, pos)
        elif wire == 1:
            value, pos = buf[pos:pos + 8], pos + 8
        elif wire == 2:
            length, pos = varint(buf, pos)
            value, pos = buf[pos:pos + length], pos + length
        elif wire == 5:
            value, pos = buf[pos:pos + 4], pos + 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        yield number, wire, value


def packed_varints(value):
    out, pos = [], 0
    while pos < len(value):
        number, pos = varint(value, pos)
        out.append(number)
    return out


def parse_tensor(buf):
    dims, data_type, name, raw, floats = [], 0, "", None, []
    for number, wire, value in fields(buf):
        if number == 1:
            dims.extend(packed_varints(value) if wire == 2 else [value])
        elif number == 2:
            data_type = value
        elif number == 8:
            name = bytes(value).decode()
        elif number == 9:
            raw = bytes(value)
        elif number == 4:
            floats.extend(struct.unpack(f"<{len(value) // 4}f", value) if wire == 2 else struct.unpack("<f", value))
    if data_type != 1:
        return name, dims, None  # not float32: constants of the graph, not weights
    if raw is None:
        raw = struct.pack(f"<{len(floats)}f", *floats)
    return name, dims, raw


def parse_node(buf):
    inputs, outputs, op = [], [], ""
    for number, _, value in fields(buf):
        if number == 1:
            inputs.append(bytes(value).decode())
        elif number == 2:
            outputs.append(bytes(value).decode())
        elif number == 4:
            op = bytes(value).decode()
    return op, inputs, outputs


def load(path):
    with open(path, "rb") as f:
        model = memoryview(f.read())
    graph = next((value for number, _, value in fields(model) if number == 7), None)
    if graph is None:
        raise SystemExit(f"error: {path} is not an ONNX model (no graph)")
    nodes, tensors = [], {}
    for number, _, value in fields(graph):
        if number == 1:
            nodes.append(parse_node(value))
        elif number == 5:
            name, dims, raw = parse_tensor(value)
            if raw is not None:
                tensors[name] = (dims, raw)
    return nodes, tensors


def transpose(dims, raw):
    rows, cols = dims
    values = struct.unpack(f"<{rows * cols}f", raw)
    out = [0.0] * (rows * cols)
    for r in range(rows):
        row = values[r * cols:(r + 1) * cols]
        out[r::rows] = row
    return [cols, rows], struct.pack(f"<{rows * cols}f", *out)


def convert(onnx_path, out_dir):
    nodes, tensors = load(onnx_path)
    prefix = "model.0.auto_model."
    consumers = {}
    for op, inputs, outputs in nodes:
        for name in inputs:
            consumers.setdefault(name, []).append((op, inputs, outputs))
    named = {}
    for name, value in tensors.items():
        if name.startswith(prefix):
            named[name[len(prefix):]] = value
    for op, inputs, outputs in nodes:
        if op != "MatMul":
            continue
        weight = next((i for i in inputs if i in tensors and not i.startswith(prefix)), None)
        if weight is None:
            continue  # attention's activation products
        adds = [c for c in consumers.get(outputs[0], []) if c[0] == "Add"]
        biases = [i for c in adds for i in c[1] if i.startswith(prefix) and i.endswith(".bias")]
        if len(biases) != 1:
            raise SystemExit(f"error: cannot name the weight {weight}: its MatMul feeds {len(biases)} biases")
        target = biases[0][len(prefix):-len(".bias")] + ".weight"
        named[target] = transpose(*tensors[weight])
    layers = sorted({int(m.group(1)) for k in named for m in [re.match(r"encoder\.layer\.(\d+)\.", k)] if m})
    if not layers or layers != list(range(len(layers))):
        raise SystemExit(f"error: no BERT encoder layers found in {onnx_path}")
    vocab, hidden = named["embeddings.word_embeddings.weight"][0]
    positions = named["embeddings.position_embeddings.weight"][0][0]
    types = named["embeddings.token_type_embeddings.weight"][0][0]
    intermediate = named["encoder.layer.0.intermediate.dense.weight"][0][0]
    for index in layers:
        for part in ["attention.self.query", "attention.self.key", "attention.self.value",
                     "attention.output.dense", "intermediate.dense", "output.dense"]:
            for kind in ["weight", "bias"]:
                key = f"encoder.layer.{index}.{part}.{kind}"
                if key not in named:
                    raise SystemExit(f"error: {key} is missing from {onnx_path}")
    # Heads: the Reshape of the query projection to [batch, seq, heads, head_size] holds them as a
    # constant; MiniLM-H384 uses 12. Read the constant when it is there.
    heads = heads_from_graph(onnx_path) or 12
    os.makedirs(out_dir, exist_ok=True)
    write_safetensors(os.path.join(out_dir, "model.safetensors"), named)
    config = {
        "architectures": ["BertModel"], "model_type": "bert", "hidden_act": "gelu",
        "hidden_size": hidden, "intermediate_size": intermediate, "layer_norm_eps": 1e-12,
        "max_position_embeddings": positions, "num_attention_heads": heads,
        "num_hidden_layers": len(layers), "type_vocab_size": types, "vocab_size": vocab,
        "pad_token_id": 0, "position_embedding_type": "absolute",
    }
    with open(os.path.join(out_dir, "config.json"), "w") as f:
        json.dump(config, f, indent=2, sort_keys=True)
        f.write("\n")
    print(f"{onnx_path}: {len(layers)} layers, hidden {hidden}, {heads} heads, vocabulary {vocab} -> {out_dir}")


def heads_from_graph(onnx_path):
    """The head count from the graph's constant reshape shapes [0, 0, heads, head_size]."""
    with open(onnx_path, "rb") as f:
        model = memoryview(f.read())
    graph = next(value for number, _, value in fields(model) if number == 7)
    for number, _, value in fields(graph):
        if number != 1:
            continue
        # Constant nodes carry their tensor in an attribute (field 5, AttributeProto.t = 5).
        for n2, _, attr in fields(value):
            if n2 != 5:
                continue
            for n3, _, tensor in fields(attr):
                if n3 != 5:
                    continue
                dims, data_type, raw = [], 0, None
                for n4, w4, v4 in fields(tensor):
                    if n4 == 1:
                        dims.extend(packed_varints(v4) if w4 == 2 else [v4])
                    elif n4 == 2:
                        data_type = v4
                    elif n4 == 9:
                        raw = bytes(v4)
                if data_type == 7 and dims == [4] and raw:
                    shape = struct.unpack("<4q", raw)
                    if shape[0] == 0 and shape[1] == 0 and shape[2] > 0 and shape[3] > 0:
                        return shape[2]
    return None


def write_safetensors(path, named):
    header, offset, blobs = {}, 0, []
    for name in sorted(named):
        dims, raw = named[name]
        header[name] = {"dtype": "F32", "shape": list(dims), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # keeps the tensors 8-byte aligned
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)
    os.replace(tmp, path)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    convert(sys.argv[1], sys.argv[2])
