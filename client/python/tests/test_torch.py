"""anyshape.torch against a real anyshape-server on a Unix socket (the
private server the package starts): transformers models (tiny configs,
random weights) through torch.compile(backend="anyshape", dynamic=True)
and anyshape.torch.export at 10 or more lengths each, every output
matched against eager PyTorch within 1e-4, with one Dynamo graph and one
server compile per model; a decoder with its KV cache fed back, prefill
at past 0 then one token a step; a convolution front end; refusals that
name the op and the model's source line.

Needs torch and transformers (bench/peers/.venv); skipped otherwise.

    ANYSHAPE_SERVER=build/bin/anyshape-server PYTHONPATH=build/python \\
    bench/peers/.venv/bin/python -m unittest client/python/tests/test_torch.py
"""
import math
import unittest
import warnings

try:
    import torch
    import transformers
except ImportError:
    raise unittest.SkipTest("needs torch and transformers "
                            "(bench/peers/setup torch minilm)")

import anyshape.torch as at
from torch._dynamo.utils import counters as dynamo_counters

# Dynamo specialises a size of 1 (a second graph), so the one-graph
# checks use sizes of 2 and up; test_size_one_is_a_second_graph covers 1.
LENGTHS = [(2, 7), (3, 5), (2, 9), (2, 16), (4, 33), (2, 2), (3, 12),
           (2, 64), (2, 3), (5, 20)]


def tiny(name):
    """A transformers model of family `name`, 2 layers, seeded weights."""
    torch.manual_seed(0)
    T = transformers
    if name == "bert":
        return T.BertModel(T.BertConfig(
            vocab_size=100, hidden_size=32, num_hidden_layers=2,
            num_attention_heads=2, intermediate_size=64))
    if name == "gpt2":
        return T.GPT2LMHeadModel(T.GPT2Config(
            vocab_size=100, n_embd=32, n_layer=2, n_head=2))
    if name == "llama":
        return T.LlamaForCausalLM(T.LlamaConfig(
            vocab_size=100, hidden_size=32, num_hidden_layers=2,
            num_attention_heads=4, num_key_value_heads=2,
            intermediate_size=64))
    if name == "gpt_neox":  # LayerNorm, partial rotary, biases
        return T.GPTNeoXForCausalLM(T.GPTNeoXConfig(
            vocab_size=100, hidden_size=32, intermediate_size=64,
            num_hidden_layers=2, num_attention_heads=4,
            max_position_embeddings=128, rotary_pct=0.5))
    if name == "t5":
        return T.T5Model(T.T5Config(vocab_size=100, d_model=32, d_kv=8,
                                    d_ff=64, num_layers=2, num_heads=4))
    if name == "bart":
        return T.BartModel(T.BartConfig(
            vocab_size=100, d_model=32, encoder_layers=1, decoder_layers=1,
            encoder_attention_heads=4, decoder_attention_heads=4,
            encoder_ffn_dim=64, decoder_ffn_dim=64))
    if name == "mixtral":  # top-2 of 4 experts, transformers' grouped_mm
        return T.MixtralForCausalLM(T.MixtralConfig(
            vocab_size=100, hidden_size=32, num_hidden_layers=2,
            num_attention_heads=4, num_key_value_heads=2,
            intermediate_size=64, num_local_experts=4,
            num_experts_per_tok=2))
    if name == "qwen2_moe":  # and a shared expert
        return T.Qwen2MoeForCausalLM(T.Qwen2MoeConfig(
            vocab_size=100, hidden_size=32, num_hidden_layers=2,
            num_attention_heads=4, num_key_value_heads=2,
            intermediate_size=64, moe_intermediate_size=16,
            shared_expert_intermediate_size=32, num_experts=4,
            num_experts_per_tok=2))
    if name == "resnet":
        return T.ResNetModel(T.ResNetConfig(
            num_channels=3, embedding_size=8, hidden_sizes=[8, 16],
            depths=[1, 1]))
    if name == "swin":  # windows of a padded size, a pooler's strided view
        return T.SwinModel(T.SwinConfig(
            image_size=32, patch_size=2, embed_dim=16, depths=[1, 1],
            num_heads=[2, 4], window_size=4))
    raise ValueError(name)


def first(output):
    if isinstance(output, tuple):
        return output[0]
    for field in ("last_hidden_state", "logits"):
        if getattr(output, field, None) is not None:
            return getattr(output, field)
    raise AssertionError(f"no tensor in {type(output)}")


class Decoder(torch.nn.Module):
    """One attention block over an explicit KV cache: the new keys and
    values are concatenated to the past ones and returned."""

    def __init__(self, d=32, heads=4, vocab=50):
        super().__init__()
        self.d, self.heads = d, heads
        self.embed = torch.nn.Embedding(vocab, d)
        self.norm = torch.nn.LayerNorm(d)
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.out = torch.nn.Linear(d, d)
        self.head = torch.nn.Linear(d, vocab)

    def forward(self, ids, past_k, past_v):
        b, s = ids.shape
        x = self.embed(ids)
        q, k, v = self.qkv(self.norm(x)).split(self.d, dim=-1)
        split = (b, s, self.heads, -1)
        q = q.view(split).transpose(1, 2)
        k = torch.cat([past_k, k.view(split).transpose(1, 2)], dim=2)
        v = torch.cat([past_v, v.view(split).transpose(1, 2)], dim=2)
        past = past_k.shape[2]
        mask = torch.ones(s, past + s, dtype=torch.bool).tril(diagonal=past)
        a = torch.nn.functional.scaled_dot_product_attention(
            q, k, v, attn_mask=mask)
        x = x + self.out(a.transpose(1, 2).reshape(b, s, self.d))
        return self.head(x), k, v


class TorchTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        at.connect()  # a private server of this test's own

    @classmethod
    def tearDownClass(cls):
        at.session().close()

    def setUp(self):
        torch._dynamo.reset()
        dynamo_counters.clear()
        at.counters.clear()
        self.compiles = at.session().compiles

    def assertOneGraphOneCompile(self):
        self.assertEqual(dynamo_counters["stats"]["unique_graphs"], 1)
        self.assertEqual(at.counters["fallbacks"], 0)
        self.assertEqual(at.session().compiles - self.compiles, 1)

    def assertCompiledMatchesEager(self, f, inputs, **tolerance):
        """f compiled once (dynamic, strict) equals f eagerly, in shape
        and values, on each input."""
        compiled = torch.compile(f, backend="anyshape", dynamic=True,
                                 options={"strict": True})
        with torch.no_grad():
            for x in inputs:
                got, want = compiled(x), f(x)
                self.assertEqual(got.shape, want.shape)
                torch.testing.assert_close(got, want, **tolerance)

    def check_compiled(self, name, make_inputs):
        model = tiny(name).eval()
        compiled = torch.compile(model, backend="anyshape", dynamic=True,
                                 options={"strict": True})
        with torch.no_grad():
            for batch, seq in LENGTHS:
                inputs = make_inputs(batch, seq)
                got, want = first(compiled(**inputs)), first(model(**inputs))
                self.assertEqual(got.shape, want.shape)
                torch.testing.assert_close(got, want, atol=1e-4, rtol=1e-4)
        self.assertOneGraphOneCompile()

    def test_bert_compiles_once_for_every_length(self):
        def inputs(batch, seq):
            mask = torch.ones(batch, seq, dtype=torch.long)
            mask[0, seq // 2:] = 0  # padding, as batches have it
            return {"input_ids": torch.randint(0, 100, (batch, seq)),
                    "attention_mask": mask}
        self.check_compiled("bert", inputs)

    def test_gpt2_compiles_once_for_every_length(self):
        self.check_compiled("gpt2", lambda b, s: {
            "input_ids": torch.randint(0, 100, (b, s)), "use_cache": False})

    def test_llama_compiles_once_for_every_length(self):
        self.check_compiled("llama", lambda b, s: {
            "input_ids": torch.randint(0, 100, (b, s)), "use_cache": False})

    def test_t5_encoder_decoder_compiles_once(self):
        self.check_compiled("t5", lambda b, s: {
            "input_ids": torch.randint(0, 100, (b, s)),
            "decoder_input_ids": torch.randint(0, 100, (b, s // 2 + 1)),
            "use_cache": False})

    def test_bart_shifts_its_decoder_inputs_in_place(self):
        # shifted[:, 1:] = ids[:, :-1]: slice assignment, functionalised
        # (s + 1: a shift of 2 tokens leaves 1, which Dynamo specialises).
        self.check_compiled("bart", lambda b, s: {
            "input_ids": torch.randint(0, 100, (b, s + 1))})

    def test_resnet_at_any_resolution(self):
        # Batch norm, max pooling with padding, global average pooling.
        self.check_compiled("resnet", lambda b, s: {
            "pixel_values": torch.randn(b, 3, 16 + 2 * s, 20 + s % 9)})

    def test_swin_at_any_resolution(self):
        # Dynamo writes the window, 4, as L // (L // 4) of the padded
        # length L, nested in the batch of windows (a ratio over a
        # monomial), and the pooler views [b, c] as [b, c, 1, 1].
        model = tiny("swin").eval()
        compiled = torch.compile(model, backend="anyshape", dynamic=True,
                                 options={"strict": True})
        with torch.no_grad():
            for b, h, w in [(2, 48, 64), (3, 36, 44)]:
                x = torch.randn(b, 3, h, w)
                got, want = compiled(pixel_values=x), model(pixel_values=x)
                for name in ("last_hidden_state", "pooler_output"):
                    torch.testing.assert_close(got[name], want[name],
                                               atol=1e-4, rtol=1e-4)

    def test_padding_by_symbolic_amounts(self):
        # Swin pads to a multiple of its window, LongT5 to its block: the
        # amount is a remainder of the length, never a number.
        F = torch.nn.functional

        def windowed(x):
            w, h = x.shape[-1], x.shape[-2]
            x = F.pad(x, (1, (4 - w % 4) % 4))     # a static and a symbolic
            x = F.pad(x, (0, 0, h // 2, -h % 5))   # both symbolic, dim -2
            return x * 2

        self.assertCompiledMatchesEager(
            windowed, [torch.randn(batch, seq + 1, seq)
                       for batch, seq in LENGTHS])
        self.assertOneGraphOneCompile()

    def test_sizes_clamped_at_zero(self):
        # MPT slices its ALiBi table from max(0, 128 - key_length); TF-
        # style "same" padding (MobileNetV2, EfficientNet) pads by
        # max(k - h % s, 0). Dynamo writes both with its own Max.
        F = torch.nn.functional
        table = torch.arange(16.0)

        def clamped(x):
            start = max(0, table.size(0) - x.shape[-1])
            pad = max(3 - x.shape[-1] % 2, 0)
            y = x + table[start:]
            return F.pad(y, (pad // 2, pad - pad // 2)) * 2

        self.assertCompiledMatchesEager(
            clamped, [torch.randn(batch, seq)
                      for batch, seq in [(2, 5), (3, 12), (2, 16), (2, 9)]])
        self.assertOneGraphOneCompile()

    def test_sizes_divided_by_sizes(self):
        # Dynamo writes Swin's window (4) as L // (L // 4) for the length
        # L padded to a multiple of 4, and, at a square image, ConvNeXt's
        # width as (s // 4)**2 // (s // 4): divisions by a size, exact.
        F = torch.nn.functional
        conv = torch.nn.Conv2d(3, 8, 4, stride=4)

        def windows(x):
            b, h, w, c = x.shape
            x = F.pad(x, (0, 0, 0, (4 - w % 4) % 4, 0, (4 - h % 4) % 4))
            h, w = x.shape[1], x.shape[2]
            x = x.view(b, h // 4, 4, w // 4, 4, c).permute(0, 1, 3, 2, 4, 5)
            return x.contiguous().view(-1, 4, 4, c) * 2

        def square(x):
            y = conv(x)
            b, c, h, w = y.shape
            return y.permute(0, 2, 3, 1).reshape(b, h * w, c) + \
                y.flatten(2).transpose(1, 2)

        def strided(x):
            # Dynamo writes the slice's length (h + 1) // 2 and the view's
            # (h - 1) // 2 + 1: one size, which the -1 divides exactly.
            b, c, h, w = x.shape
            y = x[:, :, ::2, ::2].flatten(2).transpose(1, 2)
            return y.reshape(b, (h - 1) // 2 + 1, (w - 1) // 2 + 1, -1)

        for f, shapes in [(windows, [(2, 16, 16, 8), (2, 24, 32, 8),
                                     (1, 10, 14, 8), (3, 10, 10, 8)]),
                          (strided, [(2, 3, 32, 32), (2, 3, 40, 40),
                                     (2, 3, 9, 14), (3, 3, 11, 7)]),
                          (square, [(2, 3, 32, 32), (1, 3, 48, 48),
                                    (2, 3, 40, 40)])]:
            torch._dynamo.reset()
            self.assertCompiledMatchesEager(
                f, [torch.randn(*shape) for shape in shapes])

    def test_remainders_by_a_size(self):
        # torch.roll computes (n - shift) % n as a value: Python's
        # remainder at run time, right at every n, shorter than the shift
        # included. As a size (a slice to (n - 3) % n) it is n - 3, which
        # needs n >= 3: a narrower input is an error naming the slice.
        def roll(x):
            return torch.roll(x, 3, dims=1) + 2 * torch.roll(x, (2, -5),
                                                             dims=(0, 1))

        def head(x):
            n = x.shape[1]
            return x[:, :(n - 3) % n] * 2

        self.assertCompiledMatchesEager(
            roll, [torch.randn(3, n) for n in (7, 16, 2, 3, 5)])
        torch._dynamo.reset()
        self.assertCompiledMatchesEager(
            head, [torch.randn(3, n) for n in (7, 16, 4, 3)])
        compiled = torch.compile(head, backend="anyshape", dynamic=True,
                                 options={"strict": True})
        with self.assertRaises(anyshape_error()) as raised:
            compiled(torch.randn(3, 2))
        self.assertIn("slice", str(raised.exception))

    def test_ops_a_held_out_sweep_ran_eagerly(self):
        # Each ran eagerly (strict: refused) before: torch.round (halves
        # to even, and with decimals), adaptive max pooling, Tensor.unfold's
        # overlapping frames (an as_strided that is not row-major), std
        # with unbiased (a correction of 1.0) and a fractional correction,
        # and a strided slice left empty (x[:, 1::2] of one column).
        F = torch.nn.functional
        ties = torch.tensor([0.5, 1.5, 2.5, -0.5, -1.5, 0.125, 0.005, 7.0])

        cases = [
            (lambda x: torch.round(x * 4) + torch.round(x, decimals=2) +
             torch.round(x * 100, decimals=-1),
             [torch.cat([torch.randn(3, n), ties[None, :n]]) for n in
              (8, 5)]),
            (lambda x: F.adaptive_max_pool2d(x, 1) +
             F.adaptive_max_pool2d(x[:, :, :4, :4], 2).amax((2, 3), True),
             [torch.randn(2, 3, h, w) for h, w in ((5, 7), (16, 9), (4, 4))]),
            (lambda x: x.unfold(2, 4, 2).sum(-1),
             [torch.randn(2, 3, n) for n in (4, 9, 33)]),
            (lambda x: x.std(1) + x.var(1, correction=0.5),
             [torch.randn(2, n, 8) for n in (2, 7, 16)]),
            (lambda x: torch.cat([x[:, ::2], x[:, 1::2]], 1) * 2,
             [torch.randn(3, 1, 4), torch.randn(2, 7, 4)]),
        ]
        for f, inputs in cases:
            torch._dynamo.reset()
            self.assertCompiledMatchesEager(f, inputs)

    def test_log1p_and_expm1_keep_a_small_x(self):
        # log(1 + x) in f32 is 0 at x = 1e-9, where log1p is 1e-9: the
        # relative error, not only the absolute, is PyTorch's.
        def f(x):
            return torch.log1p(x), torch.expm1(x)

        # And the extremes the small-x form must not reach: exp(x)
        # underflowing (expm1 is -1), products that would overflow
        # (expm1(85), log1p(1e37)), infinities and log1p(-1).
        inf = float("inf")
        x = torch.tensor([1e-9, -1e-8, 3e-5, 0.3, -0.7, 5.0, 100.0, 0.0,
                          -200.0, -inf, 85.0, 1e37, inf, -1.0])
        compiled = torch.compile(f, backend="anyshape", dynamic=True,
                                 options={"strict": True})
        for got, want in zip(compiled(x), f(x)):
            torch.testing.assert_close(got, want, rtol=1e-6, atol=0,
                                       equal_nan=True)  # log1p(-200)

    def test_sizes_rounded_from_exact_floats(self):
        # MobileViT's patch grid is math.ceil(n / 2); DPT's side of the
        # grid int(patches ** 0.5) for patches (s // 8)**2 at a square
        # image. Both floats are exact, so both sizes are quotients.
        F = torch.nn.functional

        def halves(x):
            n = math.ceil(x.shape[1] / 2)
            x = F.pad(x, (0, 2 * n - x.shape[1]))
            return x.reshape(x.shape[0], n, 2).sum(-1)

        def grid(x):
            t = F.avg_pool2d(x, 2).flatten(2).transpose(1, 2)
            side = int(t.shape[1] ** 0.5)
            return t.transpose(1, 2).reshape(x.shape[0], -1, side, side) * 2

        for f, shapes in [(halves, [(2, 7), (2, 8), (3, 13), (2, 4)]),
                          (grid, [(2, 3, 8, 8), (2, 3, 12, 12),
                                  (3, 3, 10, 10), (2, 3, 14, 14)])]:
            torch._dynamo.reset()
            self.assertCompiledMatchesEager(
                f, [torch.randn(*shape) for shape in shapes])

    def test_a_reduction_over_a_size_specialised_to_one(self):
        # Dynamo makes a graph of its own for a size of 1, where softmax's
        # max runs over one key: a reduction over a static 1, which must
        # still be the kernels the plan says (strict, as ctest compiles).
        def shifted(x):
            return torch.softmax(x, -1) + (x - x.amax(-1, keepdim=True))

        compiled = torch.compile(shifted, backend="anyshape", dynamic=True,
                                 options={"strict": True})
        for shape in [(3, 4, 5), (3, 4, 1), (2, 6, 1)]:
            x = torch.randn(*shape)
            torch.testing.assert_close(compiled(x), shifted(x))

    def test_interpolation_to_sizes_of_the_input(self):
        # DINOv2 and YOLOS resize a position table to the input's patch
        # grid: the decomposition scales by a ratio of sizes, a SymFloat
        # computed at run time.
        F = torch.nn.functional
        torch.manual_seed(0)
        table = torch.randn(1, 4, 4, 4)

        def grid(x):
            size = (x.shape[2] // 8, x.shape[3] // 8)
            return (F.interpolate(table, size=size, mode="bicubic")
                    + F.interpolate(table, size=size, mode="bilinear")
                    + F.interpolate(table, size=size, mode="nearest")
                    + F.avg_pool2d(x, 8))

        compiled = torch.compile(grid, backend="anyshape", dynamic=True,
                                 options={"strict": True})
        for h, w in [(2, 3), (3, 5), (4, 4), (5, 2), (6, 7), (2, 9), (7, 3),
                     (3, 3), (8, 5), (4, 6)]:
            x = torch.randn(1, 4, 8 * h, 8 * w)
            got, want = compiled(x), grid(x)
            self.assertEqual(got.shape, want.shape)
            torch.testing.assert_close(got, want, atol=1e-4, rtol=1e-4)
        self.assertOneGraphOneCompile()

    def test_interpolation_by_a_scale_factor(self):
        # Upsampling by 2 (FPNs, UNets, YOLO's necks), 1.5, 0.5: the size
        # trunc(c * w) is (p * w) floordiv 2^k for c = p / 2^k exactly.
        F = torch.nn.functional
        for mode, extra in [("nearest", {}), ("bilinear", {}),
                            ("bicubic", {"align_corners": True}),
                            ("bilinear", {"recompute_scale_factor": True})]:
            for factor in (2.0, 1.5, 0.5, (0.75, 3.0)):
                with self.subTest(mode=mode, factor=factor, **extra):
                    torch._dynamo.reset()

                    def scaled(x):
                        return F.interpolate(x, scale_factor=factor,
                                             mode=mode, **extra)

                    compiled = torch.compile(
                        scaled, backend="anyshape", dynamic=True,
                        options={"strict": True})
                    # A width scaled to 1 (3 by 0.5) is a second graph:
                    # Dynamo specialises it, and its broadcasts onto 1
                    # must still fuse the plan's way (strict).
                    for h, w in [(5, 7), (8, 6), (13, 11), (6, 3)]:
                        x = torch.randn(2, 3, h, w)
                        got, want = compiled(x), scaled(x)
                        self.assertEqual(got.shape, want.shape)
                        torch.testing.assert_close(got, want, atol=1e-4,
                                                   rtol=1e-4)
        # 0.7 is not 7/10 in binary: its size rounds, and is refused.
        torch._dynamo.reset()
        with self.assertRaises(Exception) as raised:
            torch.compile(lambda x: F.interpolate(x, scale_factor=0.7),
                          backend="anyshape", dynamic=True,
                          options={"strict": True})(torch.randn(1, 2, 9, 9))
        self.assertIn("pass size=", str(raised.exception))
        # It names the op and the model's line, as an op without a
        # translation does.
        self.assertIn("test_torch.py:", str(raised.exception))

    def test_pooling_in_every_form(self):
        F = torch.nn.functional
        forms = {
            "max": lambda x: F.max_pool2d(x, 3, stride=2, padding=1),
            "max, ceil": lambda x: F.max_pool2d(x, 3, 2, ceil_mode=True),
            "max 1-D": lambda x: F.max_pool1d(x[:, 0], 2),
            "avg": lambda x: F.avg_pool2d(x, 3, stride=2, padding=1),
            "avg, pads not counted, ceil": lambda x: F.avg_pool2d(
                x, 3, 2, padding=1, ceil_mode=True, count_include_pad=False),
            "global": lambda x: F.adaptive_avg_pool2d(x, 1),
            # Windows that tile, overhanging the end: EfficientNet pools
            # with a window of 1280, built from what each window covers.
            "avg, tiles, ceil": lambda x: F.avg_pool2d(x, 4, ceil_mode=True),
            "max, tiles, ceil": lambda x: F.max_pool2d(x, 3, ceil_mode=True),
            "avg, window of 1280, ceil": lambda x: F.avg_pool2d(
                x, 1280, ceil_mode=True),
            "avg, tiles, pads, ceil": lambda x: F.avg_pool2d(
                x, 3, padding=1, ceil_mode=True, count_include_pad=False),
            # Overlapping windows of more than 16 taps: combined by doubling.
            "max, 19 taps": lambda x: F.max_pool2d(x, (1, 19), stride=1,
                                                   padding=(0, 9)),
            "max, 5 x 17 taps, ceil": lambda x: F.max_pool2d(
                x, (5, 17), stride=(1, 2), padding=(2, 8), ceil_mode=True),
            "max, dilated": lambda x: F.max_pool2d(x, 2, stride=1,
                                                   dilation=2),
        }
        for form, pool in forms.items():
            torch._dynamo.reset()
            compiled = torch.compile(pool, backend="anyshape", dynamic=True,
                                     options={"strict": True})
            for h, w in [(8, 9), (7, 7), (12, 5), (9, 16)]:
                x = torch.randn(2, 3, h, w)
                torch.testing.assert_close(compiled(x), pool(x), msg=form)

    def test_transposed_convolutions_and_flips(self):
        torch.manual_seed(0)
        cases = {
            "flip": (lambda x: x.flip(-1) * 2 + x.flip(0, 2),
                     lambda n: torch.randn(2, 3, n)),
            "ConvTranspose1d, output_padding": (
                torch.nn.ConvTranspose1d(4, 6, 3, stride=2, padding=1,
                                         output_padding=1).eval(),
                lambda n: torch.randn(2, 4, n)),
            "ConvTranspose2d, a U-Net's upsampling": (
                torch.nn.ConvTranspose2d(4, 6, 2, stride=2).eval(),
                lambda n: torch.randn(2, 4, n, n + 1)),
            "ConvTranspose2d, groups and dilation": (
                torch.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1,
                                         dilation=2, groups=2).eval(),
                lambda n: torch.randn(1, 4, n, 5)),
            # Computed in the phases of the output: groups, strides apart,
            # output padding past the zero taps (k 2, s 3), k below s, 3-D.
            "ConvTranspose2d, phases": (
                torch.nn.ConvTranspose2d(4, 6, (3, 2), stride=(2, 3),
                                         padding=(1, 0), groups=2,
                                         output_padding=(1, 2)).eval(),
                lambda n: torch.randn(2, 4, n, n - 3)),
            "ConvTranspose1d, kernel below the stride": (
                torch.nn.ConvTranspose1d(2, 3, 2, stride=3,
                                         output_padding=1).eval(),
                lambda n: torch.randn(2, 2, n)),
            "ConvTranspose3d": (
                torch.nn.ConvTranspose3d(2, 2, (3, 3, 4), stride=(2, 1, 2),
                                         padding=(1, 1, 1)).eval(),
                lambda n: torch.randn(1, 2, n, 3, n - 2)),
        }
        for name, (model, make) in cases.items():
            torch._dynamo.reset()
            compiled = torch.compile(model, backend="anyshape",
                                     dynamic=True, options={"strict": True})
            with torch.no_grad():
                for n in (5, 8, 13):
                    x = make(n)
                    torch.testing.assert_close(compiled(x), model(x),
                                               msg=name)

    def test_outputs_keep_what_eager_returns(self):
        """Found by a differential run against eager: an output that is a
        view of an input at an offset that depends on a size (AOTAutograd
        rebuilds it from what the graph returns), a 0-d result, any/all
        over an empty dim, and a variance whose correction reaches the
        count (PyTorch divides by max(0, n - correction))."""
        torch.manual_seed(0)
        cases = {
            "views of the input": (
                lambda x: (x.narrow(1, 1, x.shape[1] - 2),
                           x[:, x.shape[1] // 2:], x.chunk(3, dim=1)[1],
                           x[1:-1], x.t(), x[:, ::2]),
                [(5, 8), (3, 7), (2, 9)]),
            "0-d results": (
                lambda x: (x.mean(), x.sum() + 1, (x[0] * x[0]).sum(-1)),
                [(3, 4), (2, 5), (7, 1)]),
            "any and all": (
                lambda x: ((x > 0).any(-1), (x > 0).all(-1), (x > 0).any(),
                           (x > 0).all()),
                [(3, 4), (3, 0), (2, 2)]),
            "var past its count": (
                lambda x: (x.var(dim=0, correction=2),
                           torch.std(x, dim=0, correction=3)),
                [(5, 3), (1, 3), (2, 3)]),
        }
        for name, (f, shapes) in cases.items():
            torch._dynamo.reset()
            compiled = torch.compile(f, backend="anyshape", dynamic=True,
                                     options={"strict": True})
            for shape in shapes:
                x = torch.arange(math.prod(shape), dtype=torch.float32
                                 ).reshape(shape) - 3
                for got, want in zip(compiled(x), f(x)):
                    self.assertEqual(got.shape, want.shape, msg=name)
                    torch.testing.assert_close(got, want, equal_nan=True,
                                               msg=name)

    def test_export_keeps_its_assumptions(self):
        """What torch.export assumed of the sizes holds when the program
        runs, or the call fails: Dim ranges (a branch taken for n > 4),
        a size-dependent exponent not taken at the example's value, and
        a squeeze of a dim the trace kept; and forms PyTorch allows that
        were refused: bool + bool, a strided slice past the dim."""
        from torch.export import Dim

        class Branch(torch.nn.Module):
            def forward(self, x):
                return x * 2 if x.shape[0] > 4 else x - 1

        exported = at.export(Branch(), (torch.ones(8, 3),),
                             dynamic_shapes=({0: Dim("a", min=5)},))
        torch.testing.assert_close(exported(torch.ones(6, 3)),
                                   Branch()(torch.ones(6, 3)))
        with self.assertRaisesRegex(RuntimeError, "to be >= 5, but got 3"):
            exported(torch.ones(3, 3))
        with self.assertRaisesRegex(TypeError, "input 'x' is torch.float64, "
                                               "exported as torch.float32"):
            exported(torch.ones(6, 3, dtype=torch.float64))

        class Forms(torch.nn.Module):
            def forward(self, x):
                return (x ** (x.shape[0] % 2), x ** (x.shape[0] // 2),
                        (x > 0) + (x < -1))

        exported = at.export(Forms(), (torch.randn(5, 2),),
                             dynamic_shapes=({0: Dim("n", min=1)},))
        for n in (5, 2, 4, 3):
            x = torch.randn(n, 2)
            for got, want in zip(exported(x), Forms()(x)):
                torch.testing.assert_close(got, want)

        class Squeeze(torch.nn.Module):
            def forward(self, x):
                return x.squeeze(0) * 2

        exported = at.export(Squeeze(), (torch.ones(3, 5),),
                             dynamic_shapes=({0: Dim("b", min=1)},))
        torch.testing.assert_close(exported(torch.ones(3, 5)),
                                   Squeeze()(torch.ones(3, 5)))
        with self.assertRaisesRegex(anyshape_error(),
                                    "squeeze_keeps_dim_0_which_must_not"):
            exported(torch.ones(1, 5))

        def strided(x):
            return x[:, 2:7:2], x[:, 7::2]
        torch._dynamo.reset()
        compiled = torch.compile(strided, backend="anyshape", dynamic=True,
                                 options={"strict": True})
        for width in (9, 12, 2, 5, 3):
            x = torch.arange(3 * width).reshape(3, width)
            for got, want in zip(compiled(x), strided(x)):
                torch.testing.assert_close(got, want)

    def test_float64_is_computed_in_float32_saying_so(self):
        torch._dynamo.reset()
        compiled = torch.compile(lambda x: x * 3, backend="anyshape",
                                 dynamic=True)
        x = torch.ones(4, 3, dtype=torch.float64)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = compiled(x)
        self.assertEqual(got.dtype, torch.float64)
        self.assertTrue(any("computes float64 in float32" in str(w.message)
                            for w in caught))

    def test_top2_mixture_of_experts(self):
        torch.manual_seed(0)

        class MixtureOfExperts(torch.nn.Module):
            def __init__(self, d=16, experts=4):
                super().__init__()
                self.gate = torch.nn.Linear(d, experts)
                self.experts = torch.nn.ModuleList(
                    torch.nn.Linear(d, d) for _ in range(experts))

            def forward(self, x):
                weights, chosen = torch.topk(self.gate(x).softmax(-1), 2)
                out = torch.zeros_like(x)
                for e, expert in enumerate(self.experts):
                    weight = (weights * (chosen == e)).sum(-1, keepdim=True)
                    out = out + weight * expert(x)
                return out, chosen

        model = MixtureOfExperts().eval()
        compiled = torch.compile(model, backend="anyshape", dynamic=True,
                                 options={"strict": True})
        with torch.no_grad():
            for n in (3, 7, 19, 40):
                x = torch.randn(2, n, 16)
                (got, got_chosen), (want, want_chosen) = compiled(x), model(x)
                torch.testing.assert_close(got, want)
                self.assertTrue(torch.equal(got_chosen, want_chosen))

        def smallest(x):
            return torch.topk(x, 3, dim=1, largest=False)

        x = torch.tensor([[3., 1., 2., 1., 5.],
                          [0., float("nan"), 2., 7., 1.]])
        got = torch.compile(smallest, backend="anyshape",
                            options={"strict": True})(x)
        torch.testing.assert_close(got.values, smallest(x).values)
        self.assertTrue(torch.equal(got.indices, smallest(x).indices))

    def test_transformers_mixture_of_experts_layers(self):
        # Their default experts under torch.compile: torch.histc counts
        # each expert's rows, transformers' grouped_mm_fallback multiplies
        # them.
        for name in ("mixtral", "qwen2_moe"):
            with self.subTest(name):
                torch._dynamo.reset()
                dynamo_counters.clear()
                self.compiles = at.session().compiles
                self.check_compiled(name, lambda b, s: {
                    "input_ids": torch.randint(0, 100, (b, s)),
                    "use_cache": False})

    def test_histc_counts_as_pytorch_does(self):
        def counts(x):
            return torch.histc(x, bins=7, min=-1.3, max=2.1)

        compiled = torch.compile(counts, backend="anyshape", dynamic=True,
                                 options={"strict": True})
        # Every bin edge PyTorch computes, each edge's float neighbours,
        # both ends, values outside, NaN and infinities.
        edges = torch.linspace(-1.3, 2.1, 8)
        special = torch.cat([
            edges, torch.nextafter(edges, torch.tensor(-9.0)),
            torch.nextafter(edges, torch.tensor(9.0)),
            torch.tensor([float("nan"), float("inf"), -float("inf"),
                          -5.0, 7.0])])
        torch.manual_seed(0)
        for n in (2, 5, 40, 333):
            x = torch.cat([special, torch.rand(n) * 4 - 1.5])
            x = x[torch.randperm(x.numel())]
            self.assertTrue(torch.equal(compiled(x), counts(x)), n)

        # The data's own range (min == max) is refused, naming the op.
        with self.assertRaises(Exception) as raised:
            torch.compile(lambda x: torch.histc(x, 4, min=1, max=1),
                          backend="anyshape", dynamic=True,
                          options={"strict": True})(torch.rand(6))
        self.assertIn("aten.histc", str(raised.exception))
        self.assertIn("min == max", str(raised.exception))

    def test_a_size_passed_as_a_python_int(self):
        # Dynamo makes an int argument, or a closure's, a size no tensor
        # carries: sent as the dim of an empty tensor, bound as any dim.
        def top(x, k):
            return torch.topk(x, k).values, x[:, :k] * 2, k + x.shape[1]

        compiled = torch.compile(top, backend="anyshape", dynamic=True,
                                 options={"strict": True})
        for n, k in ((8, 3), (20, 5), (33, 7), (12, 2)):
            x = torch.randn(2, n)
            (values, head, size), want = compiled(x, k), top(x, k)
            torch.testing.assert_close(values, want[0])
            torch.testing.assert_close(head, want[1])
            self.assertEqual(size, want[2])
        self.assertOneGraphOneCompile()

        torch._dynamo.reset()
        dynamo_counters.clear()
        for k in (4, 6):
            def closure(x):
                return torch.topk(x, k).indices
            x = torch.randn(3, 10)
            got = torch.compile(closure, backend="anyshape", dynamic=True,
                                options={"strict": True})(x)
            self.assertTrue(torch.equal(got, closure(x)))

    def test_sorting_for_sampling_at_every_vocabulary_length(self):
        # Top-k then top-p filtering of logits (what generate() samples
        # from), sort and argsort both ways, kthvalue, the running folds:
        # one graph and one compile for every length, ties and NaN placed
        # as PyTorch does.
        # k and p as literals (an int argument is a size input of its
        # own: test_a_size_passed_as_a_python_int).
        def filtered(logits):
            top, _ = torch.topk(logits, 50)
            logits = logits.masked_fill(logits < top[..., -1:], -1e9)
            ordered, order = torch.sort(logits, descending=True)
            cumulative = ordered.softmax(-1).cumsum(-1)
            drop = cumulative - ordered.softmax(-1) > 0.9
            drop = drop.scatter(-1, order, drop)
            return logits.masked_fill(drop, -1e9)

        def orders(x):
            up = torch.sort(x, dim=0, stable=True)
            down = torch.argsort(x, dim=-1, descending=True, stable=True)
            kth = torch.kthvalue(x, 2, dim=1, keepdim=True)
            # Which of equal elements kthvalue names is PyTorch's choice:
            # compared through the value at the position.
            top = torch.cummax(x, dim=1)
            bottom = torch.cummin(x, dim=0)
            return (up.values, up.indices, down, kth.values,
                    x.gather(1, kth.indices), top.values, top.indices,
                    bottom.values, bottom.indices, x.cumsum(0),
                    (x / 4).cumprod(1),
                    x[1:].long().cumsum(1))  # NaN as an integer: undefined

        compiled = torch.compile(filtered, backend="anyshape", dynamic=True,
                                 options={"strict": True})
        for vocab in (64, 100, 257, 1000):
            logits = torch.randn(3, vocab)
            torch.testing.assert_close(compiled(logits), filtered(logits))
        self.assertOneGraphOneCompile()

        torch._dynamo.reset()
        compiled = torch.compile(orders, backend="anyshape", dynamic=True,
                                 options={"strict": True})
        for n in (3, 8, 31):
            x = torch.randint(-3, 4, (n, n + 2)).float()  # ties everywhere
            x[0, 1] = float("nan")
            for got, want in zip(compiled(x), orders(x)):
                torch.testing.assert_close(got, want, equal_nan=True)

    def test_boolean_masks_compile_once_with_their_counts(self):
        # Padding-free packing: x[mask] through an MLP and back, the mask's
        # nonzero, and a masked fill. The count is a size only the run
        # gives: torch.export keeps it (an unbacked size), Dynamo when
        # asked to capture dynamic output shapes. Masks that pick nothing
        # and everything included.
        class Packing(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.mlp = torch.nn.Linear(4, 4)

            def forward(self, x, mask):
                out = torch.zeros_like(x)
                out[mask] = self.mlp(x[mask])
                cleared = x.clone()
                cleared[~mask] = 0.0
                return out, mask.nonzero(), cleared

        torch.manual_seed(0)
        model = Packing().eval()
        cases = [(2, 5, 0.5), (2, 7, 0.0), (3, 9, 1.0), (2, 33, 0.3)]

        def check(run):
            with torch.no_grad():
                for batch, seq, p in cases:
                    x = torch.randn(batch, seq, 4)
                    mask = torch.rand(batch, seq) < p
                    for got, want in zip(run(x, mask), model(x, mask)):
                        self.assertEqual(got.shape, want.shape)
                        torch.testing.assert_close(got, want)

        b, s = torch.export.Dim("b"), torch.export.Dim("s")
        x, mask = torch.randn(2, 5, 4), torch.rand(2, 5) < 0.5
        check(at.export(model, (x, mask), dynamic_shapes={
            "x": {0: b, 1: s}, "mask": {0: b, 1: s}}))
        self.assertEqual(at.session().compiles - self.compiles, 1)

        config = torch._dynamo.config
        before = config.capture_dynamic_output_shape_ops
        config.capture_dynamic_output_shape_ops = True
        try:
            check(torch.compile(model, backend="anyshape", dynamic=True,
                                options={"strict": True}))
        finally:
            config.capture_dynamic_output_shape_ops = before
        self.assertEqual(dynamo_counters["stats"]["unique_graphs"], 1)

    def test_slice_assignment(self):
        def model(x, y):
            z = x.clone()
            z[:, 2:5] = y[:, :3] * 2
            z[:, -1] = y[:, 0]
            z[:, 0] = 7
            return z

        compiled = torch.compile(model, backend="anyshape", dynamic=True,
                                 options={"strict": True})
        for n in (6, 9, 13):
            x, y = torch.randn(3, n), torch.randn(3, n)
            torch.testing.assert_close(compiled(x, y), model(x, y))

    def test_convolution_front_end_compiles_once(self):
        torch.manual_seed(0)
        model = torch.nn.Sequential(
            torch.nn.Conv1d(1, 8, 10, stride=5), torch.nn.GroupNorm(8, 8),
            torch.nn.GELU(),  # wav2vec2's feature extractor
            torch.nn.Conv1d(8, 16, 3, stride=2, padding=1), torch.nn.ReLU(),
        ).eval()
        compiled = torch.compile(model, backend="anyshape", dynamic=True,
                                 options={"strict": True})
        with torch.no_grad():
            for batch, seq in LENGTHS:
                x = torch.randn(batch, 1, 100 + 37 * seq)
                torch.testing.assert_close(compiled(x), model(x), atol=1e-4,
                                           rtol=1e-4)
        self.assertOneGraphOneCompile()

    def test_export_serves_every_length_including_one(self):
        for name in ("bert", "gpt2"):
            model = tiny(name).eval()
            if name == "gpt2":
                model.config.use_cache = False
            batch = torch.export.Dim("batch", max=64)
            seq = torch.export.Dim("seq", max=512)
            ids = torch.randint(0, 100, (2, 7))
            mask = torch.ones(2, 7, dtype=torch.long)
            before = at.session().compiles
            exported = at.export(model, (), {"input_ids": ids,
                                             "attention_mask": mask},
                                 dynamic_shapes={"input_ids": {0: batch,
                                                               1: seq},
                                                 "attention_mask": {
                                                     0: batch, 1: seq}})
            with torch.no_grad():
                for b, s in LENGTHS + [(1, 1), (1, 9)]:
                    ids = torch.randint(0, 100, (b, s))
                    mask = torch.ones(b, s, dtype=torch.long)
                    mask[0, s // 2 + 1:] = 0
                    got = exported(input_ids=ids, attention_mask=mask)
                    want = model(input_ids=ids, attention_mask=mask)
                    torch.testing.assert_close(first(got), first(want),
                                               atol=1e-4, rtol=1e-4)
            self.assertEqual(at.session().compiles - before, 1, name)

    def test_attention_in_every_form(self):
        sdpa = torch.nn.functional.scaled_dot_product_attention

        class Attention(torch.nn.Module):
            def __init__(self, form):
                super().__init__()
                self.form = form

            def forward(self, q, k, v, m):
                if self.form == "causal":
                    return sdpa(q, k, v, is_causal=True)
                if self.form == "bool":
                    return sdpa(q, k, v, attn_mask=m > 0)
                if self.form == "float":
                    return sdpa(q, k, v, attn_mask=m, scale=0.3)
                return sdpa(q, k[:, :2], v[:, :2], enable_gqa=True)

        b, l, s = (torch.export.Dim(n, max=512) for n in "bls")
        for form in ("causal", "bool", "float", "gqa"):
            keys = l if form == "causal" else s
            example = (torch.randn(2, 4, 5, 8), torch.randn(2, 4, 5, 8),
                       torch.randn(2, 4, 5, 8), torch.randn(2, 1, 5, 5))
            exported = at.export(Attention(form), example, dynamic_shapes=(
                {0: b, 2: l}, {0: b, 2: keys}, {0: b, 2: keys},
                {0: b, 2: l, 3: keys}))
            for n, rows, columns in [(2, 5, 5), (1, 3, 7), (3, 9, 2),
                                     (2, 1, 1)]:
                columns = rows if form == "causal" else columns
                args = (torch.randn(n, 4, rows, 8),
                        torch.randn(n, 4, columns, 8),
                        torch.randn(n, 4, columns, 8),
                        torch.randn(n, 1, rows, columns))
                args[3][:, :, 0, :] = -1  # a row the bool mask empties
                torch.testing.assert_close(exported(*args),
                                           Attention(form)(*args),
                                           msg=form)

    def test_export_decodes_greedily_with_its_cache(self):
        torch.manual_seed(0)
        model = Decoder().eval()
        batch = torch.export.Dim("batch", max=64)
        seq = torch.export.Dim("seq", max=4096)
        past = torch.export.Dim("past", max=4096)
        example = (torch.randint(0, 50, (2, 5)), torch.randn(2, 4, 3, 8),
                   torch.randn(2, 4, 3, 8))
        exported = at.export(model, example, dynamic_shapes=(
            {0: batch, 1: seq}, {0: batch, 2: past}, {0: batch, 2: past}))
        self.assertEqual(at.session().compiles - self.compiles, 1)
        with torch.no_grad():
            for prompt in (6, 1, 11):
                ids = torch.randint(0, 50, (2, prompt))
                k = v = want_k = want_v = torch.zeros(2, 4, 0, 8)
                for step in range(12):  # prefill at past 0, then decode
                    logits, k, v = exported(ids, k, v)
                    want, want_k, want_v = model(ids, want_k, want_v)
                    torch.testing.assert_close(logits, want, atol=1e-4,
                                               rtol=1e-4)
                    torch.testing.assert_close(k, want_k)
                    ids = logits[:, -1:].argmax(-1)
                    self.assertTrue(torch.equal(ids,
                                                want[:, -1:].argmax(-1)))
        self.assertEqual(at.session().compiles - self.compiles, 1)

    def test_size_one_is_a_second_graph_and_still_right(self):
        model = tiny("llama").eval()
        compiled = torch.compile(model, backend="anyshape", dynamic=True)
        with torch.no_grad():
            for batch, seq in [(2, 7), (1, 9), (1, 4), (3, 5)]:
                ids = torch.randint(0, 100, (batch, seq))
                torch.testing.assert_close(
                    first(compiled(input_ids=ids, use_cache=False)),
                    first(model(input_ids=ids, use_cache=False)),
                    atol=1e-4, rtol=1e-4)
        self.assertEqual(dynamo_counters["stats"]["unique_graphs"], 2)
        self.assertEqual(at.counters["fallbacks"], 0)

    def test_a_batch_of_one_follows_the_fusion_plan(self):
        # Dynamo specialises a batch of 1 into a graph of its own, whose
        # reshapes of [1, s, h] gave GPT-NeoX kernels the plan does not
        # have; strict, as ctest compiles, that fails the compile.
        model = tiny("gpt_neox").eval()
        compiled = torch.compile(model, backend="anyshape", dynamic=True,
                                 options={"strict": True})
        with torch.no_grad():
            for batch, seq in [(2, 5), (1, 7), (1, 12)]:
                ids = torch.randint(0, 100, (batch, seq))
                torch.testing.assert_close(
                    first(compiled(input_ids=ids, use_cache=False)),
                    first(model(input_ids=ids, use_cache=False)),
                    atol=1e-4, rtol=1e-4)

    def test_the_same_model_twice_is_one_compile(self):
        model = tiny("bert").eval()
        ids = torch.randint(0, 100, (2, 7))
        with torch.no_grad():
            for _ in range(2):
                torch._dynamo.reset()
                torch.compile(model, backend="anyshape", dynamic=True)(
                    input_ids=ids)
        # Dynamo's symbol numbers differ between the traces; the wire
        # graph's canonical names do not, so the second is a cache hit.
        self.assertEqual(at.session().compiles - self.compiles, 1)

    def test_an_untranslatable_op_runs_eagerly_with_one_warning(self):
        def model(x):
            return torch.fft.rfft(x).abs() + 1

        x = torch.randn(4, 16)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = torch.compile(model, backend="anyshape", dynamic=True)(x)
        torch.testing.assert_close(got, model(x))
        self.assertEqual(at.counters["fallbacks"], 1)
        messages = [str(w.message) for w in caught
                    if "anyshape" in str(w.message)]
        self.assertEqual(len(messages), 1)
        self.assertIn("fft", messages[0])
        self.assertIn("test_torch.py", messages[0])  # the source line

    def test_strict_raises_naming_the_op_and_line(self):
        def model(x):
            return torch.fft.rfft(x).abs()

        compiled = torch.compile(model, backend="anyshape",
                                 options={"strict": True})
        with self.assertRaises(Exception) as raised:
            compiled(torch.randn(4, 16))
        self.assertIn("fft", str(raised.exception))
        self.assertIn("test_torch.py", str(raised.exception))

    def test_indexed_writes(self):
        def put(x, i, v):
            z = x.clone()
            z[i] = v
            return z

        def put_heads(x, i, v):  # a static cache's k[:, :, positions] = k
            z = x.clone()
            z[:, :, i] = v
            return z

        cases = {
            "index_put": (put, lambda n: (torch.randn(n, 4),
                                          torch.tensor([0, n - 1, -2]),
                                          torch.randn(3, 4))),
            "index_put on dim 2": (put_heads, lambda n: (
                torch.randn(2, 3, n, 4), torch.tensor([1, 0]),
                torch.randn(2, 3, 2, 4))),
            "index_put, accumulate": (
                lambda x, i, v: x.index_put((i,), v, accumulate=True),
                lambda n: (torch.randn(n, 4), torch.tensor([1, 1, 0]),
                           torch.randn(3, 4))),
            "index_add": (
                lambda x, i, v: x.index_add(0, i, v, alpha=2),
                lambda n: (torch.randn(n, 4), torch.tensor([1, 1, n - 1]),
                           torch.randn(3, 4))),
            "scatter_add": (
                lambda x, i, v: x.scatter_add(1, i, v),
                lambda n: (torch.randn(3, n), torch.randint(0, n, (3, 2)),
                           torch.randn(3, 5))),
            # Index tensors that broadcast together: [n, 1] rows and [2]
            # columns write an [n, 2] block (F.fold's own writes).
            "index_put, broadcast indices": (
                lambda x, i, j, v: x.index_put((i, j), v, accumulate=True),
                lambda n: (torch.randn(n, 4), torch.arange(n)[:, None],
                           torch.tensor([3, 0]), torch.randn(n, 2))),
            "fold": (
                lambda x: torch.nn.functional.fold(
                    torch.nn.functional.unfold(x, 2, stride=2) * 2,
                    x.shape[-2:], 2, stride=2),
                lambda n: (torch.randn(2, 3, 2 * n, 4),)),
        }
        for name, (model, make) in cases.items():
            torch._dynamo.reset()
            compiled = torch.compile(model, backend="anyshape",
                                     dynamic=True, options={"strict": True})
            for n in (5, 8, 13):
                args = make(n)
                torch.testing.assert_close(compiled(*args), model(*args),
                                           msg=name)
        with self.assertRaises(anyshape_error()) as raised:
            compiled_put = torch.compile(put, backend="anyshape",
                                         dynamic=True)
            compiled_put(torch.randn(5, 4), torch.tensor([5]),
                         torch.randn(1, 4))
        self.assertIn("index_put", str(raised.exception))

    def test_an_index_out_of_range_is_an_error_naming_the_op(self):
        model = torch.nn.Embedding(10, 4).eval()
        exported = at.export(model, (torch.tensor([[1, 2]]),),
                             dynamic_shapes=({1: torch.export.Dim("n")},))
        with self.assertRaises(anyshape_error()) as raised:
            exported(torch.tensor([[1, 10, 3]]))
        self.assertIn("embedding", str(raised.exception))
        with self.assertRaises(anyshape_error()) as raised:
            exported(torch.randn(1, 3))  # the argument, by its name
        self.assertIn("input 'input' is f32, expected i64",
                      str(raised.exception))
        # The server keeps serving.
        torch.testing.assert_close(exported(torch.tensor([[3, 4]])),
                                   model(torch.tensor([[3, 4]])))


def anyshape_error():
    from anyshape import AnyShapeError
    return AnyShapeError


if __name__ == "__main__":
    unittest.main()
