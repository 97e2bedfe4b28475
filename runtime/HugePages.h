// Memory for large data that kernels stream through on every run (the
// GEMM weights packed once): aligned to 2 MiB and advised for the kernel's
// transparent huge pages.
//
// Why: a short request reads every weight once and does little else, so
// the layer runs at the speed weights come from memory. In 4 KiB pages
// the encoder's 28 MB of packed weights are 7,000 pages, more than the
// TLB holds, and every run walks them again; in 2 MiB pages they are 14.
// Measured (docs/benchmarks.md, "GEMM from weights packed once"): the
// layer at 8 tokens 5-19% faster, no change from 64 tokens up, where the
// GEMMs are bound by arithmetic. Linux's default THP mode is "madvise", so
// nothing gets huge pages without asking.
#pragma once

#include <cstddef>

namespace anyshape::runtime {

inline constexpr size_t kHugePageBytes = size_t{2} << 20;

/// `bytes` aligned to 2 MiB, its whole 2 MiB extents advised for huge
/// pages (the tail, if any, stays in small pages: nothing is rounded up);
/// null when out of memory. Free with std::free. Where the kernel has no
/// transparent huge pages, or refuses the advice, it is plain memory.
void *allocateForHugePages(size_t bytes);

} // namespace anyshape::runtime
