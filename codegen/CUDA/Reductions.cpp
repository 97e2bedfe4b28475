//===- Reductions.cpp - combining values across threads ---------*- C++ -*-===//
#include "codegen/CUDA/Reductions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using mlir::gpu::AllReduceOperation;

namespace anyshape::codegen {

std::optional<AllReduceOperation> reductionKindOf(Operation *op) {
  if (isa<arith::AddFOp, arith::AddIOp>(op))
    return AllReduceOperation::ADD;
  if (isa<arith::MulFOp, arith::MulIOp>(op))
    return AllReduceOperation::MUL;
  if (isa<arith::MaximumFOp>(op))
    return AllReduceOperation::MAXIMUMF;
  if (isa<arith::MinimumFOp>(op))
    return AllReduceOperation::MINIMUMF;
  if (isa<arith::MaxNumFOp>(op))
    return AllReduceOperation::MAXNUMF;
  if (isa<arith::MinNumFOp>(op))
    return AllReduceOperation::MINNUMF;
  if (isa<arith::MaxSIOp>(op))
    return AllReduceOperation::MAXSI;
  if (isa<arith::MinSIOp>(op))
    return AllReduceOperation::MINSI;
  if (isa<arith::MaxUIOp>(op))
    return AllReduceOperation::MAXUI;
  if (isa<arith::MinUIOp>(op))
    return AllReduceOperation::MINUI;
  if (isa<arith::AndIOp>(op))
    return AllReduceOperation::AND;
  if (isa<arith::OrIOp>(op))
    return AllReduceOperation::OR;
  if (isa<arith::XOrIOp>(op))
    return AllReduceOperation::XOR;
  return std::nullopt;
}

namespace {

/// The arith reduction kind of `kind` on `type`; nullopt for xor, which
/// has none.
std::optional<arith::AtomicRMWKind> atomicKind(AllReduceOperation kind,
                                               Type type) {
  bool isFloat = isa<FloatType>(type);
  switch (kind) {
  case AllReduceOperation::ADD:
    return isFloat ? arith::AtomicRMWKind::addf : arith::AtomicRMWKind::addi;
  case AllReduceOperation::MUL:
    return isFloat ? arith::AtomicRMWKind::mulf : arith::AtomicRMWKind::muli;
  case AllReduceOperation::MAXIMUMF:
    return arith::AtomicRMWKind::maximumf;
  case AllReduceOperation::MINIMUMF:
    return arith::AtomicRMWKind::minimumf;
  case AllReduceOperation::MAXNUMF:
    return arith::AtomicRMWKind::maxnumf;
  case AllReduceOperation::MINNUMF:
    return arith::AtomicRMWKind::minnumf;
  case AllReduceOperation::MAXSI:
    return arith::AtomicRMWKind::maxs;
  case AllReduceOperation::MINSI:
    return arith::AtomicRMWKind::mins;
  case AllReduceOperation::MAXUI:
    return arith::AtomicRMWKind::maxu;
  case AllReduceOperation::MINUI:
    return arith::AtomicRMWKind::minu;
  case AllReduceOperation::AND:
    return arith::AtomicRMWKind::andi;
  case AllReduceOperation::OR:
    return arith::AtomicRMWKind::ori;
  case AllReduceOperation::XOR:
    return std::nullopt;
  }
  return std::nullopt;
}

} // namespace

Value reductionIdentity(OpBuilder &b, Location loc, AllReduceOperation kind,
                        Type type) {
  if (std::optional<arith::AtomicRMWKind> atomic = atomicKind(kind, type))
    return arith::getIdentityValue(*atomic, type, b, loc);
  return b.create<arith::ConstantOp>(loc, b.getZeroAttr(type)); // xor
}

Value combineValues(OpBuilder &b, Location loc, AllReduceOperation kind,
                    Value lhs, Value rhs) {
  if (std::optional<arith::AtomicRMWKind> atomic =
          atomicKind(kind, lhs.getType()))
    return arith::getReductionOp(*atomic, b, loc, lhs, rhs);
  return b.create<arith::XOrIOp>(loc, lhs, rhs);
}

} // namespace anyshape::codegen
