"""Writes tests/graphs/onnx/ops/: one small ONNX model per op form the
importer translates by composition, each with symbolic dims, and what ONNX
Runtime computes for it at several shapes (size 1, and 0 where the op
allows it). tests/onnx/CMakeLists.txt runs anyshape-zoo-check on each, on
the CPU and the emulated CUDA kernels: the importer is checked against
another implementation of the ONNX spec, not against itself.

Run with bench/peers/.venv's Python (bench/peers/setup onnxruntime)."""

import os
import sys

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "examples", "zoo"))
import fixture  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "graphs",
                   "onnx", "ops")
F, I = TensorProto.FLOAT, TensorProto.INT64
NP = {F: np.float32, I: np.int64, TensorProto.BOOL: np.bool_}
rng = np.random.default_rng(0)


def values(elem, shape, kind):
    if kind == "ties":  # few distinct values: ties everywhere
        return rng.integers(-2, 3, shape).astype(NP[elem])
    if elem == I:
        return rng.integers(-9, 10, shape).astype(np.int64)
    if kind == "positive":
        return rng.uniform(0.1, 3, shape).astype(np.float32)
    return (rng.standard_normal(shape) * 3).astype(np.float32)


def case(name, nodes, inputs, outputs, shapes, opset=18, inits=(),
         kind="normal", nonzero=(), make=None, spec=False):
    """inputs: (name, elem, dims) with dims numbers or symbols; outputs:
    names, or (name, elem, dims) declaring the output's type; shapes: a
    list of {symbol: size}; nonzero: inputs whose zeros are replaced (the
    divisors of Mod); make: {input: f(shape)} for inputs that need
    particular values (indices in range); spec: the outputs from ONNX's
    own reference evaluator, where ONNX Runtime departs from the spec."""
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info(n, e, d) for n, e, d in inputs],
        [helper.make_tensor_value_info(*o) if isinstance(o, tuple)
         else onnx.ValueInfoProto(name=o) for o in outputs],
        list(inits))
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 9
    path = os.path.join(OUT, name)
    onnx.save(model, path + ".onnx")
    if spec:
        from onnx.reference import ReferenceEvaluator
        session = ReferenceEvaluator(model)
    else:
        session = onnxruntime.InferenceSession(path + ".onnx")
    outputs = [o[0] if isinstance(o, tuple) else o for o in outputs]
    cases = []
    for binding in shapes:
        feed = {}
        for n, e, dims in inputs:
            shape = [binding[d] if isinstance(d, str) else d for d in dims]
            v = (make[n](shape, binding) if make and n in make
                 else values(e, shape, kind))
            if n in nonzero:
                v[v == 0] = 3
            feed[n] = v
        got = session.run(outputs, feed)
        label = ",".join(f"{k}={v}" for k, v in binding.items())
        cases.append((label, feed, dict(zip(outputs, got))))
    fixture.write_fixture(path + ".expected", cases)


def const(name, values_, elem=I):
    a = np.array(values_, dtype=NP[elem])
    return helper.make_tensor(name, elem, a.shape, a.ravel().tolist())


def node(op, inputs, outputs, **attrs):
    return helper.make_node(op, inputs, outputs, **attrs)


SHAPES = [{"n": 1, "m": 5}, {"n": 3, "m": 4}, {"n": 6, "m": 1},
          {"n": 2, "m": 9}]
X = [("x", F, ["n", "m"])]


def unary_cases():
    for op, attrs in [("Softplus", {}), ("Softsign", {}), ("Mish", {}),
                      ("LeakyRelu", {"alpha": 0.3}), ("Elu", {"alpha": 0.7}),
                      ("Selu", {}), ("Celu", {"alpha": 1.5}),
                      ("ThresholdedRelu", {"alpha": 0.5}),
                      ("HardSigmoid", {"alpha": 0.3, "beta": 0.4}),
                      ("HardSwish", {}), ("Gelu", {}),
                      ("Sin", {}), ("Cos", {}), ("Floor", {}), ("Ceil", {}),
                      ("Sign", {})]:
        opset = 20 if op == "Gelu" else 18
        case(op.lower(), [node(op, ["x"], ["y"], **attrs)], X, ["y"], SHAPES,
             opset=opset)
    case("gelu_tanh", [node("Gelu", ["x"], ["y"], approximate="tanh")], X,
         ["y"], SHAPES, opset=20)
    case("prelu", [node("PRelu", ["x", "slope"], ["y"])], X, ["y"], SHAPES,
         inits=[const("slope", [[0.1], [0.2], [0.3]][:1], F)])


