"""More of tests/onnx/op_fixtures.py's cases: forms that transformers
models exported by torch.onnx (a held-out sweep of 25 families) were
refused on. Tile of a 5-D tensor (GPT-J) and of the largest rank; Resize
of float16 images (any float16 ViT, CLIP or SegFormer resizing its
position embeddings) and nearest Resize of integers; Unsqueeze and
Squeeze of a dim no expression writes (BEiT's relative-position table,
reshaped to [k, k, -1]); Tile repeats made by OneHot (TorchScript's
repeat_interleave, in Qwen2-MoE's experts); an If whose condition is a
size compared with 1 (TorchScript's squeeze of a dim it cannot see, in
BEiT's relative-position bias); a Range whose step does not divide its
span (torch.export's fold); sizes scaled by a float and rounded
(torch.export's nearest-exact interpolation); and the forms a
differential run against ONNX Runtime found read wrongly. op_fixtures.py
calls main
after op_fixtures_sizes', so these draw from its random generator last,
and every fixture written before stays byte-identical."""

import numpy as np
from onnx import TensorProto, helper


def tile_cases(fx):
    """One broadcast where the spread rank fits; one tiled dim at a time
    where it does not; a gather per dim at the largest rank."""
    shapes = [{"n": 1, "m": 1}, {"n": 2, "m": 3}, {"n": 3, "m": 2}]
    x5 = [("x", fx.F, ["n", 2, 1, 3, "m"])]
    fx.case("tile_rank5_one_dim", [fx.node("Tile", ["x", "r"], ["y"])], x5,
            ["y"], shapes, inits=[fx.const("r", [1, 1, 2, 1, 1])])
    fx.case("tile_rank5_four_dims", [fx.node("Tile", ["x", "r"], ["y"])],
            x5, ["y"], shapes, inits=[fx.const("r", [2, 1, 2, 2, 3])])
    x8 = [("x", fx.F, ["n", 1, 2, 1, 1, 2, 1, "m"])]
    fx.case("tile_rank8", [fx.node("Tile", ["x", "r"], ["y"])], x8, ["y"],
            shapes, inits=[fx.const("r", [1, 2, 1, 1, 3, 1, 2, 2])])


def resize_type_cases(fx):
    """float16 interpolated (in f32, rounded once, as ONNX Runtime does);
    integers picked by nearest (against ONNX's reference evaluator)."""
    images = [{"n": 1, "h": 1, "w": 1}, {"n": 2, "h": 5, "w": 8},
              {"n": 1, "h": 7, "w": 3}]
    half = {"x": lambda shape, _: fx.rng.standard_normal(shape).astype(
        np.float16)}
    x = [("x", TensorProto.FLOAT16, ["n", 2, "h", "w"])]
    for name, attrs in [("resize_f16_linear_up2", dict(mode="linear")),
                        ("resize_f16_cubic_up2", dict(mode="cubic")),
                        ("resize_f16_nearest_up2", dict(mode="nearest"))]:
        fx.case(name, [fx.node("Resize", ["x", "", "s"], ["y"], **attrs)], x,
                ["y"], images, inits=[fx.const("s", [1, 1, 2, 2], fx.F)],
                make=half)
    fx.case("resize_i64_nearest_up2",
            [fx.node("Resize", ["x", "", "s"], ["y"], mode="nearest")],
            [("x", fx.I, ["n", 2, "h", "w"])], ["y"], images,
            inits=[fx.const("s", [1, 1, 2, 2], fx.F)],
            spec=True)  # ONNX Runtime has no int64 Resize


def anonymous_dim_reshape_cases(fx):
    """[k*k, 4] reshaped to [k, k, -1]: the -1 is 4 only because the
    input's rows are k*k, which no expression knows; the Unsqueeze and the
    Squeeze after the Transpose keep that dim."""
    nodes = [fx.node("Shape", ["k"], ["ks"]),
             fx.node("Concat", ["ks", "ks", "minus_one"], ["shape"], axis=0),
             fx.node("Reshape", ["x", "shape"], ["r"]),
             fx.node("Transpose", ["r"], ["t"], perm=[2, 0, 1]),
             fx.node("Unsqueeze", ["t", "zero"], ["y"]),
             fx.node("Squeeze", ["y", "zero"], ["z"])]
    fx.case("unsqueeze_squeeze_anonymous_dim", nodes,
            [("x", fx.F, ["n", 4]), ("k", fx.F, ["k"])], ["y", "z"],
            [{"n": 1, "k": 1}, {"n": 4, "k": 2}, {"n": 9, "k": 3}],
            inits=[fx.const("minus_one", [-1]), fx.const("zero", [0])])


