"""A sparse mixture-of-experts layer, as Mixtral's is written (random seeded
weights): a router's softmax, the two largest gates per token (topk),
renormalised; then per expert the tokens routed to it (torch.where on the
routing, which exports NonZero), its SiLU MLP run on those alone, scaled
by their gates and added back in place (index_add, ScatterND with
reduction add). Each expert's token count is known only once the router
has run: one compile serves every batch and length, and every routing,
experts that receive no token included."""

import numpy as np
import torch
from torch import nn

import fixture

DIM, HIDDEN, EXPERTS = 32, 64, 4


class SparseMoE(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.router = nn.Linear(DIM, EXPERTS, bias=False)
        self.experts = nn.ModuleList(
            nn.Sequential(nn.Linear(DIM, HIDDEN), nn.SiLU(),
                          nn.Linear(HIDDEN, DIM))
            for _ in range(EXPERTS))

    def forward(self, x):
        flat = x.reshape(-1, DIM)
        probs = torch.softmax(self.router(flat), dim=-1)
        top, picked = torch.topk(probs, 2, dim=-1)
        top = top / top.sum(-1, keepdim=True)
        out = torch.zeros_like(flat)
        for e, expert in enumerate(self.experts):
            token, slot = torch.where(picked == e)
            y = expert(flat[token]) * top[token, slot].unsqueeze(-1)
            out = out.index_add(0, token, y)
        return out.reshape(x.shape)


def main():
    args = fixture.arguments(__doc__)
    folder = fixture.out_dir(args, "sparse_moe")
    module = SparseMoE().eval()
    rng = np.random.default_rng(0)
    x = lambda b, s: rng.standard_normal((b, s, DIM)).astype(np.float32)
    fixture.export(module, [x(2, 7)], f"{folder}/model.onnx", ["x"], ["y"],
                   {"x": {0: "batch", 1: "seq"}})
    fixture.record(module, f"{folder}/model.expected",
                   ((f"batch={b},seq={s}", {"x": x(b, s)})
                    for b, s in [(1, 1), (2, 5), (3, 16), (1, 40), (2, 0)]),
                   ["y"])


if __name__ == "__main__":
    main()
