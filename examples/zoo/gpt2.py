"""GPT-2 from transformers (random seeded weights, a small config), two
exports: without a cache (logits for every position), and one decoding step
with the cache as inputs and outputs (past keys and values per layer, the
new ones returned), which serves prefill (past = 0) and decode (seq = 1)."""

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
    fixture.export_token_model(Logits(gpt2), fixture.out_dir(args, "gpt2"),
                               VOCAB)


if __name__ == "__main__":
    main()
