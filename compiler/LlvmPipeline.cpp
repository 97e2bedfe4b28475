//===- LlvmPipeline.cpp - LLVM's passes as anyshape runs them ---*- C++ -*-===//
//
// The default pipeline with two passes left out (LlvmPipeline.h), and the
// interprocedural part run on a whole module before it is split.
//
//===----------------------------------------------------------------------===//
#include "compiler/LlvmPipeline.h"

#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/IPO/SCCP.h"

#include <algorithm>
#include <atomic>
#include <mutex>

namespace anyshape::compiler {
namespace {

/// Takes ConstraintElimination out of LLVM's default pipeline (its switch
/// is a command-line option, so it is set once for the process). On a
/// function with many dominating conditions -- the shape checks and the
/// host flow of a graph with hundreds of inputs -- its cost grows with
/// conditions times facts: 91% of `opt -O2` on a concatenate of 400
/// inputs (25.5 of 27.9 s; 2.5 s without it), 560 s of LLVM at 1,000
/// inputs. Kernel loops lose nothing measurable: their bounds are already
/// folded by MLIR, and the encoder benchmark runs at the same speed.
void disableSuperlinearPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::StringMap<llvm::cl::Option *> &options =
        llvm::cl::getRegisteredOptions();
    auto found = options.find("enable-constraint-elimination");
    if (found != options.end())
      found->second->addOccurrence(0, found->first(), "false");
  });
}

std::atomic<int64_t> passesLeftOut{0};

} // namespace

void optimizeModule(llvm::Module &module, int optLevel,
                    llvm::TargetMachine *machine) {
  disableSuperlinearPasses();
  static const llvm::OptimizationLevel levels[] = {
      llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1,
      llvm::OptimizationLevel::O2, llvm::OptimizationLevel::O3};
  llvm::OptimizationLevel level = levels[std::clamp(optLevel, 0, 3)];
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PassInstrumentationCallbacks callbacks;
  callbacks.registerShouldRunOptionalPassCallback(
      [](llvm::StringRef pass, llvm::Any) {
        if (pass != "CalledValuePropagationPass")
          return true;
        ++passesLeftOut;
        return false;
      });
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = true;
  tuning.LoopInterleaving = true;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  llvm::PassBuilder builder(machine, tuning, std::nullopt, &callbacks);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  llvm::ModulePassManager pipeline =
      level == llvm::OptimizationLevel::O0
          ? builder.buildO0DefaultPipeline(level)
          : builder.buildPerModuleDefaultPipeline(level);
  pipeline.run(module, modules);
}

void propagateAcrossFunctions(llvm::Module &module,
                              llvm::TargetMachine *machine) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder(machine);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  llvm::ModulePassManager pipeline;
  pipeline.addPass(llvm::IPSCCPPass());
  pipeline.run(module, modules);
}

int64_t llvmPassesLeftOut() { return passesLeftOut.load(); }

} // namespace anyshape::compiler
