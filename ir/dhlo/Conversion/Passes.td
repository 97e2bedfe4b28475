//===- Passes.td - dhlo conversions ------------------------*- tablegen -*-===//
//
// Lowerings out of dhlo, one pass per file; flags prefixed `dhlo-`.
//
//===----------------------------------------------------------------------===//

#ifndef DHLO_CONVERSION_PASSES
#define DHLO_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ConvertDhloToLinalg
    : Pass<"dhlo-convert-to-linalg", "mlir::func::FuncOp"> {
  let summary = "Lower every dhlo op to linalg, tensor and arith on tensors";
  let description = [{
    Each op becomes destination-style tensor code whose dynamic sizes are
    the op's reified result dims (from the function's argument dims through
    #dhlo.shape symbols, or from the operands' dims). Elementwise math runs
    in f32 for f16/bf16, and integer and conversion edge cases follow
    docs/ops.md exactly (division by zero, saturation, NaN). Finally the
    #dhlo.shape encodings are dropped from every type, since bufferization
    does not know them: the shapes they described are now explicit values.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect",
    "::mlir::scf::SCFDialect"
  ];
}

#endif // DHLO_CONVERSION_PASSES
