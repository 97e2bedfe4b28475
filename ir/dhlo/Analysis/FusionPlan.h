//===- FusionPlan.h - which ops share a kernel --------------------*- C++
//-*-===//
//
// The fusion planner: a target-neutral grouping of a function's dhlo ops
// into kernels, decided with the shape constraint analysis alone (no
// concrete size is known). Kinds follow DISC:
//   kLoop     elementwise, broadcast, convert and reshape chains over one
//             index space;
//   kInput    a reduction with the elementwise producers of its input;
//   kStitch   a row reduction stitched with the ops that consume it over the
//             same rows (softmax, layer norm: one pass per row);
//   kLibrary  a contraction handed to a GEMM library.
// Cheap producers (constants, iota, broadcasts of scalars) are duplicated
// into every consumer that can recompute them in its loop; an iota or
// broadcast that some user cannot recompute (a reduction, a gather's table,
// a copy) is also a kernel of its own, which that user reads. A producer that
// cannot be proven to share its consumer's index space is not fused, and the
// plan says so.
//
// The CPU and CUDA backends lower the same plan: dhlo-form-fusions makes
// each fusion a dhlo.fusion op, and the backends' kernel-forming passes
// fuse only within one (docs/pipeline.md, "The fusion plan"), with the
// versions listed here.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ShapeConstraintAnalysis.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <string>
#include <vector>

namespace anyshape::dhlo {

enum class FusionKind { Loop, Input, Stitch, Library };

const char *fusionKindName(FusionKind kind);

struct Fusion {
  FusionKind kind;
  mlir::Operation *root;              // the op whose result leaves the kernel
  std::vector<mlir::Operation *> ops; // in program order, root last
  mlir::Value space;                  // a value with the kernel's index space
  /// The kernel's speculative versions, at most 4, each chosen per run by
  /// a cheap check on sizes: "library" for a GEMM; otherwise
  /// {parallel, serial} by amount of work, crossed with
  /// {no-stretch, stretch} when a broadcast in it may or may not stretch;
  /// without those, a reduction of the innermost dim also has "split-row"
  /// (fewer rows than threads share each row; a 1-D value is one row), one
  /// of a middle dim "split-row/row-blocks" and "split-row/column-chunks",
  /// one of the first dim "row-blocks" (per-thread partials) and
  /// "column-chunks" for "parallel", and one of every dim of a larger value
  /// no "parallel" (codegen/Common/Passes.td, anyshape-speculate-kernels).
  std::vector<std::string> versions;
};

struct FusionPlan {
  std::vector<Fusion> fusions;       // in program order of their roots
  std::vector<std::string> notFused; // why producers stayed out, one line each

  void print(llvm::raw_ostream &os,
             const ShapeConstraintAnalysis &analysis) const;
};

FusionPlan planFusion(mlir::func::FuncOp func,
                      const ShapeConstraintAnalysis &analysis);

/// The ops each fusion's kernel is formed around, with the fusion's index
/// in the plan: every op of exactly one fusion, and every fusion's root.
/// Cheap ops (constants, iota, splats), which every kernel recomputes, are
/// in none unless one is a kernel's root: returned by the function, or a
/// loop (an iota, a broadcast) that a user cannot recompute point by point
/// (a reduction, a gather's table, a pad's operand, a copy, a product),
/// which then reads it from that kernel. Nor is an op the plan duplicates
/// into several fusions. Each consumer of those recomputes them
/// (dhlo-form-fusions leaves them outside the fusions).
llvm::DenseMap<mlir::Operation *, size_t> kernelOwners(const FusionPlan &plan);

} // namespace anyshape::dhlo