def onehot_repeat_cases(fx):
    """x.repeat_interleave(k.shape[-1], dim=0) as TorchScript exports it:
    OneHot(index 1, depth 3, values [1, k]) is the Tile's repeats
    [1, k, 1], reshaped to a vector by a shape sliced from its own."""
    nodes = [fx.node("Shape", ["k"], ["ks"]),
             fx.node("Gather", ["ks", "one"], ["kk"], axis=0),
             fx.node("Reshape", ["kk", "one_vector"], ["kv"]),
             fx.node("Unsqueeze", ["x", "one_vector"], ["xu"]),
             fx.node("Concat", ["one_vector", "kv"], ["on_off"], axis=0),
             fx.node("OneHot", ["one_vector", "three", "on_off"], ["hot"]),
             fx.node("Shape", ["hot"], ["hs"]),
             fx.node("Slice", ["hs", "zero_vector", "zero_vector",
                               "zero_vector"], ["lead"]),
             fx.node("Concat", ["lead", "minus_one"], ["flat"], axis=0),
             fx.node("Reshape", ["hot", "flat"], ["repeats"]),
             fx.node("Tile", ["xu", "repeats"], ["tiled"]),
             fx.node("Flatten", ["tiled"], ["y"], axis=2)]
    fx.case("onehot_tile_repeats", nodes,
            [("x", fx.F, ["n", 4]), ("k", fx.F, ["n", "k"])], ["y"],
            [{"n": 1, "k": 1}, {"n": 3, "k": 2}, {"n": 5, "k": 4}],
            opset=17,
            inits=[fx.const("one", 1), fx.const("one_vector", [1]),
                   fx.const("three", 3), fx.const("minus_one", [-1]),
                   fx.const("zero_vector", [0])])


def anonymous_dim_shape_cases(fx):
    """Sizes no expression writes (a -1 that does not divide). A Resize
    whose sizes are its own input's shape (PVT's position table at its
    own grid): the anonymous dim, read by Shape, keeps its size. A
    broadcast of such a tensor over a dim of 1, which crashed shape
    simplification (PVT)."""
    fx.case("resize_to_own_anonymous_dims",
            [fx.node("Shape", ["k"], ["ks"]),
             fx.node("Concat", ["ks", "minus_one", "two"], ["shape"], axis=0),
             fx.node("Reshape", ["x", "shape"], ["r"]),          # [k, ?, 2]
             fx.node("Transpose", ["r"], ["t"], perm=[1, 0, 2]),  # [?, k, 2]
             fx.node("Unsqueeze", ["t", "zero"], ["u"]),          # [1, ?, k, 2]
             fx.node("Shape", ["u"], ["us"]),
             fx.node("Slice", ["us", "zero", "two"], ["lead"]),
             fx.node("Concat", ["lead", "ks", "two"], ["size"], axis=0),
             fx.node("Resize", ["u", "", "", "size"], ["y"], mode="linear")],
            [("x", fx.F, ["n", 3]), ("k", fx.F, ["k"])], ["y"],
            [{"n": 2, "k": 1}, {"n": 4, "k": 2}, {"n": 6, "k": 3}],
            inits=[fx.const("minus_one", [-1]), fx.const("two", [2]),
                   fx.const("zero", [0])])
    fx.case("expand_unit_dim_of_anonymous_dims",
            [fx.node("Reshape", ["x", "rows_of_two"], ["r"]),    # [?, 2]
             fx.node("Unsqueeze", ["r", "one"], ["u"]),          # [?, 1, 2]
             fx.node("MatMul", ["u", "w"], ["m"]),
             fx.node("Expand", ["m", "wide"], ["y"])],           # [?, 4, 2]
            [("x", fx.F, ["n", 3])], ["y"],
            [{"n": 2}, {"n": 4}, {"n": 6}],
            inits=[fx.const("rows_of_two", [-1, 2]), fx.const("one", [1]),
                   fx.const("w", [[1.0, 2.0], [-1.0, 0.5]], fx.F),
                   fx.const("wide", [1, 4, 1])])