def variadic_cases():
    ins = [("a", F, ["n", "m"]), ("b", F, ["m"]), ("c", F, [1, "m"])]
    for op in ["Sum", "Mean", "Max", "Min"]:
        case(op.lower() + "3", [node(op, ["a", "b", "c"], ["y"])], ins, ["y"],
             SHAPES)
    ints = [("a", I, ["n", "m"]), ("b", I, ["n", "m"])]
    case("mod_int", [node("Mod", ["a", "b"], ["y"])], ints, ["y"], SHAPES,
         nonzero=("b",))
    case("mod_int_fmod", [node("Mod", ["a", "b"], ["y"], fmod=1)], ints, ["y"],
         SHAPES, nonzero=("b",))
    case("mod_float", [node("Mod", ["a", "b"], ["y"], fmod=1)],
         [("a", F, ["n", "m"]), ("b", F, ["n", "m"])], ["y"], SHAPES,
         kind="positive")


def reduce_cases():
    x3 = [("x", F, ["n", 3, "m"])]
    for op in ["ReduceProd", "ReduceL1", "ReduceSumSquare", "ReduceLogSum",
               "ReduceLogSumExp"]:
        kind = "positive" if op == "ReduceLogSum" else "normal"
        case(op.lower(), [node(op, ["x", "axes"], ["y"], keepdims=1)], x3,
             ["y"], SHAPES, inits=[const("axes", [2])], kind=kind)
        case(op.lower() + "_all", [node(op, ["x"], ["y"], keepdims=0)], x3,
             ["y"], SHAPES, kind=kind)
    case("logsoftmax", [node("LogSoftmax", ["x"], ["y"], axis=1)], x3, ["y"],
         SHAPES)


def layout_cases():
    x3 = [("x", F, ["n", 3, "m"])]
    case("split_sizes", [node("Split", ["x", "s"], ["a", "b"], axis=1)], x3,
         ["a", "b"], SHAPES, inits=[const("s", [1, 2])])
    case("split_equal", [node("Split", ["x"], ["a", "b", "c"], axis=1,
                              num_outputs=3)], x3, ["a", "b", "c"], SHAPES)
    case("split_uneven", [node("Split", ["x"], ["a", "b"], axis=1,
                               num_outputs=2)], x3, ["a", "b"], SHAPES)
    case("tile", [node("Tile", ["x", "r"], ["y"])], x3, ["y"], SHAPES,
         inits=[const("r", [2, 1, 3])])
    for upper in (0, 1):
        for k in (-1, 0, 2):
            case(f"trilu_{'upper' if upper else 'lower'}_{k + 1}",
                 [node("Trilu", ["x", "k"], ["y"], upper=upper)], x3, ["y"],
                 SHAPES, inits=[const("k", k)])
    pads = [0, 1, 2, 1, 0, 3]  # begins, then ends, per axis
    for mode in ("constant", "edge", "reflect"):
        extra = [const("v", 1.5, F)] if mode == "constant" else []
        ins = ["x", "p", "v"] if mode == "constant" else ["x", "p"]
        case(f"pad_{mode}", [node("Pad", ins, ["y"], mode=mode)],
             [("x", F, ["n", 3, "m"])], ["y"],
             [s for s in SHAPES
              if mode != "reflect" or (s["m"] > 3 and s["n"] > 1)]
             + ([{"n": 2, "m": 0}] if mode == "constant" else []),
             inits=[const("p", pads)] + extra)
    case("pad_wrap", [node("Pad", ["x", "p"], ["y"], mode="wrap")], x3, ["y"],
         SHAPES, opset=19, inits=[const("p", [0, 1, 2, 0, 2, 3])])
    case("pad_crop_axes", [node("Pad", ["x", "p", "", "a"], ["y"])], x3, ["y"],
         [s for s in SHAPES if s["m"] > 1],
         inits=[const("p", [-1, 2, 0, 1]), const("a", [2, 1])])
    for eq, ins in [
            ("bij,bjk->bik", [("a", F, ["n", 3, "m"]), ("b", F, ["n", "m", 2])]),
            ("bhqd,bhkd->bhqk", [("a", F, [2, "n", 3, "m"]),
                                 ("b", F, [2, "n", 4, "m"])]),
            ("ij->ji", [("a", F, ["n", "m"])]),
            ("ij->i", [("a", F, ["n", "m"])]),
            ("i,i", [("a", F, ["m"]), ("b", F, ["m"])]),
            ("ij,jk", [("a", F, ["n", "m"]), ("b", F, ["m", 3])]),
            ("bi,bj->bij", [("a", F, ["n", 3]), ("b", F, ["n", "m"])]),
            ("...ij,...jk->...ik", [("a", F, ["n", 2, "m"]),
                                    ("b", F, ["n", "m", 3])]),
            ("ab,bc,cd->ad", [("a", F, ["n", 3]), ("b", F, [3, "m"]),
                              ("c", F, ["m", 2])])]:
        tag = eq.replace("...", "E").replace(",", "_").replace("->", "_to_")
        case("einsum_" + tag,
             [node("Einsum", [n for n, _, _ in ins], ["y"], equation=eq)],
             ins, ["y"], SHAPES)


