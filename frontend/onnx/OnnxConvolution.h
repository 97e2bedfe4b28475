//===- OnnxConvolution.h - what Conv, ConvTranspose and pools share -*- C++
//-*-===//
//
// The window of a convolution or pool over the spatial dims, and the
// convolution every importer of one ends in (OnnxConvOps.cpp defines them;
// OnnxConvTransposeOps.cpp builds its transposed convolutions on them).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "frontend/onnx/OnnxNode.h"

#include <string>
#include <vector>

namespace anyshape::onnx::convolution {

/// A sliding window over the spatial dims (those after N and C).
struct Window {
  std::vector<int64_t> kernel, strides, dilations;
  std::vector<int64_t> padLow, padHigh; // high includes ceil_mode's overhang
  std::vector<SymExpr> out;             // the output size per spatial dim
  int64_t taps() const {
    int64_t t = 1;
    for (int64_t k : kernel)
      t *= k;
    return t;
  }
};

/// The node's attribute `name`: one entry per spatial dim, each in
/// [1, 2^20], or `fallback` for every dim where it is absent.
StatusOr<std::vector<int64_t>> perSpatialDim(Node &n, const std::string &name,
                                             size_t r, int64_t fallback);

/// A convolution of `x` over `win` that is composed (not f32) is bounded
/// in its taps, each a slice of the whole input.
Status checkComposable(Node &n, Value x, const Window &win);

/// The convolution of `x` ([N, C, spatial...], padded as `win` says) with
/// `weights` ([M, C/group, k...]) over `win`, plus `bias` ([M]) if valid:
/// the wire convolution for f32, composed otherwise, its output sizes
/// written as `win` has them.
Value convolve(Node &n, Value x, Value weights, int64_t group,
               const Window &win, Value bias);

/// The weights of a Conv or ConvTranspose node (input 1), static, of the
/// input's rank, with their channels matching the input's under `group`:
/// `channelsAt` is the weights' dim the input channels divide (1 for Conv,
/// whose weights are [M, C/group, k...]; 0 for ConvTranspose's
/// [C, M/group, k...]).
StatusOr<std::vector<int64_t>> checkedWeights(Node &n, Value x, Value weights,
                                              int64_t group, int channelsAt);

} // namespace anyshape::onnx::convolution
