"""GPT-NeoX from transformers (the Pythia family; random seeded weights, a
small config): one fused QKV projection whose heads are sliced out of it,
rotary embeddings on a quarter of each head, and attention and MLP in
parallel off one residual. Logits for every position."""

import torch
import transformers

import fixture

LAYERS, HEADS, HIDDEN, VOCAB = 2, 4, 64, 101


def model():
    torch.manual_seed(0)
    config = transformers.GPTNeoXConfig(
        num_hidden_layers=LAYERS, num_attention_heads=HEADS,
        hidden_size=HIDDEN, intermediate_size=2 * HIDDEN, vocab_size=VOCAB,
        max_position_embeddings=256, rotary_pct=0.25)
    return transformers.GPTNeoXForCausalLM(config).eval()


class Logits(torch.nn.Module):
    def __init__(self, neox):
        super().__init__()
        self.neox = neox

    def forward(self, input_ids):
        return self.neox(input_ids=input_ids, use_cache=False).logits


def main():
    args = fixture.arguments(__doc__)
    folder = fixture.out_dir(args, "gpt_neox")
    fixture.export_token_model(Logits(model()), folder, VOCAB)


if __name__ == "__main__":
    main()