def selection_cases():
    x3 = [("x", F, ["n", 3, "m"])]
    for op in ("ArgMax", "ArgMin"):
        for last in (0, 1):
            case(f"{op.lower()}_{'last' if last else 'first'}",
                 [node(op, ["x"], ["y"], axis=2, keepdims=1,
                       select_last_index=last)], x3, ["y"], SHAPES,
                 kind="ties")
        case(f"{op.lower()}_dropped",
             [node(op, ["x"], ["y"], axis=1, keepdims=0)], x3, ["y"], SHAPES)
    topk_shapes = [s for s in SHAPES if s["m"] >= 3] + [{"n": 2, "m": 3}]
    for largest in (0, 1):
        case(f"topk_{'largest' if largest else 'smallest'}",
             [node("TopK", ["x", "k"], ["v", "i"], axis=-1, largest=largest)],
             x3, ["v", "i"], topk_shapes, inits=[const("k", [3])],
             kind="ties")
    case("topk_axis1", [node("TopK", ["x", "k"], ["v", "i"], axis=1)], x3,
         ["v", "i"], SHAPES, inits=[const("k", [2])])
    for exclusive in (0, 1):
        for reverse in (0, 1):
            case(f"cumsum_{exclusive}{reverse}",
                 [node("CumSum", ["x", "a"], ["y"], exclusive=exclusive,
                       reverse=reverse)], x3, ["y"],
                 SHAPES + [{"n": 2, "m": 0}], inits=[const("a", 2)])
    case("cumsum_int", [node("CumSum", ["x", "a"], ["y"])],
         [("x", I, ["n", "m"])], ["y"], SHAPES, inits=[const("a", -2)])
    for axis in (-1, 0, 1):
        case(f"onehot_{axis + 1}",
             [node("OneHot", ["i", "d", "v"], ["y"], axis=axis)],
             [("i", I, ["n", "m"])], ["y"], SHAPES,
             inits=[const("d", 7), const("v", [-1.0, 2.0], F)])


def distinct(axis_symbol, negative=False):
    """Indices drawn without repeats from [0, size of `axis_symbol`) (or
    counted from the end, when `negative`), for scatters whose result ONNX
    leaves unspecified when two updates hit one place."""
    def make(shape, binding):
        limit = binding[axis_symbol]
        count = int(np.prod(shape))
        picked = rng.permutation(limit)[:count]
        if negative:
            picked = picked - limit * rng.integers(0, 2, count)
        return picked.reshape(shape).astype(np.int64)
    return make


def repeated(axis_symbol):
    """Indices in [0, size of `axis_symbol`), repeats likely."""
    return lambda shape, binding: rng.integers(
        0, binding[axis_symbol], shape).astype(np.int64)


def scatter_cases():
    # A cache of n rows written at s positions (the static KV cache).
    rows = [("data", F, ["n", 2, 3]), ("idx", I, ["s", 1]),
            ("upd", F, ["s", 2, 3])]
    case("scatternd_rows", [node("ScatterND", ["data", "idx", "upd"], ["y"])],
         rows, ["y"], [{"n": 8, "s": 1}, {"n": 5, "s": 3}, {"n": 9, "s": 0},
                       {"n": 1, "s": 1}, {"n": 6, "s": 6}],
         make={"idx": distinct("n", negative=True)})
    for reduction in ("add", "mul", "max", "min"):
        case(f"scatternd_{reduction}",
             [node("ScatterND", ["data", "idx", "upd"], ["y"],
                   reduction=reduction)], rows, ["y"],
             [{"n": 4, "s": 6}, {"n": 1, "s": 3}, {"n": 7, "s": 0},
              {"n": 3, "s": 1}], make={"idx": repeated("n")})
    points = [("data", F, ["n", "m"]), ("idx", I, ["s", 2]),
              ("upd", F, ["s"])]
    case("scatternd_points",
         [node("ScatterND", ["data", "idx", "upd"], ["y"], reduction="add")],
         points, ["y"], [{"n": 3, "m": 4, "s": 5}, {"n": 1, "m": 1, "s": 2}],
         make={"idx": lambda shape, binding: np.stack(
             [rng.integers(0, binding["n"], shape[0]),
              rng.integers(0, binding["m"], shape[0])], 1)})
    elements = [("data", F, ["n", "m"]), ("idx", I, ["n", "k"]),
                ("upd", F, ["n", "k"])]
    case("scatterelements_axis1",
         [node("ScatterElements", ["data", "idx", "upd"], ["y"], axis=1)],
         elements, ["y"], [{"n": 2, "m": 6, "k": 3}, {"n": 1, "m": 4, "k": 4},
                           {"n": 3, "m": 5, "k": 0}],
         make={"idx": lambda shape, binding: np.stack(
             [rng.permutation(binding["m"])[:shape[1]]
              for _ in range(shape[0])]).reshape(shape).astype(np.int64)})
    for reduction in ("add", "max"):
        case(f"scatterelements_{reduction}",
             [node("ScatterElements", ["data", "idx", "upd"], ["y"], axis=0,
                   reduction=reduction)],
             [("data", F, ["n", "m"]), ("idx", I, ["k", "m"]),
              ("upd", F, ["k", "m"])], ["y"],
             [{"n": 3, "m": 4, "k": 5}, {"n": 1, "m": 2, "k": 1},
              {"n": 2, "m": 3, "k": 0}], make={"idx": repeated("n")})


