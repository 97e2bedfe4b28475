//===- DhloOps.td - dhlo operations -----------------------*- tablegen -*-===//
//
// One op per op of the wire format (docs/ops.md). Every op is Pure but
// check_index, an assertion with effects and no result, and the two
// buffer ops nonzero bufferizes to. Ops
// whose result type follows from operands and attributes implement
// InferTypeOpInterface through the wire format's shape rules; the three
// whose result type is itself the specification (constant, iota, convert,
// nonzero, whose count no rule gives) have custom verifiers instead, as does seeded_uniform, the one op with no
// wire op of its own (a large seeded constant).
//
//===----------------------------------------------------------------------===//

#ifndef DHLO_OPS
#define DHLO_OPS

include "DhloAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"

class Dhlo_Op<string mnemonic, list<Trait> traits = []>
    : Op<Dhlo_Dialect, mnemonic, !listconcat([Pure], traits)> {
  let assemblyFormat =
      "operands attr-dict `:` functional-type(operands, results)";
}

// Result type inferred by the wire format's shape rules. Inferred and
// declared types are compatible when dtype and rank agree and no static
// size contradicts (declared types may know more: they come from the
// importer's whole-graph view). Result dims reify from the function's
// argument dims (Reify.cpp).
class Dhlo_InferredOp<string mnemonic, list<Trait> traits = []>
    : Dhlo_Op<mnemonic,
              !listconcat([DeclareOpInterfaceMethods<InferTypeOpInterface>,
                           DeclareOpInterfaceMethods<
                               ReifyRankedShapedTypeOpInterface>],
                          traits)> {
  let extraClassDeclaration = [{
    static bool isCompatibleReturnTypes(::mlir::TypeRange inferred,
                                        ::mlir::TypeRange actual);
  }];
}

//===----------------------------------------------------------------------===//
// Sources
//===----------------------------------------------------------------------===//

