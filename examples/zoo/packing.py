"""Padding-free token packing (random seeded weights): the real tokens of a
padded batch picked by their mask's coordinates (mask.nonzero(), which
exports NonZero; x[b, s], GatherND), a SiLU MLP run on them alone, and
the result written back into place (out[b, s] = y, ScatterND), padding
left zero. The count of real tokens is known only once the mask is read:
one compile serves every batch, length and mask, none of them and all of
them selected included. (masked_packing.py does the same through the
boolean mask itself.)"""

import numpy as np
import torch
from torch import nn

import fixture

DIM, HIDDEN = 16, 32


class PackedMlp(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.up = nn.Linear(DIM, HIDDEN)
        self.down = nn.Linear(HIDDEN, DIM)

    def forward(self, x, mask):
        b, s = mask.nonzero(as_tuple=True)
        tokens = x[b, s]  # [real, DIM]
        y = self.down(nn.functional.silu(self.up(tokens)))
        out = torch.zeros_like(x)
        out[b, s] = y
        return out


def main():
    args = fixture.arguments(__doc__)
    folder = fixture.out_dir(args, "packing")
    module = PackedMlp().eval()
    rng = np.random.default_rng(0)

    def case(b, s, lengths):
        x = rng.standard_normal((b, s, DIM)).astype(np.float32)
        mask = np.arange(s)[None, :] < np.array(lengths)[:, None]
        return f"batch={b},seq={s}", {"x": x, "mask": mask}

    _, example = case(2, 7, [7, 3])
    fixture.export(module, [example["x"], example["mask"]],
                   f"{folder}/model.onnx", ["x", "mask"], ["y"],
                   {"x": {0: "batch", 1: "seq"},
                    "mask": {0: "batch", 1: "seq"}})
    fixture.record(module, f"{folder}/model.expected",
                   [case(1, 1, [1]), case(2, 5, [5, 2]), case(3, 16, [0, 16, 9]),
                    case(1, 40, [0]), case(2, 0, [0, 0])], ["y"])


if __name__ == "__main__":
    main()