def shape_cases():
    # positions = past + arange(seq), in floats, as a decoder computes them
    nodes = [node("Shape", ["x"], ["s"]),
             node("Gather", ["s", "zero"], ["past"]),
             node("Gather", ["s", "one"], ["seq"]),
             node("Add", ["past", "seq"], ["end"]),
             node("Cast", ["past"], ["pastf"], to=F),
             node("Cast", ["end"], ["endf"], to=F),
             node("Range", ["pastf", "endf", "step"], ["y"])]
    case("range_from_past", nodes, [("x", F, ["n", "m"])], ["y"], SHAPES,
         inits=[const("zero", 0), const("one", 1), const("step", 1.0, F)])
    nodes = [node("Shape", ["x"], ["s"]), node("Gather", ["s", "one"], ["m"]),
             node("Range", ["zero", "m", "three"], ["y"])]
    case("range_step3", nodes, [("x", F, ["n", 6])], ["y"], SHAPES,
         inits=[const("zero", 0), const("one", 1), const("three", 3)])


def shape_arithmetic_cases():
    # x[:, :m // 2] + x[:, (m + 1) // 2:], and x[:, :m % 3]: sizes that are
    # floor divisions and remainders of a symbolic dim.
    nodes = [node("Shape", ["x"], ["s"]), node("Gather", ["s", "one"], ["m"]),
             node("Div", ["m", "two"], ["h"]),
             node("Add", ["m", "one"], ["m1"]),
             node("Div", ["m1", "two"], ["hc"]),
             node("Mod", ["m", "three"], ["r"])]
    for v in ["h", "hc", "r", "m"]:
        nodes.append(node("Unsqueeze", [v, "axis0"], [v + "_1"]))
    nodes += [node("Slice", ["x", "zeros", "h_1", "axes"], ["lo"]),
              node("Slice", ["x", "hc_1", "m_1", "axes"], ["hi"]),
              node("Add", ["lo", "hi"], ["y"]),
              node("Slice", ["x", "zeros", "r_1", "axes"], ["z"])]
    case("split_symbolic_halves",
         [node("Split", ["x"], ["a", "b"], axis=1, num_outputs=2)], X,
         ["a", "b"], SHAPES + [{"n": 2, "m": 0}])
    case("shape_floordiv_mod", nodes, X, ["y", "z"],
         SHAPES + [{"n": 2, "m": 0}, {"n": 1, "m": 8}],
         inits=[const("one", 1), const("two", 2), const("three", 3),
                const("axis0", [0]), const("zeros", [0]), const("axes", [1])])


def backward_slice_cases():
    # Negative steps: reversed along a symbolic axis with every second
    # element from a clamped start on a static one (torch.flip's export),
    # and every third from the second-to-last down to index 0.
    x3 = [("x", F, ["n", 3, "m"])]
    big = 2**63 - 1
    ins = ["x", "st", "en", "ax", "sp"]
    case("slice_reversed", [node("Slice", ins, ["y"])], x3, ["y"],
         SHAPES + [{"n": 2, "m": 0}],
         inits=[const("st", [-1, 5]), const("en", [-big - 1, -big]),
                const("ax", [2, 1]), const("sp", [-1, -2])])
    case("slice_backward_step3", [node("Slice", ins, ["y"])], x3, ["y"],
         [s for s in SHAPES if s["m"] >= 2] + [{"n": 1, "m": 2},
                                               {"n": 1, "m": 10}],
         inits=[const("st", [-2]), const("en", [0]), const("ax", [2]),
                const("sp", [-3])])


