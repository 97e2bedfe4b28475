"""More of tests/onnx/op_fixtures.py's cases, the ones about sizes: one
mask's counts (NonZero of an expanded mask, a mask's sum as a size), exact
ConstantOfShape fills, a Slice beside an anonymous dim, sizes with a max
in them, float16, norms of nothing, normalisations over trailing dims,
outputs that are inputs, slice bounds past the end, opset 23's
Attention and RotaryEmbedding, the forms opsets 9 to 12 write, and the
trigonometric and hyperbolic functions. op_fixtures.py calls main with
itself, so these draw from its random generator after its own cases, and
every fixture written before stays byte-identical."""

import numpy as np
from onnx import TensorProto, helper, numpy_helper


def mask_count_cases(fx):
    """One mask, one count: NonZero of a mask expanded over new dims (its
    coordinates built from the mask's, in ONNX's row-major order, where
    the stretched dims allow it), and the mask's sum as a shape, the way
    PyTorch exports out[mask] = y."""
    B = TensorProto.BOOL
    coin = {"m": lambda shape, _: fx.rng.random(shape) < 0.5}
    mask_shapes = [{"b": 1, "s": 1}, {"b": 2, "s": 5}, {"b": 3, "s": 9},
                   {"b": 2, "s": 0}]
    fx.case("nonzero_expanded_trailing",
         [fx.node("Unsqueeze", ["m", "two"], ["m3"]),
          fx.node("Shape", ["m"], ["ms"]),
          fx.node("Concat", ["ms", "three"], ["target"], axis=0),
          fx.node("Expand", ["m3", "target"], ["e"]),
          fx.node("NonZero", ["e"], ["y"])],
         [("m", B, ["b", "s"])], ["y"], mask_shapes, make=coin,
         inits=[fx.const("two", [2]), fx.const("three", [3])])
    fx.case("nonzero_expanded_leading",
         [fx.node("Cast", ["m"], ["f"], to=fx.F),
          fx.node("Expand", ["f", "lead"], ["e"]),
          fx.node("NonZero", ["e"], ["y"])],
         [("m", B, ["s"])], ["y"],
         [{"s": 1}, {"s": 6}, {"s": 17}, {"s": 0}], make=coin,
         inits=[fx.const("lead", [3, 1])])
    fx.case("nonzero_expanded_between",  # not in row-major blocks: its own
         [fx.node("Unsqueeze", ["m", "one"], ["m3"]),
          fx.node("Expand", ["m3", "heads"], ["e"]),
          fx.node("NonZero", ["e"], ["y"])],
         [("m", B, ["b", "s"])], ["y"], mask_shapes, make=coin,
         inits=[fx.const("one", [1]), fx.const("heads", [1, 3, 1])])
    tokens = [("x", fx.F, ["b", "s", 4]), ("m", B, ["b", "s"])]
    fx.case("mask_assign_through_sum",  # out[mask] = relu(x[mask])
         [fx.node("NonZero", ["m"], ["nz"]),
          fx.node("Transpose", ["nz"], ["at"], perm=[1, 0]),
          fx.node("GatherND", ["x", "at"], ["tokens"]),
          fx.node("Relu", ["tokens"], ["y"]),
          fx.node("Reshape", ["m", "flat"], ["mflat"]),
          fx.node("Cast", ["mflat"], ["mint"], to=fx.I),
          fx.node("ReduceSum", ["mint"], ["count"], keepdims=1),
          fx.node("Concat", ["count", "four"], ["yshape"], axis=0),
          fx.node("Expand", ["y", "yshape"], ["ye"]),
          fx.node("Reshape", ["ye", "flat"], ["updates"]),
          fx.node("Unsqueeze", ["m", "two"], ["m3"]),
          fx.node("Shape", ["x"], ["xs"]),
          fx.node("Expand", ["m3", "xs"], ["e"]),
          fx.node("NonZero", ["e"], ["enz"]),
          fx.node("Transpose", ["enz"], ["eat"], perm=[1, 0]),
          fx.node("ConstantOfShape", ["xs"], ["zero"]),
          fx.node("ScatterND", ["zero", "eat", "updates"], ["out"])],
         tokens, ["out"], mask_shapes, make=coin,
         inits=[fx.const("flat", [-1]), fx.const("four", [4]), fx.const("two", [2])])
    fx.case("mask_sum_as_size",  # zeros of [mask.sum(), 2], no NonZero at all
         [fx.node("Cast", ["m"], ["mint"], to=fx.I),
          fx.node("ReduceSum", ["mint"], ["count"], keepdims=0),
          fx.node("Unsqueeze", ["count", "zero"], ["c1"]),
          fx.node("Concat", ["c1", "two"], ["shape"], axis=0),
          fx.node("ConstantOfShape", ["shape"], ["y"])],
         [("m", B, ["b", "s"])], ["y"], mask_shapes, make=coin,
         inits=[fx.const("zero", [0]), fx.const("two", [2])])


