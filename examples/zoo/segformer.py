"""SegFormer's encoder (Mix Transformer, from transformers; random seeded
weights, a small config) at any resolution: overlapping patch embeddings
(7x7 stride-4 and 3x3 stride-2 convolutions) whose token grids the export
computes as `(height - 1) / 4 + 1` in integer shape arithmetic, attention
over keys reduced by a stride-2 convolution, and a Mix-FFN with a 3x3
depthwise convolution; the last stage's feature map out."""

import numpy as np
import torch
import transformers

import fixture


def model():
    torch.manual_seed(0)
    config = transformers.SegformerConfig(
        num_channels=3, num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1],
        hidden_sizes=[16, 32], num_attention_heads=[1, 2],
        patch_sizes=[7, 3], strides=[4, 2], mlp_ratios=[2, 2])
    return transformers.SegformerModel(config).eval()


class Features(torch.nn.Module):
    def __init__(self, segformer):
        super().__init__()
        self.segformer = segformer

    def forward(self, pixels):
        return self.segformer(pixel_values=pixels).last_hidden_state


def main():
    args = fixture.arguments(__doc__)
    folder = fixture.out_dir(args, "segformer")
    module = Features(model()).eval()
    rng = np.random.default_rng(0)

    def pixels(b, h, w):
        return rng.standard_normal((b, 3, h, w)).astype(np.float32)

    fixture.export(module, [pixels(2, 32, 32)], f"{folder}/model.onnx",
                   ["pixels"], ["features"],
                   {"pixels": {0: "batch", 2: "height", 3: "width"}})
    # 5x5 is the smallest image whose reduced keys are not empty.
    fixture.record(module, f"{folder}/model.expected",
                   ((f"batch={b},height={h},width={w}",
                     {"pixels": pixels(b, h, w)})
                    for b, h, w in [(1, 5, 5), (2, 32, 24), (1, 40, 56),
                                    (2, 27, 50)]), ["features"])


if __name__ == "__main__":
    main()
