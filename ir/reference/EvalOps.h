// Per-op kernels of the reference evaluator (internal to ir/reference).
// Each receives operands already checked by the shape rules and the result
// type those rules computed, so it only computes values.
#pragma once

#include "Literal.h"
#include "anyshape/v1/graph.pb.h"

namespace anyshape::reference {

/// The result's dtype and concrete shape.
struct ResultType {
  DType dtype;
  std::vector<int64_t> shape;
};

// EvalElementwise.cpp
Literal evalUnary(const v1::Node &node, const Literal &x, const ResultType &);
Literal evalBinary(const v1::Node &node, const Literal &a, const Literal &b,
                   const ResultType &);
Literal evalSelect(const Literal &pred, const Literal &onTrue,
                   const Literal &onFalse, const ResultType &);
Literal evalIota(const v1::IotaAttrs &attrs, const ResultType &);

// EvalStructural.cpp
Literal evalBroadcastInDim(const v1::BroadcastInDimAttrs &, const Literal &,
                           const ResultType &);
Literal evalTranspose(const std::vector<int64_t> &permutation, const Literal &);
Literal evalSlice(const std::vector<int64_t> &starts,
                  const std::vector<int64_t> &strides, const Literal &,
                  const ResultType &);
Literal evalConcatenate(const std::vector<const Literal *> &, int64_t axis,
                        const ResultType &);
Literal evalPad(const v1::PadAttrs &, const Literal &x, const Literal &value,
                const ResultType &);

/// One binary op ("add", "mul", "max", ...) on two elements, as the
/// elementwise ops compute it (EvalElementwise.cpp).
double binaryFloat(const std::string &op, double a, double b);
int64_t binaryInt(const std::string &op, int64_t a, int64_t b);

// EvalContractions.cpp
StatusOr<Literal> evalGather(int64_t axis, const Literal &operand,
                             const Literal &indices, const ResultType &);
Literal evalScatter(const v1::ScatterAttrs &, const Literal &operand,
                    const Literal &indices, const Literal &updates);
/// Positions in sorted order along the axis (docs/ops.md, argsort).
Literal evalArgsort(const v1::ArgsortAttrs &, const Literal &x);
/// Running folds along the axis (docs/ops.md, cumulative).
Literal evalCumulative(const v1::CumulativeAttrs &, const Literal &x);
Literal evalReduce(const v1::ReduceAttrs &, const Literal &,
                   const ResultType &);
Literal evalDotGeneral(const v1::DotGeneralAttrs &, const Literal &lhs,
                       const Literal &rhs, const ResultType &);
Literal evalConvolution(const v1::ConvolutionAttrs &, const Literal &input,
                        const Literal &weights, const ResultType &);

/// Calls fn(index, linear) for every multi-index of `shape` in row-major
/// order.
template <typename Fn>
void forEachIndex(const std::vector<int64_t> &shape, Fn &&fn) {
  int64_t count = 1;
  for (int64_t d : shape)
    count *= d;
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t linear = 0; linear < count; ++linear) {
    fn(index, linear);
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}

} // namespace anyshape::reference