def Dhlo_ConstantOp
    : Dhlo_Op<"constant", [ConstantLike, AllTypesMatch<["value", "result"]>]> {
  let summary = "a constant tensor (always static)";
  let arguments = (ins ElementsAttr:$value);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Dhlo_IotaOp : Dhlo_Op<"iota"> {
  let summary = "indices along one dim";
  let description = [{
    Element at index `i` is `i[iota_dimension]`. The result type (its
    #dhlo.shape encoding for symbolic dims) is the shape.
  }];
  let arguments = (ins I64Attr:$iota_dimension);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Dhlo_SeededUniformOp : Dhlo_Op<"seeded_uniform"> {
  let summary = "a large seeded-uniform constant, generated at load time";
  let description = [{
    A wire `constant` whose value is a SeededUniform (graph.proto) of more
    than kLargestEmbeddedGeneratedConstant elements (ConstantData.h). Its
    elements are never materialised by the compiler: the executable
    generates them once when it loads, with the evaluator's own generator.
    Smaller seeded constants import as `dhlo.constant`. With `transposed`
    (2-D only) the result is the transpose of the wire constant: the wire
    tensor is [d1, d0], generated in its own element order and stored
    with its dims swapped (anyshape-transpose-wide-weights).
  }];
  let arguments = (ins UI64Attr:$seed, F64Attr:$low, F64Attr:$high,
                   UnitAttr:$transposed);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

class Dhlo_UnaryOp<string mnemonic, string summaryText>
    : Dhlo_InferredOp<mnemonic> {
  let summary = summaryText;
  let arguments = (ins AnyRankedTensor:$operand);
  let results = (outs AnyRankedTensor:$result);
}

def Dhlo_AbsOp : Dhlo_UnaryOp<"abs", "absolute value">;
def Dhlo_NegOp : Dhlo_UnaryOp<"neg", "negation">;
def Dhlo_ExpOp : Dhlo_UnaryOp<"exp", "e^x">;
def Dhlo_LogOp : Dhlo_UnaryOp<"log", "natural logarithm">;
def Dhlo_TanhOp : Dhlo_UnaryOp<"tanh", "hyperbolic tangent">;
def Dhlo_LogisticOp : Dhlo_UnaryOp<"logistic", "1 / (1 + e^-x)">;
def Dhlo_SqrtOp : Dhlo_UnaryOp<"sqrt", "square root">;
def Dhlo_RsqrtOp : Dhlo_UnaryOp<"rsqrt", "reciprocal square root">;
def Dhlo_ErfOp : Dhlo_UnaryOp<"erf", "error function">;
def Dhlo_SinOp : Dhlo_UnaryOp<"sin", "sine">;
def Dhlo_CosOp : Dhlo_UnaryOp<"cos", "cosine">;
def Dhlo_FloorOp : Dhlo_UnaryOp<"floor", "round toward -inf">;
def Dhlo_CeilOp : Dhlo_UnaryOp<"ceil", "round toward +inf">;
def Dhlo_NotOp : Dhlo_UnaryOp<"not", "logical (bool) or bitwise (int) not">;

def Dhlo_ConvertOp : Dhlo_Op<"convert"> {
  let summary = "element type conversion";
  let arguments = (ins AnyRankedTensor:$operand);
  let results = (outs AnyRankedTensor:$result);
  let hasVerifier = 1;
  let hasFolder = 1;
}

class Dhlo_BinaryOp<string mnemonic, string summaryText>
    : Dhlo_InferredOp<mnemonic> {
  let summary = summaryText;
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs);
  let results = (outs AnyRankedTensor:$result);
}

def Dhlo_AddOp : Dhlo_BinaryOp<"add", "addition">;
def Dhlo_SubOp : Dhlo_BinaryOp<"sub", "subtraction">;
def Dhlo_MulOp : Dhlo_BinaryOp<"mul", "multiplication">;
def Dhlo_DivOp : Dhlo_BinaryOp<"div", "division">;
def Dhlo_PowOp : Dhlo_BinaryOp<"pow", "power">;
def Dhlo_MaxOp : Dhlo_BinaryOp<"max", "maximum (NaN-propagating)">;
def Dhlo_MinOp : Dhlo_BinaryOp<"min", "minimum (NaN-propagating)">;
def Dhlo_AndOp : Dhlo_BinaryOp<"and", "logical or bitwise and">;
def Dhlo_OrOp : Dhlo_BinaryOp<"or", "logical or bitwise or">;

def Dhlo_CompareOp : Dhlo_InferredOp<"compare"> {
  let summary = "elementwise comparison";
  let description = [{ `direction` is one of EQ, NE, LT, LE, GT, GE. }];
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs,
                   StrAttr:$direction);
  let results = (outs AnyRankedTensor:$result);
}

def Dhlo_SelectOp : Dhlo_InferredOp<"select"> {
  let summary = "pred ? on_true : on_false, elementwise";
  let arguments = (ins AnyRankedTensor:$pred, AnyRankedTensor:$on_true,
                   AnyRankedTensor:$on_false);
  let results = (outs AnyRankedTensor:$result);
}

//===----------------------------------------------------------------------===//
// Shape-changing
//===----------------------------------------------------------------------===//

def Dhlo_BroadcastInDimOp : Dhlo_InferredOp<"broadcast_in_dim"> {
  let summary = "broadcast to a shape; size-1 operand dims stretch";
  let arguments = (ins AnyRankedTensor:$operand, Dhlo_ShapeAttr:$shape,
                   DenseI64ArrayAttr:$broadcast_dimensions);
  let results = (outs AnyRankedTensor:$result);
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Dhlo_ReshapeOp : Dhlo_InferredOp<"reshape"> {
  let summary = "same elements, new shape (at most one -1)";
  let arguments = (ins AnyRankedTensor:$operand, Dhlo_ShapeAttr:$shape);
  let results = (outs AnyRankedTensor:$result);
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Dhlo_TransposeOp : Dhlo_InferredOp<"transpose"> {
  let summary = "permute dims";
  let arguments = (ins AnyRankedTensor:$operand,
                   DenseI64ArrayAttr:$permutation);
  let results = (outs AnyRankedTensor:$result);
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Dhlo_SliceOp : Dhlo_InferredOp<"slice"> {
  let summary = "strided slice with symbolic bounds";
  let arguments = (ins AnyRankedTensor:$operand,
                   Dhlo_ShapeAttr:$start_indices,
                   Dhlo_ShapeAttr:$limit_indices,
                   DenseI64ArrayAttr:$strides);
  let results = (outs AnyRankedTensor:$result);
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Dhlo_ConcatenateOp : Dhlo_InferredOp<"concatenate"> {
  let summary = "join along one dim";
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs, I64Attr:$dimension);
  let results = (outs AnyRankedTensor:$result);
  let hasCanonicalizer = 1;
}

def Dhlo_PadOp : Dhlo_InferredOp<"pad"> {
  let summary = "edge (possibly negative) and interior padding";
  let arguments = (ins AnyRankedTensor:$operand,
                   AnyRankedTensor:$padding_value,
                   DenseI64ArrayAttr:$edge_padding_low,
                   DenseI64ArrayAttr:$edge_padding_high,
                   DenseI64ArrayAttr:$interior_padding);
  let results = (outs AnyRankedTensor:$result);
}

//===----------------------------------------------------------------------===//
// Indexing, reduction, contraction, shape
//===----------------------------------------------------------------------===//

def Dhlo_GatherOp : Dhlo_InferredOp<"gather"> {
  let summary = "numpy take along one axis (indices clamped)";
  let arguments = (ins AnyRankedTensor:$operand, AnyRankedTensor:$indices,
                   I64Attr:$axis);
  let results = (outs AnyRankedTensor:$result);
}

def Dhlo_ScatterOp : Dhlo_InferredOp<"scatter"> {
  let summary = "rows of updates combined into rows of the operand";
  let description = [{
    The wire op scatter: `reduction` is one of replace, add, mul, max, min.
    In no kernel: bufferized, it is the result's allocation and a
    scatter_into, which anyshape-scatter-to-runtime-calls makes a call of
    the runtime from the host flow (the work is linear and serial in the
    updates' order, which replace and float folds depend on).
  }];
  let arguments = (ins AnyRankedTensor:$operand, AnyRankedTensor:$indices,
                   AnyRankedTensor:$updates, StrAttr:$reduction);
  let results = (outs AnyRankedTensor:$result);
}

def Dhlo_ScatterIntoOp : Op<Dhlo_Dialect, "scatter_into",
                            [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "writes a scatter's result into a buffer";
  let description = [{
    Fills `result`, of `operand`'s shape, with dhlo.scatter of `operand`,
    `indices` and `updates`.
  }];
  let arguments = (ins AnyMemRef:$operand, AnyMemRef:$indices,
                   AnyMemRef:$updates, AnyMemRef:$result, StrAttr:$reduction);
  let assemblyFormat = "operands attr-dict `:` type(operands)";
}

def Dhlo_ArgsortOp : Dhlo_InferredOp<"argsort"> {
  let summary = "positions of the elements in sorted order along an axis";
  let description = [{
    The wire op argsort: stable, ascending or (`descending`) descending,
    NaN above every number. In no kernel: bufferized, it is the result's
    allocation and an argsort_into, which anyshape-argsort-to-runtime-calls
    makes a call of the runtime from the host flow.
  }];
  let arguments = (ins AnyRankedTensor:$operand, I64Attr:$axis,
                   BoolAttr:$descending);
  let results = (outs AnyRankedTensor:$result);
}

def Dhlo_ArgsortIntoOp : Op<Dhlo_Dialect, "argsort_into",
                            [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "writes an argsort's result into a buffer";
  let description = [{
    Fills `result`, i64 of `operand`'s shape, with dhlo.argsort of
    `operand`.
  }];
  let arguments = (ins AnyMemRef:$operand, AnyMemRef:$result, I64Attr:$axis,
                   BoolAttr:$descending);
  let assemblyFormat = "operands attr-dict `:` type(operands)";
}

def Dhlo_CumulativeOp : Dhlo_InferredOp<"cumulative"> {
  let summary = "running folds along an axis";
  let description = [{
    The wire op cumulative: `kind` is one of sum, max, min, prod. In no
    kernel: bufferized, it is the result's allocation and a
    cumulative_into, which anyshape-cumulative-to-runtime-calls makes a
    call of the runtime from the host flow (linear, where a kernel of
    parallel rows would need a scan).
  }];
  let arguments = (ins AnyRankedTensor:$operand, I64Attr:$axis, StrAttr:$kind,
                   BoolAttr:$exclusive, BoolAttr:$reverse);
  let results = (outs AnyRankedTensor:$result);
}

def Dhlo_CumulativeIntoOp : Op<Dhlo_Dialect, "cumulative_into",
                               [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "writes a cumulative's result into a buffer";
  let description = [{
    Fills `result`, of `operand`'s type, with dhlo.cumulative of `operand`.
  }];
  let arguments = (ins AnyMemRef:$operand, AnyMemRef:$result, I64Attr:$axis,
                   StrAttr:$kind, BoolAttr:$exclusive, BoolAttr:$reverse);
  let assemblyFormat = "operands attr-dict `:` type(operands)";
}

def Dhlo_ConvolutionOp : Dhlo_InferredOp<"convolution"> {
  let summary = "grouped, strided, dilated, padded cross-correlation";
  let description = [{
    The wire op convolution: input [N, C, S...] and weights
    [O, C / groups, K...] with 1 to 3 spatial dims. In no kernel:
    bufferized, it is the result's allocation and a convolution_into,
    which the CPU pipeline makes a call of oneDNN from the host flow
    (anyshape-convolutions-to-runtime-calls); the CUDA pipeline expands
    it into slices and one contraction first
    (dhlo-expand-convolutions).
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$weights,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$dilations,
                   DenseI64ArrayAttr:$padding_low,
                   DenseI64ArrayAttr:$padding_high, I64Attr:$groups);
  let results = (outs AnyRankedTensor:$result);
}

def Dhlo_ConvolutionIntoOp : Op<Dhlo_Dialect, "convolution_into",
                                [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "writes a convolution's result into a buffer";
  let description = [{
    Fills `result` with dhlo.convolution of `input` and `weights`.
  }];
  let arguments = (ins AnyMemRef:$input, AnyMemRef:$weights,
                   AnyMemRef:$result, DenseI64ArrayAttr:$strides,
                   DenseI64ArrayAttr:$dilations,
                   DenseI64ArrayAttr:$padding_low,
                   DenseI64ArrayAttr:$padding_high, I64Attr:$groups);
  let assemblyFormat = "operands attr-dict `:` type(operands)";
}

def Dhlo_ReduceOp : Dhlo_InferredOp<"reduce"> {
  let summary = "reduce over dims";
  let description = [{ `kind` is one of sum, max, min, prod. }];
  let arguments = (ins AnyRankedTensor:$operand, StrAttr:$kind,
                   DenseI64ArrayAttr:$dimensions);
  let results = (outs AnyRankedTensor:$result);
  let hasCanonicalizer = 1;
}

def Dhlo_DotGeneralOp : Dhlo_InferredOp<"dot_general"> {
  let summary = "contraction with batch and contracting dims";
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs,
                   DenseI64ArrayAttr:$lhs_batch_dimensions,
                   DenseI64ArrayAttr:$rhs_batch_dimensions,
                   DenseI64ArrayAttr:$lhs_contracting_dimensions,
                   DenseI64ArrayAttr:$rhs_contracting_dimensions);
  let results = (outs AnyRankedTensor:$result);
}

def Dhlo_DimSizeOp : Dhlo_InferredOp<"dim_size"> {
  let summary = "the runtime size of one dim, as an i64 scalar";
  let arguments = (ins AnyRankedTensor:$operand, I64Attr:$dimension);
  let results = (outs AnyRankedTensor:$result);
}

def Dhlo_CheckIndexOp : Op<Dhlo_Dialect, "check_index",
                           [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "fails the run when an index is out of range";
  let description = [{
    The wire op check_index as an assertion with no result (its users read
    `indices` directly): every index is in range for dim `axis` of
    `operand`, [-n, n) with `allow_negative`, else [0, n); otherwise the
    run fails with the error of wire node `node` (its position in the
    graph: the executable formats the message from it). Only the dims of
    `operand` are read. It has effects, so nothing removes it, and it is
    in no kernel: bufferized, it takes buffers, and
    anyshape-index-checks-to-runtime-calls makes it a call of the runtime
    from the host flow.
  }];
  let arguments = (ins AnyType:$indices, AnyType:$operand, I64Attr:$axis,
                   BoolAttr:$allow_negative, I64Attr:$node);
  let assemblyFormat = "operands attr-dict `:` type(operands)";
  let hasVerifier = 1;
}

def Dhlo_CheckSizesOp : Op<Dhlo_Dialect, "check_sizes",
                           [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "stops the run when sizes known only mid-run break a rule";
  let description = [{
    `a` and `b` are the sides of a shape rule that reads a size known only
    once a kernel has run (a nonzero's count), computed where the op
    stands: right after the nonzero that defines the last count it reads,
    before anything shaped by that count can run. They must satisfy
    `kind`, a condition as ir/dhlo/IR/ShapeCheckAttr.h names it (equal,
    one_or_equal, less_equal, divides, non_empty_unless_unused);
    otherwise the run stops there with the error of the graph's count
    check `check` (GraphInfo::countChecks). It has effects, so nothing
    removes it; anyshape-size-checks-to-runtime-calls makes it a call of
    the runtime, in the host flow, that stops the run.
  }];
  let arguments = (ins Index:$a, Index:$b, StrAttr:$kind, I64Attr:$check);
  let assemblyFormat = "$a `,` $b attr-dict";
  let hasVerifier = 1;
}

// Not Pure, though it writes nothing: its count may shape values that do
// not read its coordinates (a mask's sum taken as a size), and only this op
// binds it, so it must not be erased as unused (an Allocate effect not on
// a result keeps it; wouldOpBeTriviallyDead).
def Dhlo_NonZeroOp : Op<Dhlo_Dialect, "nonzero", [MemoryEffects<[MemAlloc]>]> {
  let summary = "coordinates of the nonzero elements";
  let description = [{
    The wire op nonzero: i64 [rank, count], the coordinates of the
    operand's nonzero elements in row-major order. count is a
    data-dependent size (its #dhlo.shape symbol, "?count0", is bound by
    this op alone: Reify.cpp reads it from the result). In no kernel:
    bufferized, it is a count_nonzero, the allocation of the result and a
    nonzero_indices, which anyshape-nonzero-to-runtime-calls makes calls of
    the runtime from the host flow.
  }];
  let arguments = (ins AnyRankedTensor:$operand);
  let results = (outs AnyRankedTensor:$result);
  let hasVerifier = 1;
  let assemblyFormat =
      "operands attr-dict `:` functional-type(operands, results)";
}

def Dhlo_CountNonZeroOp : Op<Dhlo_Dialect, "count_nonzero",
                             [MemoryEffects<[MemRead]>]> {
  let summary = "how many elements of a buffer are nonzero";
  let arguments = (ins AnyMemRef:$operand);
  let results = (outs Index:$count);
  let assemblyFormat = "operands attr-dict `:` type(operands)";
}

def Dhlo_NonZeroIndicesOp : Op<Dhlo_Dialect, "nonzero_indices",
                               [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "writes the coordinates of a buffer's nonzero elements";
  let description = [{
    Fills `result`, i64 [rank, count_nonzero(operand)], as dhlo.nonzero
    defines it.
  }];
  let arguments = (ins AnyMemRef:$operand, AnyMemRef:$result);
  let assemblyFormat = "operands attr-dict `:` type(operands)";
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

def Dhlo_FusionOp : Op<Dhlo_Dialect, "fusion", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>, SingleBlock]> {
  let summary = "one kernel of the fusion plan";
  let description = [{
    The ops of one planned kernel (FusionPlan.h), formed by
    dhlo-form-fusions: `id` is the fusion's index in the plan, `kind` its
    kind (kLoop, kInput, kStitch, kLibrary), `versions` the speculative
    versions it is compiled to. The body reads values from the enclosing
    block; the results are what it yields, the values other kernels and
    the function's return read.

    The op lives from planning to the end of codegen. On tensors its
    results are the yielded tensors; bufferization makes them buffers
    (BufferizableOpInterfaceImpl.cpp), and anyshape-hoist-kernel-buffers
    then moves every buffer the kernel writes out to the host flow: from
    there on a fusion has no results and allocates nothing, the form in
    which it is checked against the plan, scheduled and outlined.

    Its memory effects are its body's while it has results; without
    results it reads and writes the buffers it uses (said at once, not
    found by walking a body that may hold thousands of ops each time a
    rewrite asks whether the kernel is dead).
  }];
  let arguments = (ins I64Attr:$id, StrAttr:$kind, StrArrayAttr:$versions);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $kind $id `versions` $versions (`->` type($results)^)? $body attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The terminator of the body.
    YieldOp getYield();
  }];
}

def Dhlo_YieldOp : Op<Dhlo_Dialect, "yield", [
    Pure, Terminator, HasParent<"FusionOp">]> {
  let summary = "the values a fusion gives the host flow";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

def Dhlo_LaunchOp : Op<Dhlo_Dialect, "launch", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "runs one outlined kernel from the host flow";
  let description = [{
    What a dhlo.fusion becomes when anyshape-outline-kernels moves its body
    into a kernel function (`kernel`, a func.func of the module): the
    launch passes the kernel the values its body read from the host flow
    (buffers, sizes), and the kernel reads and writes the buffers only.
    `id` and `kind` are the fusion's. Each target lowers launches its own
    way: on the CPU a launch is a call.
  }];
  let arguments = (ins FlatSymbolRefAttr:$kernel, I64Attr:$id, StrAttr:$kind,
                   Variadic<AnyType>:$operands);
  let assemblyFormat = [{
    $kernel `(` $operands `)` $kind $id attr-dict `:` functional-type($operands, results)
  }];
}

#endif // DHLO_OPS
