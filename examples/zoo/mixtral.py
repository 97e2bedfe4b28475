"""Mixtral from transformers (random seeded weights, a small config): a
decoder whose MLP is a sparse mixture of experts, each token routed to the
two best of four by a softmax router, with grouped-query attention, RoPE
and RMSNorm. The experts run as transformers' `batched_mm` implementation,
the one torch.export takes (its default loops over the experts a batch
hits, a data-dependent loop no exporter can trace into one graph): every
token's two experts' weights gathered and applied as batched products.
Logits for every position."""

import torch
import transformers

import fixture

LAYERS, HEADS, KV_HEADS, HIDDEN, VOCAB = 2, 4, 2, 64, 101


def model():
    torch.manual_seed(0)
    config = transformers.MixtralConfig(
        num_hidden_layers=LAYERS, num_attention_heads=HEADS,
        num_key_value_heads=KV_HEADS, hidden_size=HIDDEN,
        intermediate_size=2 * HIDDEN, vocab_size=VOCAB,
        num_local_experts=4, num_experts_per_tok=2,
        max_position_embeddings=256)
    config._experts_implementation = "batched_mm"
    mixtral = transformers.MixtralForCausalLM(config).eval()
    # transformers leaves the stacked expert weights uninitialised.
    with torch.no_grad():
        for name, p in mixtral.named_parameters():
            if "experts" in name:
                p.normal_(0.0, 0.05)
    return mixtral


class Logits(torch.nn.Module):
    def __init__(self, mixtral):
        super().__init__()
        self.mixtral = mixtral

    def forward(self, input_ids):
        return self.mixtral(input_ids=input_ids, use_cache=False).logits


def main():
    args = fixture.arguments(__doc__)
    folder = fixture.out_dir(args, "mixtral")
    fixture.export_token_model(Logits(model()), folder, VOCAB)


if __name__ == "__main__":
    main()
