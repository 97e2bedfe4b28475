"""What the decoder exports share: one step of a transformers causal LM
with its KV cache as plain tensors in and out (the cache of each layer's
keys and values), and the export with the fixture cases that serve
prefill (past = 0), decode (seq = 1) and both from one file."""

import numpy as np
import torch
import transformers

import fixture

LAYERS = 2  # every zoo decoder's; the step's signature names each cache
CACHE_NAMES = [f"{kv}_{layer}" for layer in range(LAYERS) for kv in "kv"]
INPUTS = ["input_ids"] + [f"past_{n}" for n in CACHE_NAMES]
OUTPUTS = ["logits"] + [f"present_{n}" for n in CACHE_NAMES]
# (batch, seq, past): prefill, decode steps, both at once.
CASES = [(1, 6, 0), (2, 1, 7), (1, 1, 1), (3, 4, 9), (2, 1, 0)]


class CacheStep(torch.nn.Module):
    """Logits and the grown cache from input ids and the cache so far."""

    def __init__(self, lm):
        super().__init__()
        self.lm = lm

    def forward(self, input_ids, past_k_0, past_v_0, past_k_1, past_v_1):
        past = (past_k_0, past_v_0, past_k_1, past_v_1)
        cache = transformers.DynamicCache(config=self.lm.config)
        for layer in range(LAYERS):
            cache.update(past[2 * layer], past[2 * layer + 1], layer)
        out = self.lm(input_ids=input_ids, past_key_values=cache,
                      use_cache=True)
        present = []
        for layer in out.past_key_values.layers:
            present += [layer.keys, layer.values]
        return (out.logits, *present)


def export_decoder(args, name, module, vocab, kv_heads, head_dim, seed=0,
                   example_past=5, cases=CASES, dtype=np.float32, opset=None,
                   exporter="dynamo"):
    """Exports `module` (a step with the cache in and out), traced at a
    cache of `example_past`, into the zoo folder `name` and writes its
    fixture at `cases`; the cache is of `dtype`, the module's own, and
    `exporter` is fixture.export's."""
    folder = fixture.out_dir(args, name)
    rng = np.random.default_rng(seed)
    ids = lambda b, s: rng.integers(0, vocab, (b, s), dtype=np.int64)
    past = lambda b, p: {f"past_{n}": rng.standard_normal(
        (b, kv_heads, p, head_dim)).astype(dtype) for n in CACHE_NAMES}
    dynamic = {"input_ids": {0: "batch", 1: "seq"}}
    dynamic.update({n: {0: "batch", 2: "past"} for n in INPUTS[1:]})
    example = [ids(2, 3)] + list(past(2, example_past).values())
    fixture.export(module, example, f"{folder}/model.onnx", INPUTS, OUTPUTS,
                   dynamic, exporter=exporter, opset=opset)
    fixture.record(module, f"{folder}/model.expected",
                   ((f"batch={b},seq={s},past={p}",
                     {"input_ids": ids(b, s), **past(b, p)})
                    for b, s, p in cases), OUTPUTS)