def computed_pad_cases():
    # TorchScript's F.pad(x, [p, p]) with p = (4 - m % 4) % 4: the pads
    # built as [axes, 2] from the last axis, the rows reversed and the
    # matrix transposed and flattened into ONNX's begins-then-ends.
    nodes = [node("Shape", ["x"], ["s"]), node("Gather", ["s", "two"], ["m"]),
             node("Mod", ["m", "four"], ["r"]),
             node("Sub", ["four", "r"], ["d"]),
             node("Mod", ["d", "four"], ["p"]),
             node("Unsqueeze", ["p", "axis0"], ["p1"]),
             node("Concat", ["p1", "p1", "zeros4"], ["flat"], axis=0),
             node("Reshape", ["flat", "pairs_shape"], ["pairs"]),
             node("Slice", ["pairs", "minus1", "far", "axis0", "minus1"],
                  ["reversed"]),
             node("Transpose", ["reversed"], ["t"], perm=[1, 0]),
             node("Reshape", ["t", "minus1"], ["pads"]),
             node("Pad", ["x", "pads", "v"], ["y"])]
    case("pad_computed_amounts", nodes, [("x", F, ["n", 3, "m"])], ["y"],
         SHAPES + [{"n": 2, "m": 0}, {"n": 1, "m": 8}],
         inits=[const("two", 2), const("four", 4), const("axis0", [0]),
                const("zeros4", [0, 0, 0, 0]), const("pairs_shape", [-1, 2]),
                const("minus1", [-1]), const("far", [-2**63]),
                const("v", 0.5, F)])
    # (m - 1) / 2 + 1, as an exporter writes a strided convolution's
    # output size: Div truncates, the floor where m >= 1 (m = 0 fails).
    nodes = [node("Shape", ["x"], ["s"]), node("Gather", ["s", "one"], ["m"]),
             node("Sub", ["m", "one"], ["m1"]),
             node("Div", ["m1", "two"], ["h"]),
             node("Add", ["h", "one"], ["c"]),
             node("Unsqueeze", ["c", "axis0"], ["c1"]),
             node("Slice", ["x", "zero1", "c1", "axis1"], ["y"])]
    case("shape_truncated_quotient", nodes, X, ["y"], SHAPES,
         inits=[const("one", 1), const("two", 2), const("axis0", [0]),
                const("zero1", [0]), const("axis1", [1])])


def weights(name, shape):
    a = (rng.standard_normal(shape) * 0.5).astype(np.float32)
    return helper.make_tensor(name, F, a.shape, a.ravel().tolist())


def conv_cases():
    # Convolutions and pools over dynamic spatial sizes (odd, even, 1).
    images = [{"n": 1, "h": 1, "w": 1}, {"n": 2, "h": 5, "w": 8},
              {"n": 1, "h": 7, "w": 3}, {"n": 1, "h": 16, "w": 9},
              {"n": 0, "h": 4, "w": 4}]
    large = [b for b in images if b["h"] >= 4 and b["w"] >= 3]
    x4 = [("x", F, ["n", 4, "h", "w"])]
    case("conv1d_subsample",
         [node("Conv", ["x", "k", "b"], ["y"], strides=[2], pads=[1, 1])],
         [("x", F, ["n", 4, "t"])], ["y"],
         [{"n": 1, "t": 1}, {"n": 2, "t": 2}, {"n": 1, "t": 7},
          {"n": 2, "t": 16}],
         inits=[weights("k", [6, 4, 3]), weights("b", [6])])
    case("conv2d_same_size",
         [node("Conv", ["x", "k", "b"], ["y"], pads=[1, 1, 1, 1])], x4,
         ["y"], images, inits=[weights("k", [5, 4, 3, 3]), weights("b", [5])])
    case("conv2d_stride_dilation",
         [node("Conv", ["x", "k"], ["y"], strides=[2, 1], dilations=[1, 2],
               pads=[0, 1, 1, 0])], x4, ["y"], large,
         inits=[weights("k", [3, 4, 3, 2])])
    case("conv2d_depthwise",
         [node("Conv", ["x", "k"], ["y"], group=4, strides=[2, 2],
               pads=[1, 1, 1, 1])], x4, ["y"], images,
         inits=[weights("k", [4, 1, 3, 3])])
    case("conv2d_grouped_1x1",
         [node("Conv", ["x", "k", "b"], ["y"], group=2)], x4, ["y"], images,
         inits=[weights("k", [6, 2, 1, 1]), weights("b", [6])])
    case("conv2d_same_upper",
         [node("Conv", ["x", "k"], ["y"], auto_pad="SAME_UPPER")], x4, ["y"],
         images, inits=[weights("k", [2, 4, 4, 2])])
    case("conv2d_valid_stride3",
         [node("Conv", ["x", "k"], ["y"], strides=[3, 3])], x4, ["y"], large,
         inits=[weights("k", [2, 4, 2, 3])])
    case("maxpool2d_resnet",
         [node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2],
               pads=[1, 1, 1, 1])], x4, ["y"], images)
    case("maxpool2d_ceil",
         [node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], strides=[2, 2],
               ceil_mode=1)], x4, ["y"], images)
    case("maxpool1d_dilation",
         [node("MaxPool", ["x"], ["y"], kernel_shape=[2], dilations=[2],
               pads=[1, 0])], [("x", F, ["n", 3, "t"])], ["y"],
         [{"n": 1, "t": 2}, {"n": 2, "t": 9}])
    case("avgpool2d_exclude_pad",
         [node("AveragePool", ["x"], ["y"], kernel_shape=[3, 3],
               strides=[2, 2], pads=[1, 1, 1, 1])], x4, ["y"], images)
    case("avgpool2d_include_pad",
         [node("AveragePool", ["x"], ["y"], kernel_shape=[3, 3],
               strides=[2, 2], pads=[1, 1, 1, 1], count_include_pad=1)],
         x4, ["y"], images)
    case("avgpool2d_ceil",
         [node("AveragePool", ["x"], ["y"], kernel_shape=[2, 2],
               strides=[2, 2], ceil_mode=1)], x4, ["y"], images)
    case("global_avgpool", [node("GlobalAveragePool", ["x"], ["y"])], x4,
         ["y"], images)
    case("global_maxpool", [node("GlobalMaxPool", ["x"], ["y"])], x4, ["y"],
         images[:4])
    case("batchnorm",
         [node("BatchNormalization", ["x", "g", "b", "m", "v"], ["y"],
               epsilon=1e-3)], x4, ["y"], images,
         inits=[weights("g", [4]), weights("b", [4]), weights("m", [4]),
                helper.make_tensor("v", F, [4], [0.5, 1.0, 2.0, 0.25])])
    case("instancenorm",
         [node("InstanceNormalization", ["x", "g", "b"], ["y"])],
         [("x", F, ["n", 3, "t"])], ["y"],
         [{"n": 1, "t": 1}, {"n": 2, "t": 5}, {"n": 1, "t": 12}],
         inits=[weights("g", [3]), weights("b", [3])])


