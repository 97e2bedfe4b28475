// One mask, one count: how the importer keeps the sizes a boolean mask
// gives as one symbol, however the export spells them.
//
// A wire nonzero's count is a size of its own, known once it runs, and
// validation relates only sizes it can see are equal: two counts of one
// mask, or a count and a size computed from the mask's data, meet in a
// rule no check before the run can decide (Validate.cpp refuses it).
// PyTorch's export of `out[mask] = y` has both: a NonZero of the mask
// expanded over out's trailing dims gives the indices, and the mask's sum
// (ReduceSum of it cast to int64) shapes the Expand of y. So here:
//
//  - the nonzeros of a value are built from those of the value it comes
//    from where the zeros correspond: a cast that keeps zero and nonzero
//    apart, unit dims inserted or removed, and an Expand that stretches
//    unit dims (each selected element of the operand a block of the
//    result's, the count a product);
//  - a value's nonzeros are found once, so every NonZero of one mask has
//    one count;
//  - the sum of a bool mask cast to integers, over every element, is
//    known as the mask's count (a dim, as Shape's outputs are), through
//    reshapes of the mask.
//
// What none of these reaches stays a nonzero of its own, as before.
#include "frontend/onnx/OnnxNode.h"

#include <algorithm>
#include <set>

namespace anyshape::onnx {
namespace {

const ::onnx::NodeProto *producerOf(const ImportState &state,
                                    const std::string &name) {
  auto found = state.producers.find(name);
  return found == state.producers.end() ? nullptr : found->second;
}

std::optional<Value> valueOf(const ImportState &state,
                             const std::string &name) {
  auto found = state.values.find(name);
  if (found == state.values.end() || !found->second.isValid())
    return std::nullopt;
  return found->second;
}

/// Whether Cast `op` maps zero to zero and nothing else to zero: from or
/// to bool, or a widening within integers or within floats.
bool castKeepsZeros(const ImportState &state, const ::onnx::NodeProto &op) {
  std::optional<Value> input = valueOf(state, op.input(0));
  std::optional<Value> output = valueOf(state, op.output(0));
  if (!input || !output)
    return false;
  v1::DType from = state.builder.dtype(*input),
            to = state.builder.dtype(*output);
  return from == to || from == v1::DTYPE_BOOL || to == v1::DTYPE_BOOL ||
         (from == v1::DTYPE_I32 && to == v1::DTYPE_I64) ||
         ((from == v1::DTYPE_F16 || from == v1::DTYPE_BF16) &&
          to == v1::DTYPE_F32);
}

/// Where each dim of Expand `op`'s result comes from, when each is for
/// certain either the operand's own (the same size: its operand dim) or a
/// unit dim stretched (-1; a dim the Expand prepends is one). Nullopt
/// when a dim is neither for certain: an operand dim that may be 1 only
/// at run time.
std::optional<std::vector<int64_t>> expandSources(const ImportState &state,
                                                  const ::onnx::NodeProto &op) {
  std::optional<Value> x = valueOf(state, op.input(0));
  std::optional<Value> y = valueOf(state, op.output(0));
  if (!x || !y)
    return std::nullopt;
  std::vector<Dim> from = dimsOf(state.builder, *x),
                   to = dimsOf(state.builder, *y);
  if (from.size() > to.size())
    return std::nullopt;
  size_t prepended = to.size() - from.size();
  std::vector<int64_t> sources;
  for (size_t d = 0; d < to.size(); ++d) {
    std::string own = d < prepended ? "1" : from[d - prepended].text();
    if (d >= prepended && own == to[d].text() && own != "?")
      sources.push_back(static_cast<int64_t>(d - prepended));
    else if (own == "1")
      sources.push_back(-1);
    else
      return std::nullopt;
  }
  return sources;
}

/// The axes Unsqueeze or Squeeze `op` inserts or removes, each in [0,
/// rank); nullopt if they are not known.
std::optional<std::set<int64_t>>
unitAxes(const ImportState &state, const ::onnx::NodeProto &op, int64_t rank) {
  std::vector<int64_t> axes;
  if (op.input_size() > 1 && !op.input(1).empty()) {
    auto known = state.knownInts.find(op.input(1));
    if (known == state.knownInts.end())
      return std::nullopt;
    axes = known->second;
  } else {
    for (const auto &a : op.attribute())
      if (a.name() == "axes")
        axes.assign(a.ints().begin(), a.ints().end());
  }
  std::set<int64_t> result;
  for (int64_t a : axes) {
    if (a < -rank || a >= rank)
      return std::nullopt;
    result.insert(a < 0 ? a + rank : a);
  }
  return result;
}

/// Row `d` of coordinates [rank, count], as [count].
Value row(client::GraphBuilder &b, Value coordinates, int64_t d) {
  Dim count = dimsOf(b, coordinates)[1];
  return b.reshape(b.slice(coordinates, {d, 0}, {d + 1, count}), {count});
}

/// Rows ([count] each) stacked into coordinates [rows, count].
Value stack(client::GraphBuilder &b, const std::vector<Value> &rows) {
  std::vector<Value> tall;
  for (Value r : rows)
    tall.push_back(b.reshape(r, {1, dimsOf(b, r)[0]}));
  return b.concatenate(tall, 0);
}

/// The nonzeros of Unsqueeze or Squeeze `op`'s result from its operand's
/// (`source`): a zero row at each inserted axis; the rows of the removed
/// unit dims dropped.
std::optional<Value> unitDimsCoordinates(ImportState &state,
                                         const ::onnx::NodeProto &op,
                                         Value source) {
  client::GraphBuilder &b = state.builder;
  std::optional<Value> result = valueOf(state, op.output(0));
  std::optional<Value> operand = valueOf(state, op.input(0));
  if (!result || !operand)
    return std::nullopt;
  bool inserting = op.op_type() == "Unsqueeze";
  int64_t rank = b.rank(inserting ? *result : *operand);
  std::optional<std::set<int64_t>> axes = unitAxes(state, op, rank);
  if (!axes || axes->empty())
    return std::nullopt; // Squeeze without axes: which dims is the rule's
  Dim count = dimsOf(b, source)[1];
  std::vector<Value> rows;
  int64_t next = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (!axes->count(d))
      rows.push_back(row(b, source, next++));
    else if (inserting)
      rows.push_back(b.broadcastInDim(b.scalar(0, v1::DTYPE_I64), {count}, {}));
    else
      ++next;
  }
  if (rows.empty())
    return std::nullopt;
  return stack(b, rows);
}

/// The nonzeros of Expand `op`'s result from its operand's (`source`, [r,
/// count]): each selected element of the operand is a block of the
/// result's, the stretched dims' coordinates running through it. The
/// blocks come in row-major order only when no stretched dim lies between
/// two of the operand's dims above 1: [b, s, 1] -> [b, s, h] and [1, s]
/// -> [h, s] do, [b, 1, s] -> [b, h, s] does not (nullopt).
std::optional<Value> expandCoordinates(ImportState &state,
                                       const ::onnx::NodeProto &op,
                                       Value source) {
  client::GraphBuilder &b = state.builder;
  std::optional<std::vector<int64_t>> sources = expandSources(state, op);
  std::optional<Value> result = valueOf(state, op.output(0));
  if (!sources || !result)
    return std::nullopt;
  std::vector<Dim> to = dimsOf(b, *result);
  int64_t first = -1, last = -1; // the operand's dims above 1
  for (size_t d = 0; d < to.size(); ++d)
    if ((*sources)[d] >= 0 && to[d].text() != "1") {
      first = first < 0 ? static_cast<int64_t>(d) : first;
      last = static_cast<int64_t>(d);
    }
  // The grid a selected element spans: the stretched dims before the
  // operand's, an axis of the count, the stretched dims after.
  std::vector<Dim> grid;
  std::vector<int64_t> gridAxis(to.size(), -1);
  int64_t countAxis = -1;
  for (size_t d = 0; d < to.size(); ++d) {
    int64_t at = static_cast<int64_t>(d);
    // With no operand dim above 1 the count is 0 or 1: first will do.
    if (at == first || (first < 0 && d == 0)) {
      countAxis = static_cast<int64_t>(grid.size());
      grid.push_back(dimsOf(b, source)[1]);
    }
    if ((*sources)[d] >= 0)
      continue;
    if (at > first && at < last)
      return std::nullopt;
    gridAxis[d] = static_cast<int64_t>(grid.size());
    grid.push_back(to[d]);
  }
  std::string flat = grid[0].text();
  for (size_t a = 1; a < grid.size(); ++a) {
    std::optional<std::string> product =
        arithmetic("Mul", flat, grid[a].text());
    if (!product)
      return std::nullopt;
    flat = *product;
  }
  std::vector<Value> rows;
  for (size_t d = 0; d < to.size(); ++d) {
    Value coordinate = (*sources)[d] < 0
                           ? b.iota(v1::DTYPE_I64, grid, gridAxis[d])
                           : b.broadcastInDim(row(b, source, (*sources)[d]),
                                              grid, {countAxis});
    rows.push_back(b.reshape(coordinate, {flat}));
  }
  return stack(b, rows);
}

/// How many producers back a value's nonzeros are derived at most: a
/// longer chain (of Identity nodes, say) takes a nonzero of its own
/// rather than a recursion as deep as the model is long.
constexpr int kMaxDerivation = 64;

/// The coordinates of every element of `value` ([rank, count], row-major),
/// or of none; nullopt where its size is no dim expression.
std::optional<Value> uniformCoordinates(ImportState &state, Value value,
                                        bool nonzero) {
  client::GraphBuilder &b = state.builder;
  std::vector<Dim> dims = dimsOf(b, value);
  auto rank = static_cast<int64_t>(dims.size());
  std::optional<std::string> count = dimProduct(dims);
  if (!count)
    return std::nullopt;
  if (!nonzero)
    return b.broadcastInDim(b.scalar(0, v1::DTYPE_I64), {Dim(rank), Dim(0)},
                            {});
  std::vector<Value> rows;
  for (int64_t axis = 0; axis < rank; ++axis)
    rows.push_back(
        b.reshape(b.iota(v1::DTYPE_I64, dims, axis), {Dim(1), Dim(*count)}));
  return rank == 1 ? rows[0] : b.concatenate(rows, 0);
}

Value coordinatesOf(ImportState &state, const std::string &name, Value value,
                    int depth) {
  if (auto known = state.nonzeros.find(name); known != state.nonzeros.end())
    return known->second;
  std::optional<Value> derived;
  if (auto fill = state.uniformFills.find(name);
      fill != state.uniformFills.end() && state.builder.rank(value) > 0)
    derived = uniformCoordinates(state, value, fill->second);
  if (const ::onnx::NodeProto *op = producerOf(state, name);
      !derived && depth < kMaxDerivation && op && op->input_size() > 0 &&
      !op->input(0).empty()) {
    const std::string &type = op->op_type();
    std::optional<Value> operand = valueOf(state, op->input(0));
    bool sameZeros = type == "Identity" ||
                     (type == "Cast" && castKeepsZeros(state, *op)) ||
                     type == "Unsqueeze" || type == "Squeeze" ||
                     (type == "Expand" && expandSources(state, *op));
    if (operand && sameZeros && state.builder.rank(*operand) > 0) {
      Value source = coordinatesOf(state, op->input(0), *operand, depth + 1);
      if (type == "Identity" || type == "Cast")
        derived = source;
      else if (type == "Expand")
        derived = expandCoordinates(state, *op, source);
      else
        derived = unitDimsCoordinates(state, *op, source);
    }
  }
  Value coordinates = derived ? *derived : state.builder.nonzero(value);
  state.nonzeros[name] = coordinates;
  return coordinates;
}

/// The count of mask `name`'s nonzero elements as a dim: a reshape's is
/// its operand's.
std::optional<std::string> maskCount(ImportState &state,
                                     const std::string &name, int depth = 0) {
  std::optional<Value> value = valueOf(state, name);
  if (!value || state.builder.rank(*value) == 0)
    return std::nullopt;
  const ::onnx::NodeProto *op = producerOf(state, name);
  if (depth < kMaxDerivation && op && op->input_size() > 0 &&
      !op->input(0).empty() &&
      (op->op_type() == "Reshape" || op->op_type() == "Flatten"))
    if (std::optional<std::string> count =
            maskCount(state, op->input(0), depth + 1))
      return count;
  return dimsOf(state.builder, nonzeroCoordinates(state, name, *value))[1]
      .text();
}

} // namespace

