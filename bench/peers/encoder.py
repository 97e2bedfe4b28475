"""The BERT-base encoder of examples/ExampleGraphs.cpp, for the peers.

The same model as anyshape's `bert_encoder_layer` example (and
`anyshape-make-examples --encoder-layers N`): post-norm layers of hidden
768, 12 heads, FFN 3072, erf GELU, layer norm epsilon 1e-12, an additive
mask of (1 - mask) * -10000. The weights are the same numbers: anyshape's
seeded uniforms (ir/graph/ConstantData.cpp, splitmix64 of seed + index)
regenerated here, layer l from seed 11 + 16 l.

Inputs: x f32[batch, seq, 768], mask f32[batch, seq] (1 keeps a token).
"""

import math

import numpy as np

HIDDEN, HEADS, FFN = 768, 12, 3072
HEAD_DIM = HIDDEN // HEADS
EPSILON = 1e-12


def seeded_uniform(seed, shape, low, high):
    """anyshape's fillSeededUniform for f32: splitmix64 of seed + index."""
    count = int(np.prod(shape))
    with np.errstate(over="ignore"):
        z = np.uint64(seed) + np.arange(count, dtype=np.uint64) * np.uint64(
            0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z ^= z >> np.uint64(31)
    unit = (z >> np.uint64(11)).astype(np.float64) * 2.0**-53
    return (low + (high - low) * unit).astype(np.float32).reshape(shape)


def _weight(fan_in, fan_out, seed):
    a = math.sqrt(6.0 / (fan_in + fan_out))  # Glorot, as weight() there
    return seeded_uniform(seed, (fan_in, fan_out), -a, a)


def _bias(n, seed):
    return seeded_uniform(seed, (n,), -0.02, 0.02)


def layer_weights(layer):
    """One layer's weights by name, as encoderLayer() seeds them."""
    s = 11 + 16 * layer
    return {
        "wq": _weight(HIDDEN, HIDDEN, s), "bq": _bias(HIDDEN, s + 1),
        "wk": _weight(HIDDEN, HIDDEN, s + 2), "bk": _bias(HIDDEN, s + 3),
        "wv": _weight(HIDDEN, HIDDEN, s + 4), "bv": _bias(HIDDEN, s + 5),
        "wo": _weight(HIDDEN, HIDDEN, s + 6), "bo": _bias(HIDDEN, s + 7),
        "g1": seeded_uniform(s + 8, (HIDDEN,), 0.9, 1.1),
        "b1": _bias(HIDDEN, s + 9),
        "wi": _weight(HIDDEN, FFN, s + 10), "bi": _bias(FFN, s + 11),
        "wd": _weight(FFN, HIDDEN, s + 12), "bd": _bias(HIDDEN, s + 13),
        "g2": seeded_uniform(s + 14, (HIDDEN,), 0.9, 1.1),
        "b2": _bias(HIDDEN, s + 15),
    }


def weights(layers):
    return [layer_weights(l) for l in range(layers)]


def inputs(batch, seq, seed=0):
    """Random hidden states, and a mask that keeps all but the last token
    of every other sequence (so the mask is used)."""
    rng = np.random.default_rng(seed + 1000 * seq + batch)
    x = rng.uniform(-1, 1, (batch, seq, HIDDEN)).astype(np.float32)
    mask = np.ones((batch, seq), np.float32)
    if seq > 1:
        mask[1::2, -1] = 0
    return x, mask


def forward(xp, erf, x, mask, layer_weights_list):
    """The encoder in any numpy-like module `xp` (numpy, jax.numpy) with
    its `erf`: what the torch and JAX peers run, and the numpy reference."""
    batch, seq = x.shape[0], x.shape[1]
    additive = ((1.0 - mask) * -10000.0).reshape(batch, 1, 1, seq)

    def layer_norm(t, gamma, beta):
        mean = t.mean(axis=-1, keepdims=True)
        centered = t - mean
        variance = (centered * centered).mean(axis=-1, keepdims=True)
        return centered / xp.sqrt(variance + EPSILON) * gamma + beta

    def heads(t):  # [b, s, 768] -> [b, 12, s, 64]
        return t.reshape(batch, seq, HEADS, HEAD_DIM).transpose(0, 2, 1, 3)

    for w in layer_weights_list:
        q = heads(x @ w["wq"] + w["bq"])
        k = heads(x @ w["wk"] + w["bk"])
        v = heads(x @ w["wv"] + w["bv"])
        scores = (q @ k.transpose(0, 1, 3, 2)) / math.sqrt(HEAD_DIM) + additive
        scores = scores - scores.max(axis=-1, keepdims=True)
        e = xp.exp(scores)
        probs = e / e.sum(axis=-1, keepdims=True)
        context = (probs @ v).transpose(0, 2, 1, 3).reshape(batch, seq, HIDDEN)
        attended = layer_norm(x + context @ w["wo"] + w["bo"], w["g1"], w["b1"])
        up = attended @ w["wi"] + w["bi"]
        up = up * 0.5 * (1.0 + erf(up * (1.0 / math.sqrt(2.0))))
        x = layer_norm(attended + up @ w["wd"] + w["bd"], w["g2"], w["b2"])
    return x
