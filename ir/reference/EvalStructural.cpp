// Reference semantics of the shape-changing ops: each output element is
// located by its multi-index and copied from the operand element it names.
#include "EvalOps.h"

namespace anyshape::reference {
namespace {

void copyElement(Literal &out, int64_t to, const Literal &in, int64_t from) {
  if (out.isFloat())
    out.f[to] = in.f[from];
  else
    out.i[to] = in.i[from];
}

} // namespace

Literal evalBroadcastInDim(const v1::BroadcastInDimAttrs &attrs,
                           const Literal &x, const ResultType &type) {
  Literal out = Literal::zeros(type.dtype, type.shape);
  std::vector<int64_t> strides = stridesOf(x.shape);
  forEachIndex(type.shape, [&](const std::vector<int64_t> &index,
                               int64_t linear) {
    int64_t from = 0;
    for (int64_t d = 0; d < x.rank(); ++d) {
      // A size-1 operand dim broadcasts: it always reads index 0.
      int64_t i = x.shape[d] == 1 ? 0 : index[attrs.broadcast_dimensions(d)];
      from += i * strides[d];
    }
    copyElement(out, linear, x, from);
  });
  return out;
}

Literal evalTranspose(const std::vector<int64_t> &permutation,
                      const Literal &x) {
  std::vector<int64_t> shape;
  for (int64_t p : permutation)
    shape.push_back(x.shape[p]);
  Literal out = Literal::zeros(x.dtype, shape);
  std::vector<int64_t> strides = stridesOf(x.shape);
  forEachIndex(shape, [&](const std::vector<int64_t> &index, int64_t linear) {
    int64_t from = 0;
    for (size_t d = 0; d < permutation.size(); ++d)
      from += index[d] * strides[permutation[d]];
    copyElement(out, linear, x, from);
  });
  return out;
}

Literal evalSlice(const std::vector<int64_t> &starts,
                  const std::vector<int64_t> &strides, const Literal &x,
                  const ResultType &type) {
  Literal out = Literal::zeros(type.dtype, type.shape);
  std::vector<int64_t> xStrides = stridesOf(x.shape);
  forEachIndex(type.shape,
               [&](const std::vector<int64_t> &index, int64_t linear) {
                 int64_t from = 0;
                 for (int64_t d = 0; d < x.rank(); ++d)
                   from += (starts[d] + index[d] * strides[d]) * xStrides[d];
                 copyElement(out, linear, x, from);
               });
  return out;
}

Literal evalConcatenate(const std::vector<const Literal *> &xs, int64_t axis,
                        const ResultType &type) {
  Literal out = Literal::zeros(type.dtype, type.shape);
  std::vector<int64_t> offsets; // start of each operand along `axis`
  std::vector<std::vector<int64_t>> strides;
  int64_t offset = 0;
  for (const Literal *x : xs) {
    offsets.push_back(offset);
    offset += x->shape[axis];
    strides.push_back(stridesOf(x->shape));
  }
  forEachIndex(type.shape, [&](std::vector<int64_t> index, int64_t linear) {
    size_t k = 0;
    while (k + 1 < xs.size() && index[axis] >= offsets[k + 1])
      ++k;
    index[axis] -= offsets[k];
    int64_t from = 0;
    for (size_t d = 0; d < index.size(); ++d)
      from += index[d] * strides[k][d];
    copyElement(out, linear, *xs[k], from);
  });
  return out;
}

Literal evalPad(const v1::PadAttrs &attrs, const Literal &x,
                const Literal &value, const ResultType &type) {
  Literal out = Literal::zeros(type.dtype, type.shape);
  int64_t n = out.numElements();
  for (int64_t k = 0; k < n; ++k)
    copyElement(out, k, value, 0);
  std::vector<int64_t> outStrides = stridesOf(type.shape);
  // Scatter each operand element to its padded position, unless negative
  // edge padding cropped it away.
  forEachIndex(x.shape, [&](const std::vector<int64_t> &index, int64_t linear) {
    int64_t to = 0;
    for (int64_t d = 0; d < x.rank(); ++d) {
      int64_t interior =
          attrs.interior_padding_size() ? attrs.interior_padding(d) : 0;
      // index * interior fits: validation bounded interior * (dim - 1).
      int64_t pos = attrs.edge_padding_low(d) + index[d] * interior + index[d];
      if (pos < 0 || pos >= type.shape[d])
        return;
      to += pos * outStrides[d];
    }
    copyElement(out, to, x, linear);
  });
  return out;
}

} // namespace anyshape::reference
