//===- SplitLongBlocks.cpp - cut host flows for codegen ----------*- C++
//-*-===//
//
// See SplitLongBlocks.h. No cut may separate a stack value from its uses:
// a value that is a dynamic alloca or a stacksave, or is computed from
// one, has all its uses in the piece that defines it. Otherwise a piece
// would leak its frame (gone when its function returns) or restore the
// stack pointer of another function. Static allocas of the entry block
// are moved to its front, before the first cut, so they live as long as
// the original function and may flow into any piece.
//
//===----------------------------------------------------------------------===//
#include "compiler/SplitLongBlocks.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/CodeExtractor.h"

#include <limits>
#include <vector>

namespace anyshape::compiler {
namespace {

/// Functions up to this many instructions are left whole: the encoder
/// layer's host flow has about 4,000, and a concatenate of 100 operands
/// (4,000) allocated in 80 ms.
constexpr unsigned kSplitFunctionsOver = 20000;
/// Instructions per piece (about 100 copies of a concatenate). At 5,000
/// operands: pieces of 2,000 took 11.9 s to compile, of 4,000 10.5 s (fewer
/// extractions; allocation within a piece still cheap).
constexpr unsigned kPieceInstructions = 4000;

bool isFrameValue(const llvm::Instruction &inst,
                  const llvm::SmallPtrSetImpl<const llvm::Value *> &frame) {
  if (auto *alloca = llvm::dyn_cast<llvm::AllocaInst>(&inst))
    return !(alloca->isStaticAlloca() && alloca->getParent()->isEntryBlock());
  if (auto *call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst))
    if (call->getIntrinsicID() == llvm::Intrinsic::stacksave)
      return true;
  for (const llvm::Value *operand : inst.operands())
    if (frame.count(operand))
      return true;
  return false;
}

/// Where `block` may be cut: before instructions at least
/// kPieceInstructions after the previous cut, with no frame value of the
/// piece so far used at or after them.
std::vector<llvm::Instruction *> cutPoints(llvm::BasicBlock &block) {
  llvm::DenseMap<const llvm::Instruction *, unsigned> position;
  unsigned index = 0;
  for (llvm::Instruction &inst : block)
    position[&inst] = index++;
  std::vector<llvm::Instruction *> cuts;
  llvm::SmallPtrSet<const llvm::Value *, 16> frame;
  unsigned pieceStart = 0, lastFrameUse = 0;
  for (llvm::Instruction &inst : block) {
    unsigned at = position[&inst];
    // Never among the entry block's allocas (keepAllocasInTheWholeFrame
    // put them first): the first piece keeps them all.
    if (at - pieceStart >= kPieceInstructions && at > lastFrameUse &&
        !inst.isTerminator() && !llvm::isa<llvm::PHINode>(inst) &&
        !llvm::isa<llvm::AllocaInst>(inst)) {
      cuts.push_back(&inst);
      pieceStart = at;
      frame.clear();
      lastFrameUse = 0;
    }
    if (!isFrameValue(inst, frame))
      continue;
    frame.insert(&inst);
    for (const llvm::User *user : inst.users()) {
      auto *use = llvm::cast<llvm::Instruction>(user);
      lastFrameUse =
          std::max(lastFrameUse, use->getParent() == &block
                                     ? position[use]
                                     : std::numeric_limits<unsigned>::max());
    }
  }
  // The terminator in a block of its own, so that no piece returns.
  if (!cuts.empty())
    cuts.push_back(block.getTerminator());
  return cuts;
}

/// Keeps every alloca in the frame of the whole function, which outlives
/// all pieces. Optimisation can leave static allocas anywhere in a long
/// entry block; those after the first cut would be extracted with their
/// piece, which hands their addresses to later pieces: writes into a dead
/// frame (a chain of 1,500 matrix products passed oneDNN overwritten
/// descriptors, and the process aborted). So they move to the front of
/// the entry block, and cutPoints never cuts among them.
void keepAllocasInTheWholeFrame(llvm::Function &function) {
  llvm::BasicBlock &entry = function.getEntryBlock();
  llvm::Instruction *front = &*entry.getFirstInsertionPt();
  std::vector<llvm::Instruction *> allocas;
  for (llvm::Instruction &inst : entry)
    if (auto *alloca = llvm::dyn_cast<llvm::AllocaInst>(&inst))
      if (alloca->isStaticAlloca() && alloca != front)
        allocas.push_back(alloca);
  for (llvm::Instruction *alloca : allocas)
    alloca->moveBefore(front);
}

int splitFunction(llvm::Function &function) {
  keepAllocasInTheWholeFrame(function);
  llvm::DominatorTree dominators(function);
  llvm::LoopInfo loops(dominators);
  std::vector<llvm::BasicBlock *> pieces;
  std::vector<llvm::BasicBlock *> blocks;
  for (llvm::BasicBlock &block : function)
    if (block.size() > kPieceInstructions && !loops.getLoopFor(&block))
      blocks.push_back(&block);
  for (llvm::BasicBlock *block : blocks) {
    std::vector<llvm::Instruction *> cuts = cutPoints(*block);
    // Last cut first: a split moves the instructions after its point, so
    // cutting from the front would move the rest of the block every time.
    // The first split made is the terminator's own block, not a piece.
    for (size_t k = cuts.size(); k-- > 0;) {
      llvm::BasicBlock *tail = block->splitBasicBlock(cuts[k], "piece");
      if (k + 1 < cuts.size())
        pieces.push_back(tail);
    }
  }
  if (pieces.empty())
    return 0;
  llvm::CodeExtractorAnalysisCache cache(function);
  int extracted = 0;
  for (llvm::BasicBlock *piece : pieces) {
    llvm::CodeExtractor extractor({piece}, /*DT=*/nullptr,
                                  /*AggregateArgs=*/false, nullptr, nullptr,
                                  nullptr, /*AllowVarArgs=*/false,
                                  /*AllowAlloca=*/true, nullptr, "piece");
    if (!extractor.isEligible())
      continue;
    if (llvm::Function *out = extractor.extractCodeRegion(cache)) {
      out->addFnAttr(llvm::Attribute::NoInline);
      ++extracted;
    }
  }
  return extracted;
}

} // namespace

int splitLongBlocks(llvm::Module &module) {
  std::vector<llvm::Function *> large;
  for (llvm::Function &function : module)
    if (!function.isDeclaration() &&
        function.getInstructionCount() > kSplitFunctionsOver)
      large.push_back(&function);
  int extracted = 0;
  for (llvm::Function *function : large)
    extracted += splitFunction(*function);
  return extracted;
}

} // namespace anyshape::compiler
