"""ViT from transformers (random seeded weights, a small config) at any
resolution: 8x8 patches by a stride-8 convolution, the class token, the
position embeddings resized (bicubic) from the 4x4 grid it was built for
to the image's patch grid (interpolate_pos_encoding), two transformer
layers; the hidden states out. The grid is (height floordiv 8) x
(width floordiv 8), kept symbolic."""

import numpy as np
import torch
import transformers

import fixture


def model():
    torch.manual_seed(0)
    config = transformers.ViTConfig(
        hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
        intermediate_size=64, image_size=32, patch_size=8, num_channels=3)
    config._attn_implementation = "eager"  # what torch.export can take
    return transformers.ViTModel(config, add_pooling_layer=False).eval()


class AnyResolution(torch.nn.Module):
    def __init__(self, vit):
        super().__init__()
        self.vit = vit

    def forward(self, pixels):
        return self.vit(pixels, interpolate_pos_encoding=True).last_hidden_state


def main():
    args = fixture.arguments(__doc__)
    folder = fixture.out_dir(args, "vit")
    module = AnyResolution(model()).eval()
    rng = np.random.default_rng(0)

    def pixels(b, h, w):
        return rng.standard_normal((b, 3, h, w)).astype(np.float32)

    fixture.export(module, [pixels(2, 48, 40)], f"{folder}/model.onnx",
                   ["pixels"], ["hidden"],
                   {"pixels": {0: "batch", 2: "height", 3: "width"}})
    # 8x8 is one patch; 32x32 is the grid the embeddings were built for.
    fixture.record(module, f"{folder}/model.expected",
                   ((f"batch={b},height={h},width={w}",
                     {"pixels": pixels(b, h, w)})
                    for b, h, w in [(1, 8, 8), (2, 32, 32), (1, 40, 72),
                                    (2, 27, 50)]), ["hidden"])


if __name__ == "__main__":
    main()
