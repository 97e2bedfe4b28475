// One ONNX node at a time, through client::GraphBuilder. Each op names the
// attributes it reads; any other attribute on the node is an error, so a
// model that depends on a behaviour not translated here is refused rather
// than imported with a different meaning.
#include "frontend/onnx/OnnxNode.h"
#include "frontend/onnx/OnnxOpsetUpgrade.h"
#include "ir/graph/DType.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <set>

namespace anyshape::onnx {
namespace {

Translate unary(Value (client::GraphBuilder::*op)(Value)) {
  return [op](Node &n) -> Status {
    ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
    return n.define((n.b.*op)(x));
  };
}

Translate binary(const char *op) {
  return [op](Node &n) -> Status {
    if (n.inputs.size() != 2)
      return n.error("takes 2 inputs, not " + std::to_string(n.inputs.size()));
    ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
    ANYSHAPE_ASSIGN_OR_RETURN(Value y, n.input(1));
    return n.define(n.b.binary(op, x, y));
  };
}

/// Pow, whose exponent may have another element type (opset 12 on): the
/// result has the base's. The exponent is converted to the base's type
/// (exact for the whole numbers exporters write), except a float one of
/// an integer base, whose fraction that would drop: refused.
Status pow(Node &n) {
  if (n.inputs.size() != 2)
    return n.error("takes 2 inputs, not " + std::to_string(n.inputs.size()));
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  ANYSHAPE_ASSIGN_OR_RETURN(Value y, n.input(1));
  v1::DType base = n.b.dtype(x), exponent = n.b.dtype(y);
  if (base != exponent) {
    if (!isFloatDType(base) && isFloatDType(exponent))
      return n.error("raises an integer base to a float exponent");
    y = n.b.convert(y, base);
  }
  return n.define(n.b.pow(x, y));
}

Translate comparison(client::Comparison direction) {
  return [direction](Node &n) -> Status {
    ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
    ANYSHAPE_ASSIGN_OR_RETURN(Value y, n.input(1));
    return n.define(n.b.compare(x, y, direction));
  };
}

/// `x` reshaped to `shape`, which keeps its element count and its dims
/// but for size-1 ones: a single anonymous dim ("?", a size no dim
/// expression writes, such as BEiT's `-1` of a relative-position table)
/// is the wire's inferred `-1`, which is that same size.
Value reshapeKeepingDims(Node &n, Value x, std::vector<Dim> shape) {
  auto anonymous = [](const Dim &d) { return d.text() == "?"; };
  if (std::count_if(shape.begin(), shape.end(), anonymous) == 1)
    std::replace_if(shape.begin(), shape.end(), anonymous, Dim(-1));
  return n.b.reshape(x, shape);
}

/// `x` with size-1 dims inserted at `axes` (of the result).
StatusOr<Value> unsqueeze(Node &n, Value x, std::vector<int64_t> axes) {
  std::vector<Dim> dims = n.dims(x);
  int64_t r = static_cast<int64_t>(dims.size() + axes.size());
  std::vector<bool> inserted(static_cast<size_t>(r), false);
  for (int64_t a : axes) {
    ANYSHAPE_ASSIGN_OR_RETURN(int64_t at, n.axis(a, r));
    inserted[static_cast<size_t>(at)] = true;
  }
  std::vector<Dim> shape;
  size_t next = 0;
  for (int64_t d = 0; d < r; ++d)
    shape.push_back(inserted[d] ? Dim(1) : dims[next++]);
  return reshapeKeepingDims(n, x, shape);
}

/// What a reduction does besides reducing: ReduceMean divides by the
/// count, ReduceL2 squares first and takes the root after, and so on.
enum class Reducing { Plain, Mean, L1, L2, SumSquare, LogSum, LogSumExp };

/// The max of `x` over `dims`, kept as size-1 dims, with an infinite or
/// NaN max replaced by 0: what log-sum-exp subtracts so that exp cannot
/// overflow (an infinite max would make x - max NaN instead).
StatusOr<Value> finiteMax(Node &n, Value x, const std::vector<int64_t> &dims,
                          Value *unkept) {
  Value m = n.b.reduce(x, dims, client::Reduction::Max);
  Value finite = n.b.compare(n.b.abs(m), n.b.scalar(INFINITY, n.b.dtype(x)),
                             client::Comparison::Lt);
  m = n.b.select(
      finite, m,
      n.b.broadcastInDim(n.b.scalar(0.0, n.b.dtype(x)), n.dims(m), {}));
  if (unkept)
    *unkept = m;
  return unsqueeze(n, m, dims);
}

Status reduction(Node &n, client::Reduction kind, Reducing style) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  int64_t r = n.rank(x);
  std::optional<std::vector<int64_t>> axes = n.attrInts("axes");
  if (n.proto.input_size() > 1 && !n.proto.input(1).empty()) {
    ANYSHAPE_ASSIGN_OR_RETURN(axes, n.knownInput(1));
  }
  std::vector<int64_t> dims;
  if (!axes || axes->empty()) {
    // Nothing is reduced, but the elementwise steps still apply: ONNX's
    // ReduceSumSquare of no axes is the square, ReduceL1 the absolute
    // value, ReduceL2 sqrt(x * x), ReduceLogSum the log.
    if (n.attrInt("noop_with_empty_axes", 0)) {
      if (style == Reducing::L2 || style == Reducing::SumSquare)
        x = n.b.mul(x, x);
      if (style == Reducing::L1)
        x = n.b.abs(x);
      if (style == Reducing::L2)
        x = n.b.sqrt(x);
      if (style == Reducing::LogSum)
        x = n.b.log(x);
      return n.define(x);
    }
    for (int64_t d = 0; d < r; ++d)
      dims.push_back(d);
  } else {
    for (int64_t a : *axes) {
      ANYSHAPE_ASSIGN_OR_RETURN(int64_t d, n.axis(a, r));
      dims.push_back(d);
    }
  }
  std::sort(dims.begin(), dims.end());
  Value shift;
  if (style == Reducing::L2 || style == Reducing::SumSquare)
    x = n.b.mul(x, x);
  if (style == Reducing::L1)
    x = n.b.abs(x);
  if (style == Reducing::LogSumExp) {
    ANYSHAPE_ASSIGN_OR_RETURN(Value kept, finiteMax(n, x, dims, &shift));
    x = n.b.exp(n.b.sub(x, kept));
  }
  Value reduced = n.b.reduce(x, dims, kind);
  if (style == Reducing::L2)
    reduced = n.b.sqrt(reduced);
  if (style == Reducing::LogSum || style == Reducing::LogSumExp)
    reduced = n.b.log(reduced);
  if (style == Reducing::LogSumExp)
    reduced = n.b.add(reduced, shift);
  if (style == Reducing::Mean)
    reduced = n.b.div(reduced, elementCount(n, x, dims));
  if (n.attrInt("keepdims", 1)) {
    ANYSHAPE_ASSIGN_OR_RETURN(reduced, unsqueeze(n, reduced, dims));
  }
  return n.define(reduced);
}

} // namespace

