// How many parts a module is emitted in (compiler/ParallelCodegen.h): by its
// size and the cores, never split when its globals hold large constants,
// and what a caller asks for when it asks.
#include "compiler/ParallelCodegen.h"
#include "jit/ObjectBundle.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <gtest/gtest.h>

#include <thread>

using namespace anyshape;

namespace {

/// A module with one function of about `instructions` adds.
std::unique_ptr<llvm::Module> moduleOf(llvm::LLVMContext &context,
                                       int64_t instructions) {
  auto module = std::make_unique<llvm::Module>("parts", context);
  llvm::IRBuilder<> b(context);
  auto *type = llvm::FunctionType::get(b.getInt64Ty(), {b.getInt64Ty()},
                                       /*isVarArg=*/false);
  auto *function = llvm::Function::Create(type, llvm::Function::ExternalLinkage,
                                          "f", module.get());
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", function));
  llvm::Value *value = function->getArg(0);
  for (int64_t k = 0; k < instructions; ++k)
    value = b.CreateAdd(value, function->getArg(0));
  b.CreateRet(value);
  return module;
}

int64_t cores() { return std::thread::hardware_concurrency(); }

TEST(ParallelCodegen, SmallModulesAreOnePart) {
  llvm::LLVMContext context;
  EXPECT_EQ(compiler::codegenParts(*moduleOf(context, 100), 0), 1);
  EXPECT_EQ(compiler::codegenParts(
                *moduleOf(context, compiler::kMinInstructionsPerPart), 0),
            1);
}

TEST(ParallelCodegen, LargeModulesUseTheCoresUpToFour) {
  llvm::LLVMContext context;
  auto module = moduleOf(context, 10 * compiler::kMinInstructionsPerPart);
  EXPECT_EQ(compiler::codegenParts(*module, 0),
            std::clamp<int64_t>(cores(), 1, 4));
  EXPECT_EQ(compiler::codegenParts(*module, 3), 3); // asked for
  EXPECT_EQ(compiler::codegenParts(*module, 1000), jit::kMaxBundledObjects);
}

TEST(ParallelCodegen, LargeConstantsKeepAModuleWhole) {
  llvm::LLVMContext context;
  auto module = moduleOf(context, 10 * compiler::kMinInstructionsPerPart);
  int64_t count = compiler::kMaxConstantBytesToSplit / 4 + 1;
  auto *type = llvm::ArrayType::get(llvm::Type::getFloatTy(context), count);
  // Buffers filled at load (zero or undefined) are free to split...
  new llvm::GlobalVariable(*module, type, /*isConstant=*/false,
                           llvm::GlobalValue::InternalLinkage,
                           llvm::ConstantAggregateZero::get(type), "zero");
  new llvm::GlobalVariable(*module, type, /*isConstant=*/false,
                           llvm::GlobalValue::InternalLinkage,
                           llvm::UndefValue::get(type), "undefined");
  EXPECT_EQ(compiler::codegenParts(*module, 0),
            std::clamp<int64_t>(cores(), 1, 4));
  // ...embedded data is not.
  std::string data(static_cast<size_t>(count * 4), '\x3f');
  new llvm::GlobalVariable(*module, type, /*isConstant=*/true,
                           llvm::GlobalValue::InternalLinkage,
                           llvm::ConstantDataArray::getRaw(
                               data, count, llvm::Type::getFloatTy(context)),
                           "weights");
  EXPECT_EQ(compiler::codegenParts(*module, 0), 1);
}

} // namespace
