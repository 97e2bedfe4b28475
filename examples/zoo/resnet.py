"""A ResNet-like CNN (random seeded weights) at dynamic batch and
resolution: a 7x7 stride-2 stem with batch norm and ReLU, a 3x3 stride-2
max pool, two basic residual blocks (the second downsampling, with a 1x1
projection on its shortcut), global average pooling and a classifier.
Every spatial size is a floor quotient of the input's, so one compile
serves every resolution."""

import numpy as np
import torch
from torch import nn

import fixture

CLASSES = 10


def norm(c):
    bn = nn.BatchNorm2d(c)
    with torch.no_grad():  # running statistics as a trained model has them
        bn.running_mean.uniform_(-0.5, 0.5)
        bn.running_var.uniform_(0.5, 2.0)
        bn.weight.uniform_(0.5, 1.5)
        bn.bias.uniform_(-0.2, 0.2)
    return bn


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = norm(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = norm(cout)
        self.shortcut = (nn.Sequential(nn.Conv2d(cin, cout, 1, stride,
                                                 bias=False), norm(cout))
                         if stride != 1 or cin != cout else nn.Identity())

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(y)) + self.shortcut(x))


class TinyResNet(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 7, 2, 3, bias=False),
                                  norm(8), nn.ReLU(),
                                  nn.MaxPool2d(3, 2, 1))
        self.blocks = nn.Sequential(Block(8, 8, 1), Block(8, 16, 2))
        self.fc = nn.Linear(16, CLASSES)

    def forward(self, image):
        y = self.blocks(self.stem(image))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(y, 1),
                                     1))


def main():
    args = fixture.arguments(__doc__)
    folder = fixture.out_dir(args, "resnet")
    module = TinyResNet().eval()
    rng = np.random.default_rng(0)

    def image(b, h, w):
        return rng.standard_normal((b, 3, h, w)).astype(np.float32)

    fixture.export(module, [image(2, 32, 40)], f"{folder}/model.onnx",
                   ["image"], ["logits"],
                   {"image": {0: "batch", 2: "height", 3: "width"}})
    fixture.record(module, f"{folder}/model.expected",
                   ((f"batch={b},height={h},width={w}",
                     {"image": image(b, h, w)})
                    for b, h, w in [(1, 1, 1), (2, 17, 23), (1, 32, 32),
                                    (3, 45, 29)]), ["logits"])


if __name__ == "__main__":
    main()