Value elementCount(Node &n, Value x, const std::vector<int64_t> &dims) {
  Value count = n.b.scalar(1.0, n.b.dtype(x));
  for (int64_t d : dims)
    count = n.b.mul(count, n.b.convert(n.b.dimSize(x, d), n.b.dtype(x)));
  return count;
}

namespace {

Translate reduce(client::Reduction kind, Reducing style) {
  return [kind, style](Node &n) { return reduction(n, kind, style); };
}

const std::set<std::string> reduceAttributes = {"axes", "keepdims",
                                                "noop_with_empty_axes"};

/// numpy's matmul, as ONNX defines MatMul: a rank-1 operand is a row (x)
/// or a column (w) whose unit dim leaves the result; [M, K] @ [K, N]
/// batched over the operands' leading dims broadcast against each other
/// (Mamba's W[128, 4] @ x[batch, 4, n]); [..., K] @ [K, N] the builder's
/// own product of the last dim.
Status matmul(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  ANYSHAPE_ASSIGN_OR_RETURN(Value w, n.input(1));
  int64_t rx = n.rank(x), rw = n.rank(w);
  if (rx < 1 || rw < 1)
    return n.error("MatMul of a scalar is not defined");
  auto withUnit = [&](Value v, size_t at) {
    std::vector<Dim> dims = n.dims(v);
    dims.insert(dims.begin() + static_cast<std::ptrdiff_t>(at), Dim(1));
    return n.b.reshape(v, dims);
  };
  if (rx == 1)
    x = withUnit(x, 0);
  if (rw == 1)
    w = withUnit(w, 1);
  Value y;
  if (n.rank(w) == 2) {
    y = n.b.matmul(x, w);
  } else {
    // Both to the broadcast batch dims, then one batched product.
    std::vector<Dim> dx = n.dims(x), dw = n.dims(w);
    ANYSHAPE_ASSIGN_OR_RETURN(
        std::vector<Dim> batch,
        broadcastShape(n, {std::vector<Dim>(dx.begin(), dx.end() - 2),
                           std::vector<Dim>(dw.begin(), dw.end() - 2)}));
    auto extended = [&](Value v, const std::vector<Dim> &dims) {
      std::vector<Dim> target = batch;
      target.insert(target.end(), dims.end() - 2, dims.end());
      return broadcastTo(n, v, target);
    };
    ANYSHAPE_ASSIGN_OR_RETURN(x, extended(x, dx));
    ANYSHAPE_ASSIGN_OR_RETURN(w, extended(w, dw));
    y = n.b.matmul(x, w);
  }
  std::vector<Dim> dims = n.dims(y);
  if (rw == 1)
    dims.erase(dims.end() - 1);
  if (rx == 1)
    dims.erase(dims.end() - 1 - (rw == 1 ? 0 : 1));
  if (rx == 1 || rw == 1)
    y = n.b.reshape(y, dims);
  return n.define(y);
}

Status gemm(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value a, n.input(0));
  ANYSHAPE_ASSIGN_OR_RETURN(Value w, n.input(1));
  if (n.rank(a) != 2 || n.rank(w) != 2)
    return n.error("Gemm operands must have rank 2");
  if (n.attrInt("transA", 0))
    a = n.b.transpose(a, {1, 0});
  if (n.attrInt("transB", 0))
    w = n.b.transpose(w, {1, 0});
  Value y = n.b.matmul(a, w);
  float alpha = n.attrFloat("alpha", 1.0f), beta = n.attrFloat("beta", 1.0f);
  if (alpha != 1.0f)
    y = n.b.mul(y, n.b.scalar(alpha));
  if (n.inputs.size() > 2 && n.inputs[2].isValid()) {
    Value c = n.inputs[2];
    if (beta != 1.0f)
      c = n.b.mul(c, n.b.scalar(beta));
    y = n.b.add(y, c);
  }
  return n.define(y);
}

