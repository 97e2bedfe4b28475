"""A mixture-of-experts layer with top-2 routing (random seeded weights):
a router's softmax, the two largest gates per token (topk), renormalised
and scattered into a dense [tokens, experts] gate matrix, every expert's
SiLU MLP as one batched einsum, and the gate-weighted sum; dynamic batch
and sequence. (The sparse formulation, torch.where per expert and
index_add back, is sparse_moe.py.)"""

import numpy as np
import torch
from torch import nn

import fixture

DIM, HIDDEN, EXPERTS = 32, 64, 4


class TopTwoMoE(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.router = nn.Linear(DIM, EXPERTS, bias=False)
        self.w_in = nn.Parameter(torch.randn(EXPERTS, DIM, HIDDEN) * 0.2)
        self.w_out = nn.Parameter(torch.randn(EXPERTS, HIDDEN, DIM) * 0.2)

    def forward(self, x):
        probs = torch.softmax(self.router(x), dim=-1)  # [b, s, e]
        top, picked = torch.topk(probs, 2, dim=-1)
        top = top / top.sum(-1, keepdim=True)
        gates = torch.zeros_like(probs).scatter(-1, picked, top)
        hidden = nn.functional.silu(torch.einsum("bsd,edh->bseh", x,
                                                 self.w_in))
        out = torch.einsum("bseh,ehd->bsed", hidden, self.w_out)
        return torch.einsum("bsed,bse->bsd", out, gates)


def main():
    args = fixture.arguments(__doc__)
    folder = fixture.out_dir(args, "moe")
    module = TopTwoMoE().eval()
    rng = np.random.default_rng(0)
    x = lambda b, s: rng.standard_normal((b, s, DIM)).astype(np.float32)
    fixture.export(module, [x(2, 7)], f"{folder}/model.onnx", ["x"], ["y"],
                   {"x": {0: "batch", 1: "seq"}})
    fixture.record(module, f"{folder}/model.expected",
                   ((f"batch={b},seq={s}", {"x": x(b, s)})
                    for b, s in [(1, 1), (2, 5), (3, 16), (1, 40)]), ["y"])


if __name__ == "__main__":
    main()
