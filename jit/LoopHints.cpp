//===- LoopHints.cpp - vectorisation hints on generated LLVM IR -*- C++
//-*-===//
#include "jit/LoopHints.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

#include <algorithm>

namespace anyshape::jit {
namespace {

/// The narrowest float type of a maximum/minimum call in `loop`, or null.
llvm::Type *minMaxElementType(const llvm::Loop &loop) {
  llvm::Type *narrowest = nullptr;
  for (llvm::BasicBlock *block : loop.blocks())
    for (llvm::Instruction &inst : *block)
      if (auto *call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst))
        if (call->getIntrinsicID() == llvm::Intrinsic::maximum ||
            call->getIntrinsicID() == llvm::Intrinsic::minimum) {
          llvm::Type *type = call->getType()->getScalarType();
          if (!narrowest ||
              type->getScalarSizeInBits() < narrowest->getScalarSizeInBits())
            narrowest = type;
        }
  return narrowest;
}

void forceVectorisation(llvm::Loop &loop, unsigned width) {
  llvm::LLVMContext &context = loop.getHeader()->getContext();
  auto flag = [&](const char *name, llvm::Metadata *value) {
    return llvm::MDNode::get(context,
                             {llvm::MDString::get(context, name), value});
  };
  llvm::Type *i1 = llvm::Type::getInt1Ty(context);
  llvm::Type *i32 = llvm::Type::getInt32Ty(context);
  llvm::SmallVector<llvm::Metadata *> operands{
      nullptr, // the self reference every loop id starts with
      flag("llvm.loop.vectorize.enable",
           llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(i1, 1))),
      flag("llvm.loop.vectorize.width",
           llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(i32, width)))};
  llvm::MDNode *id = llvm::MDNode::getDistinct(context, operands);
  id->replaceOperandWith(0, id);
  loop.setLoopID(id);
}

} // namespace

void hintMinMaxLoops(llvm::Module &module, llvm::TargetMachine &machine) {
  for (llvm::Function &function : module) {
    if (function.isDeclaration())
      continue;
    llvm::DominatorTree dominators(function);
    llvm::LoopInfo loops(dominators);
    unsigned registerBits =
        machine.getTargetTransformInfo(function)
            .getRegisterBitWidth(
                llvm::TargetTransformInfo::RGK_FixedWidthVector)
            .getFixedValue();
    for (llvm::Loop *loop : loops.getLoopsInPreorder()) {
      if (!loop->isInnermost() || loop->getLoopID())
        continue;
      llvm::Type *element = minMaxElementType(*loop);
      if (!element || registerBits == 0)
        continue;
      forceVectorisation(
          *loop, std::max(2u, registerBits / element->getScalarSizeInBits()));
    }
  }
}

} // namespace anyshape::jit
