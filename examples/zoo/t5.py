"""T5 from transformers (random seeded weights, a small config): the
encoder-decoder run on source ids with a padding mask and on decoder ids,
logits out; relative position buckets (log of distances, clamped) in both
stacks, a causal mask in the decoder, cross-attention over the source."""

import numpy as np
import torch
import transformers

import fixture

VOCAB = 100


def model():
    torch.manual_seed(0)
    config = transformers.T5Config(vocab_size=VOCAB, d_model=64, d_kv=16,
                                   d_ff=128, num_layers=2,
                                   num_decoder_layers=2, num_heads=4,
                                   relative_attention_num_buckets=16,
                                   relative_attention_max_distance=32,
                                   decoder_start_token_id=0)
    config._attn_implementation = "eager"  # what torch.export can take
    return transformers.T5ForConditionalGeneration(config).eval()


class Seq2Seq(torch.nn.Module):
    def __init__(self, t5):
        super().__init__()
        self.t5 = t5

    def forward(self, input_ids, attention_mask, decoder_input_ids):
        return self.t5(input_ids=input_ids, attention_mask=attention_mask,
                       decoder_input_ids=decoder_input_ids,
                       use_cache=False).logits


def main():
    args = fixture.arguments(__doc__)
    folder = fixture.out_dir(args, "t5")
    module = Seq2Seq(model())
    rng = np.random.default_rng(0)

    def inputs(b, s, t):
        mask = np.ones((b, s), dtype=np.int64)
        for row in range(1, b):
            mask[row, s - row:] = 0
        return {"input_ids": rng.integers(1, VOCAB, (b, s), dtype=np.int64),
                "attention_mask": mask,
                "decoder_input_ids": rng.integers(0, VOCAB, (b, t),
                                                  dtype=np.int64)}

    names = ["input_ids", "attention_mask", "decoder_input_ids"]
    dynamic = {"input_ids": {0: "batch", 1: "seq"},
               "attention_mask": {0: "batch", 1: "seq"},
               "decoder_input_ids": {0: "batch", 1: "target"}}
    fixture.export(module, list(inputs(2, 9, 4).values()),
                   f"{folder}/model.onnx", names, ["logits"], dynamic)
    shapes = [(1, 1, 1), (2, 6, 3), (3, 21, 9), (1, 50, 40)]
    fixture.record(module, f"{folder}/model.expected",
                   ((f"batch={b},seq={s},target={t}", inputs(b, s, t))
                    for b, s, t in shapes), ["logits"])


if __name__ == "__main__":
    main()
