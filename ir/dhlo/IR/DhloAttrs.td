//===- DhloAttrs.td - dhlo attributes ----------------------*- tablegen -*-===//
//
// #dhlo.shape: the symbolic dims of a tensor (as a type encoding) or of a
// shape-valued attribute (reshape targets, broadcast shapes, slice bounds).
//
//===----------------------------------------------------------------------===//

#ifndef DHLO_ATTRS
#define DHLO_ATTRS

include "DhloDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/TensorEncoding.td"

def Dhlo_ShapeAttr : AttrDef<Dhlo_Dialect, "Shape",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let mnemonic = "shape";
  let summary = "symbolic dims";
  let description = [{
    One entry per dim: an integer (a static size; `-1` only in a reshape
    target), a bare symbol (`seq`), a quoted polynomial over symbols
    (`"batch*seq"`, `"seq + 1"`, fresh importer symbols such as `"?3"`), or
    `?` for a dim nothing is known about.

    ```mlir
    tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>
    tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
    ```
  }];
  // Each entry is an IntegerAttr (i64), a StringAttr (SymExpr text) or a
  // UnitAttr (unknown).
  let parameters = (ins ArrayRefParameter<"::mlir::Attribute", "dims">:$dims);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getDims().size(); }
    /// Dim `i` as a polynomial; nullopt when unknown.
    std::optional<::anyshape::SymExpr> getDim(int64_t i) const;
    /// True if dim `i` is `-1` (reshape: inferred).
    bool isInferred(int64_t i) const;
    /// Builds the attribute from polynomials; nullopt entries are unknown.
    static ShapeAttr get(::mlir::MLIRContext *context,
                         ::llvm::ArrayRef<std::optional<::anyshape::SymExpr>> dims);
  }];
}

#endif // DHLO_ATTRS
