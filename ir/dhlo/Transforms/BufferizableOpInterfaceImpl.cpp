//===- BufferizableOpInterfaceImpl.cpp - dhlo ops bufferized ----*- C++ -*-===//
//
// A fusion is a region that runs once where it stands, like
// scf.execute_region: each result aliases (is equivalent to) the value
// its dhlo.yield yields, and nothing else. The analysis sees through the
// op to the ops inside, which bufferize as they would in the function's
// body; the fusion itself only changes its result types. An index check
// takes buffers where it took tensors; a nonzero becomes two buffer ops
// around the allocation its count sizes.
//
//===----------------------------------------------------------------------===//
#include "ir/dhlo/Transforms/BufferizableOpInterfaceImpl.h"

#include "ir/dhlo/IR/DhloDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::bufferization;

namespace anyshape::dhlo {
namespace {

struct FusionOpInterface
    : BufferizableOpInterface::ExternalModel<FusionOpInterface, FusionOp> {
  AliasingOpOperandList getAliasingOpOperands(Operation *op, Value value,
                                              const AnalysisState &) const {
    auto fusion = llvm::cast<FusionOp>(op);
    unsigned index = llvm::cast<OpResult>(value).getResultNumber();
    return {{&fusion.getYield()->getOpOperand(index),
             BufferRelation::Equivalent, /*isDefinite=*/true}};
  }

  FailureOr<BaseMemRefType>
  getBufferType(Operation *op, Value value, const BufferizationOptions &options,
                SmallVector<Value> &invocationStack) const {
    auto fusion = llvm::cast<FusionOp>(op);
    Value yielded = fusion.getYield()->getOperand(
        llvm::cast<OpResult>(value).getResultNumber());
    if (auto buffer = llvm::dyn_cast<BaseMemRefType>(yielded.getType()))
      return buffer;
    return bufferization::getBufferType(yielded, options, invocationStack);
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options) const {
    auto fusion = llvm::cast<FusionOp>(op);
    SmallVector<Type> types;
    for (Value result : fusion.getResults()) {
      if (!llvm::isa<TensorType>(result.getType())) {
        types.push_back(result.getType());
        continue;
      }
      FailureOr<BaseMemRefType> type =
          bufferization::getBufferType(result, options);
      if (failed(type))
        return failure();
      types.push_back(*type);
    }
    rewriter.setInsertionPoint(op);
    auto bufferized = rewriter.create<FusionOp>(
        op->getLoc(), types, fusion.getIdAttr(), fusion.getKindAttr(),
        fusion.getVersionsAttr());
    rewriter.inlineRegionBefore(fusion.getBody(), bufferized.getBody(),
                                bufferized.getBody().end());
    replaceOpWithBufferizedValues(rewriter, op, bufferized.getResults());
    return success();
  }
};

struct YieldOpInterface
    : BufferizableOpInterface::ExternalModel<YieldOpInterface, YieldOp> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }

  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const AnalysisState &) const {
    return false;
  }

  AliasingValueList getAliasingValues(Operation *op, OpOperand &operand,
                                      const AnalysisState &) const {
    return {{op->getParentOp()->getResult(operand.getOperandNumber()),
             BufferRelation::Equivalent}};
  }

  // A yielded value is the fusion's result itself: a copy made here
  // would be a kernel of its own.
  bool mustBufferizeInPlace(Operation *, OpOperand &,
                            const AnalysisState &) const {
    return true;
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options) const {
    SmallVector<Value> values;
    for (OpOperand &operand : op->getOpOperands()) {
      Value value = operand.get();
      if (!llvm::isa<TensorType>(value.getType())) {
        values.push_back(value);
        continue;
      }
      FailureOr<Value> buffer = getBuffer(rewriter, value, options);
      if (failed(buffer))
        return failure();
      // The fusion takes its result types from what is yielded when it is
      // bufferized after its body; bufferized first, it fixed them.
      Type type =
          op->getParentOp()->getResult(operand.getOperandNumber()).getType();
      if (llvm::isa<BaseMemRefType>(type) && buffer->getType() != type)
        buffer = rewriter.create<memref::CastOp>(op->getLoc(), type, *buffer)
                     .getResult();
      values.push_back(*buffer);
    }
    replaceOpWithNewBufferizedOp<YieldOp>(rewriter, op, values);
    return success();
  }
};

