"""anyshape.jax against a private anyshape-server: functions traced with
symbolic shapes (jax.export.symbolic_shape), compiled once and matched
against jax.jit at many shapes, including 1; a refusal that names the
primitive; an index out of range as an error, the server still serving.

Needs jax (bench/peers/setup jax); skipped otherwise.

    ANYSHAPE_SERVER=build/bin/anyshape-server PYTHONPATH=build/python \\
    bench/peers/.venv/bin/python -m unittest client/python/tests/test_jax.py
"""
import unittest

try:
    import jax
    import jax.numpy as jnp
except ImportError:
    raise unittest.SkipTest("needs jax (bench/peers/setup jax)")

import numpy as np

import anyshape
import anyshape.jax as aj

SHAPES = [(2, 7), (1, 1), (3, 12), (2, 33), (1, 5), (4, 2), (2, 16),
          (3, 3), (1, 64), (2, 9)]


def encoder(p, ids):
    """An embedding, layer norm, GELU MLP and one attention head."""
    x = p["embed"][ids]
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    x = (x - mean) * jax.lax.rsqrt(var + 1e-5) * p["gain"]
    h = jax.nn.gelu(x @ p["w"])
    scores = jnp.einsum("bqd,bkd->bqk", h, h) / 4.0
    y = jnp.einsum("bqk,bkd->bqd", jax.nn.softmax(scores, axis=-1), h)
    return {"flat": y.reshape(ids.shape[0], -1),
            "argmax": jnp.argmax(y, -1),
            "prefix": jnp.cumsum(y[..., 0], axis=1)}


class JaxTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        aj.connect()

    @classmethod
    def tearDownClass(cls):
        aj.session().close()

    def setUp(self):
        rng = np.random.default_rng(0)
        self.rng = rng
        self.params = {
            "embed": rng.standard_normal((50, 16)).astype(np.float32),
            "w": (rng.standard_normal((16, 16)) / 4).astype(np.float32),
            "gain": rng.standard_normal(16).astype(np.float32)}

    def test_an_encoder_compiles_once_for_every_shape(self):
        b, s = jax.export.symbolic_shape("b, s")
        before = aj.session().compiles
        run = aj.export(encoder, self.params,
                        jax.ShapeDtypeStruct((b, s), jnp.int32))
        for batch, seq in SHAPES:
            ids = self.rng.integers(0, 50, (batch, seq)).astype(np.int32)
            got = run(ids)
            want = jax.jit(encoder)(self.params, ids)
            for key in want:
                np.testing.assert_allclose(got[key], np.asarray(want[key]),
                                           atol=1e-4, rtol=1e-4,
                                           err_msg=key)
        self.assertEqual(aj.session().compiles - before, 1)

    def test_bfloat16_in_and_out(self):
        (b,) = jax.export.symbolic_shape("b")
        run = aj.export(lambda x: (x * 2, jnp.max(x)),
                        jax.ShapeDtypeStruct((b, 3), jnp.bfloat16))
        for batch in (1, 4):
            x = jnp.arange(batch * 3, dtype=jnp.bfloat16).reshape(batch, 3)
            doubled, top = run(x)
            self.assertEqual(doubled.dtype, jnp.bfloat16)
            self.assertEqual(np.shape(top), ())
            np.testing.assert_array_equal(doubled.astype(np.float32),
                                          np.asarray(x * 2, np.float32))
            self.assertEqual(float(top), float(jnp.max(x)))

    def test_an_input_dim_no_symbol_gives_is_refused_clearly(self):
        a, b = jax.export.symbolic_shape("a, b")
        with self.assertRaisesRegex(aj.TranslationError,
                                    "input 0 dim 0 is 2\\*a, and no input "
                                    "dim is a itself"):
            aj.export(lambda x: x + 1,
                      jax.ShapeDtypeStruct((2 * a, b), jnp.float32))

    def test_all_and_any_at_every_size(self):
        b, s = jax.export.symbolic_shape("b, s")

        def logic(x):
            return (jnp.all(x > 0, axis=1), jnp.any(x > 0, axis=1),
                    jnp.all(x > -9), jnp.any(x > 9))

        run = aj.export(logic, jax.ShapeDtypeStruct((b, s), jnp.float32))
        for batch, seq in [(2, 3), (3, 0), (1, 1)]:
            x = self.rng.standard_normal((batch, seq)).astype(np.float32)
            for got, want in zip(run(x), jax.jit(logic)(x)):
                np.testing.assert_array_equal(got, np.asarray(want))

    def test_sizes_that_are_expressions(self):
        b, s = jax.export.symbolic_shape("b, s")

        def halves(x):  # floor division and concatenation of sizes
            evens = x[:, ::2]
            return jnp.concatenate([evens, x], axis=1), evens.sum(1)

        run = aj.export(halves, jax.ShapeDtypeStruct((b, s), jnp.float32))
        for batch, seq in SHAPES:
            x = self.rng.standard_normal((batch, seq)).astype(np.float32)
            for got, want in zip(run(x), jax.jit(halves)(x)):
                np.testing.assert_allclose(got, np.asarray(want),
                                           atol=1e-5, rtol=1e-5)

    def test_a_cache_written_and_read_at_a_run_time_position(self):
        (b,) = jax.export.symbolic_shape("b")

        def step(cache, new, position):
            cache = jax.lax.dynamic_update_slice(cache, new, (0, position, 0))
            window = jax.lax.dynamic_slice(cache, (0, position, 0),
                                           (cache.shape[0], 2, 4))
            return cache, window

        run = aj.export(step, jax.ShapeDtypeStruct((b, 8, 4), jnp.float32),
                        jax.ShapeDtypeStruct((b, 1, 4), jnp.float32),
                        jax.ShapeDtypeStruct((), jnp.int32))
        # Positions past either end clamp, as lax's do.
        for batch, position in [(2, 0), (1, 3), (3, 7), (2, 9), (2, -4)]:
            cache = self.rng.standard_normal((batch, 8, 4)).astype(np.float32)
            new = self.rng.standard_normal((batch, 1, 4)).astype(np.float32)
            args = (cache, new, np.int32(position))
            for got, want in zip(run(*args), jax.jit(step)(*args)):
                np.testing.assert_array_equal(got, np.asarray(want))

    def test_sorts_top_k_and_running_folds_at_every_shape(self):
        b, s = jax.export.symbolic_shape("b, s", constraints=["s >= 3"])

        def orders(x):
            return (jnp.sort(x, axis=0), jnp.argsort(x, axis=-1),
                    jnp.argsort(x, axis=-1, descending=True),
                    *jax.lax.top_k(x, 3), jnp.cumsum(x, axis=1),
                    jax.lax.cummax(x, axis=0, reverse=True))

        before = aj.session().compiles
        run = aj.export(orders, jax.ShapeDtypeStruct((b, s), jnp.float32))
        for batch, seq in SHAPES:
            if seq < 3:
                continue
            # Few distinct values: ties everywhere; and one NaN.
            x = self.rng.integers(-2, 3, (batch, seq)).astype(np.float32)
            x[0, seq // 2] = np.nan
            for got, want in zip(run(x), jax.jit(orders)(x)):
                np.testing.assert_array_equal(got, np.asarray(want))
        self.assertEqual(aj.session().compiles - before, 1)

    def test_convolutions_in_any_layout_at_every_size(self):
        # flax's layout (NHWC, HWIO), a stride, a dilation, depthwise
        # groups, and a transposed convolution (an input dilation).
        n, h, w_ = jax.export.symbolic_shape("n, h, w", constraints=[
            "h >= 3", "w >= 3"])
        rng = np.random.default_rng(1)
        k1 = rng.standard_normal((3, 3, 4, 8)).astype(np.float32)
        k2 = rng.standard_normal((3, 3, 1, 8)).astype(np.float32)
        k3 = rng.standard_normal((4, 8, 2, 2)).astype(np.float32)
        lax = jax.lax

        def net(x):
            y = lax.conv_general_dilated(
                x, k1, (2, 1), ((1, 1), (0, 2)), rhs_dilation=(1, 2),
                dimension_numbers=("NHWC", "HWIO", "NHWC"))
            y = jax.nn.relu(y)
            y = lax.conv_general_dilated(
                y, k2, (1, 1), "SAME", feature_group_count=8,
                dimension_numbers=("NHWC", "HWIO", "NHWC"))
            up = lax.conv_general_dilated(
                jnp.transpose(y, (0, 3, 1, 2)), k3, (1, 1),
                ((1, 1), (1, 1)), lhs_dilation=(2, 2),
                dimension_numbers=("NCHW", "OIHW", "NCHW"))
            return y, up

        before = aj.session().compiles
        run = aj.export(net, jax.ShapeDtypeStruct((n, h, w_, 4),
                                                  jnp.float32))
        for shape in [(1, 3, 3), (2, 7, 5), (1, 16, 9), (3, 4, 12)]:
            x = rng.standard_normal(shape + (4,)).astype(np.float32)
            for got, want in zip(run(x), jax.jit(net)(x)):
                np.testing.assert_allclose(got, np.asarray(want),
                                           atol=1e-4, rtol=1e-4)
        self.assertEqual(aj.session().compiles - before, 1)

    def test_gathers_and_scatters_in_every_form(self):
        """take_along_axis (batching dims; out of range reads NaN), x[:, i],
        x[i, j], and .at[] updates of rows, columns, elements and
        per-row positions (out of range dropped; negative indices
        wrapped): one compile each, equal to jax.jit at every shape."""
        b, s = jax.export.symbolic_shape("b, s")
        rng, f32, i32 = self.rng, jnp.float32, jnp.int32

        def spec(shape, dtype=f32):
            return jax.ShapeDtypeStruct(shape, dtype)

        def floats(*shape):
            return rng.standard_normal(shape).astype(np.float32)

        def ints(low, high, *shape):
            return rng.integers(low, high, shape).astype(np.int32)

        cases = [
            (lambda x, i: jnp.take_along_axis(x, i, axis=1),
             [spec((b, s)), spec((b, 3), i32)],
             lambda n, m: (floats(n, m), ints(-m, m + 2, n, 3))),
            (lambda x, i: (x[:, i] * 2, x[i % x.shape[0], i]),
             [spec((b, s)), spec((4,), i32)],
             lambda n, m: (floats(n, m), ints(0, m, 4))),
            (lambda x, i, v: (x.at[i].set(v), x.at[i].add(v),
                              x.at[i].max(v), x.at[i].mul(v)),
             [spec((b, 4)), spec((s,), i32), spec((s, 4))],
             lambda n, m: (floats(n, 4), ints(-n, n + 3, m), floats(m, 4))),
            (lambda x, i: (x.at[:, i].add(1.0),
                           x.at[i % x.shape[0], i].set(-1.0)),
             [spec((b, s)), spec((3,), i32)],
             lambda n, m: (floats(n, m), ints(0, m, 3))),
            (lambda x, i, v: x.at[jnp.arange(x.shape[0])[:, None], i].min(v),
             [spec((b, s)), spec((b, 2), i32), spec((b, 2))],
             lambda n, m: (floats(n, m), ints(0, m, n, 2), floats(n, 2)))]
        before = aj.session().compiles
        for fn, specs, make in cases:
            run = aj.export(fn, *specs)
            for shape in [(1, 1), (2, 5), (3, 9), (4, 16)]:
                args = make(*shape)
                got, want = run(*args), jax.jit(fn)(*args)
                if not isinstance(want, tuple):
                    got, want = [got], [want]
                for g, w in zip(got, want):
                    np.testing.assert_allclose(g, np.asarray(w), atol=1e-5,
                                               rtol=1e-5)
        self.assertEqual(aj.session().compiles - before, len(cases))

    def test_elementwise_forms_numpy_users_write(self):
        # Each refused before: round (jnp.round, halves to even), log1p
        # (softplus), is_finite (logsumexp), tile, clip's Python-float
        # bounds (literals of the aval's dtype, not numpy's f64), one_hot's
        # [b, 1] == [1, n] compare, and a size computed as a value
        # (resizing to 2*s).
        b, s = jax.export.symbolic_shape("b, s")
        ties = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 1e-9, -3.0], np.float32)

        def f(x):
            return {"round": jnp.round(x * 4) + jnp.round(x, 2),
                    "softplus": jax.nn.softplus(x) + jnp.log1p(x * 1e-8),
                    "expm1": jnp.expm1(x),
                    "logsumexp": jax.nn.logsumexp(x, axis=1),
                    "tile": jnp.tile(x, (2, 3)),
                    "clip": jnp.clip(x, -0.5, 0.5) + jnp.std(x, 1, ddof=1,
                                                             keepdims=True),
                    "one_hot": jax.nn.one_hot(jnp.argmax(x, 1), 5),
                    "resize": jax.image.resize(
                        x, (x.shape[0], 2 * x.shape[1]), "linear")}

        run = aj.export(f, jax.ShapeDtypeStruct((b, s), jnp.float32))
        # lax.round's default (away from zero) just below a half and at an
        # odd 2^23 + 1, where floor(x + 0.5) would be off by one; log1p and
        # expm1 at the extremes.
        edges = np.array([0.49999997, -0.49999997, 8388609.0, 2.5], np.float32)
        away = aj.export(lambda x: (jax.lax.round(x), jnp.log1p(x * 1e36),
                                    jnp.expm1(-x * 100)),
                         jax.ShapeDtypeStruct((s,), jnp.float32))
        for got, want in zip(away(edges), jax.jit(
                lambda x: (jax.lax.round(x), jnp.log1p(x * 1e36),
                           jnp.expm1(-x * 100)))(edges)):
            np.testing.assert_allclose(got, np.asarray(want), rtol=1e-6)
        for batch, seq in [(2, 7), (1, 3), (3, 12), (2, 33)]:
            x = self.rng.standard_normal((batch, seq)).astype(np.float32)
            x[0, :min(seq, 7)] = ties[:seq]
            got, want = run(x), jax.jit(f)(x)
            for key in want:
                np.testing.assert_allclose(got[key], np.asarray(want[key]),
                                           atol=1e-5, rtol=1e-5,
                                           err_msg=key)

    def test_a_roll_along_a_symbolic_axis(self):
        # jnp.roll splits at mod(-shift, s): s - 3 where s >= 3; a narrower
        # axis is an error naming the slice.
        b, s = jax.export.symbolic_shape("b, s")

        def f(x):
            return jnp.roll(x, 3, axis=1) + 2 * jnp.roll(x, -1, axis=1)

        run = aj.export(f, jax.ShapeDtypeStruct((b, s), jnp.float32))
        for batch, seq in [(2, 7), (1, 3), (3, 16)]:
            x = self.rng.standard_normal((batch, seq)).astype(np.float32)
            np.testing.assert_allclose(run(x), np.asarray(jax.jit(f)(x)),
                                       atol=1e-6)
        with self.assertRaises(anyshape.AnyShapeError) as raised:
            run(np.zeros((2, 2), np.float32))
        self.assertIn("slice", str(raised.exception))

    def test_a_primitive_without_translation_is_named(self):
        (n,) = jax.export.symbolic_shape("n")
        with self.assertRaises(aj.TranslationError) as raised:
            aj.export(jnp.fft.rfft, jax.ShapeDtypeStruct((n,), jnp.float32))
        self.assertIn("fft", str(raised.exception))

    def test_an_index_out_of_range_is_an_error(self):
        b, s = jax.export.symbolic_shape("b, s")
        run = aj.export(lambda p, ids: p["embed"][ids], self.params,
                        jax.ShapeDtypeStruct((b, s), jnp.int32))
        with self.assertRaises(anyshape.AnyShapeError) as raised:
            run(np.array([[1, 50]], dtype=np.int32))
        self.assertIn("gather", str(raised.exception))
        ids = np.array([[3, 4]], dtype=np.int32)
        np.testing.assert_allclose(run(ids), self.params["embed"][ids])


if __name__ == "__main__":
    unittest.main()
