// The indexing ops: Gather, GatherElements and GatherND, all on the one
// gather the op set has (numpy `take` along one axis, indices clamped to
// the axis); ScatterND and ScatterElements, on the one scatter of rows
// (each index checked, the data's leading dims flattened into rows);
// NonZero, the wire nonzero (a size bound when it runs); and Unique, an
// argsort, a nonzero of where the sorted values change, and linear
// gathers, scatters and a cumulative after it.
//
// ONNX indices may be negative (counted from the end); the wire gather
// clamps them to 0 instead, so every index is wrapped first, unless it is
// a constant already known to be non-negative. ONNX refuses an index
// outside [-n, n) where the wire gather would clamp it, so each index
// tensor is checked first (check_index: the run fails naming the node, the
// index and the range), unless it is a constant known to be in range.
// GatherElements and GatherND become a take from the data flattened over the
// indexed axes, at the row-major linear index built from the index tensors
// (and, for the axes GatherElements does not index, iotas): exact for every
// shape, with no op of their own in the compiler. transformers' BERT export
// uses both: GatherElements for the token-type ids, GatherND in the padding
// mask.
#include "frontend/onnx/OnnxNode.h"
#include "ir/graph/DType.h"
#include "ir/graph/IndexCheck.h"

#include <cmath>