Status reshape(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  ANYSHAPE_ASSIGN_OR_RETURN(std::vector<Dim> shape, n.knownDimsInput(1));
  bool allowZero = n.attrInt("allowzero", 0) != 0;
  std::vector<Dim> dims = n.dims(x), result;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d].text() == "0" && !allowZero) {
      if (d >= dims.size())
        return n.error("shape entry 0 at " + std::to_string(d) +
                       " copies a dim the input does not have");
      result.push_back(dims[d]);
    } else {
      result.push_back(shape[d]);
    }
  }
  return n.define(n.b.reshape(x, result));
}

/// [d0 .. d(axis-1)] times [d(axis) ..] as a matrix. One side's size is
/// computed (-1), so the other must be known as a number unless it is
/// the single dim it consists of.
Status flatten(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  int64_t r = n.rank(x);
  int64_t axis = n.attrInt("axis", 1);
  if (axis < -r || axis > r)
    return n.error("axis " + std::to_string(axis) +
                   " is out of range for rank " + std::to_string(r));
  if (axis < 0)
    axis += r;
  std::vector<Dim> dims = n.dims(x);
  auto side = [&](int64_t from, int64_t to) -> std::optional<Dim> {
    if (to - from == 1)
      return dims[static_cast<size_t>(from)];
    int64_t product = 1;
    for (int64_t d = from; d < to; ++d) {
      std::optional<int64_t> size = dimNumber(dims[d].text());
      if (!size)
        return std::nullopt;
      product *= *size;
    }
    return Dim(product);
  };
  std::optional<Dim> outer = side(0, axis), inner = side(axis, r);
  if (!outer && !inner)
    return n.error("flattening symbolic dims on both sides of the axis is "
                   "not supported");
  return n.define(
      n.b.reshape(x, {outer ? *outer : Dim(-1), inner ? *inner : Dim(-1)}));
}