/// An index check reads its indices and only the dims of its operand, and
/// writes nothing: bufferized, it is the same check on their buffers.
struct CheckIndexOpInterface
    : BufferizableOpInterface::ExternalModel<CheckIndexOpInterface,
                                             CheckIndexOp> {
  bool bufferizesToMemoryRead(Operation *op, OpOperand &operand,
                              const AnalysisState &) const {
    return operand.get() == llvm::cast<CheckIndexOp>(op).getIndices();
  }

  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const AnalysisState &) const {
    return false;
  }

  AliasingValueList getAliasingValues(Operation *, OpOperand &,
                                      const AnalysisState &) const {
    return {};
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options) const {
    auto check = llvm::cast<CheckIndexOp>(op);
    FailureOr<Value> indices = getBuffer(rewriter, check.getIndices(), options);
    FailureOr<Value> operand = getBuffer(rewriter, check.getOperand(), options);
    if (failed(indices) || failed(operand))
      return failure();
    rewriter.create<CheckIndexOp>(
        op->getLoc(), *indices, *operand, check.getAxisAttr(),
        check.getAllowNegativeAttr(), check.getNodeAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

/// An op the host flow computes by a call of the runtime (nonzero,
/// scatter, argsort, cumulative, convolution): it reads its operands and writes
/// a fresh allocation of its result's type, aliasing none of them. `Interface`
/// adds `bufferize`.
template <typename Interface, typename Op>
struct RuntimeCallOpInterface
    : BufferizableOpInterface::ExternalModel<Interface, Op> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }

  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const AnalysisState &) const {
    return false;
  }

  AliasingValueList getAliasingValues(Operation *, OpOperand &,
                                      const AnalysisState &) const {
    return {};
  }

  bool bufferizesToAllocation(Operation *, Value) const { return true; }

  FailureOr<BaseMemRefType> getBufferType(Operation *op, Value,
                                          const BufferizationOptions &,
                                          SmallVector<Value> &) const {
    auto type = llvm::cast<RankedTensorType>(op->getResult(0).getType());
    return BaseMemRefType(
        MemRefType::get(type.getShape(), type.getElementType()));
  }
};

/// An allocation of `op`'s result type (its only result), its dynamic
/// dims those of `operand`'s buffer, which has the same shape.
FailureOr<Value> allocateLike(RewriterBase &rewriter, Operation *op,
                              Value operand,
                              const BufferizationOptions &options) {
  auto type = llvm::cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(rewriter.create<memref::DimOp>(op->getLoc(), operand, d));
  return options.createAlloc(
      rewriter, op->getLoc(),
      MemRefType::get(type.getShape(), type.getElementType()), sizes);
}

/// A nonzero's result is sized by the count: bufferized, the count of the
/// operand's buffer, the allocation, and the indices written into it.
struct NonZeroOpInterface
    : RuntimeCallOpInterface<NonZeroOpInterface, NonZeroOp> {

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options) const {
    auto nonzero = llvm::cast<NonZeroOp>(op);
    FailureOr<Value> operand =
        getBuffer(rewriter, nonzero.getOperand(), options);
    if (failed(operand))
      return failure();
    Location loc = op->getLoc();
    Value count = rewriter.create<CountNonZeroOp>(loc, *operand);
    auto type = llvm::cast<RankedTensorType>(nonzero.getType());
    FailureOr<Value> result = options.createAlloc(
        rewriter, loc, MemRefType::get(type.getShape(), type.getElementType()),
        ValueRange{count});
    if (failed(result))
      return failure();
    rewriter.create<NonZeroIndicesOp>(loc, *operand, *result);
    replaceOpWithBufferizedValues(rewriter, op, *result);
    return success();
  }
};

/// A scatter's result has the operand's shape: bufferized, the
/// allocation and a scatter_into it.
struct ScatterOpInterface
    : RuntimeCallOpInterface<ScatterOpInterface, ScatterOp> {

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options) const {
    auto scatter = llvm::cast<ScatterOp>(op);
    FailureOr<Value> operand =
        getBuffer(rewriter, scatter.getOperand(), options);
    FailureOr<Value> indices =
        getBuffer(rewriter, scatter.getIndices(), options);
    FailureOr<Value> updates =
        getBuffer(rewriter, scatter.getUpdates(), options);
    if (failed(operand) || failed(indices) || failed(updates))
      return failure();
    FailureOr<Value> result = allocateLike(rewriter, op, *operand, options);
    if (failed(result))
      return failure();
    rewriter.create<ScatterIntoOp>(op->getLoc(), *operand, *indices, *updates,
                                   *result, scatter.getReductionAttr());
    replaceOpWithBufferizedValues(rewriter, op, *result);
    return success();
  }
};

