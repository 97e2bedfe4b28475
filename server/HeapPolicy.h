// How much freed heap memory the server keeps for the next request.
//
// Why: every Execute allocates its tensors afresh (the parsed request, the
// outputs, gRPC's slices) and frees them when the reply is sent. With
// glibc's defaults, a block of 128 KiB and more is mapped for its request
// and unmapped after it, and free memory above the heap's top is given
// back once 128 KiB of it is free, so the next request faults every page
// in again: about 170 page faults a request for 384 KiB each way, which
// made Execute 1.5-2x a raw gRPC echo of the same bytes (docs/benchmarks.md,
// "Service: one client"). Keeping the heap makes those pages stay mapped
// from one request to the next.
#pragma once

#include <cstdint>
#include <string>

namespace anyshape::server {

/// The default bound of freed memory kept at the top of the heap.
inline constexpr int64_t kDefaultHeapKeepBytes = int64_t{256} << 20;

/// Keeps up to `bytes` of freed memory at the top of each heap (glibc has
/// one per thread that allocates concurrently, at most 8 per core) and
/// serves blocks below glibc's largest mapping threshold (32 MiB) from the
/// heap.
/// 0 leaves glibc's defaults. The user's own GLIBC_TUNABLES for malloc
/// take precedence: then nothing is changed. Returns what was done, for
/// the startup log.
std::string keepFreedHeap(int64_t bytes);

} // namespace anyshape::server