Status transpose(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  std::vector<int64_t> perm;
  if (auto given = n.attrInts("perm"))
    perm = *given;
  else
    for (int64_t d = n.rank(x) - 1; d >= 0; --d)
      perm.push_back(d);
  return n.define(n.b.transpose(x, perm));
}

Status constant(Node &n) {
  const auto *value = n.attribute("value");
  if (value) {
    // Named as the output, so that its ints (if known) are recorded for it.
    ::onnx::TensorProto tensor = value->t();
    tensor.set_name(n.proto.output_size() ? n.proto.output(0) : "");
    ANYSHAPE_ASSIGN_OR_RETURN(Value v, importTensor(n.state, tensor, ""));
    return n.define(v);
  }
  if (const auto *f = n.attribute("value_float"))
    return n.define(n.b.scalar(f->f()));
  if (const auto *i = n.attribute("value_int")) {
    n.state.knownInts[n.proto.output(0)] = {i->i()};
    return n.define(n.b.scalar(static_cast<double>(i->i()), v1::DTYPE_I64));
  }
  if (const auto *ints = n.attribute("value_ints")) {
    std::vector<int64_t> v(ints->ints().begin(), ints->ints().end());
    std::string bytes(v.size() * sizeof(int64_t), '\0');
    std::memcpy(bytes.data(), v.data(), bytes.size());
    n.state.knownInts[n.proto.output(0)] = v;
    return n.define(
        n.b.constant(v1::DTYPE_I64, {static_cast<int64_t>(v.size())}, bytes));
  }
  return n.error("only value, value_float, value_int and value_ints "
                 "constants are supported");
}

Status cast(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  std::optional<v1::DType> to =
      wireDType(static_cast<int32_t>(n.attrInt("to", 0)));
  if (!to)
    return n.error("cast to element type " +
                   std::to_string(n.attrInt("to", 0)) + " is not supported");
  return n.define(n.b.convert(x, *to));
}

Status squeeze(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  std::vector<Dim> dims = n.dims(x);
  // The checks below are named after the node and what they require.
  std::string self = nodeNamePrefix(n.proto);
  std::set<int64_t> drop;
  if (n.proto.input_size() > 1 && !n.proto.input(1).empty()) {
    ANYSHAPE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, n.knownInput(1));
    for (int64_t a : axes) {
      ANYSHAPE_ASSIGN_OR_RETURN(int64_t d, n.axis(a, n.rank(x)));
      drop.insert(d);
    }
  } else {
    // Every dim of size 1 goes: a symbolic dim stays, so it must not be
    // 1 when the graph runs (the rank cannot follow the size), which the
    // check's node name says.
    for (size_t d = 0; d < dims.size(); ++d) {
      const std::string &size = dims[d].text();
      if (size == "1") {
        drop.insert(static_cast<int64_t>(d));
      } else if (!dimNumber(size)) {
        n.b.setNodeNamePrefix(self + " (Squeeze without axes keeps dim " +
                              std::to_string(d) + " of size " + size +
                              ", which must not be 1)");
        requireNotOne(n.b, size);
        n.b.setNodeNamePrefix(self);
      }
    }
  }
  std::vector<Dim> shape;
  for (size_t d = 0; d < dims.size(); ++d) {
    const std::string &size = dims[d].text();
    if (!drop.count(static_cast<int64_t>(d))) {
      shape.push_back(dims[d]);
    } else if (dimNumber(size)) {
      if (size != "1")
        return n.error("squeezes dim " + std::to_string(d) + " of size " +
                       size + ", which is not 1");
    } else {
      // A symbolic dim squeezed must be 1 when the graph runs, as ONNX
      // requires (the TorchScript exporter's If picks this branch where
      // the size is 1).
      std::optional<std::string> over = arithmetic("Sub", size, "1"),
                                 under = arithmetic("Sub", "1", size);
      if (!over || !under)
        return n.error("cannot squeeze dim " + std::to_string(d) + " of size " +
                       size);
      n.b.setNodeNamePrefix(self + " (Squeeze of dim " + std::to_string(d) +
                            " of size " + size + ", which must be 1)");
      requireNotNegative(n.b, *over);
      requireNotNegative(n.b, *under);
      n.b.setNodeNamePrefix(self);
    }
  }
  return n.define(reshapeKeepingDims(n, x, shape));
}

} // namespace

