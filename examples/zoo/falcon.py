"""Falcon with ALiBi from transformers (the falcon-rw family; random
seeded weights, a small config): no rotary embeddings, a per-head linear
bias on key positions computed from the attention mask's running count
(`cumsum`), divided by sqrt(head size) and masked into the attention
scores; sequential attention and MLP. Later rows are padded on the left,
as batched generation pads them. Logits for every position."""

import numpy as np
import torch
import transformers

import fixture

LAYERS, HEADS, HIDDEN, VOCAB = 2, 4, 64, 101


def model():
    torch.manual_seed(0)
    config = transformers.FalconConfig(
        num_hidden_layers=LAYERS, num_attention_heads=HEADS,
        hidden_size=HIDDEN, vocab_size=VOCAB, alibi=True, bias=True,
        multi_query=False, parallel_attn=False,
        new_decoder_architecture=False)
    return transformers.FalconForCausalLM(config).eval()


class Logits(torch.nn.Module):
    def __init__(self, falcon):
        super().__init__()
        self.falcon = falcon

    def forward(self, input_ids, attention_mask):
        return self.falcon(input_ids=input_ids, attention_mask=attention_mask,
                           use_cache=False).logits


def main():
    args = fixture.arguments(__doc__)
    folder = fixture.out_dir(args, "falcon")
    rng = np.random.default_rng(0)

    def inputs(b, s):
        ids = rng.integers(0, VOCAB, (b, s), dtype=np.int64)
        mask = np.ones((b, s), dtype=np.int64)
        for row in range(1, b):  # later rows padded on the left
            mask[row, :min(row, s - 1)] = 0
        return {"input_ids": ids, "attention_mask": mask}

    module = Logits(model())
    dynamic = {"input_ids": {0: "batch", 1: "seq"},
               "attention_mask": {0: "batch", 1: "seq"}}
    fixture.export(module, list(inputs(2, 7).values()),
                   f"{folder}/model.onnx", ["input_ids", "attention_mask"],
                   ["logits"], dynamic)
    fixture.record(module, f"{folder}/model.expected",
                   ((f"batch={b},seq={s}", inputs(b, s))
                    for b, s in [(1, 1), (2, 7), (3, 16), (1, 33)]),
                   ["logits"])


if __name__ == "__main__":
    main()
