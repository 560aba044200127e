#!/usr/bin/env python3
"""Reference embeddings of an ONNX sentence encoder, for the encoder's fidelity tests.

    scripts/reference/onnx_reference.py MODEL.onnx TOKENS.jsonl MAX_TOKENS OUT.jsonl

Feeds the token ids of ../shared/reference/tokens.jsonl (the model family's own tokenizer),
cut to MAX_TOKENS as sentence-transformers does (the first MAX_TOKENS - 1 ids, then [SEP]),
to onnxruntime, and writes {"text", "embedding"} lines, L2-normalised, 7 decimals.
Needs `pip install onnxruntime numpy`.
"""
import json
import sys

import numpy as np
import onnxruntime as ort

model, tokens, limit, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
options = ort.SessionOptions()
options.intra_op_num_threads = 2
session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
outputs = [o.name for o in session.get_outputs()]
with open(tokens) as f, open(out, "w") as w:
    for line in f:
        row = json.loads(line)
        ids = row["ids"]
        if len(ids) > limit:
            ids = ids[:limit - 1] + [102]
        feed = {"input_ids": np.array([ids], dtype=np.int64),
                "attention_mask": np.ones((1, len(ids)), dtype=np.int64)}
        result = dict(zip(outputs, session.run(outputs, feed)))
        # The export's outputs have unhelpful names: the token states are the 3-D one, and
        # the sentence vector is the 2-D float one of the same width (the graph ends in
        # sentence-transformers' mean pooling; checked against the token states' mean below).
        tokens3d = next(v for v in result.values() if v.ndim == 3)
        vector = next(v for v in result.values()
                      if v.ndim == 2 and v.dtype == np.float32 and v.shape[1] == tokens3d.shape[2])
        vector = np.asarray(vector, dtype=np.float64).reshape(-1)
        mean = tokens3d[0].astype(np.float64).mean(axis=0)
        assert np.allclose(vector, mean, atol=1e-4), "the sentence output is not the tokens' mean"
        vector /= np.linalg.norm(vector)
        w.write(json.dumps({"text": row["text"], "embedding": [round(float(x), 7) for x in vector]},
                           ensure_ascii=False) + "\n")