def quotient_cases(fx):
    """A -1 that divides by a number only at run time is the quotient's
    floor, a size later ops can name: LeViT's [-1, 4, C] and [-1, C] of
    [b, s, C], scaled per channel (a broadcast over that size). And
    MobileViT's int(ceil(w / 2) * 2) // 2, through a float Div and Ceil."""
    channels = 8
    fx.case("reshape_by_a_number_then_scale",
            [fx.node("Reshape", ["x", "by_four"], ["r"]),       # [?, 4, C]
             fx.node("Reshape", ["r", "rows"], ["r2"]),         # [?, C]
             fx.node("Mul", ["r2", "scale"], ["y"])],
            [("x", fx.F, ["b", "s", channels])], ["y"],
            [{"b": 1, "s": 4}, {"b": 2, "s": 6}, {"b": 3, "s": 4}],
            inits=[fx.const("by_four", [-1, 4, channels]),
                   fx.const("rows", [-1, channels]),
                   fx.const("scale", np.linspace(-1, 1, channels), fx.F)])
    fx.case("ceil_of_a_float_quotient_as_a_size",
            [fx.node("Shape", ["x"], ["s"]),
             fx.node("Gather", ["s", "one"], ["w"], axis=0),
             fx.node("Cast", ["w"], ["wf"], to=fx.F),
             fx.node("Div", ["wf", "two_f"], ["q"]),
             fx.node("Ceil", ["q"], ["c"]),
             fx.node("Mul", ["c", "two_f"], ["m"]),
             fx.node("Cast", ["m"], ["mi"], to=fx.I),
             fx.node("Div", ["mi", "two"], ["half"]),
             fx.node("Unsqueeze", ["half", "zero"], ["half1"]),
             fx.node("Concat", ["minus_one", "half1"], ["shape"], axis=0),
             fx.node("Reshape", ["x", "shape"], ["y"])],
            [("x", fx.F, ["n", "w"])], ["y"],
            [{"n": 2, "w": 4}, {"n": 4, "w": 6}, {"n": 6, "w": 2}],
            inits=[fx.const("one", 1), fx.const("two", 2),
                   fx.const("two_f", 2.0, fx.F), fx.const("zero", [0]),
                   fx.const("minus_one", [-1])])


def squeeze_if_nodes(fx):
    """x.squeeze(1) as the TorchScript exporter writes it where the dim is
    not seen: If(size(x, 1) == 1, Squeeze with its axes made inside the
    branch, Identity), its output multiplied after."""
    then = helper.make_graph(
        [fx.node("Constant", [], ["axes"],
                 value=fx.const("axes_value", [1])),
         fx.node("Squeeze", ["x", "axes"], ["squeezed"])],
        "then", [], [helper.make_tensor_value_info("squeezed", fx.F, None)])
    orelse = helper.make_graph(
        [fx.node("Identity", ["x"], ["kept"])],
        "else", [], [helper.make_tensor_value_info("kept", fx.F, None)])
    return [fx.node("Shape", ["x"], ["s"]),
            fx.node("Gather", ["s", "one"], ["d"], axis=0),
            fx.node("Equal", ["d", "one"], ["c"]),
            fx.node("If", ["c"], ["y"], then_branch=then,
                    else_branch=orelse),
            fx.node("Mul", ["y", "two"], ["z"])]


def if_cases(fx):
    """The squeeze If on a static dim: the shapes pick the branch; the
    output has that branch's rank."""
    nodes = squeeze_if_nodes(fx)
    # ONNX Runtime checks the branch not taken too, and refuses a Squeeze
    # of a 3: ONNX's reference evaluator runs the wide one.
    for name, width in [("if_squeeze_of_a_unit_dim", 1),
                        ("if_squeeze_of_a_wide_dim", 3)]:
        fx.case(name, nodes, [("x", fx.F, ["n", width, "m"])], ["z"],
                [{"n": 1, "m": 1}, {"n": 2, "m": 5}, {"n": 4, "m": 3}],
                inits=[fx.const("one", 1), fx.const("two", 2.0, fx.F)],
                spec=width != 1)


