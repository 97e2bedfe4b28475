// GEMM against a constant weight, packed once for the library.
//
// oneDNN's GEMM copies ("packs") its operands into the layout its kernels
// read before every call. For a weight [K, N] that costs a pass over the
// whole weight, which at small M is most of the call: measured on the
// AVX2 EPYC VM, [8, 768] x [768, 3072] took 0.92 ms through the plain call
// and 0.21 ms with the weight packed once (docs/benchmarks.md). The CPU
// pipeline therefore routes every f32 GEMM whose B is a constant of the
// executable (a constant or load-time global) here, with a slot of its own
// (anyshape-pack-constant-weights): the first run packs the weight into the
// slot, and every later run reuses the pack.
//
// The pack is cut into column slices, each packed for one thread; a run's
// team takes the slices between its threads and each computes its own on
// one thread. So any team size can use one pack (oneDNN's own multi-thread
// pack fixes the team at pack time, and with fewer threads than it was
// packed for it corrupts memory: seen with its 2.6 release), and a weight
// costs its bytes twice at most (the original stays for runs the pack
// cannot serve).
//
// Invariants: the slot is 0 (empty), 1 (being packed, by one run) or 2
// (cannot be packed), or it holds the pack; a pack is immutable once
// published and lives until anyshapeReleaseGemmPack. A call the pack cannot
// serve (another view of the weight, a single row, a library without the
// packed API, an error) runs the plain GEMM, with the same result.
#pragma once

#include "runtime/Gemm.h"

#include <cstdint>

namespace anyshape::runtime {

/// The slot's MLIR descriptor: memref<1xi64>.
struct SlotMemref {
  int64_t *allocated;
  int64_t *aligned;
  int64_t offset;
  int64_t sizes[1];
  int64_t strides[1];
};

/// anyshapeBatchMatmulF32 with `b` a constant: packs b into `slot` on the
/// first call, and runs from the pack after.
extern "C" void anyshapeBatchMatmulPackedF32(Memref3D *a, Memref3D *b,
                                             Memref3D *c, SlotMemref *slot,
                                             AnyshapeExecutionContext *context);

/// Frees the pack in the slot at `slotAddress` (an int64_t), leaving it
/// empty; called by the object's finalizer before its code is unloaded.
extern "C" void anyshapeReleaseGemmPack(int64_t slotAddress);

/// Whether this build's oneDNN has the packed GEMM (checked when
/// configured); without it every call runs the plain GEMM.
bool packedGemmAvailable();

/// Counts since the process started, for tests and diagnostics.
struct PackedGemmCounts {
  int64_t packs = 0;       ///< weights packed
  int64_t packedCalls = 0; ///< calls served from a pack
  int64_t plainCalls = 0;  ///< calls that ran the plain GEMM instead
  int64_t releases = 0;    ///< packs freed
};
PackedGemmCounts packedGemmCounts();

} // namespace anyshape::runtime
