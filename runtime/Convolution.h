// convolution from the host flow (codegen's anyshape-convolutions-to-
// runtime-calls): oneDNN's forward convolution of f32 buffers in the wire
// layouts (input [N, C, S...], weights [O, C / groups, K...], result
// [N, O, out...]; docs/ops.md, convolution). A primitive is made for each
// concrete geometry and team size on its first run and kept in a bounded
// cache, so a new resolution or length costs one primitive creation, never
// a compile. The primitive picks its layouts (blocked channels) and the
// operands are reordered into and out of them; constant weights once, in
// the slot the generated code gives them. Strided views are packed dense
// first; the result is the host flow's own dense allocation.
#pragma once

#include "ExecutionContext.h"
#include "MemrefCopy.h" // UnrankedMemref

#include <cstdint>

namespace anyshape::runtime {

/// Primitives kept (least recently used first out). Each holds oneDNN's
/// generated code for one geometry, a few hundred KiB at most.
inline constexpr int64_t kConvolutionCacheEntries = 256;

/// How many primitives were created so far, and how many runs found theirs
/// in the cache (for tests and benchmarks).
struct ConvolutionCacheCounts {
  int64_t created = 0;
  int64_t reused = 0;
};
ConvolutionCacheCounts convolutionCacheCounts();

/// How many times constant weights were reordered into a primitive's
/// layout (once per layout and slot), for tests.
int64_t convolutionWeightReorders();

extern "C" {
/// result = convolution(input, weights) with `rank` spatial dims (1-3);
/// the geometry's entries past `rank` are ignored. `weightsSlot`, if not
/// 0, is the address of a word the generated code keeps for these weights,
/// which are constant: their reorder into each layout a primitive picks is
/// made once and kept there. A failure (oneDNN's, or memory) is recorded
/// in `context` as the run's error.
void anyshapeConvolutionF32(UnrankedMemref *input, UnrankedMemref *weights,
                            UnrankedMemref *result, int64_t rank,
                            int64_t groups, int64_t stride0, int64_t stride1,
                            int64_t stride2, int64_t dilation0,
                            int64_t dilation1, int64_t dilation2, int64_t low0,
                            int64_t low1, int64_t low2, int64_t high0,
                            int64_t high1, int64_t high2, int64_t weightsSlot,
                            AnyshapeExecutionContext *context);

/// Frees what the slot at `slotAddress` holds (the object's finalizer).
void anyshapeReleaseConvolutionWeights(int64_t slotAddress);
}

} // namespace anyshape::runtime