def constant_fill_cases(fx):
    """ConstantOfShape's fill in every element type it takes, exactly:
    int32 past a byte, int64 past 2^53, bool."""
    def fill(name, elem, value, dtype):
        tensor = numpy_helper.from_array(np.array([value], dtype=dtype))
        fx.case(name, [fx.node("Shape", ["x"], ["s"]),
                    fx.node("ConstantOfShape", ["s"], ["y"], value=tensor)],
             fx.X, ["y"], fx.SHAPES)
    fill("constant_of_shape_i32", TensorProto.INT32, 300, np.int32)
    fill("constant_of_shape_i64_max", fx.I, np.iinfo(np.int64).max, np.int64)
    fill("constant_of_shape_bool", TensorProto.BOOL, True, np.bool_)


def anonymous_dim_cases(fx):
    """A Slice beside a dim no expression names: a reshape's -1 that does
    not divide exactly (6n / 4) is anonymous, and the slice of another
    axis keeps it whole (Swin's window un-padding)."""
    even = [{"n": 2}, {"n": 4}, {"n": 6}, {"n": 0}]
    for name, start, end, step in [("slice_beside_anonymous_dim", 0, 2, 1),
                                   ("slice_strided_beside_anonymous_dim",
                                    1, 4, 2)]:
        fx.case(name,
             [fx.node("Reshape", ["x", "rows"], ["r"]),
              fx.node("Slice", ["r", "s", "e", "a", "t"], ["y"])],
             [("x", fx.F, ["n", 6])], ["y"], even,
             inits=[fx.const("rows", [-1, 4]), fx.const("s", [start]),
                    fx.const("e", [end]), fx.const("a", [1]), fx.const("t", [step])])


def extremum_cases(fx):
    """Sizes with a max in them: a slice from -5 on a symbolic dim (ONNX
    clamps the start at 0: max(0, n - 5)), and an Expand to past + 1 -
    max(0, past - 3), how torch.export writes a sliding window's length."""
    short_and_long = [{"n": 0, "m": 2}, {"n": 3, "m": 1}, {"n": 5, "m": 4},
                      {"n": 9, "m": 2}]
    fx.case("slice_from_the_end_clamped",
         [fx.node("Slice", ["x", "s", "e", "a"], ["y"])],
         fx.X, ["y"], short_and_long,
         inits=[fx.const("s", [-5]), fx.const("e", [2 ** 62]), fx.const("a", [0])])
    fx.case("expand_to_a_window",
         [fx.node("Shape", ["x"], ["shape"]),
          fx.node("Gather", ["shape", "zero"], ["past"]),
          fx.node("Add", ["past", "minus3"], ["over"]),
          fx.node("Max", ["zero", "over"], ["dropped"]),
          fx.node("Sub", ["past", "dropped"], ["kept"]),
          fx.node("Add", ["kept", "one"], ["length"]),
          fx.node("Unsqueeze", ["length", "axis0"], ["length1"]),
          fx.node("Concat", ["length1", "two"], ["target"], axis=0),
          fx.node("Expand", ["row", "target"], ["y"])],
         fx.X, ["y"], short_and_long,
         inits=[fx.const("zero", 0), fx.const("minus3", -3), fx.const("one", 1),
                fx.const("two", [2]), fx.const("axis0", [0]),
                helper.make_tensor("row", fx.F, [1, 2], [1.5, -2.0])])


def half_precision_cases(fx):
    """float16 tensors: a constant stored as bits in int32_data (what
    onnx.helper writes) and one in raw_data, through Cast both ways."""
    H = TensorProto.FLOAT16
    bits = helper.make_tensor("scale", H, [1], [1.5])
    raw = numpy_helper.from_array(np.array([-0.25], dtype=np.float16),
                                  name="shift")
    fx.case("cast_through_f16",
         [fx.node("Cast", ["x"], ["h"], to=H),
          fx.node("Mul", ["h", "scale"], ["scaled"]),
          fx.node("Add", ["scaled", "shift"], ["moved"]),
          fx.node("Cast", ["moved"], ["y"], to=fx.F)],
         fx.X, ["y", "moved"], fx.SHAPES, inits=[bits, raw])
    fx.case("constant_of_shape_f16",
         [fx.node("Shape", ["x"], ["s"]),
          fx.node("ConstantOfShape", ["s"], ["y"], value=numpy_helper.from_array(
              np.array([-2.5], dtype=np.float16)))],
         fx.X, ["y"], fx.SHAPES)


