//===- CudaTarget.h - what CUDA code is generated for -----------*- C++ -*-===//
//
// The one owner of the CUDA target's facts the compiler uses: the chip
// (SM version; which chips exist is runtime/cuda/Chips.h's), the PTX
// version it is written in, and the launch shape of
// a grid-stride kernel. MLIR's NVVM default chip, sm_50, is rejected by
// CUDA 13, so the chip is always explicit.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/cuda/Chips.h"

#include <cstdint>
#include <optional>
#include <string>

namespace anyshape::codegen {

struct CudaTarget {
  /// Compute capability x 10, one of runtime/cuda/Chips.h's.
  int smVersion = runtime::cuda::kDefaultSmVersion;
  /// Threads per block of a grid-stride kernel: 8 warps, which lets 8
  /// blocks share an SM's 2,048 threads.
  int64_t blockSize = 256;
  /// Blocks a grid-stride kernel takes at most; beyond, its threads
  /// stride. 4,096 blocks of 256 are over 7 waves of a 132-SM H100 at full
  /// occupancy, so a large kernel still fills the device.
  int64_t maxBlocks = 4096;
  /// Rows of at most this many elements are reduced by one warp each (16
  /// per lane), longer ones by a block of `blockSize` each: DISC's split,
  /// where a block's barriers and shared memory start to pay.
  int64_t warpMaxRow = 512;
  /// Rows of up to twice warpMaxRow also go one per warp when there are
  /// at least this many: then the warps fill the device, and a warp per
  /// row is the faster. Measured on an H200 (anyshape-bench-cuda,
  /// docs/cuda.md): 21,845 rows of 768, 1.5 TB/s a warp per row against
  /// 0.85 a block per row; the encoder's 512 rows of 768, 30% more device
  /// time for its fusions a warp per row.
  int64_t warpManyRows = 4096;
  /// Rows per block of the warp-per-row version: 4 warps, 128 threads.
  int64_t warpsPerBlock = 4;

  /// "sm_90".
  std::string chip() const { return runtime::cuda::chipName(smVersion); }
  /// The PTX ISA the kernels are written in, as an LLVM NVPTX feature:
  /// 8.0 covers sm_90 and is the newest LLVM 19 writes that CUDA 13 reads
  /// for both chips.
  std::string ptxFeatures() const { return "+ptx80"; }

  /// A chip of runtime/cuda/Chips.h by name ("sm_90", also "90"); nullopt
  /// for any other chip, and for an empty name.
  static std::optional<CudaTarget> fromChip(const std::string &chip);
};

} // namespace anyshape::codegen
