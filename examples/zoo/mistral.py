"""Mistral (transformers' MistralForCausalLM, random seeded weights, a small
config) with a sliding window of 6 tokens, one step with the KV cache in
and out. Its cache keeps only the window: the export slices the past from
-5 (ONNX clamps that start at 0) and sizes the cache by past + seq -
max(0, past - 5), PyTorch's sym_max, so the sizes have a max in them.
torch.export traces one side of the window: this export, traced at a past
of 9, holds for caches of 5 or more (its fixture's pasts 5-12), as ONNX
Runtime agrees; decoding steps of any length. mistral_ts/ is the same
model exported by the TorchScript tracer."""

import torch
import transformers

import decoding
import fixture

LAYERS, HEADS, KV_HEADS, HIDDEN, VOCAB = decoding.LAYERS, 4, 2, 64, 128
HEAD_DIM = HIDDEN // HEADS
WINDOW = 6


def model():
    torch.manual_seed(0)
    config = transformers.MistralConfig(
        num_hidden_layers=LAYERS, num_attention_heads=HEADS,
        num_key_value_heads=KV_HEADS, hidden_size=HIDDEN,
        intermediate_size=3 * HIDDEN, vocab_size=VOCAB,
        max_position_embeddings=2048, sliding_window=WINDOW)
    return transformers.MistralForCausalLM(config).eval()


def main():
    args = fixture.arguments(__doc__)
    # Traced past the window, the export holds for caches of at least 5
    # (ONNX Runtime refuses shorter ones too): the fixture stays there.
    # Then by the TorchScript tracer, which writes the cache's Expand
    # shape as Where(Equal(shape, -1), 1, shape) over that size: importing
    # it proves past + seq - max(0, past - 5) is never -1.
    for name, exporter in [("mistral", "dynamo"),
                           ("mistral_ts", "torchscript")]:
        decoding.export_decoder(args, name, decoding.CacheStep(model()),
                                VOCAB, KV_HEADS, HEAD_DIM, example_past=9,
                                cases=[(1, 6, 5), (2, 1, 7), (1, 1, 6),
                                       (3, 4, 9), (2, 1, 12)],
                                exporter=exporter)


if __name__ == "__main__":
    main()