def big_window_pool_cases(fx):
    """Pools whose windows are large, computed one spatial dim at a time:
    EfficientNet's pooler (a 64x64 average with ceil_mode over images
    smaller than the window: one window, the mean of what is there), a
    tiling max of 8x8, and a strided 9x3 max (taps along each dim)."""
    x = [("x", fx.F, ["n", 3, "h", "w"])]
    small = [{"n": 1, "h": 1, "w": 1}, {"n": 2, "h": 3, "w": 5},
             {"n": 1, "h": 7, "w": 4}, {"n": 1, "h": 64, "w": 70}]
    fx.case("avgpool2d_window_beyond_input",
            [fx.node("AveragePool", ["x"], ["y"], kernel_shape=[64, 64],
                     strides=[64, 64], ceil_mode=1)], x, ["y"], small)
    fx.case("maxpool2d_tiling_8",
            [fx.node("MaxPool", ["x"], ["y"], kernel_shape=[8, 8],
                     strides=[8, 8], pads=[0, 1, 3, 2])], x, ["y"],
            [{"n": 1, "h": 8, "w": 5}, {"n": 2, "h": 21, "w": 30},
             {"n": 1, "h": 17, "w": 6}])
    fx.case("maxpool2d_strided_9x3",
            [fx.node("MaxPool", ["x"], ["y"], kernel_shape=[9, 3],
                     strides=[2, 3], dilations=[1, 2], pads=[2, 1, 0, 1])],
            x, ["y"], [{"n": 1, "h": 7, "w": 5}, {"n": 2, "h": 20, "w": 11}])
    fx.case("avgpool2d_tiling_include_pad",
            [fx.node("AveragePool", ["x"], ["y"], kernel_shape=[4, 2],
                     strides=[4, 2], pads=[1, 1, 0, 0], count_include_pad=1,
                     ceil_mode=1)], x, ["y"],
            [{"n": 1, "h": 1, "w": 1}, {"n": 2, "h": 9, "w": 6},
             {"n": 1, "h": 12, "w": 13}])


def from_the_end_cases(fx):
    """Bounds counted from the end by a size (x[:, -n:], x[:, :-n]: the
    positions of the new tokens, as transformers' generate() slices them),
    -n by Neg and by a Mul by -1; and CumSum's axis as an int32 constant
    (TorchScript's export of mask.cumsum(-1))."""
    two = [("x", fx.F, ["b", "t"]), ("ids", fx.I, ["b", "n"])]
    shapes = [{"b": 1, "t": 6, "n": 6}, {"b": 2, "t": 8, "n": 1},
              {"b": 1, "t": 13, "n": 4}]
    size_of_ids = [fx.node("Shape", ["ids"], ["shape"]),
                   fx.node("Gather", ["shape", "one"], ["n"]),
                   fx.node("Neg", ["n"], ["minus_n"]),
                   fx.node("Unsqueeze", ["minus_n", "axis0"], ["bound"])]
    fx.case("slice_from_the_end_by_a_size",
            size_of_ids + [fx.node("Slice", ["x", "bound", "end", "axis1"],
                                   ["y"])],
            two, ["y"], shapes,
            inits=[fx.const("one", 1), fx.const("axis0", [0]),
                   fx.const("end", [2 ** 62]), fx.const("axis1", [1])])
    fx.case("slice_to_the_end_less_a_size",
            [fx.node("Shape", ["ids"], ["shape"]),
             fx.node("Gather", ["shape", "one"], ["n"]),
             fx.node("Mul", ["n", "minus1"], ["minus_n"]),
             fx.node("Unsqueeze", ["minus_n", "axis0"], ["bound"]),
             fx.node("Slice", ["x", "zero", "bound", "axis1"], ["y"])],
            two, ["y"], shapes,
            inits=[fx.const("one", 1), fx.const("minus1", -1),
                   fx.const("axis0", [0]), fx.const("zero", [0]),
                   fx.const("axis1", [1])])
    fx.case("cumsum_axis_i32",
            [fx.node("CumSum", ["x", "axis"], ["y"])], fx.X, ["y"],
            fx.SHAPES,
            inits=[helper.make_tensor("axis", TensorProto.INT32, [], [-1])])