namespace anyshape::onnx {
namespace {

/// `indices` (into an axis of size `extent`, an i64 scalar) with each
/// negative entry i replaced by extent + i. Input `k` of the node, if it
/// is a constant of non-negative entries, is returned as it is.
Value wrapNegative(Node &n, size_t k, Value indices, Value extent) {
  std::optional<ImportState::KnownDims> known =
      knownDimsOf(n.state, n.proto.input(k), indices);
  bool nonNegative = known.has_value();
  for (size_t d = 0; known && d < known->dims.size(); ++d) {
    std::optional<int64_t> v = dimNumber(known->dims[d]);
    nonNegative = nonNegative && v && *v >= 0;
  }
  if (nonNegative)
    return indices;
  v1::DType type = n.b.dtype(indices);
  Value size = n.b.convert(extent, type);
  Value negative =
      n.b.compare(indices, n.b.scalar(0.0, type), client::Comparison::Lt);
  return n.b.select(negative, n.b.add(indices, size), indices);
}

/// `indices` (input `k` of the node), checked to be in [-n, n) for dim
/// `axis` of `data` at run time, unless a constant known to be in range of
/// a static dim.
Value checked(Node &n, size_t k, Value indices, Value data, int64_t axis) {
  std::optional<ImportState::KnownDims> known =
      knownDimsOf(n.state, n.proto.input(k), indices);
  std::optional<int64_t> extent = dimNumber(n.dims(data)[axis].text());
  bool inRange = known.has_value() && extent.has_value();
  for (size_t d = 0; inRange && d < known->dims.size(); ++d) {
    std::optional<int64_t> v = dimNumber(known->dims[d]);
    inRange = v && indexInRange(/*allowNegative=*/true, *v, *extent);
  }
  if (inRange)
    return indices;
  return n.b.checkIndex(indices, data, axis, /*allowNegative=*/true,
                        describe(n.proto, n.index));
}

/// The i64 size of dim `d` of `x`.
Value sizeOf(Node &n, Value x, int64_t d) {
  return n.b.convert(n.b.dimSize(x, d), v1::DTYPE_I64);
}

Status checkIndexType(Node &n, Value indices) {
  v1::DType type = n.b.dtype(indices);
  if (type != v1::DTYPE_I64 && type != v1::DTYPE_I32)
    return n.error("indices must be int32 or int64");
  return Status::ok();
}

Status gather(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  ANYSHAPE_ASSIGN_OR_RETURN(Value indices, n.input(1));
  ANYSHAPE_RETURN_IF_ERROR(checkIndexType(n, indices));
  ANYSHAPE_ASSIGN_OR_RETURN(int64_t a, n.axis(n.attrInt("axis", 0), n.rank(x)));
  indices = checked(n, 1, indices, x, a);
  return n.define(
      n.b.gather(x, wrapNegative(n, 1, indices, sizeOf(n, x, a)), a));
}

/// The row-major linear index into `data` of each element of `indices`
/// with its own position's coordinate along `axis` replaced by the index
/// there (GatherElements, ScatterElements); checked and wrapped.
StatusOr<Value> elementsLinearIndex(Node &n, Value data, Value indices,
                                    int64_t a) {
  ANYSHAPE_RETURN_IF_ERROR(checkIndexType(n, indices));
  int64_t r = n.rank(data);
  if (n.rank(indices) != r)
    return n.error("indices must have the data's rank");
  indices = checked(n, 1, indices, data, a);
  indices = n.b.convert(wrapNegative(n, 1, indices, sizeOf(n, data, a)),
                        v1::DTYPE_I64);
  return linearIndexAlong(n, data, indices, a);
}

/// out[i] = data[i with i[axis] replaced by indices[i]]; indices and the
/// result have the same shape, of the data's rank.
Status gatherElements(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value data, n.input(0));
  ANYSHAPE_ASSIGN_OR_RETURN(Value indices, n.input(1));
  ANYSHAPE_ASSIGN_OR_RETURN(int64_t a,
                            n.axis(n.attrInt("axis", 0), n.rank(data)));
  ANYSHAPE_ASSIGN_OR_RETURN(Value linear,
                            elementsLinearIndex(n, data, indices, a));
  return n.define(n.b.gather(n.b.reshape(data, {-1}), linear, 0));
}

/// For indices [b..., ..., m] into `data`: the linear index of each row
/// of coordinates into data's first b + m dims (shape indices[:-1]): the
/// first `batch` dims (GatherND's batch_dims) are the row's own position,
/// the next m its coordinates, checked and wrapped; `m` receives m.
StatusOr<Value> ndLinearIndex(Node &n, Value data, Value indices, int64_t &m,
                              int64_t batch = 0) {
  ANYSHAPE_RETURN_IF_ERROR(checkIndexType(n, indices));
  int64_t r = n.rank(data), q = n.rank(indices);
  if (batch < 0 || batch >= std::min(r, q))
    return n.error("batch_dims " + std::to_string(batch) +
                   " is not below the ranks of data and indices");
  std::vector<Dim> indexDims = n.dims(indices), dataDims = n.dims(data);
  std::optional<int64_t> last =
      q >= 1 ? dimNumber(indexDims.back().text()) : std::nullopt;
  if (!last || *last < 1 || *last > r - batch)
    return n.error("the last dim of indices must be a constant in [1, " +
                   std::to_string(r - batch) +
                   "], the data's rank less batch_dims");
  m = *last;
  std::vector<Dim> outer(indexDims.begin(), indexDims.end() - 1);
  Value linear, stride = n.b.scalar(1.0, v1::DTYPE_I64);
  for (int64_t k = m - 1; k >= 0; --k) {
    std::vector<Dim> starts(indexDims.size(), Dim(0)), limits = indexDims;
    starts.back() = Dim(k);
    limits.back() = Dim(k + 1);
    Value column = n.b.reshape(
        n.b.slice(indices, starts, limits, std::vector<int64_t>(q, 1)), outer);
    column = checked(n, 1, column, data, batch + k);
    column = n.b.convert(wrapNegative(n, 1, column, sizeOf(n, data, batch + k)),
                         v1::DTYPE_I64);
    Value term = n.b.mul(column, stride);
    linear = linear.isValid() ? n.b.add(linear, term) : term;
    stride = n.b.mul(stride, sizeOf(n, data, batch + k));
  }
  for (int64_t k = batch - 1; k >= 0; --k) {
    // The batch dims of data and indices must be equal (no broadcasting):
    // -(a - b)^2 is not negative only where they are.
    const std::string &a = dataDims[k].text(), &b = indexDims[k].text();
    if (a != b) {
      if (dimNumber(a) && dimNumber(b))
        return n.error("batch dim " + std::to_string(k) + " is " + a +
                       " in data and " + b + " in indices");
      std::string self = nodeNamePrefix(n.proto);
      n.b.setNodeNamePrefix(self + " (batch dim " + std::to_string(k) + " is " +
                            a + " in data and " + b +
                            " in indices, which must be equal)");
      requireNotNegative(n.b, "0 - ((" + a + ") - (" + b + ")) * ((" + a +
                                  ") - (" + b + "))");
      n.b.setNodeNamePrefix(self);
    }
    Value position = n.b.iota(v1::DTYPE_I64, outer, k);
    linear = n.b.add(linear, n.b.mul(position, stride));
    stride = n.b.mul(stride, sizeOf(n, data, k));
  }
  return linear;
}

/// data flattened over its first m dims: [-1, data[m:]...].
Value flattenLeading(Node &n, Value data, int64_t m) {
  std::vector<Dim> dims = n.dims(data), flat{Dim(-1)};
  flat.insert(flat.end(), dims.begin() + m, dims.end());
  return n.b.reshape(data, flat);
}

/// out[b..., i, ...] = data[b..., indices[b..., i, 0], ...,
/// indices[b..., i, m - 1], ...], with m the last dim of indices and b the
/// first batch_dims dims, which data and indices share.
Status gatherND(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value data, n.input(0));
  ANYSHAPE_ASSIGN_OR_RETURN(Value indices, n.input(1));
  int64_t m = 0, batch = n.attrInt("batch_dims", 0);
  ANYSHAPE_ASSIGN_OR_RETURN(Value linear,
                            ndLinearIndex(n, data, indices, m, batch));
  return n.define(n.b.gather(flattenLeading(n, data, batch + m), linear, 0));
}