StatusOr<Value> broadcastTo(Node &n, Value x, const std::vector<Dim> &target) {
  std::vector<Dim> dims = n.dims(x);
  size_t rank = target.size();
  if (dims.size() > rank)
    return n.error("cannot broadcast rank " + std::to_string(dims.size()) +
                   " to rank " + std::to_string(rank));
  bool same = dims.size() == rank;
  for (size_t d = 0; same && d < rank; ++d)
    same = dims[d].text() == target[d].text();
  if (same)
    return x;
  // broadcast_in_dim maps operand dims to result dims; a stretched dim of
  // 1 first drops out of the operand (a reshape), as numpy implies.
  std::vector<Dim> kept;
  std::vector<int64_t> mapping;
  for (size_t d = 0; d < dims.size(); ++d) {
    size_t at = rank - dims.size() + d;
    if (dims[d].text() == "1" && target[at].text() != "1")
      continue;
    // Two sizes that are not both numbers may still be equal: the
    // broadcast checks that when it runs (1 or the target's size).
    if (dims[d].text() != target[at].text() && dimNumber(dims[d].text()) &&
        dimNumber(target[at].text()))
      return n.error("cannot broadcast dim " + dims[d].text() + " to " +
                     target[at].text());
    kept.push_back(dims[d]);
    mapping.push_back(static_cast<int64_t>(at));
  }
  if (kept.size() != dims.size())
    x = reshapeKeepingDims(n, x, kept);
  return n.b.broadcastInDim(x, target, mapping);
}

Value indexAlong(Node &n, const std::vector<Dim> &dims, int64_t axis) {
  return n.b.iota(v1::DTYPE_I64, dims, axis);
}

Value linearIndexAlong(Node &n, Value data, Value positions, int64_t axis) {
  std::vector<Dim> shape = n.dims(positions);
  // linear = sum over d of (d == axis ? positions : iota_d) * stride_d.
  Value linear, stride = n.b.scalar(1.0, v1::DTYPE_I64);
  for (int64_t d = n.rank(data) - 1; d >= 0; --d) {
    Value at = d == axis ? positions : indexAlong(n, shape, d);
    Value term = n.b.mul(at, stride);
    linear = linear.isValid() ? n.b.add(linear, term) : term;
    stride = n.b.mul(stride, n.b.convert(n.b.dimSize(data, d), v1::DTYPE_I64));
  }
  return linear;
}

StatusOr<std::vector<Dim>> broadcastShape(Node &n,
                                          std::vector<std::vector<Dim>> all) {
  size_t rank = 0;
  for (const auto &dims : all)
    rank = std::max(rank, dims.size());
  std::vector<Dim> target(rank, Dim(1));
  for (const auto &dims : all)
    for (size_t d = 0; d < dims.size(); ++d) {
      Dim &t = target[rank - dims.size() + d];
      if (t.text() == "1" || dims[d].text() == "1" ||
          dims[d].text() == t.text())
        t = t.text() == "1" ? dims[d] : t;
      else if (dimNumber(dims[d].text()) && dimNumber(t.text()))
        return n.error("cannot broadcast dim " + dims[d].text() + " to " +
                       t.text());
      else if (!dimNumber(t.text()) && dims[d].text() != "?")
        t = dims[d]; // a number > 1 is the only other size; "?" no size
      // Sizes that differ as written but may be equal (past + seq - max(0,
      // past - 5) and seq + 5, where the export assumed past >= 5): the
      // broadcasts to the target check it when they run.
    }
  return target;
}

namespace {

Status where(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value c, n.input(0));
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(1));
  ANYSHAPE_ASSIGN_OR_RETURN(Value y, n.input(2));
  ANYSHAPE_ASSIGN_OR_RETURN(
      std::vector<Dim> target,
      broadcastShape(n, {n.dims(c), n.dims(x), n.dims(y)}));
  ANYSHAPE_ASSIGN_OR_RETURN(c, broadcastTo(n, c, target));
  ANYSHAPE_ASSIGN_OR_RETURN(x, broadcastTo(n, x, target));
  ANYSHAPE_ASSIGN_OR_RETURN(y, broadcastTo(n, y, target));
  return n.define(n.b.select(c, x, y));
}