def empty_operand_cases(fx):
    """A rotary embedding over the whole head as TorchScript exports Phi-3's
    (partial_rotary_factor 1): torch.cat((q * cos + q.flip(-1) * sin,
    q[..., 16:]), -1), the second operand always empty."""
    q = [("q", fx.F, ["b", 4, "s", 16]), ("cos", fx.F, [1, "s", 16]),
         ("sin", fx.F, [1, "s", 16])]
    fx.case("concat_with_an_empty_slice",
            [fx.node("Slice", ["q", "zero", "sixteen", "last"], ["head"]),
             fx.node("Slice", ["q", "sixteen", "end", "last"], ["rest"]),
             fx.node("Mul", ["head", "cos"], ["a"]),
             fx.node("Slice", ["head", "minus1", "before", "last", "minus1"],
                     ["flipped"]),
             fx.node("Mul", ["flipped", "sin"], ["c"]),
             fx.node("Add", ["a", "c"], ["rot"]),
             fx.node("Concat", ["rot", "rest"], ["y"], axis=-1)],
            q, ["y"], [{"b": 1, "s": 1}, {"b": 2, "s": 5}, {"b": 3, "s": 17}],
            inits=[fx.const("zero", [0]), fx.const("sixteen", [16]),
                   fx.const("end", [2 ** 62]), fx.const("last", [-1]),
                   fx.const("minus1", [-1]), fx.const("before", [-(2 ** 62)])])


def sliding_window_cases(fx):
    """Overlapping windows of more than 16 taps, combined by doubling: a
    1-D max of 33 (binary 100001) with stride 3, dilation 2 and pads, and
    a 2-D average of 17x5 (doubling along one dim, taps along the other)
    with ceil_mode and count_include_pad."""
    fx.case("maxpool1d_sliding_33",
            [fx.node("MaxPool", ["x"], ["y"], kernel_shape=[33], strides=[3],
                     dilations=[2], pads=[4, 1])],
            [("x", fx.F, ["n", 2, "t"])], ["y"],
            [{"n": 1, "t": 61}, {"n": 2, "t": 100}, {"n": 1, "t": 200}])
    fx.case("avgpool2d_sliding_17x5",
            [fx.node("AveragePool", ["x"], ["y"], kernel_shape=[17, 5],
                     strides=[2, 1], pads=[2, 1, 1, 0], count_include_pad=1,
                     ceil_mode=1)],
            [("x", fx.F, ["n", 3, "h", "w"])], ["y"],
            [{"n": 1, "h": 16, "w": 4}, {"n": 2, "h": 40, "w": 9},
             {"n": 1, "h": 23, "w": 30}])


def matmul_and_concat_cases(fx):
    """MatMul as numpy defines it: a rank-2 weight times a batch of
    matrices (Mamba's dt_proj.weight @ time_step.transpose(1, 2)), batch
    dims broadcast against each other, and rank-1 operands; and a Concat of
    one input after a kernel (TorchScript's torch.cat([empty, k]) of a
    cross-attention cache's first update)."""
    fx.case("matmul_rank2_by_batch",
            [fx.node("MatMul", ["w", "x"], ["y"])],
            [("x", fx.F, ["b", 4, "n"])], ["y"],
            [{"b": 1, "n": 1}, {"b": 3, "n": 5}, {"b": 2, "n": 0}],
            inits=[fx.weights("w", [6, 4])])
    fx.case("matmul_batches_broadcast",
            [fx.node("MatMul", ["x", "w"], ["y"])],
            [("x", fx.F, ["b", 1, "m", 3]), ("w", fx.F, [2, 3, "n"])], ["y"],
            [{"b": 1, "m": 1, "n": 1}, {"b": 2, "m": 5, "n": 4}])
    fx.case("matmul_rank1_operands",
            [fx.node("MatMul", ["v", "x"], ["row"]),
             fx.node("MatMul", ["x", "u"], ["column"])],
            [("x", fx.F, ["b", 4, 4]), ("v", fx.F, [4]), ("u", fx.F, [4])],
            ["row", "column"], [{"b": 1}, {"b": 3}])
    fx.case("concat_of_one_input",
            [fx.node("Relu", ["x"], ["r"]),
             fx.node("Concat", ["r"], ["y"], axis=-2)],
            [("x", fx.F, ["b", 4, "s", 16])], ["y"],
            [{"b": 1, "s": 1}, {"b": 2, "s": 7}])


