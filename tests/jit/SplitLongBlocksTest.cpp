// SplitLongBlocks on hand-built LLVM IR: a function whose entry block
// holds more stack slots than one piece has instructions, each used at
// the far end of the block. Every slot must stay in the frame of the
// whole function: a slot extracted with a piece would hand later pieces
// the address of a dead frame (what made a chain of 1,500 matrix products
// pass oneDNN overwritten descriptors, and abort).
#include "compiler/SplitLongBlocks.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <vector>

namespace {

TEST(SplitLongBlocks, StackSlotsStayInTheWholeFunctionsFrame) {
  llvm::LLVMContext context;
  llvm::Module module("slots", context);
  llvm::IRBuilder<> b(context);
  auto *ptr = llvm::PointerType::getUnqual(context);
  auto *use = llvm::Function::Create(
      llvm::FunctionType::get(b.getVoidTy(), {ptr}, false),
      llvm::Function::ExternalLinkage, "use", module);
  auto *host =
      llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), {}, false),
                             llvm::Function::ExternalLinkage, "host", module);
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", host));
  // 7,000 slots (more than a piece's 4,000 instructions), then a store
  // and a call per slot: 21,000 instructions, over the 20,000 bound.
  constexpr int kSlots = 7000;
  std::vector<llvm::AllocaInst *> slots;
  for (int i = 0; i < kSlots; ++i)
    slots.push_back(b.CreateAlloca(b.getInt64Ty()));
  for (int i = 0; i < kSlots; ++i)
    b.CreateStore(b.getInt64(i), slots[i]);
  for (int i = 0; i < kSlots; ++i)
    b.CreateCall(use, {slots[i]});
  b.CreateRetVoid();
  ASSERT_FALSE(llvm::verifyModule(module, &llvm::errs()));

  EXPECT_GE(anyshape::compiler::splitLongBlocks(module), 3);
  ASSERT_FALSE(llvm::verifyModule(module, &llvm::errs()));
  int pieces = 0, slotsInPieces = 0, slotsInHost = 0;
  for (llvm::Function &function : module) {
    bool piece = function.getName().contains(".piece");
    pieces += piece;
    for (llvm::BasicBlock &block : function)
      for (llvm::Instruction &inst : block)
        if (llvm::isa<llvm::AllocaInst>(inst))
          (piece ? slotsInPieces : slotsInHost) +=
              !inst.getName().contains(".loc"); // CodeExtractor's outputs
  }
  EXPECT_GE(pieces, 3);
  EXPECT_EQ(slotsInPieces, 0);
  EXPECT_EQ(slotsInHost, kSlots);
}

} // namespace