def range_cases(fx):
    """arange over a span its step may not divide: Range(0, m - 1, 2)
    (torch.export's fold: an odd or empty span), Range(0, m, 2) (x[:,
    ::2] as an index: 4 elements at m = 7, not 3), and a negative step
    from m down to 0; ONNX's length is max(ceil(span / delta), 0)."""
    shapes = [{"n": 1, "m": 0}, {"n": 2, "m": 1}, {"n": 1, "m": 4},
              {"n": 3, "m": 7}]
    size = [fx.node("Shape", ["x"], ["s"]),
            fx.node("Gather", ["s", "one"], ["m"], axis=0)]
    fx.case("range_step2_over_an_odd_span",
            size + [fx.node("Sub", ["m", "one"], ["end"]),
                    fx.node("Range", ["zero", "end", "two"], ["y"])],
            [("x", fx.F, ["n", "m"])], ["y"], shapes,
            inits=[fx.const("zero", 0), fx.const("one", 1),
                   fx.const("two", 2)])
    fx.case("range_step2_to_the_size",
            size + [fx.node("Range", ["zero", "m", "two"], ["y"])],
            [("x", fx.F, ["n", "m"])], ["y"], shapes,
            inits=[fx.const("zero", 0), fx.const("one", 1),
                   fx.const("two", 2)])
    fx.case("range_down_by_three",
            size + [fx.node("Range", ["m", "zero", "minus_three"], ["y"])],
            [("x", fx.F, ["n", "m"])], ["y"], shapes,
            inits=[fx.const("zero", 0), fx.const("one", 1),
                   fx.const("minus_three", -3)])


def scaled_size_cases(fx):
    """Sizes scaled by a float and rounded: x[:, :int(m * 0.5)] (a Cast
    truncates: torch.export's nearest-exact interpolation by 0.5) and
    arange(ceil(m * 1.5)), in floats."""
    shapes = [{"n": 1, "m": 0}, {"n": 2, "m": 1}, {"n": 1, "m": 4},
              {"n": 3, "m": 7}]
    size = [fx.node("Shape", ["x"], ["s"]),
            fx.node("Gather", ["s", "one"], ["m"], axis=0),
            fx.node("Cast", ["m"], ["mf"], to=fx.F)]
    fx.case("slice_to_a_truncated_half",
            size + [fx.node("Mul", ["mf", "half"], ["h"]),
                    fx.node("Cast", ["h"], ["hi"], to=fx.I),
                    fx.node("Unsqueeze", ["hi", "start"], ["end"]),
                    fx.node("Slice", ["x", "start", "end", "axis"], ["y"])],
            [("x", fx.F, ["n", "m"])], ["y"], shapes,
            inits=[fx.const("one", 1), fx.const("half", 0.5, fx.F),
                   fx.const("start", [0]), fx.const("axis", [1])])
    fx.case("range_to_a_ceiling_of_one_and_a_half",
            size + [fx.node("Mul", ["one_and_a_half", "mf"], ["h"]),
                    fx.node("Ceil", ["h"], ["c"]),
                    fx.node("Range", ["zero", "c", "step"], ["y"])],
            [("x", fx.F, ["n", "m"])], ["y"], shapes,
            inits=[fx.const("one", 1), fx.const("zero", 0.0, fx.F),
                   fx.const("one_and_a_half", 1.5, fx.F),
                   fx.const("step", 1.0, fx.F)])


def main(fx):
    tile_cases(fx)
    resize_type_cases(fx)
    anonymous_dim_reshape_cases(fx)
    onehot_repeat_cases(fx)
    anonymous_dim_shape_cases(fx)
    quotient_cases(fx)
    if_cases(fx)
    range_cases(fx)
    scaled_size_cases(fx)
    differential_cases(fx)
    undecided_if_cases(fx)
    mixed_pow_cases(fx)
    phased_conv_transpose_cases(fx)
    einsum_symbol_cases(fx)
    empty_slice_cases(fx)
    gather_nd_batch_cases(fx)