def zero_norm_cases(fx):
    """LpNormalization where a whole line along the axis is zeros: the
    spec defines its output as zeros (not 0 / 0)."""
    def zero_lines(shape, _):
        v = fx.rng.standard_normal(shape).astype(np.float32)
        v[::2] = 0  # every other row: lines along axis 1
        v[:, 1::3] = 0  # every third column: lines along axis 0
        return v
    for axis, p in ((1, 1), (1, 2), (0, 2)):
        fx.case(f"lpnormalization_zero_lines_axis{axis}_p{p}",
                [fx.node("LpNormalization", ["x"], ["y"], axis=axis, p=p)],
                [("x", fx.F, ["n", "m"])], ["y"],
                [{"n": 1, "m": 1}, {"n": 4, "m": 7}, {"n": 5, "m": 2}],
                make={"x": zero_lines})


def trailing_normalization_cases(fx):
    """LayerNormalization over the dims from any axis, with its mean and
    inverse-deviation outputs, in float32 and (statistics in float32, as
    stash_type has it) float16; RMSNormalization (opset 23)."""
    x = [("x", fx.F, ["b", "s", 6])]
    shapes = [{"b": 1, "s": 1}, {"b": 2, "s": 5}, {"b": 3, "s": 2}]
    fx.case("layernorm_from_axis1_with_statistics",
            [fx.node("LayerNormalization", ["x", "scale", "bias"],
                     ["y", "mean", "inv_std"], axis=1, epsilon=1e-3)],
            x, ["y", "mean", "inv_std"], shapes,
            inits=[fx.weights("scale", [6]), fx.weights("bias", [6])])
    fx.case("layernorm_axis0_broadcast_scale",
            [fx.node("LayerNormalization", ["x", "scale"], ["y"], axis=0)],
            x, ["y"], shapes, inits=[fx.weights("scale", [1, 6])])
    half = TensorProto.FLOAT16
    fx.case("layernorm_float16_stashed",
            [fx.node("Cast", ["x"], ["h"], to=half),
             fx.node("LayerNormalization", ["h", "scale", "bias"], ["y"])],
            x, ["y"], shapes,
            inits=[numpy_helper.from_array(
                       np.linspace(0.5, 1.5, 6).astype(np.float16), "scale"),
                   numpy_helper.from_array(
                       np.linspace(-1, 1, 6).astype(np.float16), "bias")])
    for axis in (-1, 1):
        fx.case("rmsnorm_last_axis" if axis == -1 else "rmsnorm_from_axis1",
                [fx.node("RMSNormalization", ["x", "scale"], ["y"],
                         axis=axis, epsilon=1e-5)],
                x, ["y"], shapes, opset=23,
                inits=[fx.weights("scale", [6] if axis == -1 else [1, 6])])


def passed_through_cases(fx):
    """Outputs that are inputs under other names (Identity, a Dropout at
    inference) and two outputs of one value."""
    fx.case("outputs_that_are_inputs",
            [fx.node("Identity", ["x"], ["same"]),
             fx.node("Dropout", ["x"], ["dropped"]),
             fx.node("Relu", ["x"], ["r"]),
             fx.node("Identity", ["r"], ["r1"]),
             fx.node("Identity", ["r"], ["r2"])],
            [("x", fx.F, ["n", 3])], ["same", "dropped", "r1", "r2"],
            [{"n": 1}, {"n": 4}])


def past_the_end_cases(fx):
    """Slice bounds past the end clamp, as ONNX has them: a static dim cut
    at 9 of 8 (an interleaved rotary embedding's odd lanes), a symbolic one
    at 5 (x[:, :5], x[:, 5:] of a shorter sequence)."""
    fx.case("slice_past_static_end",
            [fx.node("Slice", ["x", "one", "nine", "last", "two"], ["y"])],
            [("x", fx.F, ["b", 8])], ["y"], [{"b": 1}, {"b": 3}],
            inits=[fx.const("one", [1]), fx.const("nine", [9]),
                   fx.const("last", [-1]), fx.const("two", [2])])
    fx.case("slice_past_symbolic_end",
            [fx.node("Slice", ["x", "zero", "five", "axis"], ["head"]),
             fx.node("Slice", ["x", "five", "end", "axis"], ["tail"])],
            [("x", fx.F, ["b", "s"])], ["head", "tail"],
            [{"b": 2, "s": 1}, {"b": 1, "s": 3}, {"b": 2, "s": 5},
             {"b": 1, "s": 9}],
            inits=[fx.const("zero", [0]), fx.const("five", [5]),
                   fx.const("end", [2**62]), fx.const("axis", [1])])


