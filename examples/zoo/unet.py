"""A U-Net-like encoder-decoder (random seeded weights) at dynamic batch
and resolution: two 3x3 convolution stages with a 2x2 max pool between,
a stride-2 transposed convolution back up, the skip connection
concatenated, a 3x3 and a 1x1 convolution out. Height and width must be
even, as in PyTorch (the upsampled 2*(h floordiv 2) meets the skip's h:
a run-time check, an error naming the concatenation otherwise)."""

import numpy as np
import torch
from torch import nn

import fixture


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU())


class TinyUNet(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.down = block(3, 8)
        self.bottom = block(8, 16)
        self.up = nn.ConvTranspose2d(16, 8, 2, stride=2)
        self.merge = block(16, 8)
        self.out = nn.Conv2d(8, 2, 1)

    def forward(self, image):
        skip = self.down(image)
        y = self.up(self.bottom(nn.functional.max_pool2d(skip, 2)))
        return self.out(self.merge(torch.cat([y, skip], dim=1)))


def main():
    args = fixture.arguments(__doc__)
    folder = fixture.out_dir(args, "unet")
    module = TinyUNet().eval()
    rng = np.random.default_rng(0)

    def image(b, h, w):
        return rng.standard_normal((b, 3, h, w)).astype(np.float32)

    fixture.export(module, [image(2, 16, 24)], f"{folder}/model.onnx",
                   ["image"], ["mask"],
                   {"image": {0: "batch", 2: "height", 3: "width"}})
    fixture.record(module, f"{folder}/model.expected",
                   ((f"batch={b},height={h},width={w}",
                     {"image": image(b, h, w)})
                    for b, h, w in [(1, 2, 2), (2, 8, 12), (1, 16, 10),
                                    (1, 6, 30)]), ["mask"])


if __name__ == "__main__":
    main()