/// ONNX's `reduction` as the wire scatter's. `none`: the last update of a
/// row wins (ONNX leaves duplicates unspecified; this is the serial
/// order); the others fold every update of a row into it.
StatusOr<client::ScatterMode> scatterReduction(Node &n) {
  std::string r = n.attrString("reduction", "none");
  if (r == "none")
    return client::ScatterMode::Replace;
  if (r == "add")
    return client::ScatterMode::Add;
  if (r == "mul")
    return client::ScatterMode::Mul;
  if (r == "max")
    return client::ScatterMode::Max;
  if (r == "min")
    return client::ScatterMode::Min;
  return n.error("reduction '" + r + "' is not none, add, mul, max or min");
}

/// ScatterND: data with each row of coordinates in indices [..., m]
/// (into its first m dims) replaced by (or combined with) the matching
/// slice of updates [..., data[m:]...].
Status scatterND(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(client::ScatterMode reduction, scatterReduction(n));
  ANYSHAPE_ASSIGN_OR_RETURN(Value data, n.input(0));
  ANYSHAPE_ASSIGN_OR_RETURN(Value indices, n.input(1));
  ANYSHAPE_ASSIGN_OR_RETURN(Value updates, n.input(2));
  int64_t m = 0;
  ANYSHAPE_ASSIGN_OR_RETURN(Value linear, ndLinearIndex(n, data, indices, m));
  Value at = n.b.reshape(linear, {-1});
  std::vector<Dim> dataDims = n.dims(data);
  std::vector<Dim> updateShape = {n.dims(at)[0]};
  updateShape.insert(updateShape.end(), dataDims.begin() + m, dataDims.end());
  if (n.rank(updates) != n.rank(indices) - 1 + n.rank(data) - m)
    return n.error("updates must have rank " +
                   std::to_string(n.rank(indices) - 1 + n.rank(data) - m));
  Value rows = n.b.scatter(flattenLeading(n, data, m), at,
                           n.b.reshape(updates, updateShape), reduction);
  return n.define(n.b.reshape(rows, dataDims));
}

/// ScatterElements: data with data[i with i[axis] = indices[i]] replaced
/// by (or combined with) updates[i], for every position i of indices.
Status scatterElements(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(client::ScatterMode reduction, scatterReduction(n));
  ANYSHAPE_ASSIGN_OR_RETURN(Value data, n.input(0));
  ANYSHAPE_ASSIGN_OR_RETURN(Value indices, n.input(1));
  ANYSHAPE_ASSIGN_OR_RETURN(Value updates, n.input(2));
  ANYSHAPE_ASSIGN_OR_RETURN(int64_t a,
                            n.axis(n.attrInt("axis", 0), n.rank(data)));
  if (n.rank(updates) != n.rank(indices))
    return n.error("updates must have the indices' shape");
  ANYSHAPE_ASSIGN_OR_RETURN(Value linear,
                            elementsLinearIndex(n, data, indices, a));
  Value at = n.b.reshape(linear, {-1});
  Value rows = n.b.scatter(n.b.reshape(data, {-1}), at,
                           n.b.reshape(updates, {n.dims(at)[0]}), reduction);
  return n.define(n.b.reshape(rows, n.dims(data)));
}

/// NonZero: the wire nonzero, whose count is a size only the run gives
/// (named "count", "count_1", ... for the shapes built after it), once
/// per mask (OnnxMaskCounts.cpp).
Status nonZero(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  if (n.rank(x) == 0)
    return n.error("NonZero of a scalar is refused: ONNX's shape inference "
                   "gives [0, count] and ONNX Runtime [1, count]; reshape "
                   "it to [1] first");
  return n.define(nonzeroCoordinates(n.state, n.proto.input(0), x));
}

