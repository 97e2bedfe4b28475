//===- Passes.td - dhlo passes -----------------------------*- tablegen -*-===//
//
// The dhlo passes, alphabetical; flags prefixed `dhlo-`. One file each.
//
//===----------------------------------------------------------------------===//

#ifndef DHLO_PASSES
#define DHLO_PASSES

include "mlir/Pass/PassBase.td"

def ExpandConvolutions
    : Pass<"dhlo-expand-convolutions", "mlir::func::FuncOp"> {
  let summary = "Make each convolution slices and one contraction";
  let description = [{
    For a target without a convolution library (CUDA, until cuDNN): the
    input padded, one strided slice per kernel tap, the taps concatenated
    into patches and contracted with the weights by one dot_general per
    group (im2col), transposed and reshaped into the result. A kernel of
    more than 4096 taps fails the pass.
  }];
  let dependentDialects = ["::anyshape::dhlo::DhloDialect"];
}

def FoldSplats : Pass<"dhlo-fold-splats", "mlir::func::FuncOp"> {
  let summary = "Make what is computed from splats a splat";
  let description = [{
    Slices, reshapes, transposes, broadcasts and gathers of a splat, pads
    and concatenates of splats of one value, and elementwise ops of splats
    (their value from the reference evaluator) become splats of the
    result's shape: a splat constant when static, else a broadcast of a
    scalar constant. No large splat is materialised to be cut or combined.
  }];
  let dependentDialects = ["::anyshape::dhlo::DhloDialect"];
}

def FormFusions : Pass<"dhlo-form-fusions", "mlir::func::FuncOp"> {
  let summary = "Make each planned kernel a dhlo.fusion op";
  let description = [{
    Plans the function's kernels (FusionPlan.h), moves each fusion's ops
    next to each other (in an order that still defines every value before
    its uses) and into a `dhlo.fusion {kind, id, versions}` whose results
    are the values other kernels and the return read. An op no fusion owns
    (a constant, splat or shared producer that each consumer recomputes,
    or a shape computation) stays outside. The backends form one kernel
    per fusion op: the plan is decided once, here, and is the IR itself
    from here on.
  }];
  let dependentDialects = ["::anyshape::dhlo::DhloDialect"];
}

def ShapePropagation : Pass<"dhlo-shape-propagation", "mlir::ModuleOp"> {
  let summary = "Refine result types from operand types and attributes";
  let description = [{
    Re-infers every inferable dhlo op's result type in program order with
    the wire format's shape rules and keeps, per dim, the more informative
    of the declared and the inferred: a static size over a symbol, a symbol
    over an unknown `?`. The function's result types follow its returned
    values. Hand-written or partially typed IR (`tensor<?xf32>` everywhere)
    comes out with every dim the rules can derive.

    On the module, one function after another: whether a function's
    signature may change depends on the other functions (a call to it),
    which a function pass may not read while they change in parallel.
  }];
  let dependentDialects = ["::anyshape::dhlo::DhloDialect"];
}

def ShapeSimplification
    : Pass<"dhlo-shape-simplification", "mlir::ModuleOp"> {
  let summary = "Rewrite types to canonical dims; drop no-op shape ops";
  let description = [{
    Runs the shape constraint analysis and rewrites every tensor type so
    each dim is its canonical form: a static size where proven static, the
    class representative symbol otherwise (so `?3` becomes `seq` once an
    add proves them equal). Then broadcasts, reshapes and transposes that
    the canonical types show to be no-ops fold away. On the module, one
    function after another, as dhlo-shape-propagation.
  }];
  let dependentDialects = ["::anyshape::dhlo::DhloDialect"];
}

def SplitWideConcatenations
    : Pass<"dhlo-split-wide-concatenations", "mlir::func::FuncOp"> {
  let summary = "Split a concatenate of over 64 operands into chunks";
  let description = [{
    A concatenate of n > 64 operands becomes a concatenate of
    concatenates of k = max(64, ceil(sqrt(n))) consecutive operands (the
    last chunk takes the rest). Each is one kernel of straight-line copies;
    bounding their count keeps LLVM's time linear, and chunks of the same
    operand types become one kernel function.
  }];
  let dependentDialects = ["::anyshape::dhlo::DhloDialect"];
}

def TestPrintFusionPlan
    : Pass<"dhlo-test-print-fusion-plan", "mlir::func::FuncOp"> {
  let summary = "Print the fusion plan (for FileCheck and for users)";
  let description = [{
    Prints each kernel of the plan (kind, root, index space, ops) and every
    producer left unfused because its index space could not be proven equal
    to its consumer's. Changes nothing.
  }];
}

def TestPrintShapeAnalysis
    : Pass<"dhlo-test-print-shape-analysis", "mlir::func::FuncOp"> {
  let summary = "Print the shape constraint analysis (for FileCheck)";
  let description = [{
    Prints, per function, each value's canonical dims, the equivalence
    classes of symbols with their static values, the product equalities
    and any contradictions. Test-only; changes nothing.
  }];
}

#endif // DHLO_PASSES
