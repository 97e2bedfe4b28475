// The execution context: everything one run of an executable uses that is
// not an input or an output. The entry takes it (compiler/ObjectCode.h:
// `anyshape_entry(context, args)`) and hands it to the host flow and to
// every kernel, so nothing on the execution path reads a process or
// thread global: two runs with different team sizes or allocators may run
// at once. Generated code reads `teamSize` directly (its offset is part of
// the ABI) and allocates and frees through the two functions below.
#pragma once

#include <cstdint>

namespace anyshape::runtime {

extern "C" {

/// Version 1 of the layout. Fields are only ever added at the end.
struct AnyshapeExecutionContext {
  /// Threads a parallel kernel forks (>= 1); at offset 0, where generated
  /// code loads it.
  int64_t teamSize;
  /// Allocates `size` bytes aligned to `alignment` (a power of two, at
  /// least 64 in practice); null when out of memory.
  void *(*alloc)(void *allocator, uint64_t alignment, uint64_t size);
  /// Frees what `alloc` returned; null is a no-op.
  void (*free)(void *allocator, void *pointer);
  void *allocator; ///< passed to alloc and free
  /// A device target's stream and loaded-module table (CUDA); null on the
  /// CPU.
  void *deviceStream;
  void *moduleTable;
  /// Set (NUL-terminated, truncated) by a runtime call that failed, e.g. a
  /// library error: the run's outputs are then not to be trusted, and the
  /// caller reports this instead. Empty while all is well. After the
  /// fields generated code loads, so that their offsets stay put.
  char runtimeError[192];
  /// The run's first failed index check (IndexChecks.h): the wire node's
  /// position + 1 (0 while none failed), the index, and the size of the
  /// axis it indexes. The run then fails with that node's error.
  int64_t failedCheckNode;
  int64_t failedCheckIndex;
  int64_t failedCheckExtent;
  /// The run's failed rule on a nonzero's count (SizeChecks.h): its index
  /// in GraphInfo::countChecks + 1 (0 while none failed) and the values
  /// of its two sides.
  int64_t failedSizeCheck;
  int64_t failedSizeA;
  int64_t failedSizeB;
  /// Where a failed rule on a count stops the run: a std::jmp_buf of the
  /// caller's, set by setjmp around the entry (jit/Executable.cpp), for
  /// executables with such rules.
  void *stopRun;
};

/// Records `message` as the run's runtime error (the first one wins).
void anyshapeRuntimeError(AnyshapeExecutionContext *context,
                          const char *message);

/// What generated code calls for memref.alloc / memref.dealloc.
void *anyshapeContextAlloc(AnyshapeExecutionContext *context,
                           uint64_t alignment, uint64_t size);
void anyshapeContextFree(AnyshapeExecutionContext *context, void *pointer);
}

/// A context on the caching allocator (Allocator.h) with `teamSize`
/// threads (at least 1).
AnyshapeExecutionContext cachingContext(int64_t teamSize);

} // namespace anyshape::runtime
