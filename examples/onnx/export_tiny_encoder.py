#!/usr/bin/env python3
"""Exports a tiny BERT-style encoder from PyTorch to ONNX with dynamic batch
and sequence axes: the shape subgraphs, packed QKV and attention mask that
torch.onnx writes for real models, at a size that imports in milliseconds.

    bench/peers/.venv/bin/python examples/onnx/export_tiny_encoder.py OUT.onnx
    build/bin/anyshape eval OUT.onnx --dims batch=2 --sweep seq=1,7,33

Needs torch, onnx and onnxscript (bench/peers/setup installs them); not run
in CI. Random weights (seeded): for the importer, not for embeddings.
"""
import sys

import torch
import torch.nn as nn


class TinyEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.tokens = nn.Embedding(100, 32)
        self.positions = nn.Embedding(64, 32)
        self.layer = nn.TransformerEncoderLayer(
            32, 4, 64, dropout=0.0, batch_first=True, activation="gelu")
        self.norm = nn.LayerNorm(32)

    def forward(self, ids, mask):
        seq = ids.shape[1]
        pos = torch.arange(seq, device=ids.device).unsqueeze(0).expand_as(ids)
        x = self.norm(self.tokens(ids) + self.positions(pos))
        h = self.layer(x, src_key_padding_mask=(mask == 0))
        m = mask.unsqueeze(-1).to(h.dtype)  # mean over the real tokens
        return (h * m).sum(1) / m.sum(1).clamp(min=1e-9)


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(sys.argv) == 2 else 2
    torch.manual_seed(0)
    model = TinyEncoder().eval()
    ids = torch.randint(0, 100, (2, 7))
    mask = torch.ones(2, 7, dtype=torch.int64)
    batch, seq = torch.export.Dim("batch"), torch.export.Dim("seq", max=64)
    torch.onnx.export(
        model, (ids, mask), sys.argv[1], input_names=["ids", "mask"],
        output_names=["embedding"], opset_version=18, dynamo=True,
        dynamic_shapes={"ids": {0: batch, 1: seq}, "mask": {0: batch, 1: seq}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
