"""GPT-2 from transformers (random seeded weights, a small config), two
exports: without a cache (logits for every position), and one decoding step
with the cache as inputs and outputs (past keys and values per layer, the
new ones returned), which serves prefill (past = 0) and decode (seq = 1)."""

import numpy as np
import torch
import transformers

import decoding
import fixture

LAYERS, HEADS, HIDDEN, VOCAB = decoding.LAYERS, 4, 64, 101


def model():
    torch.manual_seed(0)
    config = transformers.GPT2Config(n_layer=LAYERS, n_head=HEADS,
                                     n_embd=HIDDEN, vocab_size=VOCAB,
                                     n_positions=512)
    return transformers.GPT2LMHeadModel(config).eval()


class Logits(torch.nn.Module):
    def __init__(self, gpt2):
        super().__init__()
        self.gpt2 = gpt2

    def forward(self, input_ids):
        return self.gpt2(input_ids=input_ids, use_cache=False).logits


Step = decoding.CacheStep


def main():
    args = fixture.arguments(__doc__)
    gpt2 = model()
    decoding.export_decoder(args, "gpt2_cache", Step(gpt2), VOCAB, HEADS,
                            HIDDEN // HEADS)
    folder = fixture.out_dir(args, "gpt2")
    module = Logits(gpt2)
    rng = np.random.default_rng(0)
    ids = lambda b, s: rng.integers(0, VOCAB, (b, s), dtype=np.int64)
    fixture.export(module, [ids(2, 7)], f"{folder}/model.onnx",
                   ["input_ids"], ["logits"],
                   {"input_ids": {0: "batch", 1: "seq"}})
    fixture.record(module, f"{folder}/model.expected",
                   ((f"batch={b},seq={s}", {"input_ids": ids(b, s)})
                    for b, s in [(1, 1), (2, 7), (3, 16), (1, 33)]),
                   ["logits"])


if __name__ == "__main__":
    main()