def conv_transpose_cases():
    images = [{"n": 1, "h": 1, "w": 1}, {"n": 2, "h": 5, "w": 8},
              {"n": 1, "h": 7, "w": 3}]
    x4 = [("x", F, ["n", 4, "h", "w"])]
    case("convtranspose1d_up2",
         [node("ConvTranspose", ["x", "k"], ["y"], strides=[2], pads=[1, 1])],
         [("x", F, ["n", 4, "t"])], ["y"],
         [{"n": 1, "t": 1}, {"n": 2, "t": 6}, {"n": 1, "t": 13}],
         inits=[weights("k", [4, 3, 4])])
    case("convtranspose2d_output_padding",
         [node("ConvTranspose", ["x", "k", "b"], ["y"], strides=[2, 2],
               pads=[1, 1, 1, 1], output_padding=[1, 1])], x4, ["y"], images,
         inits=[weights("k", [4, 2, 3, 3]), weights("b", [2])])
    case("convtranspose2d_grouped_dilated",
         [node("ConvTranspose", ["x", "k", "b"], ["y"], group=2,
               dilations=[2, 1], strides=[1, 2], pads=[0, 1, 1, 0])],
         x4, ["y"], images,
         inits=[weights("k", [4, 1, 2, 3]), weights("b", [2])])
    case("convtranspose2d_unet_up",
         [node("ConvTranspose", ["x", "k", "b"], ["y"], strides=[2, 2])],
         x4, ["y"], images,
         inits=[weights("k", [4, 3, 2, 2]), weights("b", [3])])


def resize_cases():
    images = [{"n": 1, "h": 1, "w": 1}, {"n": 2, "h": 5, "w": 8},
              {"n": 1, "h": 7, "w": 3}]
    x = [("x", F, ["n", 2, "h", "w"])]
    for name, scales, attrs in [
            ("resize_nearest_up2", [1, 1, 2, 2],
             dict(mode="nearest", coordinate_transformation_mode="asymmetric",
                  nearest_mode="floor")),
            ("resize_nearest_half", [1, 1, 0.5, 0.5], {}),
            ("resize_linear_up3", [1, 1, 3, 1.5], dict(mode="linear")),
            ("resize_cubic_up2", [1, 1, 2, 2], dict(mode="cubic"))]:
        case(name, [node("Resize", ["x", "", "s"], ["y"], **attrs)], x, ["y"],
             images, inits=[const("s", scales, F)])
    # A fixed grid resized to another input's height and width (a ViT's
    # position embeddings to its patch grid).
    sizes = [node("Shape", ["like"], ["ls"]),
             node("Slice", ["ls", "two", "four"], ["hw"]),
             node("Concat", ["lead", "hw"], ["size"], axis=0)]
    grid = [("x", F, [1, 3, 4, 5]), ("like", F, [1, 1, "h", "w"])]
    for name, attrs in [
            ("resize_cubic_to_input", dict(mode="cubic")),
            ("resize_linear_align_corners",
             dict(mode="linear",
                  coordinate_transformation_mode="align_corners")),
            ("resize_linear_pytorch_half_pixel",
             dict(mode="linear",
                  coordinate_transformation_mode="pytorch_half_pixel")),
            ("resize_nearest_ceil_symmetric",
             dict(mode="nearest", nearest_mode="round_prefer_ceil",
                  coordinate_transformation_mode="half_pixel_symmetric"))]:
        case(name, sizes + [node("Resize", ["x", "", "", "size"], ["y"],
                                 **attrs)],
             grid, ["y"], [{"h": 1, "w": 1}, {"h": 3, "w": 7},
                           {"h": 8, "w": 10}, {"h": 4, "w": 5}],
             opset=19, inits=[const("two", [2]), const("four", [4]),
                              const("lead", [1, 3])])