def differential_cases(fx):
    """What a differential run against ONNX Runtime found read wrongly
    (each a silent result before): a composite reduction of no axes with
    noop_with_empty_axes still does its elementwise step; a Cast of a
    shape to bool makes each size 0 or 1; Squeeze without axes keeps a
    symbolic dim (the cases here never make it 1); a negative wrap pad
    crops before it wraps."""
    shapes = [{"n": 2, "m": 3}, {"n": 3, "m": 1}, {"n": 4, "m": 2}]
    x = [("x", fx.F, ["n", "m"])]
    for op in ["ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSum"]:
        fx.case(op.lower() + "_noop_of_no_axes",
                [fx.node(op, ["x"], ["y"], noop_with_empty_axes=1)], x, ["y"],
                shapes, kind="positive" if op == "ReduceLogSum" else "normal")
    fx.case("constant_of_a_shape_cast_to_bool",
            [fx.node("Shape", ["x"], ["s"]),
             fx.node("Cast", ["s"], ["b"], to=9),
             fx.node("Cast", ["b"], ["s2"], to=fx.I),
             fx.node("ConstantOfShape", ["s2"], ["y"])],
            x, ["s2", "y"], shapes + [{"n": 0, "m": 2}])
    fx.case("squeeze_without_axes_keeps_a_symbolic_dim",
            [fx.node("Squeeze", ["x"], ["y"])],
            [("x", fx.F, ["n", 1, "m"])], ["y"],
            [{"n": 2, "m": 3}, {"n": 4, "m": 2}, {"n": 0, "m": 2}],
            opset=11)
    fx.case("pad_wrap_cropping_before_it_wraps",
            [fx.node("Pad", ["x", "pads"], ["y"], mode="wrap")],
            [("x", fx.F, ["n", "m"])], ["y"],
            [{"n": 1, "m": 4}, {"n": 2, "m": 3}, {"n": 3, "m": 7}],
            opset=19, inits=[fx.const("pads", [0, -1, 0, 2])])


def undecided_if_cases(fx):
    """The same If where the squeezed dim is symbolic, so the sizes do not
    pick the branch at import: the branch whose rank the model declares
    for its output is taken (the one the exporter traced), and the other
    one's sizes fail the run (OnnxComposedOpsTest)."""
    nodes = squeeze_if_nodes(fx)
    inits = [fx.const("one", 1), fx.const("two", 2.0, fx.F)]
    fx.case("if_squeeze_of_an_unseen_dim_traced_at_one", nodes,
            [("x", fx.F, ["n", "w", "m"])], [("z", fx.F, ["n", "m"])],
            [{"n": 1, "w": 1, "m": 1}, {"n": 2, "w": 1, "m": 5}],
            inits=inits)
    fx.case("if_squeeze_of_an_unseen_dim_traced_wide", nodes,
            [("x", fx.F, ["n", "w", "m"])], [("z", fx.F, ["n", "w", "m"])],
            [{"n": 1, "w": 2, "m": 1}, {"n": 2, "w": 3, "m": 5}],
            inits=inits, spec=True)


def mixed_pow_cases(fx):
    """Pow whose exponent has another element type than its base (legal
    from opset 12: x ** 3 with an int64 3, or integer exponents given at
    run time); the result has the base's type."""
    shapes = [{"n": 1, "m": 3}, {"n": 2, "m": 4}, {"n": 3, "m": 1}]
    fx.case("pow_of_a_float_by_an_int64_constant",
            [fx.node("Pow", ["x", "three"], ["y"])],
            [("x", fx.F, ["n", "m"])], ["y"], shapes,
            inits=[fx.const("three", 3)])
    fx.case("pow_of_a_float_by_int64_exponents",
            [fx.node("Pow", ["x", "e"], ["y"])],
            [("x", fx.F, ["n", "m"]), ("e", fx.I, ["m"])], ["y"], shapes,
            kind="positive",
            make={"e": lambda shape, _: np.arange(shape[0]) % 4})