/// An op of one operand whose result has the operand's shape (argsort,
/// cumulative): bufferized, the result's allocation and `IntoOp` writing
/// into it, with the op's own attributes (the two ops name them alike).
template <typename Op, typename IntoOp>
struct RowOpInterface : RuntimeCallOpInterface<RowOpInterface<Op, IntoOp>, Op> {

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options) const {
    FailureOr<Value> operand = getBuffer(rewriter, op->getOperand(0), options);
    if (failed(operand))
      return failure();
    FailureOr<Value> result = allocateLike(rewriter, op, *operand, options);
    if (failed(result))
      return failure();
    rewriter.create<IntoOp>(op->getLoc(), TypeRange{},
                            ValueRange{*operand, *result}, op->getAttrs());
    replaceOpWithBufferizedValues(rewriter, op, *result);
    return success();
  }
};

/// A convolution's result: its allocation, sized from the input's dims
/// by the output size rule (the shape checks have made every window fit,
/// so the floor quotient is of a non-negative size), and a
/// convolution_into it.
struct ConvolutionOpInterface
    : RuntimeCallOpInterface<ConvolutionOpInterface, ConvolutionOp> {

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options) const {
    auto convolution = llvm::cast<ConvolutionOp>(op);
    FailureOr<Value> input =
        getBuffer(rewriter, convolution.getInput(), options);
    FailureOr<Value> weights =
        getBuffer(rewriter, convolution.getWeights(), options);
    if (failed(input) || failed(weights))
      return failure();
    Location loc = op->getLoc();
    auto type = llvm::cast<RankedTensorType>(convolution.getType());
    auto weightsType =
        llvm::cast<RankedTensorType>(convolution.getWeights().getType());
    auto constant = [&](int64_t v) {
      return rewriter.create<arith::ConstantIndexOp>(loc, v);
    };
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d))
        continue;
      Value size = rewriter.create<memref::DimOp>(loc, *input, d);
      if (d >= 2) {
        int64_t i = d - 2;
        int64_t extent =
            (weightsType.getDimSize(d) - 1) * convolution.getDilations()[i] + 1;
        int64_t room = convolution.getPaddingLow()[i] +
                       convolution.getPaddingHigh()[i] - extent;
        size = rewriter.create<arith::AddIOp>(loc, size, constant(room));
        size = rewriter.create<arith::FloorDivSIOp>(
            loc, size, constant(convolution.getStrides()[i]));
        size = rewriter.create<arith::AddIOp>(loc, size, constant(1));
      }
      sizes.push_back(size);
    }
    FailureOr<Value> result = options.createAlloc(
        rewriter, loc, MemRefType::get(type.getShape(), type.getElementType()),
        sizes);
    if (failed(result))
      return failure();
    rewriter.create<ConvolutionIntoOp>(
        loc, *input, *weights, *result, convolution.getStridesAttr(),
        convolution.getDilationsAttr(), convolution.getPaddingLowAttr(),
        convolution.getPaddingHighAttr(), convolution.getGroupsAttr());
    replaceOpWithBufferizedValues(rewriter, op, *result);
    return success();
  }
};

} // namespace

void registerBufferizableOpInterfaceExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, DhloDialect *) {
    FusionOp::attachInterface<FusionOpInterface>(*context);
    YieldOp::attachInterface<YieldOpInterface>(*context);
    CheckIndexOp::attachInterface<CheckIndexOpInterface>(*context);
    NonZeroOp::attachInterface<NonZeroOpInterface>(*context);
    ScatterOp::attachInterface<ScatterOpInterface>(*context);
    ArgsortOp::attachInterface<RowOpInterface<ArgsortOp, ArgsortIntoOp>>(
        *context);
    CumulativeOp::attachInterface<
        RowOpInterface<CumulativeOp, CumulativeIntoOp>>(*context);
    ConvolutionOp::attachInterface<ConvolutionOpInterface>(*context);
  });
}

} // namespace anyshape::dhlo
