// Result types of every op of the wire format: the op semantics of
// docs/ops.md in code, written once over symbolic dims.
//
// Used by validation (symbolic mode: a graph's types with symbols), the
// graph builder (to know the shapes it broadcasts against) and the reference
// evaluator (concrete mode: every dim is a number, so every check that is
// deferred to run time symbolically becomes a plain error here).
#pragma once

#include "OpRegistry.h"
#include "TensorType.h"

#include <vector>

namespace anyshape {

/// The result type of `node` given its operands' types. Checks operand
/// count, attribute kind, dtypes, ranks, axes and every static size rule;
/// the message does not name the node (callers add it).
StatusOr<SymTensorType>
inferNodeType(const v1::Node &node,
              const std::vector<const SymTensorType *> &operands,
              ShapeContext &ctx);
/// The same for a node whose op (`lookupOp(node.op())`) is known.
StatusOr<SymTensorType>
inferNodeType(const v1::Node &node, const OpInfo &op,
              const std::vector<const SymTensorType *> &operands,
              ShapeContext &ctx);

/// The materialised byte size of a constant node's value (its element count
/// times the element size), or an error on overflow.
StatusOr<int64_t> constantByteSize(const v1::ConstantAttrs &attrs);

namespace detail {
// Shape-changing ops, in ShapeInferenceStructural.cpp.
StatusOr<SymTensorType> inferBroadcastInDim(const v1::BroadcastInDimAttrs &,
                                            const SymTensorType &,
                                            ShapeContext &);
StatusOr<SymTensorType> inferReshape(const v1::ReshapeAttrs &,
                                     const SymTensorType &, ShapeContext &);
StatusOr<SymTensorType> inferTranspose(const v1::TransposeAttrs &,
                                       const SymTensorType &);
StatusOr<SymTensorType> inferSlice(const v1::SliceAttrs &,
                                   const SymTensorType &, ShapeContext &);
StatusOr<SymTensorType>
inferConcatenate(const v1::ConcatenateAttrs &,
                 const std::vector<const SymTensorType *> &,
                 const ShapeContext &);
StatusOr<SymTensorType> inferPad(const v1::PadAttrs &, const SymTensorType &,
                                 const SymTensorType &paddingValue,
                                 ShapeContext &);
/// Checks that `axes` are in [0, rank) and, if `unique`, distinct.
Status checkAxes(const google::protobuf::RepeatedField<int64_t> &axes,
                 int64_t rank, const char *what, bool unique = true);
} // namespace detail

} // namespace anyshape