/// Whether each element of `seq` ([N]) starts a run: the first, and each
/// that differs from the one before (gather clamps position -1 to 0). A
/// NaN differs from everything, so each NaN is a run of its own, as
/// torch.unique has it (ONNX does not say; ONNX Runtime merges a NaN into
/// another value).
Value runStarts(Node &n, Value seq) {
  Value position = indexAlong(n, n.dims(seq), 0);
  Value previous =
      n.b.gather(seq, n.b.sub(position, n.b.scalar(1.0, v1::DTYPE_I64)), 0);
  Value first = n.b.compare(position, n.b.scalar(0.0, v1::DTYPE_I64),
                            client::Comparison::Eq);
  return n.b.logicalOr(first,
                       n.b.compare(seq, previous, client::Comparison::Ne));
}

/// Unique's four outputs from `values` ([N]) arranged so that equal
/// values are adjacent runs in the output order, `from` ([N]) each one's
/// position in the input (the lowest first within a run), and `starts`
/// (runStarts): a nonzero finds the runs (their count, bound when it
/// runs, is the outputs' size), gathers read their values and first
/// positions, a cumulative numbers them, and scatters write the inverse
/// and count the runs. Only one count symbol shapes them all, so every
/// shape rule between them holds for any count.
Status defineRuns(Node &n, Value values, Value from, Value starts) {
  std::vector<Dim> all = n.dims(values);
  Value at = n.b.nonzero(starts); // [1, count]
  Dim count = n.dims(at)[1];
  at = n.b.reshape(at, {count});
  Value run = n.b.sub(n.b.cumulative(n.b.convert(starts, v1::DTYPE_I64), 0),
                      n.b.scalar(1.0, v1::DTYPE_I64));
  auto zeros = [&](std::vector<Dim> dims) {
    return n.b.broadcastInDim(n.b.scalar(0.0, v1::DTYPE_I64), dims, {});
  };
  Value ones = n.b.broadcastInDim(n.b.scalar(1.0, v1::DTYPE_I64), all, {});
  Value outputs[] = {
      n.b.gather(values, at, 0), n.b.gather(from, at, 0),
      n.b.scatter(zeros(all), from, run),
      n.b.scatter(zeros({count}), run, ones, client::ScatterMode::Add)};
  for (int k = 0; k < n.proto.output_size() && k < 4; ++k)
    if (!n.proto.output(k).empty())
      ANYSHAPE_RETURN_IF_ERROR(n.define(outputs[k], k));
  return Status::ok();
}

/// Unique over x flattened: the stable argsort puts equal values in runs,
/// the lowest position first. With sorted = 0 the runs are put in the
/// order of their first occurrences by a second stable argsort, of each
/// element's run's first position (a running max of the run starts).
Status unique(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  for (const auto &attribute : n.proto.attribute())
    if (attribute.name() == "axis")
      return n.error("Unique along an axis (unique slices) is not "
                     "supported, only over the flattened tensor");
  Value flat = n.b.reshape(x, {Dim(-1)});
  Value order = n.b.argsort(flat, 0);
  Value sorted = n.b.gather(flat, order, 0);
  Value starts = runStarts(n, sorted);
  if (n.attrInt("sorted", 1) != 0)
    return defineRuns(n, sorted, order, starts);
  Value position = indexAlong(n, n.dims(flat), 0);
  Value runStart = n.b.cumulative(
      n.b.select(
          starts, position,
          n.b.broadcastInDim(n.b.scalar(0.0, v1::DTYPE_I64), n.dims(flat), {})),
      0, client::Reduction::Max);
  Value firstSeen = n.b.gather(order, runStart, 0);
  Value byFirst = n.b.argsort(firstSeen, 0);
  return defineRuns(n, n.b.gather(sorted, byFirst, 0),
                    n.b.gather(order, byFirst, 0),
                    runStarts(n, n.b.gather(firstSeen, byFirst, 0)));
}

} // namespace

void addIndexRules(std::map<std::string, OpRule> &rules) {
  rules["Gather"] = {{"axis"}, gather};
  rules["GatherElements"] = {{"axis"}, gatherElements};
  rules["GatherND"] = {{"batch_dims"}, gatherND};
  rules["NonZero"] = {{}, nonZero};
  rules["Unique"] = {{"axis", "sorted"}, unique};
  rules["ScatterND"] = {{"reduction"}, scatterND};
  rules["ScatterElements"] = {{"axis", "reduction"}, scatterElements};
}

} // namespace anyshape::onnx
