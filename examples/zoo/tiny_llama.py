"""A LLaMA-style decoder written out in PyTorch, the way small model code
(llama2.c's, lit-gpt's) writes it: RMSNorm, rotary embeddings at positions
past + arange(seq), grouped-query attention with the key/value heads
repeated by expand + reshape, a causal mask from triu at a diagonal that
depends on the cache's length, a SiLU-gated MLP, and the cache concatenated
and returned. Random seeded weights."""

import math

import torch
from torch import nn

import decoding
import fixture

LAYERS, HEADS, KV_HEADS, HIDDEN, VOCAB = decoding.LAYERS, 4, 2, 64, 96
HEAD_DIM = HIDDEN // HEADS


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim) + 0.1 * torch.randn(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) \
            * self.weight


def rotate(x, cos, sin):
    x1, x2 = x[..., : HEAD_DIM // 2], x[..., HEAD_DIM // 2:]
    return x * cos + torch.cat((-x2, x1), dim=-1) * sin


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1, self.norm2 = RMSNorm(HIDDEN), RMSNorm(HIDDEN)
        self.q = nn.Linear(HIDDEN, HEADS * HEAD_DIM, bias=False)
        self.kv = nn.Linear(HIDDEN, 2 * KV_HEADS * HEAD_DIM, bias=False)
        self.o = nn.Linear(HEADS * HEAD_DIM, HIDDEN, bias=False)
        self.gate = nn.Linear(HIDDEN, 3 * HIDDEN, bias=False)
        self.up = nn.Linear(HIDDEN, 3 * HIDDEN, bias=False)
        self.down = nn.Linear(3 * HIDDEN, HIDDEN, bias=False)

    def forward(self, x, cos, sin, mask, past_k, past_v):
        b, s, _ = x.shape
        h = self.norm1(x)
        q = self.q(h).view(b, s, HEADS, HEAD_DIM).transpose(1, 2)
        k, v = self.kv(h).split(KV_HEADS * HEAD_DIM, dim=-1)
        k = k.view(b, s, KV_HEADS, HEAD_DIM).transpose(1, 2)
        v = v.view(b, s, KV_HEADS, HEAD_DIM).transpose(1, 2)
        q, k = rotate(q, cos, sin), rotate(k, cos, sin)
        k = torch.cat([past_k, k], dim=2)
        v = torch.cat([past_v, v], dim=2)
        total = k.shape[2]
        repeat = HEADS // KV_HEADS
        kr = k[:, :, None].expand(b, KV_HEADS, repeat, total, HEAD_DIM) \
            .reshape(b, HEADS, total, HEAD_DIM)
        vr = v[:, :, None].expand(b, KV_HEADS, repeat, total, HEAD_DIM) \
            .reshape(b, HEADS, total, HEAD_DIM)
        scores = q @ kr.transpose(-1, -2) / math.sqrt(HEAD_DIM) + mask
        attended = torch.softmax(scores, dim=-1) @ vr
        x = x + self.o(attended.transpose(1, 2).reshape(b, s, HIDDEN))
        h = self.norm2(x)
        x = x + self.down(nn.functional.silu(self.gate(h)) * self.up(h))
        return x, k, v


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.embed = nn.Embedding(VOCAB, HIDDEN)
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.norm = RMSNorm(HIDDEN)
        self.head = nn.Linear(HIDDEN, VOCAB, bias=False)
        inv = 1.0 / (10000 ** (torch.arange(0, HEAD_DIM, 2).float()
                                / HEAD_DIM))
        self.register_buffer("inv_freq", inv, persistent=False)

    def forward(self, input_ids, past_k_0, past_v_0, past_k_1, past_v_1):
        past = (past_k_0, past_v_0, past_k_1, past_v_1)
        s, p = input_ids.shape[1], past_k_0.shape[2]
        positions = torch.arange(p, p + s, dtype=torch.float32)
        angles = positions[:, None] * self.inv_freq[None, :]
        angles = torch.cat([angles, angles], dim=-1)
        cos, sin = angles.cos(), angles.sin()
        mask = torch.full((s, p + s), float("-inf")).triu(p + 1)
        x = self.embed(input_ids)
        present = []
        for i, block in enumerate(self.blocks):
            x, k, v = block(x, cos, sin, mask, past[2 * i], past[2 * i + 1])
            present += [k, v]
        return (self.head(self.norm(x)), *present)


def main():
    args = fixture.arguments(__doc__)
    decoding.export_decoder(args, "tiny_llama", Decoder().eval(), VOCAB,
                            KV_HEADS, HEAD_DIM)


if __name__ == "__main__":
    main()
