"""GPT-2 from transformers (random seeded weights, a small config), two
exports: without a cache (logits for every position), and one decoding step
with the cache as inputs and outputs (past keys and values per layer, the
new ones returned), which serves prefill (past = 0) and decode (seq = 1)."""

import numpy as np
import torch
import transformers

import fixture

LAYERS, HEADS, HIDDEN, VOCAB = 2, 4, 64, 101


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


class Step(torch.nn.Module):
    """One step with the cache: the past keys and values of each layer in,
    the logits and the grown keys and values out."""

    def __init__(self, gpt2):
        super().__init__()
        self.gpt2 = gpt2

    def forward(self, input_ids, past_k_0, past_v_0, past_k_1, past_v_1):
        past = (past_k_0, past_v_0, past_k_1, past_v_1)
        cache = transformers.DynamicCache(config=self.gpt2.config)
        for layer in range(LAYERS):
            cache.update(past[2 * layer], past[2 * layer + 1], layer)
        out = self.gpt2(input_ids=input_ids, past_key_values=cache,
                        use_cache=True)
        present = []
        for layer in out.past_key_values.layers:
            present += [layer.keys, layer.values]
        return (out.logits, *present)


CACHE_NAMES = [f"{kv}_{layer}" for layer in range(LAYERS) for kv in "kv"]


def export_with_cache(args, gpt2, ids, rng):
    folder = fixture.out_dir(args, "gpt2_cache")
    module = Step(gpt2)
    past = lambda b, p: {f"past_{n}": rng.standard_normal(
        (b, HEADS, p, HIDDEN // HEADS)).astype(np.float32)
        for n in CACHE_NAMES}
    inputs = ["input_ids"] + [f"past_{n}" for n in CACHE_NAMES]
    outputs = ["logits"] + [f"present_{n}" for n in CACHE_NAMES]
    dynamic = {"input_ids": {0: "batch", 1: "seq"}}
    dynamic.update({n: {0: "batch", 2: "past"} for n in inputs[1:]})
    example = [ids(2, 3)] + list(past(2, 5).values())
    fixture.export(module, example, f"{folder}/model.onnx", inputs, outputs,
                   dynamic)
    cases = []
    # Prefill (past = 0), decode steps (seq = 1), and both at once.
    for b, s, p in [(1, 6, 0), (2, 1, 7), (1, 1, 1), (3, 4, 9), (2, 1, 0)]:
        given = {"input_ids": ids(b, s), **past(b, p)}
        got = fixture.run(module, given)
        cases.append((f"batch={b},seq={s},past={p}", given,
                      dict(zip(outputs, got))))
    fixture.write_fixture(f"{folder}/model.expected", cases)


def main():
    args = fixture.arguments(__doc__)
    folder = fixture.out_dir(args, "gpt2")
    gpt2 = model()
    module = Logits(gpt2)
    rng = np.random.default_rng(0)
    ids = lambda b, s: rng.integers(0, VOCAB, (b, s), dtype=np.int64)
    export_with_cache(args, gpt2, ids, rng)
    fixture.export(module, [ids(2, 7)], f"{folder}/model.onnx",
                   ["input_ids"], ["logits"],
                   {"input_ids": {0: "batch", 1: "seq"}})
    cases = []
    for b, s in [(1, 1), (2, 7), (3, 16), (1, 33)]:
        inputs = {"input_ids": ids(b, s)}
        (logits,) = fixture.run(module, inputs)
        cases.append((f"batch={b},seq={s}", inputs, {"logits": logits}))
    fixture.write_fixture(f"{folder}/model.expected", cases)


if __name__ == "__main__":
    main()
