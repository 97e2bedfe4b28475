//===- TestPrintShapeAnalysis.cpp - analysis dump for tests -----*- C++ -*-===//
//
// dhlo-test-print-shape-analysis: prints ShapeConstraintAnalysis for each
// function so lit tests can FileCheck what the analysis proves.
//
//===----------------------------------------------------------------------===//
#include "ir/dhlo/Analysis/ShapeConstraintAnalysis.h"
#include "ir/dhlo/Transforms/Passes.h"

namespace anyshape::dhlo {

#define GEN_PASS_DEF_TESTPRINTSHAPEANALYSIS
#include "ir/dhlo/Transforms/Passes.h.inc"

namespace {

struct TestPrintShapeAnalysisPass
    : impl::TestPrintShapeAnalysisBase<TestPrintShapeAnalysisPass> {
  void runOnOperation() override {
    ShapeConstraintAnalysis analysis(getOperation());
    llvm::outs() << "shape analysis of @" << getOperation().getName() << "\n";
    analysis.print(llvm::outs());
    markAllAnalysesPreserved();
  }
};

} // namespace
} // namespace anyshape::dhlo
