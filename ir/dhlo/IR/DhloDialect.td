//===- DhloDialect.td - the dhlo dialect -------------------*- tablegen -*-===//
//
// dhlo ("dynamic HLO", after DISC's DHLO) is anyshape's graph IR: one op per
// op of the wire format, on ranked tensors whose dims may be dynamic. The
// symbolic value of every dim travels in the tensor type's encoding
// (#dhlo.shape), so symbols survive every pass that keeps types.
//
//===----------------------------------------------------------------------===//

#ifndef DHLO_DIALECT
#define DHLO_DIALECT

include "mlir/IR/OpBase.td"

def Dhlo_Dialect : Dialect {
  let name = "dhlo";
  let cppNamespace = "::anyshape::dhlo";
  let summary = "Dynamic-shape HLO: the anyshape graph IR";
  let description = [{
    Ops follow docs/ops.md (StableHLO semantics where StableHLO has the op).
    Tensor types may carry a `#dhlo.shape<...>` encoding giving each dim as
    a static size, a symbol (`seq`), a polynomial over symbols
    (`"batch*seq"`), a fresh symbol of the importer (`"?3"`), or `?`
    (unknown). Shape rules are the wire format's own
    (ir/graph/ShapeInference.h), reached through an op-to-node adapter, so
    the dialect, the validator and the reference evaluator agree.
  }];
  let useDefaultAttributePrinterParser = 1;
  // Shape reification builds tensor.dim and arith index arithmetic.
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
  // Attributes stay in the op's attribute dictionary, so that one generic
  // adapter can read every op's attributes for shape inference.
  let usePropertiesForAttributes = 0;
  let hasConstantMaterializer = 0;
}

#endif // DHLO_DIALECT