def nonzero_cases():
    # Data-dependent sizes: the count of nonzero elements sizes everything
    # after it (one compile serves every count, zero included).
    coin = {"m": lambda shape, _: rng.random(shape) < 0.5}
    case("nonzero_f32_ties", [node("NonZero", ["x"], ["y"])],
         [("x", F, ["n", "m"])], ["y"], SHAPES + [{"n": 0, "m": 3}],
         kind="ties")
    packed = [node("NonZero", ["m"], ["nz"]),
              node("Transpose", ["nz"], ["at"], perm=[1, 0]),
              node("GatherND", ["x", "at"], ["tokens"]),
              node("Relu", ["tokens"], ["y"])]
    tokens = [("x", F, ["b", "s", 4]), ("m", TensorProto.BOOL, ["b", "s"])]
    token_shapes = [{"b": 1, "s": 1}, {"b": 2, "s": 5}, {"b": 3, "s": 9},
                    {"b": 2, "s": 0}]
    case("nonzero_gather_tokens", packed, tokens, ["y"], token_shapes,
         make=coin)
    case("nonzero_scatter_back",
         packed + [node("Shape", ["x"], ["xs"]),
                   node("ConstantOfShape", ["xs"], ["zero"]),
                   node("ScatterND", ["zero", "at", "y"], ["out"])],
         tokens, ["out"], token_shapes, make=coin)


def sort_cases():
    """TopK past the unrolled rounds: a large constant k, and the whole
    axis by a k read from Shape (how torch.sort and torch.argsort export),
    both directions, with ties and with NaN."""
    x = [("x", F, ["n", "m"])]
    wide = [{"n": 1, "m": 12}, {"n": 3, "m": 40}, {"n": 2, "m": 9}]
    for largest in (0, 1):
        case(f"topk_k9_{'largest' if largest else 'smallest'}",
             [node("TopK", ["x", "k"], ["v", "i"], axis=1, largest=largest)],
             x, ["v", "i"], wide, inits=[const("k", [9])], kind="ties")
    whole = [node("Shape", ["x"], ["shape"]),
             node("Gather", ["shape", "last"], ["k"], axis=0)]
    every = SHAPES + [{"n": 2, "m": 0}, {"n": 4, "m": 33}]

    def with_nan(shape, _):
        v = values(F, shape, "ties")
        v[rng.random(shape) < 0.2] = np.nan
        return v
    for largest in (0, 1):
        case(f"sort_whole_axis_{'descending' if largest else 'ascending'}",
             whole + [node("TopK", ["x", "k"], ["v", "i"], axis=-1,
                           largest=largest)],
             x, ["v", "i"], every, inits=[const("last", [1])],
             make={"x": with_nan})


def unique_cases():
    """Unique over the flattened tensor: a size only the data gives (the
    count of distinct values), sorted and in order of first occurrence,
    floats with ties (-0.0 and 0.0 one value) and integers, and nothing at
    all. No NaN: ONNX Runtime merges a NaN into another value."""
    outputs = ["y", "indices", "inverse", "counts"]
    shapes = [{"n": 1, "m": 1}, {"n": 3, "m": 4}, {"n": 2, "m": 9},
              {"n": 0, "m": 3}, {"n": 5, "m": 7}]

    def with_signed_zeros(shape, _):
        v = values(F, shape, "ties")
        v[v == 0] = np.where(rng.random(int((v == 0).sum())) < 0.5, -0.0, 0.0)
        return v
    for sorted_ in (1, 0):
        case(f"unique_{'sorted' if sorted_ else 'first_occurrence'}",
             [node("Unique", ["x"], outputs, sorted=sorted_)],
             [("x", F, ["n", "m"])], outputs, shapes,
             make={"x": with_signed_zeros})
    case("unique_int64_values_only", [node("Unique", ["x"], ["y"])],
         [("x", I, ["n", "m"])], ["y"], shapes)


