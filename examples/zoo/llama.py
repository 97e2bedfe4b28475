"""A LLaMA-style decoder (transformers' LlamaForCausalLM, random seeded
weights, a small config): RMSNorm, rotary position embeddings, grouped-query
attention (4 query heads share 2 key/value heads), a SiLU-gated MLP, and the
KV cache as inputs and outputs. One export serves prefill (past = 0) and
decode (seq = 1); examples/zoo/generate.py decodes greedily with it.
llama_f16/ is the same model in float16 throughout, cache included, as
users export it for serving; llama_opset23/ the same model exported at
opset 23, where attention is one Attention node, RMSNorm RMSNormalization
and the rotary embedding RotaryEmbedding."""

import numpy as np
import torch
import transformers

import decoding
import fixture

LAYERS, HEADS, KV_HEADS, HIDDEN, VOCAB = decoding.LAYERS, 4, 2, 64, 128
HEAD_DIM = HIDDEN // HEADS


def model():
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        num_hidden_layers=LAYERS, num_attention_heads=HEADS,
        num_key_value_heads=KV_HEADS, hidden_size=HIDDEN,
        intermediate_size=3 * HIDDEN, vocab_size=VOCAB,
        max_position_embeddings=2048, rms_norm_eps=1e-6)
    return transformers.LlamaForCausalLM(config).eval()


Step = decoding.CacheStep


def main():
    args = fixture.arguments(__doc__)
    decoding.export_decoder(args, "llama", Step(model()), VOCAB, KV_HEADS,
                            HEAD_DIM)
    decoding.export_decoder(args, "llama_f16", Step(model().half()), VOCAB,
                            KV_HEADS, HEAD_DIM, dtype=np.float16)
    decoding.export_decoder(args, "llama_opset23", Step(model()), VOCAB,
                            KV_HEADS, HEAD_DIM, opset=23)


if __name__ == "__main__":
    main()