def attention_cases(fx):
    """Attention (opset 23) in its forms: 4-D grouped-query heads with
    causal masking, 3-D inputs split by q_num_heads and kv_num_heads with a
    boolean mask (some rows masked whole: zeros), a past key and value
    before the new ones (causal aligned bottom-right; the present outputs),
    and an additive mask with scale, softcap and each qk_matmul_output."""
    B = TensorProto.BOOL

    def holes(shape, _):
        m = fx.rng.random(shape) < 0.7
        if shape[0] > 1:
            m[1] = False  # a query row that sees no key
        return m
    fx.case("attention_gqa_causal",
            [fx.node("Attention", ["q", "k", "v"], ["y"], is_causal=1)],
            [("q", fx.F, ["b", 4, "s", 8]), ("k", fx.F, ["b", 2, "s", 8]),
             ("v", fx.F, ["b", 2, "s", 8])], ["y"],
            [{"b": 1, "s": 1}, {"b": 2, "s": 5}], opset=23)
    fx.case("attention_3d_bool_mask",
            [fx.node("Attention", ["q", "k", "v", "m"], ["y"],
                     q_num_heads=2, kv_num_heads=2)],
            [("q", fx.F, ["b", "s", 16]), ("k", fx.F, ["b", "t", 16]),
             ("v", fx.F, ["b", "t", 12]), ("m", B, ["s", "t"])], ["y"],
            [{"b": 1, "s": 1, "t": 1}, {"b": 2, "s": 3, "t": 6},
             {"b": 1, "s": 4, "t": 2}], opset=23, make={"m": holes})
    fx.case("attention_past_causal",
            [fx.node("Attention", ["q", "k", "v", "", "pk", "pv"],
                     ["y", "present_k", "present_v"], is_causal=1)],
            [("q", fx.F, ["b", 2, "s", 8]), ("k", fx.F, ["b", 2, "s", 8]),
             ("v", fx.F, ["b", 2, "s", 8]), ("pk", fx.F, ["b", 2, "p", 8]),
             ("pv", fx.F, ["b", 2, "p", 8])],
            ["y", "present_k", "present_v"],
            [{"b": 1, "s": 4, "p": 0}, {"b": 2, "s": 1, "p": 5},
             {"b": 1, "s": 3, "p": 2}], opset=23)
    for mode in range(4):
        fx.case(f"attention_float_mask_qk_mode{mode}",
                [fx.node("Attention", ["q", "k", "v", "m"], ["y", "", "",
                                                             "qk"],
                         scale=0.3, softcap=2.0, qk_matmul_output_mode=mode)],
                [("q", fx.F, ["b", 2, "s", 4]), ("k", fx.F, ["b", 2, "t", 4]),
                 ("v", fx.F, ["b", 2, "t", 4]), ("m", fx.F, ["b", 1, "s", "t"])],
                ["y", "qk"], [{"b": 1, "s": 1, "t": 3}, {"b": 2, "s": 3, "t": 5}],
                opset=23)


def rotary_cases(fx):
    """RotaryEmbedding (opset 23): 4-D heads with caches read at
    position_ids (the exporter's form), and 3-D input split by num_heads,
    interleaved, turning only the first 4 of 8 lanes, its caches given per
    position."""
    I = TensorProto.INT64
    fx.case("rotary_positions",
            [fx.node("RotaryEmbedding", ["x", "cos", "sin", "pos"], ["y"])],
            [("x", fx.F, ["b", 2, "s", 8]), ("pos", I, ["b", "s"])], ["y"],
            [{"b": 1, "s": 1}, {"b": 2, "s": 5}], opset=23,
            make={"pos": lambda shape, _: fx.rng.integers(0, 16, shape)},
            inits=[fx.weights("cos", [16, 4]), fx.weights("sin", [16, 4])])
    fx.case("rotary_3d_interleaved_partial",
            [fx.node("RotaryEmbedding", ["x", "cos", "sin"], ["y"],
                     num_heads=2, interleaved=1, rotary_embedding_dim=4)],
            [("x", fx.F, ["b", "s", 16]), ("cos", fx.F, ["b", "s", 2]),
             ("sin", fx.F, ["b", "s", 2])], ["y"],
            [{"b": 1, "s": 1}, {"b": 2, "s": 3}], opset=23)


