//===- LoopHints.cpp - vectorisation hints on generated LLVM IR -*- C++
//-*-===//
#include "codegen/CPU/LoopHints.h"

#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

#include <algorithm>

namespace anyshape::codegen {
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

/// A loop id made of `properties` (name, value) pairs and `more` nodes.
llvm::MDNode *
loopId(llvm::LLVMContext &context,
       llvm::ArrayRef<std::pair<const char *, llvm::Constant *>> properties,
       llvm::ArrayRef<llvm::Metadata *> more) {
  llvm::SmallVector<llvm::Metadata *> operands{
      nullptr}; // the self reference every loop id starts with
  for (auto [name, value] : properties)
    operands.push_back(
        llvm::MDNode::get(context, {llvm::MDString::get(context, name),
                                    llvm::ConstantAsMetadata::get(value)}));
  operands.append(more.begin(), more.end());
  llvm::MDNode *id = llvm::MDNode::getDistinct(context, operands);
  id->replaceOperandWith(0, id);
  return id;
}

/// Whether no iteration of `loop` touches memory another iteration writes,
/// given the kernel invariant (LoopHints.h): every store goes to an
/// address that advances with the loop by a constant step of at least
/// the stored size (each iteration its own element), and nothing else in
/// it writes memory.
bool iterationsIndependent(const llvm::Loop &loop,
                           llvm::ScalarEvolution &evolution,
                           const llvm::DataLayout &layout) {
  for (llvm::BasicBlock *block : loop.blocks())
    for (llvm::Instruction &inst : *block) {
      auto *store = llvm::dyn_cast<llvm::StoreInst>(&inst);
      if (!store) {
        if (inst.mayWriteToMemory())
          return false;
        continue;
      }
      auto *address = llvm::dyn_cast<llvm::SCEVAddRecExpr>(
          evolution.getSCEV(store->getPointerOperand()));
      if (!address || address->getLoop() != &loop || !address->isAffine())
        return false;
      auto *step = llvm::dyn_cast<llvm::SCEVConstant>(
          address->getStepRecurrence(evolution));
      uint64_t bytes =
          layout.getTypeStoreSize(store->getValueOperand()->getType())
              .getFixedValue();
      if (!step || step->getAPInt().abs().ult(bytes))
        return false;
    }
  return true;
}

/// Puts every load and store of `loop` in one access group, which the
/// returned loop property declares free of dependences between iterations.
llvm::MDNode *parallelAccesses(const llvm::Loop &loop,
                               llvm::LLVMContext &context) {
  llvm::MDNode *group = llvm::MDNode::getDistinct(context, {});
  for (llvm::BasicBlock *block : loop.blocks())
    for (llvm::Instruction &inst : *block)
      if (llvm::isa<llvm::LoadInst, llvm::StoreInst>(inst))
        inst.setMetadata(llvm::LLVMContext::MD_access_group, group);
  return llvm::MDNode::get(
      context,
      {llvm::MDString::get(context, "llvm.loop.parallel_accesses"), group});
}

/// `smallTripCount`: remainder loops (SplitVectorRemainders) run fewer
/// iterations than a row loop's step; scalar evolution bounds them by it.
void hintFunction(llvm::Function &function, llvm::TargetMachine &machine,
                  unsigned smallTripCount, bool kernel) {
  llvm::LLVMContext &context = function.getContext();
  llvm::DominatorTree dominators(function);
  llvm::LoopInfo loops(dominators);
  llvm::TargetLibraryInfoImpl libraryInfo(
      llvm::Triple(function.getParent()->getTargetTriple()));
  llvm::TargetLibraryInfo library(libraryInfo, &function);
  llvm::AssumptionCache assumptions(function);
  llvm::ScalarEvolution evolution(function, library, assumptions, dominators,
                                  loops);
  unsigned registerBits =
      machine.getTargetTransformInfo(function)
          .getRegisterBitWidth(llvm::TargetTransformInfo::RGK_FixedWidthVector)
          .getFixedValue();
  llvm::Type *i1 = llvm::Type::getInt1Ty(context);
  llvm::Type *i32 = llvm::Type::getInt32Ty(context);
  for (llvm::Loop *loop : loops.getLoopsInPreorder()) {
    if (!loop->isInnermost() || loop->getLoopID())
      continue;
    llvm::SmallVector<std::pair<const char *, llvm::Constant *>> properties;
    if (llvm::Type *element = minMaxElementType(*loop);
        element && registerBits > 0) {
      unsigned width =
          std::max(2u, registerBits / element->getScalarSizeInBits());
      properties.push_back(
          {"llvm.loop.vectorize.enable", llvm::ConstantInt::get(i1, 1)});
      properties.push_back(
          {"llvm.loop.vectorize.width", llvm::ConstantInt::get(i32, width)});
    }
    unsigned maxTrips = evolution.getSmallConstantMaxTripCount(loop);
    if (maxTrips > 0 && maxTrips <= smallTripCount) {
      // One masked vector per 16 elements, no scalar remainder at all.
      if (properties.empty())
        properties.push_back(
            {"llvm.loop.vectorize.enable", llvm::ConstantInt::get(i1, 1)});
      properties.push_back({"llvm.loop.vectorize.predicate.enable",
                            llvm::ConstantInt::get(i1, 1)});
      properties.push_back(
          {"llvm.loop.interleave.count", llvm::ConstantInt::get(i32, 1)});
    }
    llvm::SmallVector<llvm::Metadata *, 1> more;
    if (kernel && iterationsIndependent(*loop, evolution,
                                        function.getParent()->getDataLayout()))
      more.push_back(parallelAccesses(*loop, context));
    if (!properties.empty() || !more.empty())
      loop->setLoopID(loopId(context, properties, more));
  }
}

} // namespace

void addLoopHints(llvm::Module &module, llvm::TargetMachine &machine,
                  const CpuTarget &target, const llvm::StringSet<> &kernels) {
  auto smallTripCount = static_cast<unsigned>(target.rowLoopStep());
  for (llvm::Function &function : module) {
    if (function.isDeclaration())
      continue;
    // OpenMP outlines a kernel's parallel loops as `<kernel>..omp_par.N`.
    llvm::StringRef name = function.getName();
    bool kernel = kernels.contains(name.take_front(name.find("..omp_par")));
    hintFunction(function, machine, smallTripCount, kernel);
  }
}

} // namespace anyshape::codegen
