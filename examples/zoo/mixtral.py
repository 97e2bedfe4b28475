"""Mixtral from transformers (random seeded weights, a small config): a
decoder whose MLP is a sparse mixture of experts, each token routed to the
two best of four by a softmax router, with grouped-query attention, RoPE
and RMSNorm. The experts run as transformers' `batched_mm` implementation,
the one torch.export takes (its default loops over the experts a batch
hits, a data-dependent loop no exporter can trace into one graph): every
token's two experts' weights gathered and applied as batched products.
Logits for every position. mixtral_ts/: the default experts' sparse
block by the TorchScript tracer (below)."""

import numpy as np
import torch
import transformers

import fixture

LAYERS, HEADS, KV_HEADS, HIDDEN, VOCAB = 2, 4, 2, 64, 101


def model(experts="batched_mm"):
    torch.manual_seed(0)
    config = transformers.MixtralConfig(
        num_hidden_layers=LAYERS, num_attention_heads=HEADS,
        num_key_value_heads=KV_HEADS, hidden_size=HIDDEN,
        intermediate_size=2 * HIDDEN, vocab_size=VOCAB,
        num_local_experts=4, num_experts_per_tok=2,
        max_position_embeddings=256)
    config._experts_implementation = experts
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
    # transformers' default experts, the sparse block alone (the decoder
    # around it asks for aten::diff, which the tracer cannot export), by
    # the TorchScript tracer: it unrolls the loop over the experts a batch
    # hits into a Split of their count into the 4 it saw. Right whenever a
    # batch routes to all 4 (every case here); a run that routes to fewer
    # fails naming the Split, as it fails in ONNX Runtime.
    block = model("eager").model.layers[0].mlp.eval()
    folder = fixture.out_dir(args, "mixtral_ts")
    rng = np.random.default_rng(0)

    def states(b, s):
        return rng.standard_normal((b, s, HIDDEN)).astype(np.float32)

    fixture.export(block, [states(2, 7)], f"{folder}/model.onnx", ["x"],
                   ["y"], {"x": {0: "batch", 1: "seq"}},
                   exporter="torchscript")
    fixture.record(block, f"{folder}/model.expected",
                   ((f"batch={b},seq={s}", {"x": states(b, s)})
                    for b, s in [(2, 5), (3, 16), (1, 40)]), ["y"])


if __name__ == "__main__":
    main()
