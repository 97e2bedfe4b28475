//===- TestPrintFusionPlan.cpp - fusion plan dump -----------------*- C++
//-*-===//
//
// dhlo-test-print-fusion-plan: prints planFusion's result per function.
//
//===----------------------------------------------------------------------===//
#include "ir/dhlo/Analysis/FusionPlan.h"
#include "ir/dhlo/Transforms/Passes.h"

namespace anyshape::dhlo {

#define GEN_PASS_DEF_TESTPRINTFUSIONPLAN
#include "ir/dhlo/Transforms/Passes.h.inc"

namespace {

struct TestPrintFusionPlanPass
    : impl::TestPrintFusionPlanBase<TestPrintFusionPlanPass> {
  void runOnOperation() override {
    ShapeConstraintAnalysis analysis(getOperation());
    llvm::outs() << "fusion plan of @" << getOperation().getName() << "\n";
    planFusion(getOperation(), analysis).print(llvm::outs(), analysis);
    markAllAnalysesPreserved();
  }
};

} // namespace
} // namespace anyshape::dhlo