def phased_conv_transpose_cases(fx):
    """Strided ConvTranspose, which is computed in the phases of its
    output: kernels shorter than, equal to and longer than the stride,
    groups, output_padding beyond the zero taps the kernel is padded with
    (k 2, s 3, output_padding 2), uneven pads, and 1-D and 3-D."""
    images = [{"n": 1, "h": 1, "w": 1}, {"n": 2, "h": 5, "w": 8},
              {"n": 1, "h": 7, "w": 3}]
    fx.case("convtranspose2d_phases_grouped",
            [fx.node("ConvTranspose", ["x", "k", "b"], ["y"], group=2,
                     strides=[2, 3], pads=[1, 0, 0, 2],
                     output_padding=[1, 2])],
            [("x", fx.F, ["n", 4, "h", "w"])], ["y"], images,
            inits=[fx.weights("k", [4, 3, 3, 2]), fx.weights("b", [6])])
    fx.case("convtranspose1d_kernel_below_stride",
            [fx.node("ConvTranspose", ["x", "k"], ["y"], strides=[3],
                     output_padding=[1])],
            [("x", fx.F, ["n", 2, "t"])], ["y"],
            [{"n": 1, "t": 1}, {"n": 2, "t": 4}, {"n": 1, "t": 9}],
            inits=[fx.weights("k", [2, 3, 2])])
    fx.case("convtranspose3d_phases",
            [fx.node("ConvTranspose", ["x", "k"], ["y"],
                     strides=[2, 1, 2], pads=[1, 1, 0, 1, 0, 1])],
            [("x", fx.F, ["n", 2, "d", "h", "w"])], ["y"],
            [{"n": 1, "d": 1, "h": 1, "w": 1},
             {"n": 2, "d": 3, "h": 4, "w": 2}],
            inits=[fx.weights("k", [2, 2, 3, 3, 4])])


def einsum_symbol_cases(fx):
    """Einsum whose operands name one subscript's size by symbols of their
    own, as an exporter names each input's dims: one compile, the sizes
    required equal when the graph runs."""
    fx.case("einsum_subscript_sizes_named_per_input",
            [fx.node("Einsum", ["a", "b"], ["y"], equation="bij,bjk->bik")],
            [("a", fx.F, ["a_b", "a_i", "a_j"]),
             ("b", fx.F, ["b_b", "b_j", "b_k"])], ["y"],
            [{"a_b": 1, "a_i": 1, "a_j": 1, "b_b": 1, "b_j": 1, "b_k": 1},
             {"a_b": 2, "a_i": 3, "a_j": 4, "b_b": 2, "b_j": 4, "b_k": 5}])


def empty_slice_cases(fx):
    """A Slice whose end comes before its start takes nothing, of a static
    axis or a symbolic one of any size."""
    fx.case("slice_end_before_start",
            [fx.node("Slice", ["x", "st", "en", "ax"], ["y"]),
             fx.node("Slice", ["x", "st2", "en2", "ax2"], ["z"])],
            [("x", fx.F, ["n", "m", 4])], ["y", "z"],
            [{"n": 1, "m": 1}, {"n": 2, "m": 6}, {"n": 1, "m": 20}],
            inits=[fx.const("st", [3]), fx.const("en", [1]),
                   fx.const("ax", [2]), fx.const("st2", [5]),
                   fx.const("en2", [-7]), fx.const("ax2", [1])])


def gather_nd_batch_cases(fx):
    """GatherND with batch_dims: the first dims of data and indices are
    one batch (their sizes named apart here, equal when it runs), each
    row's coordinates taken within its own batch entry; negative
    coordinates count from the end."""
    rng = np.random.default_rng(7)

    def within(sizes):
        def make(shape, binding):
            bounds = [binding.get(s, s) for s in sizes]
            columns = [rng.integers(-b, b, size=shape[:-1]) for b in bounds]
            return np.stack(columns, axis=-1).astype(np.int64)
        return make
    shapes = [{"b": 1, "n": 1, "b2": 1, "k": 1},
              {"b": 2, "n": 5, "b2": 2, "k": 3},
              {"b": 3, "n": 4, "b2": 3, "k": 6}]
    fx.case("gathernd_batch_dims_1",
            [fx.node("GatherND", ["x", "at"], ["y"], batch_dims=1)],
            [("x", fx.F, ["b", "n", 3]), ("at", fx.I, ["b2", "k", 1])],
            ["y"], shapes, make={"at": within(["n"])})
    fx.case("gathernd_batch_dims_2_two_coordinates",
            [fx.node("GatherND", ["x", "at"], ["y"], batch_dims=2)],
            [("x", fx.F, ["b", 2, "n", 4, 3]),
             ("at", fx.I, ["b2", 2, "k", 2])],
            ["y"], shapes, make={"at": within(["n", 4])})