std::map<std::string, OpRule> elementRules() {
  using GB = client::GraphBuilder;
  return {
      {"Add", {{}, binary("add")}},
      {"Sub", {{}, binary("sub")}},
      {"Mul", {{}, binary("mul")}},
      {"Div", {{}, binary("div")}},
      {"Pow", {{}, pow}},
      {"Sqrt", {{}, unary(&GB::sqrt)}},
      {"Erf", {{}, unary(&GB::erf)}},
      {"Tanh", {{}, unary(&GB::tanh)}},
      {"Exp", {{}, unary(&GB::exp)}},
      {"Log", {{}, unary(&GB::log)}},
      {"Neg", {{}, unary(&GB::neg)}},
      {"Abs", {{}, unary(&GB::abs)}},
      {"Sigmoid", {{}, unary(&GB::logistic)}},
      {"Not", {{}, unary(&GB::logicalNot)}},
      {"Reciprocal",
       {{},
        [](Node &n) -> Status {
          ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
          return n.define(n.b.div(n.b.scalar(1.0, n.b.dtype(x)), x));
        }}},
      {"Relu",
       {{},
        [](Node &n) -> Status {
          ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
          return n.define(n.b.max(x, n.b.scalar(0.0, n.b.dtype(x))));
        }}},
      {"Identity",
       {{},
        [](Node &n) -> Status {
          ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
          return n.define(x);
        }}},
      {"Equal", {{}, comparison(client::Comparison::Eq)}},
      {"Greater", {{}, comparison(client::Comparison::Gt)}},
      {"GreaterOrEqual", {{}, comparison(client::Comparison::Ge)}},
      {"Less", {{}, comparison(client::Comparison::Lt)}},
      {"LessOrEqual", {{}, comparison(client::Comparison::Le)}},
      {"And", {{}, binary("and")}},
      {"Or", {{}, binary("or")}},
      {"IsNaN",
       {{},
        [](Node &n) -> Status { // NaN is the one value unequal to itself
          ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
          return n.define(n.b.compare(x, x, client::Comparison::Ne));
        }}},
      {"Where", {{}, where}},
      {"Clip",
       {{},
        [](Node &n) -> Status {
          ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
          if (n.inputs.size() > 1 && n.inputs[1].isValid())
            x = n.b.max(x, n.inputs[1]);
          if (n.inputs.size() > 2 && n.inputs[2].isValid())
            x = n.b.min(x, n.inputs[2]);
          return n.define(x);
        }}},
      {"MatMul", {{}, matmul}},
      {"Gemm", {{"alpha", "beta", "transA", "transB"}, gemm}},
      {"Softmax",
       {{"axis"},
        [](Node &n) -> Status {
          ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
          ANYSHAPE_ASSIGN_OR_RETURN(
              Value y, coercedAxisOp(n, x, [&](Value v, int64_t a) {
                return StatusOr<Value>(n.b.softmax(v, a));
              }));
          return n.define(y);
        }}},
      {"Transpose", {{"perm"}, transpose}},
      {"Flatten", {{"axis"}, flatten}},
      {"Reshape", {{"allowzero"}, reshape}},
      {"Unsqueeze",
       {{},
        [](Node &n) -> Status {
          ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
          ANYSHAPE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, n.knownInput(1));
          ANYSHAPE_ASSIGN_OR_RETURN(Value y, unsqueeze(n, x, axes));
          return n.define(y);
        }}},
      {"Squeeze", {{}, squeeze}},
      // ReduceSum takes its axes as an input only (opset 13); the others
      // as an attribute until opset 18.
      {"ReduceSum",
       {{"keepdims", "noop_with_empty_axes"},
        countingMaskSums(reduce(client::Reduction::Sum, Reducing::Plain))}},
      {"ReduceMean",
       {reduceAttributes, reduce(client::Reduction::Sum, Reducing::Mean)}},
      {"ReduceMax",
       {reduceAttributes, reduce(client::Reduction::Max, Reducing::Plain)}},
      {"ReduceMin",
       {reduceAttributes, reduce(client::Reduction::Min, Reducing::Plain)}},
      {"ReduceL2",
       {reduceAttributes, reduce(client::Reduction::Sum, Reducing::L2)}},
      {"ReduceL1",
       {reduceAttributes, reduce(client::Reduction::Sum, Reducing::L1)}},
      {"ReduceProd",
       {reduceAttributes, reduce(client::Reduction::Prod, Reducing::Plain)}},
      {"ReduceSumSquare",
       {reduceAttributes, reduce(client::Reduction::Sum, Reducing::SumSquare)}},
      {"ReduceLogSum",
       {reduceAttributes, reduce(client::Reduction::Sum, Reducing::LogSum)}},
      {"ReduceLogSumExp",
       {reduceAttributes, reduce(client::Reduction::Sum, Reducing::LogSumExp)}},
      {"LogSoftmax",
       {{"axis"},
        [](Node &n) -> Status {
          ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
          ANYSHAPE_ASSIGN_OR_RETURN(
              Value y,
              coercedAxisOp(n, x, [&](Value v, int64_t a) -> StatusOr<Value> {
                ANYSHAPE_ASSIGN_OR_RETURN(Value m,
                                          finiteMax(n, v, {a}, nullptr));
                Value shifted = n.b.sub(v, m);
                Value sum =
                    n.b.reduce(n.b.exp(shifted), {a}, client::Reduction::Sum);
                ANYSHAPE_ASSIGN_OR_RETURN(Value lse,
                                          unsqueeze(n, n.b.log(sum), {a}));
                return n.b.sub(shifted, lse);
              }));
          return n.define(y);
        }}},
      {"Concat",
       {{"axis"},
        [](Node &n) -> Status {
          std::vector<Value> xs;
          for (size_t k = 0; k < n.inputs.size(); ++k) {
            ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(k));
            xs.push_back(x);
          }
          if (xs.empty())
            return n.error("has no inputs");
          ANYSHAPE_ASSIGN_OR_RETURN(
              int64_t a, n.axis(n.attrInt("axis", 0), n.rank(xs[0])));
          return n.define(n.b.concatenate(xs, a));
        }}},
      {"Cast", {{"to", "saturate"}, cast}},
      {"CastLike",
       {{"saturate"},
        [](Node &n) -> Status {
          ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
          ANYSHAPE_ASSIGN_OR_RETURN(Value like, n.input(1));
          return n.define(n.b.convert(x, n.b.dtype(like)));
        }}},
      {"Constant",
       {{"value", "value_float", "value_int", "value_ints"}, constant}},
  };
}

} // namespace

