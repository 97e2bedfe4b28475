"""Padding-free token packing through the boolean mask itself, as most
PyTorch code writes it (random seeded weights): the real tokens picked by
x[mask], a SiLU MLP run on them alone, the result written back with
out[mask] = y and added in place with x[mask] += y, and the mean of the
real tokens divided by mask.sum(). The export spells the mask's count
three ways: a NonZero of the mask, a NonZero of the mask expanded over the
hidden dim, and the mask's sum as the shape of an Expand; one compile
serves every batch, length and mask, none selected and all included.
Exported twice: by torch.export (the default exporter) and by the older
TorchScript tracer, whose spelling of the assignment differs."""

import numpy as np
import torch
from torch import nn

import fixture
from packing import DIM, PackedMlp


class MaskedMlp(PackedMlp):
    """packing.py's MLP (the same seeded weights), through the mask."""

    def forward(self, x, mask):
        tokens = x[mask]  # [real, DIM]
        y = self.down(nn.functional.silu(self.up(tokens)))
        out = torch.zeros_like(x)
        out[mask] = y
        residual = x.clone()
        residual[mask] += y
        mean = y.sum(0) / mask.sum().clamp(min=1)
        return out, residual, mean


def main():
    args = fixture.arguments(__doc__)
    module = MaskedMlp().eval()
    for name, exporter in [("masked_packing", "dynamo"),
                           ("masked_packing_ts", "torchscript")]:
        folder = fixture.out_dir(args, name)
        rng = np.random.default_rng(0)

        def case(b, s, lengths):
            x = rng.standard_normal((b, s, DIM)).astype(np.float32)
            mask = np.arange(s)[None, :] < np.array(lengths)[:, None]
            return f"batch={b},seq={s}", {"x": x, "mask": mask}

        def scattered(b, s):  # tokens anywhere, not only a prefix
            x = rng.standard_normal((b, s, DIM)).astype(np.float32)
            return f"batch={b},seq={s},scattered", {
                "x": x, "mask": rng.random((b, s)) < 0.4}

        _, example = case(2, 7, [7, 3])
        outputs = ["out", "residual", "mean"]
        fixture.export(module, [example["x"], example["mask"]],
                       f"{folder}/model.onnx", ["x", "mask"], outputs,
                       {"x": {0: "batch", 1: "seq"},
                        "mask": {0: "batch", 1: "seq"}}, exporter=exporter)
        fixture.record(module, f"{folder}/model.expected",
                       [case(1, 1, [1]), case(2, 5, [5, 2]),
                        case(3, 16, [0, 16, 9]), case(1, 40, [0]),
                        case(2, 0, [0, 0]), scattered(4, 23)], outputs)


if __name__ == "__main__":
    main()
