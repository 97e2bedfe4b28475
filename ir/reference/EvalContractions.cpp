// Reference semantics of gather, scatter, argsort, cumulative, reduce,
// dot_general and convolution. Float reductions and contractions accumulate in
// double; integer ones in 64 bits, wrapping.
#include "EvalOps.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>

namespace anyshape::reference {

StatusOr<Literal> evalGather(int64_t axis, const Literal &operand,
                             const Literal &indices, const ResultType &type) {
  Literal out = Literal::zeros(type.dtype, type.shape);
  if (out.numElements() == 0)
    return out;
  int64_t extent = operand.shape[axis];
  if (extent == 0)
    return invalidArgument("gather from an empty axis " + std::to_string(axis));
  std::vector<int64_t> operandStrides = stridesOf(operand.shape);
  std::vector<int64_t> indexStrides = stridesOf(indices.shape);
  int64_t indexRank = indices.rank();
  forEachIndex(
      type.shape, [&](const std::vector<int64_t> &index, int64_t linear) {
        int64_t at = 0;
        for (int64_t d = 0; d < indexRank; ++d)
          at += index[axis + d] * indexStrides[d];
        // Out-of-range indices clamp (numpy take, mode="clip").
        int64_t row = std::min(std::max<int64_t>(indices.i[at], 0), extent - 1);
        int64_t from = row * operandStrides[axis];
        for (int64_t d = 0; d < axis; ++d)
          from += index[d] * operandStrides[d];
        for (int64_t d = axis + 1; d < operand.rank(); ++d)
          from += index[d - 1 + indexRank] * operandStrides[d];
        if (out.isFloat())
          out.f[linear] = operand.f[from];
        else
          out.i[linear] = operand.i[from];
      });
  return out;
}

Literal evalScatter(const v1::ScatterAttrs &attrs, const Literal &operand,
                    const Literal &indices, const Literal &updates) {
  Literal out = operand;
  int64_t rows = operand.shape[0];
  if (rows == 0)
    return out;
  int64_t width = operand.numElements() / rows;
  static const char *ops[] = {"", "", "add", "mul", "max", "min"};
  const std::string op = ops[attrs.reduction()];
  for (int64_t m = 0; m < indices.numElements(); ++m) {
    // Out-of-range indices clamp, as gather's do.
    int64_t row = std::min(std::max<int64_t>(indices.i[m], 0), rows - 1);
    for (int64_t k = 0; k < width; ++k) {
      int64_t to = row * width + k, from = m * width + k;
      if (op.empty()) {
        if (out.isFloat())
          out.f[to] = updates.f[from];
        else
          out.i[to] = updates.i[from];
      } else if (out.isFloat()) {
        out.setDouble(to, binaryFloat(op, out.f[to], updates.f[from]));
      } else {
        out.setInt(to, binaryInt(op, out.i[to], updates.i[from]));
      }
    }
  }
  return out;
}

Literal evalArgsort(const v1::ArgsortAttrs &attrs, const Literal &x) {
  Literal out = Literal::zeros(v1::DTYPE_I64, x.shape);
  int64_t axis = attrs.axis(), extent = x.shape[axis];
  int64_t stride = stridesOf(x.shape)[axis];
  if (out.numElements() == 0)
    return out;
  // "a before b": the order ascending, NaN above every number; descending
  // is the reverse order, and stable_sort keeps equal elements in place.
  auto before = [&](int64_t a, int64_t b) {
    if (!x.isFloat())
      return attrs.descending() ? x.i[a] > x.i[b] : x.i[a] < x.i[b];
    double u = x.f[a], v = x.f[b];
    if (attrs.descending())
      std::swap(u, v);
    return !std::isnan(u) && (std::isnan(v) || u < v);
  };
  std::vector<int64_t> row(static_cast<size_t>(extent));
  for (int64_t first = 0; first < out.numElements(); ++first) {
    if ((first / stride) % extent != 0)
      continue; // not the first element of its row along the axis
    std::iota(row.begin(), row.end(), int64_t(0));
    std::stable_sort(row.begin(), row.end(), [&](int64_t a, int64_t b) {
      return before(first + a * stride, first + b * stride);
    });
    for (int64_t k = 0; k < extent; ++k)
      out.i[first + k * stride] = row[k];
  }
  return out;
}

Literal evalCumulative(const v1::CumulativeAttrs &attrs, const Literal &x) {
  Literal out = Literal::zeros(x.dtype, x.shape);
  int64_t axis = attrs.axis(), extent = x.shape[axis];
  int64_t stride = stridesOf(x.shape)[axis];
  v1::ReduceKind kind = attrs.kind();
  bool is32 = x.dtype == v1::DTYPE_I32;
  for (int64_t first = 0; first < out.numElements(); ++first) {
    if ((first / stride) % extent != 0)
      continue; // not the first element of its row along the axis
    // Floats fold in double, integers in 64 bits wrapping (setInt wraps
    // to i32); the running value starts at the fold's identity.
    double f = kind == v1::REDUCE_SUM    ? 0.0
               : kind == v1::REDUCE_PROD ? 1.0
               : kind == v1::REDUCE_MAX
                   ? -std::numeric_limits<double>::infinity()
                   : std::numeric_limits<double>::infinity();
    uint64_t i = kind == v1::REDUCE_SUM    ? 0
                 : kind == v1::REDUCE_PROD ? 1
                 : kind == v1::REDUCE_MAX
                     ? uint64_t(is32 ? std::numeric_limits<int32_t>::min()
                                     : std::numeric_limits<int64_t>::min())
                     : uint64_t(is32 ? std::numeric_limits<int32_t>::max()
                                     : std::numeric_limits<int64_t>::max());
    for (int64_t step = 0; step < extent; ++step) {
      int64_t k = attrs.reverse() ? extent - 1 - step : step;
      int64_t at = first + k * stride;
      auto write = [&] {
        if (out.isFloat())
          out.setDouble(at, f);
        else
          out.setInt(at, int64_t(i));
      };
      if (attrs.exclusive())
        write();
      if (x.isFloat()) {
        double v = x.f[at];
        if (kind == v1::REDUCE_SUM)
          f += v;
        else if (kind == v1::REDUCE_PROD)
          f *= v;
        else if (std::isnan(v) || std::isnan(f))
          f = std::numeric_limits<double>::quiet_NaN();
        else
          f = kind == v1::REDUCE_MAX ? std::max(f, v) : std::min(f, v);
      } else {
        int64_t v = x.i[at];
        if (kind == v1::REDUCE_SUM)
          i += uint64_t(v);
        else if (kind == v1::REDUCE_PROD)
          i *= uint64_t(v);
        else
          i = uint64_t(kind == v1::REDUCE_MAX ? std::max(int64_t(i), v)
                                              : std::min(int64_t(i), v));
      }
      if (!attrs.exclusive())
        write();
    }
  }
  return out;
}

Literal evalReduce(const v1::ReduceAttrs &attrs, const Literal &x,
                   const ResultType &type) {
  std::set<int64_t> reduced(attrs.dimensions().begin(),
                            attrs.dimensions().end());
  std::vector<int64_t> outStrides = stridesOf(type.shape);
  int64_t n = 1;
  for (int64_t d : type.shape)
    n *= d;
  v1::ReduceKind kind = attrs.kind();
  if (x.isFloat()) {
    double init = kind == v1::REDUCE_SUM    ? 0.0
                  : kind == v1::REDUCE_PROD ? 1.0
                  : kind == v1::REDUCE_MAX
                      ? -std::numeric_limits<double>::infinity()
                      : std::numeric_limits<double>::infinity();
    std::vector<double> acc(n, init);
    forEachIndex(
        x.shape, [&](const std::vector<int64_t> &index, int64_t linear) {
          int64_t to = 0, k = 0;
          for (int64_t d = 0; d < x.rank(); ++d)
            if (!reduced.count(d))
              to += index[d] * outStrides[k++];
          double v = x.f[linear], &a = acc[to];
          if (kind == v1::REDUCE_SUM)
            a += v;
          else if (kind == v1::REDUCE_PROD)
            a *= v;
          else if (std::isnan(v) || std::isnan(a))
            a = std::numeric_limits<double>::quiet_NaN();
          else
            a = kind == v1::REDUCE_MAX ? std::max(a, v) : std::min(a, v);
        });
    Literal out = Literal::zeros(type.dtype, type.shape);
    for (int64_t k = 0; k < n; ++k)
      out.setDouble(k, acc[k]);
    return out;
  }
  bool is32 = x.dtype == v1::DTYPE_I32;
  int64_t lowest = is32 ? std::numeric_limits<int32_t>::min()
                        : std::numeric_limits<int64_t>::min();
  int64_t highest = is32 ? std::numeric_limits<int32_t>::max()
                         : std::numeric_limits<int64_t>::max();
  int64_t init = kind == v1::REDUCE_SUM    ? 0
                 : kind == v1::REDUCE_PROD ? 1
                 : kind == v1::REDUCE_MAX  ? lowest
                                           : highest;
  std::vector<int64_t> acc(n, init);
  forEachIndex(x.shape, [&](const std::vector<int64_t> &index, int64_t linear) {
    int64_t to = 0, k = 0;
    for (int64_t d = 0; d < x.rank(); ++d)
      if (!reduced.count(d))
        to += index[d] * outStrides[k++];
    uint64_t a = static_cast<uint64_t>(acc[to]),
             v = static_cast<uint64_t>(x.i[linear]);
    if (kind == v1::REDUCE_SUM)
      acc[to] = static_cast<int64_t>(a + v);
    else if (kind == v1::REDUCE_PROD)
      acc[to] = static_cast<int64_t>(a * v);
    else if (kind == v1::REDUCE_MAX)
      acc[to] = std::max(acc[to], x.i[linear]);
    else
      acc[to] = std::min(acc[to], x.i[linear]);
  });
  Literal out = Literal::zeros(type.dtype, type.shape);
  for (int64_t k = 0; k < n; ++k)
    out.setInt(k, acc[k]);
  return out;
}

Literal evalDotGeneral(const v1::DotGeneralAttrs &attrs, const Literal &lhs,
                       const Literal &rhs, const ResultType &type) {
  // Bring both sides to [batch, free, contracting] / [batch, contracting,
  // free] order so the product is a plain batched matrix multiply.
  auto layout = [](const Literal &x,
                   const google::protobuf::RepeatedField<int64_t> &batch,
                   const google::protobuf::RepeatedField<int64_t> &contract,
                   bool contractFirst, int64_t &freeSize,
                   int64_t &contractSize) {
    std::set<int64_t> used(batch.begin(), batch.end());
    used.insert(contract.begin(), contract.end());
    std::vector<int64_t> perm(batch.begin(), batch.end()), freeDims;
    for (int64_t d = 0; d < x.rank(); ++d)
      if (!used.count(d))
        freeDims.push_back(d);
    freeSize = contractSize = 1;
    for (int64_t d : freeDims)
      freeSize *= x.shape[d];
    for (int64_t d : contract)
      contractSize *= x.shape[d];
    if (contractFirst) {
      perm.insert(perm.end(), contract.begin(), contract.end());
      perm.insert(perm.end(), freeDims.begin(), freeDims.end());
    } else {
      perm.insert(perm.end(), freeDims.begin(), freeDims.end());
      perm.insert(perm.end(), contract.begin(), contract.end());
    }
    return evalTranspose(perm, x);
  };
  int64_t m, k, n, k2;
  Literal a = layout(lhs, attrs.lhs_batch_dimensions(),
                     attrs.lhs_contracting_dimensions(), false, m, k);
  Literal b = layout(rhs, attrs.rhs_batch_dimensions(),
                     attrs.rhs_contracting_dimensions(), true, n, k2);
  int64_t batch = 1;
  for (int64_t d : attrs.lhs_batch_dimensions())
    batch *= lhs.shape[d];

  Literal out = Literal::zeros(type.dtype, type.shape);
  bool isFloat = out.isFloat();
  std::vector<double> accF(isFloat ? n : 0);
  std::vector<uint64_t> accI(isFloat ? 0 : n);
  for (int64_t p = 0; p < batch; ++p) {
    for (int64_t i = 0; i < m; ++i) {
      std::fill(accF.begin(), accF.end(), 0.0);
      std::fill(accI.begin(), accI.end(), 0);
      for (int64_t c = 0; c < k; ++c) {
        int64_t aAt = (p * m + i) * k + c, bRow = (p * k + c) * n;
        if (isFloat) {
          double av = a.f[aAt];
          for (int64_t j = 0; j < n; ++j)
            accF[j] += av * b.f[bRow + j];
        } else {
          uint64_t av = static_cast<uint64_t>(a.i[aAt]);
          for (int64_t j = 0; j < n; ++j)
            accI[j] += av * static_cast<uint64_t>(b.i[bRow + j]);
        }
      }
      int64_t row = (p * m + i) * n;
      for (int64_t j = 0; j < n; ++j) {
        if (isFloat)
          out.setDouble(row + j, accF[j]);
        else
          out.setInt(row + j, static_cast<int64_t>(accI[j]));
      }
    }
  }
  return out;
}

Literal evalConvolution(const v1::ConvolutionAttrs &attrs, const Literal &x,
                        const Literal &w, const ResultType &type) {
  // Each output element sums its group's channels over every tap, in
  // double, taps that meet the padding skipped (they add zeros).
  Literal out = Literal::zeros(type.dtype, type.shape);
  auto r = static_cast<int64_t>(type.shape.size()) - 2;
  int64_t filters = w.shape[0], perGroup = w.shape[1];
  int64_t filtersPerGroup = filters / attrs.groups();
  std::vector<int64_t> xStrides = stridesOf(x.shape),
                       wStrides = stridesOf(w.shape);
  std::vector<int64_t> kernel(w.shape.begin() + 2, w.shape.end());
  forEachIndex(type.shape, [&](const std::vector<int64_t> &at, int64_t i) {
    int64_t n = at[0], o = at[1], group = o / filtersPerGroup;
    double sum = 0.0;
    for (int64_t c = 0; c < perGroup; ++c) {
      int64_t channel = group * perGroup + c;
      forEachIndex(kernel, [&](const std::vector<int64_t> &tap, int64_t) {
        int64_t xAt = n * xStrides[0] + channel * xStrides[1];
        int64_t wAt = o * wStrides[0] + c * wStrides[1];
        for (int64_t d = 0; d < r; ++d) {
          int64_t p = at[2 + d] * attrs.strides(d) +
                      tap[d] * attrs.dilations(d) - attrs.padding_low(d);
          if (p < 0 || p >= x.shape[2 + d])
            return;
          xAt += p * xStrides[2 + d];
          wAt += tap[d] * wStrides[2 + d];
        }
        sum += x.f[xAt] * w.f[wAt];
      });
    }
    out.setDouble(i, sum);
  });
  return out;
}

} // namespace anyshape::reference