def older_opset_cases(fx):
    """Opsets 9 to 12, imported as 13: axes and split lists as
    attributes, Dropout's ratio attribute, and Softmax, LogSoftmax and
    Hardmax over the input coerced to rows of the dims from their axis on
    (default 1), where an axis before the last means something else at
    13."""
    x3 = [("x", fx.F, ["n", 3, "m"])]
    shapes = [{"n": 1, "m": 1}, {"n": 2, "m": 4}, {"n": 3, "m": 7}]
    fx.case("opset11_squeeze_unsqueeze_axes",
            [fx.node("Unsqueeze", ["x"], ["u"], axes=[0, -1]),
             fx.node("Squeeze", ["u"], ["y"], axes=[0])],
            x3, ["y"], shapes, opset=11)
    fx.case("opset11_reducesum_axes",
            [fx.node("ReduceSum", ["x"], ["y"], axes=[1, -1], keepdims=0)],
            x3, ["y"], shapes, opset=11)
    fx.case("opset11_split_attribute",
            [fx.node("Split", ["x"], ["a", "b"], axis=1, split=[2, 1]),
             fx.node("Dropout", ["a"], ["y"], ratio=0.3)],
            x3, ["y", "b"], shapes, opset=11)
    for op in ["Softmax", "LogSoftmax", "Hardmax"]:
        fx.case(f"opset11_{op.lower()}_default_axis",
                [fx.node(op, ["x"], ["y"])], x3, ["y"], shapes, opset=11,
                kind="ties" if op == "Hardmax" else "normal")
    fx.case("opset12_softmax_axis_0",
            [fx.node("Softmax", ["x"], ["y"], axis=0)], x3, ["y"], shapes,
            opset=12)
    fx.case("opset11_softmax_last_axis",
            [fx.node("Softmax", ["x"], ["y"], axis=2)], x3, ["y"], shapes,
            opset=11)
    # Opsets 9 and 10: Clip's bounds and Pad's pads and fill attributes
    # (to 10), Slice's bounds and TopK's k (to 9).
    fx.case("opset10_clip_pad_attributes",
            [fx.node("Clip", ["x"], ["c"], min=-0.5, max=1.5),
             fx.node("Clip", ["c"], ["d"], max=1.0),
             fx.node("Pad", ["d"], ["y"], pads=[0, 1, 0, 0, 0, 2], value=7.0),
             fx.node("Pad", ["x"], ["z"], mode="edge",
                     pads=[0, 0, 1, 0, 0, 1])],
            x3, ["y", "z"], shapes, opset=10)
    fx.case("opset9_slice_topk_attributes",
            [fx.node("Slice", ["x"], ["s"], starts=[1, 0], ends=[3, -1],
                     axes=[1, 2]),
             fx.node("Slice", ["x"], ["t"], starts=[0], ends=[2]),
             fx.node("TopK", ["x"], ["v", "i"], axis=1, k=2)],
            x3, ["s", "t", "v", "i"],
            [{"n": 2, "m": 2}, {"n": 3, "m": 7}], opset=9)
    # Opset 10's Scatter (ScatterElements from 11), and its arange: the
    # coordinates of a ConstantOfShape of ones, a count known as a size.
    fx.case("opset10_scatter_and_arange",
            [fx.node("Scatter", ["x", "idx", "upd"], ["y"], axis=1),
             fx.node("Shape", ["x"], ["shape"]),
             fx.node("Gather", ["shape", "last"], ["m1"], axis=0),
             fx.node("ConstantOfShape", ["m1"], ["ones"],
                     value=helper.make_tensor("v", fx.I, [1], [1])),
             fx.node("NonZero", ["ones"], ["nz"]),
             fx.node("Transpose", ["nz"], ["col"], perm=[1, 0]),
             fx.node("Squeeze", ["col"], ["ar"], axes=[1]),
             fx.node("Cast", ["ar"], ["arf"], to=fx.F),
             fx.node("Add", ["y", "arf"], ["z"])],
            x3 + [("idx", fx.I, ["n", 1, "m"]), ("upd", fx.F, ["n", 1, "m"])],
            ["z"], shapes, opset=10,
            make={"idx": lambda shape, b: fx.rng.integers(0, 3, shape)},
            inits=[fx.const("last", [2])])


