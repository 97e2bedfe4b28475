//===- MarkFusions.cpp - the fusion plan into locations --------*- C++ -*-===//
//
// dhlo-mark-fusions: plans the function's kernels and records the plan in
// its ops' locations (markFusions, FusionPlan.h).
//
//===----------------------------------------------------------------------===//
#include "ir/dhlo/Analysis/FusionPlan.h"
#include "ir/dhlo/Transforms/Passes.h"

namespace anyshape::dhlo {

#define GEN_PASS_DEF_MARKFUSIONS
#include "ir/dhlo/Transforms/Passes.h.inc"

namespace {

struct MarkFusionsPass : impl::MarkFusionsBase<MarkFusionsPass> {
  void runOnOperation() override {
    ShapeConstraintAnalysis analysis(getOperation());
    markFusions(planFusion(getOperation(), analysis));
    markAllAnalysesPreserved(); // locations only
  }
};

} // namespace
} // namespace anyshape::dhlo