def more_op_cases():
    """Elementwise, layout and normalisation ops real exports use:
    IsInf, Round (halves to even), Xor and the bitwise ops, Shrink,
    CastLike, Hardmax, DepthToSpace both ways, SpaceToDepth,
    GroupNormalization per channel (opset 21) and per group (opset 18),
    LpNormalization."""
    x = [("x", F, ["n", "m"])]

    def specials(shape, _):
        v = (rng.integers(-8, 9, shape) / 4).astype(np.float32)  # halves
        flat = v.reshape(-1)
        for k, special in enumerate([np.inf, -np.inf, np.nan]):
            if k < flat.size:
                flat[(k * 7) % flat.size] = special
        return v
    case("isinf", [node("IsInf", ["x"], ["y"])], x, ["y"], SHAPES,
         make={"x": specials})
    case("isinf_negative_only", [node("IsInf", ["x"], ["y"],
                                      detect_positive=0)], x, ["y"], SHAPES,
         make={"x": specials})
    case("round_half_even", [node("Round", ["x"], ["y"])], x, ["y"], SHAPES,
         make={"x": specials})
    booleans = [("a", TensorProto.BOOL, ["n", "m"]),
                ("b", TensorProto.BOOL, ["n", "m"])]

    def coin(shape, _):
        return rng.random(shape) < 0.5
    case("xor", [node("Xor", ["a", "b"], ["y"])], booleans, ["y"], SHAPES,
         make={"a": coin, "b": coin})
    ints = [("a", I, ["n", "m"]), ("b", I, ["n", "m"])]
    for op in ("BitwiseAnd", "BitwiseOr", "BitwiseXor"):
        case(op.lower(), [node(op, ["a", "b"], ["y"])], ints, ["y"], SHAPES)
    case("bitwisenot", [node("BitwiseNot", ["a"], ["y"])], ints[:1], ["y"],
         SHAPES)
    case("shrink", [node("Shrink", ["x"], ["y"], lambd=1.5, bias=0.5)], x,
         ["y"], SHAPES)
    case("castlike", [node("CastLike", ["x", "like"], ["y"])], x, ["y"],
         SHAPES, inits=[const("like", [0])])
    case("hardmax", [node("Hardmax", ["x"], ["y"], axis=1)], x, ["y"],
         SHAPES, kind="ties")
    image = [("x", F, ["n", 8, "h", "w"])]
    pictures = [{"n": 1, "h": 1, "w": 1}, {"n": 2, "h": 3, "w": 5},
                {"n": 1, "h": 4, "w": 2}]
    for mode in ("DCR", "CRD"):
        case(f"depthtospace_{mode.lower()}",
             [node("DepthToSpace", ["x"], ["y"], blocksize=2, mode=mode)],
             image, ["y"], pictures)
    even = [{"n": 1, "h": 2, "w": 2}, {"n": 2, "h": 4, "w": 6},
            {"n": 1, "h": 6, "w": 2}]
    case("spacetodepth", [node("SpaceToDepth", ["x"], ["y"], blocksize=2)],
         image, ["y"], even)
    features = [("x", F, ["n", 8, "t"])]
    lengths = [{"n": 1, "t": 1}, {"n": 2, "t": 5}, {"n": 3, "t": 17}]
    case("groupnorm_per_channel",
         [node("GroupNormalization", ["x", "scale", "bias"], ["y"],
               num_groups=4, epsilon=1e-5)], features, ["y"], lengths,
         opset=21, inits=[const("scale", np.linspace(0.5, 1.5, 8), F),
                          const("bias", np.linspace(-1, 1, 8), F)])
    case("groupnorm_per_group",
         [node("GroupNormalization", ["x", "scale", "bias"], ["y"],
               num_groups=2)], features, ["y"], lengths, opset=18,
         inits=[const("scale", [0.5, 2.0], F), const("bias", [1.0, -1.0], F)])
    for p_ in (1, 2):
        case(f"lpnormalization_p{p_}",
             [node("LpNormalization", ["x"], ["y"], axis=1, p=p_)], x, ["y"],
             [s_ for s_ in SHAPES])


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    unary_cases()
    variadic_cases()
    reduce_cases()
    layout_cases()
    selection_cases()
    scatter_cases()
    shape_cases()
    case("size", [node("Size", ["x"], ["y"])], [("x", F, ["n", 3, "m"])],
         ["y"], SHAPES + [{"n": 0, "m": 2}])
    shape_arithmetic_cases()
    conv_cases()
    resize_cases()
    conv_transpose_cases()
    nonzero_cases()
    backward_slice_cases()
    computed_pad_cases()
    sort_cases()
    unique_cases()
    more_op_cases()
    # Sizes: one mask's counts, exact fills, anonymous dims, max and min,
    # half precision; in their own file, on this module's generator.
    import op_fixtures_sizes
    op_fixtures_sizes.main(sys.modules[__name__])
    # Forms a held-out sweep of exported models met; after the rest.
    import op_fixtures_heldout
    op_fixtures_heldout.main(sys.modules[__name__])