def trig_cases(fx):
    """Tan, the inverse trigonometric functions and the hyperbolic ones and
    their inverses, each over its domain at magnitudes from 1e-8 (where a
    textbook formula cancels) to where it overflows or turns to its
    asymptote, in one graph per op."""
    def spread(low, high, shift=0.0, signed=True):
        def make(shape, _):
            v = 10.0 ** fx.rng.uniform(low, high, shape)
            if signed:
                v *= fx.rng.choice([-1.0, 1.0], shape)
            return (v + shift).astype(np.float32)
        return {"x": make}
    for op, make in [("Tan", spread(-8, 0.1)), ("Atan", spread(-8, 25)),
                     ("Sinh", spread(-8, 1.9)), ("Cosh", spread(-8, 1.9)),
                     ("Asinh", spread(-8, 25)),
                     ("Acosh", spread(-8, 25, shift=1.0, signed=False)),
                     ("Atanh", spread(-8, -0.001)),
                     ("Asin", spread(-8, 0)), ("Acos", spread(-8, 0))]:
        fx.case(op.lower(), [fx.node(op, ["x"], ["y"])],
                [("x", fx.F, ["n", "m"])], ["y"],
                [{"n": 1, "m": 1}, {"n": 4, "m": 50}, {"n": 3, "m": 0}],
                make=make)


def short_mask_cases(fx):
    """Attention's mask shorter than the keys (the spec pads it with -inf
    or false): a boolean one over the first 3 of 5 keys, and an additive
    one over the new keys of a cache of p + s, padded by p. ONNX Runtime
    1.32 refuses both, so the outputs are the spec reference's."""
    fx.case("attention_short_bool_mask",
            [fx.node("Attention", ["q", "k", "v", "m"], ["y"])],
            [("q", fx.F, ["b", 2, "s", 8]), ("k", fx.F, ["b", 2, 5, 8]),
             ("v", fx.F, ["b", 2, 5, 8]), ("m", TensorProto.BOOL, ["s", 3])],
            ["y"], [{"b": 1, "s": 1}, {"b": 2, "s": 4}], opset=23,
            make={"m": lambda shape, _: fx.rng.random(shape) < 0.7},
            spec=True)
    fx.case("attention_short_additive_mask",
            [fx.node("Attention", ["q", "k", "v", "m", "pk", "pv"],
                     ["y"])],
            [("q", fx.F, ["b", 2, "s", 8]), ("k", fx.F, ["b", 2, "s", 8]),
             ("v", fx.F, ["b", 2, "s", 8]), ("m", fx.F, ["b", 1, "s", "s"]),
             ("pk", fx.F, ["b", 2, "p", 8]), ("pv", fx.F, ["b", 2, "p", 8])],
            ["y"], [{"b": 1, "s": 1, "p": 0}, {"b": 2, "s": 3, "p": 4}],
            opset=23, spec=True)


def newest_opset_cases(fx):
    """Opsets 24-28, from ONNX's reference (ONNX Runtime 1.32 stops at
    23): Swish (24), and a float16 Range of 2,100 steps of 3 computed in f32
    (27's stash_type: in float16 the step index itself rounds past 2048),
    beside a Transpose of 25."""
    fx.case("opset24_swish",
            [fx.node("Swish", ["x"], ["y"], alpha=0.7)],
            [("x", fx.F, ["n", "m"])], ["y"],
            [{"n": 1, "m": 1}, {"n": 3, "m": 5}], opset=24, spec=True)
    H = TensorProto.FLOAT16
    fx.case("opset27_range_f16",
            [fx.node("Range", ["start", "limit", "delta"], ["r"]),
             fx.node("Transpose", ["x"], ["xt"], perm=[1, 0])],
            [("x", fx.F, ["n", 2])], ["r", "xt"], [{"n": 1}, {"n": 3}],
            opset=27, spec=True,
            inits=[helper.make_tensor("start", H, [], [1.0]),
                   helper.make_tensor("limit", H, [], [6301.0]),
                   helper.make_tensor("delta", H, [], [3.0])])


def main(fx):
    mask_count_cases(fx)
    constant_fill_cases(fx)
    anonymous_dim_cases(fx)
    extremum_cases(fx)
    half_precision_cases(fx)
    big_window_pool_cases(fx)
    from_the_end_cases(fx)
    empty_operand_cases(fx)
    sliding_window_cases(fx)
    matmul_and_concat_cases(fx)
    zero_norm_cases(fx)
    trailing_normalization_cases(fx)
    passed_through_cases(fx)
    past_the_end_cases(fx)
    attention_cases(fx)
    rotary_cases(fx)
    older_opset_cases(fx)
    trig_cases(fx)
    short_mask_cases(fx)
    newest_opset_cases(fx)