Value nonzeroCoordinates(ImportState &state, const std::string &name,
                         Value value) {
  return coordinatesOf(state, name, value, 0);
}

Translate countingMaskSums(Translate sum) {
  return [sum](Node &n) -> Status {
    ANYSHAPE_RETURN_IF_ERROR(sum(n));
    // Only a sum of every element of a bool mask cast to integers is its
    // count (a float sum rounds above 2^24).
    const ::onnx::NodeProto *cast = producerOf(n.state, n.proto.input(0));
    std::optional<Value> x = valueOf(n.state, n.proto.input(0));
    std::optional<Value> y = valueOf(n.state, n.proto.output(0));
    if (!cast || cast->op_type() != "Cast" || !x || !y ||
        (n.b.dtype(*x) != v1::DTYPE_I64 && n.b.dtype(*x) != v1::DTYPE_I32))
      return Status::ok();
    std::optional<Value> mask = valueOf(n.state, cast->input(0));
    if (!mask || n.b.dtype(*mask) != v1::DTYPE_BOOL)
      return Status::ok();
    // One element left (of any rank up to 1) is every element summed.
    std::vector<Dim> summed = n.dims(*y);
    if (summed.size() > 1 ||
        !std::all_of(summed.begin(), summed.end(),
                     [](const Dim &d) { return d.text() == "1"; }))
      return Status::ok();
    if (std::optional<std::string> count = maskCount(n.state, cast->input(0)))
      n.state.knownDims[n.proto.output(0)] =
          ImportState::KnownDims{{*count}, summed.empty()};
    return Status::ok();
  };
}

} // namespace anyshape::onnx