const std::map<std::string, OpRule> &opRules() {
  static const std::map<std::string, OpRule> table = [] {
    std::map<std::string, OpRule> rules = elementRules();
    addShapeRules(rules);
    addIndexRules(rules);
    addMathRules(rules);
    addTrigRules(rules);
    addLayoutRules(rules);
    addConvRules(rules);
    addConvTransposeRules(rules);
    addNormalizationRules(rules);
    addAttentionRules(rules);
    addResizeRules(rules);
    addSelectionRules(rules);
    return rules;
  }();
  return table;
}

Status importNode(ImportState &state, const ::onnx::NodeProto &proto, int index,
                  const std::vector<Value> &inputs) {
  auto rule = opRules().find(proto.op_type());
  if (rule == opRules().end())
    return invalidArgument(describe(proto, index) + ": op '" + proto.op_type() +
                           "' is not supported by the ONNX importer");
  // Every op translated has an output, and the rules read the first.
  if (proto.output_size() == 0)
    return invalidArgument(describe(proto, index) + ": has no outputs");
  for (const auto &a : proto.attribute())
    if (!rule->second.attributes.count(a.name()))
      return invalidArgument(describe(proto, index) + ": attribute '" +
                             a.name() + "' is not supported");
  Node node{state, proto, index, inputs, state.builder};
  ANYSHAPE_RETURN_IF_ERROR(rule->second.translate(node));
  propagateKnownDims(state, proto, inputs);
  return Status::ok();
}

} // namespace anyshape::onnx
