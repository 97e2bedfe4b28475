"""A LLaMA-style decoder (transformers' LlamaForCausalLM, random seeded
weights, a small config): RMSNorm, rotary position embeddings, grouped-query
attention (4 query heads share 2 key/value heads), a SiLU-gated MLP, and the
KV cache as inputs and outputs. One export serves prefill (past = 0) and
decode (seq = 1); examples/zoo/generate.py decodes greedily with it."""

import numpy as np
import torch
import transformers

import fixture

LAYERS, HEADS, KV_HEADS, HIDDEN, VOCAB = 2, 4, 2, 64, 128
HEAD_DIM = HIDDEN // HEADS


def model():
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        num_hidden_layers=LAYERS, num_attention_heads=HEADS,
        num_key_value_heads=KV_HEADS, hidden_size=HIDDEN,
        intermediate_size=3 * HIDDEN, vocab_size=VOCAB,
        max_position_embeddings=2048, rms_norm_eps=1e-6)
    return transformers.LlamaForCausalLM(config).eval()


class Step(torch.nn.Module):
    """Logits and the grown cache from input ids and the cache so far; the
    positions are past + arange(seq), past being the cache's length."""

    def __init__(self, llama):
        super().__init__()
        self.llama = llama

    def forward(self, input_ids, past_k_0, past_v_0, past_k_1, past_v_1):
        past = (past_k_0, past_v_0, past_k_1, past_v_1)
        cache = transformers.DynamicCache(config=self.llama.config)
        for layer in range(LAYERS):
            cache.update(past[2 * layer], past[2 * layer + 1], layer)
        out = self.llama(input_ids=input_ids, past_key_values=cache,
                         use_cache=True)
        present = []
        for layer in out.past_key_values.layers:
            present += [layer.keys, layer.values]
        return (out.logits, *present)


CACHE_NAMES = [f"{kv}_{layer}" for layer in range(LAYERS) for kv in "kv"]
INPUTS = ["input_ids"] + [f"past_{n}" for n in CACHE_NAMES]
OUTPUTS = ["logits"] + [f"present_{n}" for n in CACHE_NAMES]


def empty_cache(batch):
    return {f"past_{n}": np.zeros((batch, KV_HEADS, 0, HEAD_DIM), np.float32)
            for n in CACHE_NAMES}


def main():
    args = fixture.arguments(__doc__)
    folder = fixture.out_dir(args, "llama")
    module = Step(model())
    rng = np.random.default_rng(0)
    ids = lambda b, s: rng.integers(0, VOCAB, (b, s), dtype=np.int64)
    past = lambda b, p: {f"past_{n}": rng.standard_normal(
        (b, KV_HEADS, p, HEAD_DIM)).astype(np.float32) for n in CACHE_NAMES}
    dynamic = {"input_ids": {0: "batch", 1: "seq"}}
    dynamic.update({n: {0: "batch", 2: "past"} for n in INPUTS[1:]})
    example = [ids(2, 3)] + list(past(2, 5).values())
    fixture.export(module, example, f"{folder}/model.onnx", INPUTS, OUTPUTS,
                   dynamic)
    cases = []
    for b, s, p in [(1, 6, 0), (2, 1, 7), (1, 1, 1), (3, 4, 9), (2, 1, 0)]:
        given = {"input_ids": ids(b, s), **past(b, p)}
        got = fixture.run(module, given)
        cases.append((f"batch={b},seq={s},past={p}", given,
                      dict(zip(OUTPUTS, got))))
    fixture.write_fixture(f"{folder}/model.expected", cases)


if __name__ == "__main__":
    main()
