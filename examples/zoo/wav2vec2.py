"""wav2vec2 from transformers (random seeded weights, a small config): the
raw waveform of any length through the convolutional feature encoder
(strides 5, 2, 2, group norm on the first layer), the grouped
convolutional position embedding, and two transformer layers; the hidden
states out. The frame count is a floor quotient of the sample count,
((samples - 10) floordiv 5 + 1 - 3) floordiv 2 + 1 and so on,, kept symbolic."""

import numpy as np
import torch
import transformers

import fixture


def model():
    torch.manual_seed(0)
    config = transformers.Wav2Vec2Config(
        hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
        intermediate_size=64, conv_dim=(16, 16, 16), conv_stride=(5, 2, 2),
        conv_kernel=(10, 3, 3), num_conv_pos_embeddings=16,
        num_conv_pos_embedding_groups=4, feat_extract_norm="group",
        vocab_size=20)
    config._attn_implementation = "eager"  # what torch.export can take
    return transformers.Wav2Vec2Model(config).eval()


class Encoder(torch.nn.Module):
    def __init__(self, wav2vec2):
        super().__init__()
        self.wav2vec2 = wav2vec2

    def forward(self, audio):
        return self.wav2vec2(audio).last_hidden_state


def main():
    args = fixture.arguments(__doc__)
    folder = fixture.out_dir(args, "wav2vec2")
    module = Encoder(model()).eval()
    rng = np.random.default_rng(0)

    def audio(b, samples):
        return rng.standard_normal((b, samples)).astype(np.float32)

    fixture.export(module, [audio(2, 800)], f"{folder}/model.onnx", ["audio"],
                   ["hidden"], {"audio": {0: "batch", 1: "samples"}})
    # 40 samples is the shortest input that makes one frame.
    fixture.record(module, f"{folder}/model.expected",
                   ((f"batch={b},samples={s}", {"audio": audio(b, s)})
                    for b, s in [(1, 40), (2, 101), (1, 400), (2, 1234)]),
                   ["hidden"])


if __name__ == "__main__":
    main()
