"""The encoder of encoder.py as an ONNX graph (opset 17), for ONNX Runtime,
IREE and TVM: built with onnx.helper node by node, so no exporter's
choices come in. Inputs x f32[batch, seq, 768] and mask f32[batch, seq],
both dims named (dynamic); output y f32[batch, seq, 768]. The ops are the
ones PyTorch's exporter emits for BERT: MatMul + Add, Reshape and
Transpose for heads, Softmax, LayerNormalization, Erf-based GELU.
"""

import math

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import encoder


def build(layer_weights):
    nodes, initializers = [], []
    counter = [0]

    def fresh(prefix):
        counter[0] += 1
        return f"{prefix}_{counter[0]}"

    def constant(array, prefix="c"):
        name = fresh(prefix)
        initializers.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def op(kind, inputs, **attributes):
        out = fresh(kind.lower())
        nodes.append(helper.make_node(kind, inputs, [out], **attributes))
        return out

    hidden, heads, head_dim = encoder.HIDDEN, encoder.HEADS, encoder.HEAD_DIM
    # [batch, seq] -> additive [batch, 1, 1, seq]
    one = constant(np.float32(1.0))
    additive = op("Mul", [op("Sub", [one, "mask"]),
                          constant(np.float32(-10000.0))])
    additive = op("Unsqueeze", [additive, constant(np.array([1, 2], np.int64))])
    split = constant(np.array([0, 0, heads, head_dim], np.int64))
    merge = constant(np.array([0, 0, hidden], np.int64))
    scale = constant(np.float32(1.0 / math.sqrt(head_dim)))
    x = "x"
    for w in layer_weights:
        def linear(t, weight, bias):
            return op("Add", [op("MatMul", [t, constant(w[weight], weight)]),
                              constant(w[bias], bias)])

        def to_heads(t):  # [b, s, 768] -> [b, 12, s, 64]
            return op("Transpose", [op("Reshape", [t, split])],
                      perm=[0, 2, 1, 3])
        q = to_heads(linear(x, "wq", "bq"))
        k = to_heads(linear(x, "wk", "bk"))
        v = to_heads(linear(x, "wv", "bv"))
        kt = op("Transpose", [k], perm=[0, 1, 3, 2])
        scores = op("Add", [op("Mul", [op("MatMul", [q, kt]), scale]),
                            additive])
        context = op("MatMul", [op("Softmax", [scores], axis=-1), v])
        context = op("Reshape", [op("Transpose", [context], perm=[0, 2, 1, 3]),
                                 merge])
        attended = op("LayerNormalization",
                      [op("Add", [x, linear(context, "wo", "bo")]),
                       constant(w["g1"], "g1"), constant(w["b1"], "b1")],
                      axis=-1, epsilon=encoder.EPSILON)
        up = linear(attended, "wi", "bi")
        gelu = op("Mul", [op("Mul", [up, constant(np.float32(0.5))]),
                          op("Add", [op("Erf", [op("Mul", [
                              up, constant(np.float32(1 / math.sqrt(2)))])]),
                              one])])
        x = op("LayerNormalization",
               [op("Add", [attended, linear(gelu, "wd", "bd")]),
                constant(w["g2"], "g2"), constant(w["b2"], "b2")],
               axis=-1, epsilon=encoder.EPSILON)
    nodes.append(helper.make_node("Identity", [x], ["y"]))
    graph = helper.make_graph(
        nodes, "bert_encoder",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["batch", "seq", hidden]),
         helper.make_tensor_value_info("mask", TensorProto.FLOAT,
                                       ["batch", "seq"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       ["batch", "seq", hidden])],
        initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model
