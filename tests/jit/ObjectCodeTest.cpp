// Object code save and reload: an executable rebuilt from its object code
// (what the compile cache stores) computes the same results without
// compiling, and damaged object code is an error, never a crash. And what
// LLVM reports while emitting it goes to the IR dump, not to stderr. A long
// host flow is cut into functions and computes what it did whole. A large
// module emitted in parts on several threads computes what the whole one
// does, reloads from its bundle of objects, and a damaged bundle is an
// error. A compile validates its graph once. Asked to, it names its
// functions for perf; its kernels use the widest vectors, with no
// run-time overlap checks.
#include "compiler/ObjectCode.h"
#include "../support/ExampleGraph.h"
#include "../support/ScratchDir.h"
#include "anyshape/client/GraphBuilder.h"
#include "codegen/CPU/CpuTarget.h"
#include "compiler/Compiler.h"
#include "compiler/LlvmPipeline.h"
#include "ir/graph/Bindings.h"
#include "ir/graph/GraphText.h"
#include "ir/graph/Validate.h"
#include "ir/reference/Evaluator.h"
#include "jit/ObjectBundle.h"
#include "jit/PerfMap.h"
#include "runtime/Allocator.h"

#include "RandomInputs.h"

#include <gtest/gtest.h>

#include "llvm/Support/CommandLine.h"

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

using namespace anyshape;

namespace {

std::vector<v1::Tensor> runAt(const jit::Executable &executable,
                              const std::map<std::string, int64_t> &symbols,
                              uint64_t seed) {
  auto shapes = inputShapesFor(executable.graph(), symbols);
  EXPECT_TRUE(shapes.isOk());
  auto inputs = test::randomInputs(executable.graph(), *shapes, seed);
  auto outputs = executable.run(inputs.tensors);
  EXPECT_TRUE(outputs.isOk()) << outputs.status().toString();
  return outputs.isOk() ? *outputs : std::vector<v1::Tensor>{};
}

/// A file's whole text ("" when it cannot be read).
std::string readText(const std::string &path) {
  std::ifstream file(path);
  return std::string((std::istreambuf_iterator<char>(file)),
                     std::istreambuf_iterator<char>());
}

TEST(ObjectCode, ReloadedExecutableMatchesWithoutCompiling) {
  v1::Graph graph = test::exampleGraph("mlp");
  auto compiled = compiler::Compiler::compile(graph);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  const std::string &object = (*compiled)->objectCode();
  ASSERT_GT(object.size(), 64u);
  EXPECT_EQ(object.substr(0, 4), "\x7f"
                                 "ELF");

  int64_t compiles = compiler::Compiler::compileCount();
  auto reloaded = jit::Executable::load((*compiled)->graph(), object);
  ASSERT_TRUE(reloaded.isOk()) << reloaded.status().toString();
  EXPECT_EQ(compiler::Compiler::compileCount(), compiles);
  for (int64_t batch : {0, 1, 7, 33}) {
    std::map<std::string, int64_t> symbols{{"batch", batch}};
    auto expected = runAt(**compiled, symbols, 10 + batch);
    auto actual = runAt(**reloaded, symbols, 10 + batch);
    ASSERT_EQ(expected.size(), actual.size());
    for (size_t k = 0; k < expected.size(); ++k) {
      EXPECT_EQ(expected[k].data(), actual[k].data()) << "batch " << batch;
      EXPECT_EQ(expected[k].shape_size(), actual[k].shape_size());
    }
  }
}

TEST(ObjectCode, DamagedObjectCodeIsAnError) {
  auto compiled =
      compiler::Compiler::compile(test::exampleGraph("elementwise_reduce"));
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  const std::string &object = (*compiled)->objectCode();
  const v1::Graph &graph = (*compiled)->graph();
  for (const std::string &damaged :
       {std::string(), std::string("not an object"), object.substr(0, 16),
        object.substr(0, object.size() / 2)}) {
    auto loaded = jit::Executable::load(graph, damaged);
    EXPECT_FALSE(loaded.isOk()) << damaged.size() << " bytes loaded";
  }
}

TEST(ObjectCode, ModulesEmittedInPartsComputeWhatOneObjectDoes) {
  v1::Graph graph = test::exampleGraph("bert_encoder_layer");
  compiler::CompileOptions whole, parts;
  whole.codegenParts = 1;
  parts.codegenParts = 3; // more than this machine may have cores
  auto one = compiler::Compiler::compile(graph, whole);
  auto three = compiler::Compiler::compile(graph, parts);
  ASSERT_TRUE(one.isOk()) << one.status().toString();
  ASSERT_TRUE(three.isOk()) << three.status().toString();
  EXPECT_EQ((*one)->objectCode().substr(0, 4), "\x7f"
                                               "ELF");
  auto objects = jit::objectsIn((*three)->objectCode());
  ASSERT_TRUE(objects.isOk()) << objects.status().toString();
  ASSERT_EQ(objects->size(), 3u);
  for (std::string_view object : *objects)
    EXPECT_EQ(object.substr(0, 4), "\x7f"
                                   "ELF");
  // The same optimised functions, emitted apart: the same bits out.
  auto reloaded =
      jit::Executable::load((*three)->graph(), (*three)->objectCode());
  ASSERT_TRUE(reloaded.isOk()) << reloaded.status().toString();
  for (int64_t seq : {1, 5, 64}) {
    std::map<std::string, int64_t> symbols{{"batch", 1}, {"seq", seq}};
    auto expected = runAt(**one, symbols, 3 + seq);
    ASSERT_FALSE(expected.empty());
    for (const jit::Executable *executable : {three->get(), reloaded->get()}) {
      auto actual = runAt(*executable, symbols, 3 + seq);
      ASSERT_EQ(actual.size(), expected.size());
      for (size_t k = 0; k < expected.size(); ++k)
        EXPECT_EQ(actual[k].data(), expected[k].data()) << "seq " << seq;
    }
  }
  // A bundle cut short or with a part damaged does not load.
  const std::string &bundle = (*three)->objectCode();
  std::string damaged = bundle;
  size_t second = objects->at(1).data() - bundle.data();
  damaged[second + 1] = 'X'; // the second object's ELF magic
  for (const std::string &bad :
       {bundle.substr(0, bundle.size() - 1), bundle.substr(0, 20), damaged}) {
    auto loaded = jit::Executable::load((*three)->graph(), bad);
    EXPECT_FALSE(loaded.isOk()) << bad.size() << " bytes loaded";
  }
}

TEST(ObjectCode, SmallModulesStayOneObjectAndLargeOnesUseTheCores) {
  // mlp is far under kMinInstructionsPerPart: one object, as before.
  auto small = compiler::Compiler::compile(test::exampleGraph("mlp"));
  ASSERT_TRUE(small.isOk());
  EXPECT_EQ((*small)->objectCode().substr(0, 4), "\x7f"
                                                 "ELF");
  if (std::thread::hardware_concurrency() < 2)
    GTEST_SKIP() << "one core: every module is one object";
  auto large =
      compiler::Compiler::compile(test::exampleGraph("bert_encoder_layer"));
  ASSERT_TRUE(large.isOk());
  auto objects = jit::objectsIn((*large)->objectCode());
  ASSERT_TRUE(objects.isOk());
  EXPECT_GE(objects->size(), 2u);
}

TEST(ObjectCode, HostTargetIsDescribed) {
  const jit::HostTarget &target = jit::hostTarget();
  EXPECT_NE(target.triple.find("x86_64"), std::string::npos) << target.triple;
  EXPECT_FALSE(target.cpu.empty());
  EXPECT_NE(target.description().find(target.features), std::string::npos);
}

TEST(ObjectCode, RunsReuseCachedBuffers) {
  auto compiled = compiler::Compiler::compile(test::exampleGraph("mlp"));
  ASSERT_TRUE(compiled.isOk());
  runAt(**compiled, {{"batch", 5}}, 1); // warm the allocator's cache
  runtime::AllocatorStats before = runtime::allocatorStats();
  for (int k = 0; k < 10; ++k)
    runAt(**compiled, {{"batch", 5}}, 1);
  runtime::AllocatorStats after = runtime::allocatorStats();
  EXPECT_EQ(after.systemAllocs, before.systemAllocs);
  EXPECT_GT(after.cacheHits, before.cacheHits);
}

TEST(ObjectCode, IntermediatesAreFreedAtTheirLastUse) {
  // A chain of 8 GEMMs: with every intermediate freed after the GEMM that
  // reads it, at most the GEMM's input and result [n, 64] buffers (and
  // small shape buffers) are alive at once; freed at the end of the run,
  // all 8 results would be.
  client::GraphBuilder b("chain");
  client::Value x = b.parameter("x", v1::DTYPE_F32, {"n", 64});
  client::Value w = b.parameter("w", v1::DTYPE_F32, {64, 64});
  for (int k = 0; k < 8; ++k)
    x = b.matmul(x, w);
  b.output(x);
  auto graph = b.build();
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  auto compiled = compiler::Compiler::compile(*graph);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  const int64_t n = 8192, intermediateBytes = n * 64 * 4;
  runAt(**compiled, {{"n", n}}, 1);
  int64_t before = runtime::allocatorStats().bytesInUse;
  runtime::resetAllocatorPeak();
  runAt(**compiled, {{"n", n}}, 1);
  int64_t peak = runtime::allocatorStats().peakBytesInUse - before;
  EXPECT_GE(peak, intermediateBytes);
  EXPECT_LE(peak, 3 * intermediateBytes);
}

} // namespace

namespace {

/// The entry keeps no state between calls: a refused shape list is refused
/// on every call, with good calls in between.
TEST(ShapeChecks, RefusalsDoNotDependOnEarlierCalls) {
  auto compiled = compiler::Compiler::compile(test::exampleGraph("mlp"));
  ASSERT_TRUE(compiled.isOk());
  const jit::Executable &executable = **compiled;
  auto shapes = inputShapesFor(executable.graph(), {{"batch", 3}});
  ASSERT_TRUE(shapes.isOk());
  auto good = test::randomInputs(executable.graph(), *shapes, 1).tensors;
  // The same input with a wrong feature width breaks a static dim.
  std::vector<std::vector<int64_t>> wrongShapes = *shapes;
  wrongShapes[0].back() += 1;
  auto wrong = test::randomInputs(executable.graph(), wrongShapes, 1).tensors;
  for (int round = 0; round < 3; ++round) {
    EXPECT_TRUE(executable.run(good).isOk()) << "round " << round;
    auto refused = executable.run(wrong);
    ASSERT_FALSE(refused.isOk()) << "round " << round;
    EXPECT_EQ(refused.status().code(), StatusCode::InvalidArgument);
  }
}

} // namespace

TEST(ObjectCode, LlvmDiagnosticsGoToTheDumpNotToStderr) {
  // Integer pow and division loops are hinted for vectorisation that LLVM
  // declines, and it says so: a compile must print nothing (a server's
  // stderr is no place for it); with --dump-ir the notes are in
  // 4-llvm-optimise/diagnostics.txt.
  std::string root = ::testing::TempDir() + "/anyshape_llvm_diagnostics";
  std::filesystem::remove_all(root);
  int withNotes = 0;
  for (const char *op : {"pow", "div", "max", "min"})
    for (v1::DType dtype : {v1::DTYPE_I32, v1::DTYPE_I64, v1::DTYPE_F16}) {
      client::GraphBuilder b("diagnostics");
      client::Value x = b.parameter("x", dtype, {"n", 4});
      client::Value y = b.parameter("y", dtype, {"n", 4});
      b.output(b.binary(op, x, y));
      auto graph = b.build();
      ASSERT_TRUE(graph.isOk()) << graph.status().toString();
      std::string dir = root + "/" + op + std::to_string(dtype);
      std::filesystem::create_directories(dir);
      compiler::CompileOptions options;
      options.dumpIrDir = dir;
      ::testing::internal::CaptureStderr();
      auto compiled = compiler::Compiler::compile(*graph, options);
      std::string printed = ::testing::internal::GetCapturedStderr();
      ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
      EXPECT_EQ(printed, "") << op << " " << dtype;
      std::string text = readText(dir + "/4-llvm-optimise/diagnostics.txt");
      if (text.find("loop not vectorized") != std::string::npos)
        ++withNotes;
    }
  EXPECT_GT(withNotes, 0) << "no graph drew a note from LLVM; pick another";
  std::filesystem::remove_all(root);
}

TEST(ObjectCode, LongHostFlowsAreCutIntoPieces) {
  // A chain of 350 matrix products is 350 library calls, each with its
  // three descriptors on the stack, in one straight-line @main of over
  // 20,000 instructions: after optimisation it is cut into functions of a
  // few thousand (SplitLongBlocks.h), and the pieces compute what the
  // whole did (by an identity matrix: exactly the input).
  client::GraphBuilder b("long_host_flow");
  client::Value y = b.parameter("x", v1::DTYPE_F32, {"n", 3});
  const float identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  client::Value w = b.constant(
      v1::DTYPE_F32, {3, 3},
      std::string(reinterpret_cast<const char *>(identity), sizeof identity));
  for (int i = 0; i < 350; ++i)
    y = b.matmul(y, w);
  b.output(y);
  auto graph = b.build();
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  std::string dir = ::testing::TempDir() + "/anyshape_long_host_flow";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  compiler::CompileOptions options;
  options.dumpIrDir = dir;
  // One part: in parts, the matmul wrappers land in other parts than
  // @main, are not inlined 350 times, and @main stays short.
  options.codegenParts = 1;
  auto compiled = compiler::Compiler::compile(*graph, options);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  std::ifstream in(dir + "/4-llvm-optimise/after.ll");
  std::string line;
  int pieces = 0;
  while (std::getline(in, line))
    if (line.rfind("define internal void @main", 0) == 0 &&
        line.find(".piece") != std::string::npos)
      ++pieces;
  EXPECT_GE(pieces, 5);
  std::filesystem::remove_all(dir);

  for (int64_t n : {0, 1, 4}) {
    auto shapes = inputShapesFor(*graph, {{"n", n}});
    ASSERT_TRUE(shapes.isOk());
    auto inputs = test::randomInputs(*graph, *shapes, 11 + n);
    auto expected = evaluateGraph(*graph, inputs.literals);
    auto actual = (*compiled)->run(inputs.tensors);
    ASSERT_TRUE(expected.isOk() && actual.isOk())
        << expected.status().toString() << " / " << actual.status().toString();
    EXPECT_EQ((*actual)[0].data(), literalToTensor((*expected)[0]).data())
        << "n=" << n;
  }
}

TEST(ObjectCode, ACompileValidatesTheGraphOnce) {
  // The import and the executable reuse the compile's validation; a
  // static specialisation validates the specialised graph as well.
  v1::Graph graph = test::exampleGraph("mlp");
  int64_t before = validationCount();
  auto compiled = compiler::Compiler::compile(graph);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  EXPECT_EQ(validationCount() - before, 1);

  compiler::CompileOptions specialised;
  specialised.staticSymbols = {{"batch", 4}};
  before = validationCount();
  compiled = compiler::Compiler::compile(graph, specialised);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  EXPECT_EQ(validationCount() - before, 2);
}

TEST(ObjectCode, DumpIrHasAFolderPerStageNamedAsItsProgressLine) {
  // One name per stage (compiler/Stage.h): the progress line says
  // "LLVM optimise", the dump's folder is 4-llvm-optimise.
  test::ScratchDir scratch;
  compiler::CompileOptions options;
  options.dumpIrDir = scratch.path();
  std::vector<compiler::CompileStage> seen;
  options.progress = [&](const compiler::CompileStage &stage) {
    seen.push_back(stage);
  };
  ASSERT_TRUE(
      compiler::Compiler::compile(test::exampleGraph("mlp"), options).isOk());
  for (const compiler::CompileStage &stage : seen)
    EXPECT_EQ(stage.name, compiler::stageName(stage.stage));
  EXPECT_EQ(compiler::stageFolder(compiler::Stage::kLlvmOptimise),
            "4-llvm-optimise");
  std::filesystem::path dir = scratch.path();
  auto folder = [&](compiler::Stage stage) {
    return dir / compiler::stageFolder(stage);
  };
  EXPECT_TRUE(
      std::filesystem::exists(folder(compiler::Stage::kImport) / "main.mlir"));
  EXPECT_FALSE(
      std::filesystem::is_empty(folder(compiler::Stage::kMlirPipeline)));
  EXPECT_TRUE(std::filesystem::exists(folder(compiler::Stage::kLlvmOptimise) /
                                      "before.ll"));
  EXPECT_TRUE(std::filesystem::exists(folder(compiler::Stage::kLlvmOptimise) /
                                      "after.ll"));
  // The CPU has no device code: no CUDA kernels' folder.
  EXPECT_FALSE(std::filesystem::exists(folder(compiler::Stage::kCudaKernels)));
}

TEST(ObjectCode, CompileStagesAreReportedInOrderAndCoverTheCompile) {
  // What the CLI prints as a long compile's progress: each stage once, in
  // order, as it ends; their times add up to the whole compile.
  compiler::CompileOptions options;
  std::vector<std::string> seen;
  options.progress = [&](const compiler::CompileStage &stage) {
    seen.push_back(stage.name);
  };
  compiler::CompileReport report;
  ASSERT_TRUE(
      compiler::Compiler::compile(test::exampleGraph("mlp"), options, &report)
          .isOk());
  std::vector<std::string> expected = {"validate",      "import",
                                       "MLIR pipeline", "LLVM optimise",
                                       "LLVM emit",     "link"};
  EXPECT_EQ(seen, expected);
  ASSERT_EQ(report.stages.size(), expected.size());
  double sum = 0, previous = 0;
  for (size_t i = 0; i < report.stages.size(); ++i) {
    const compiler::CompileStage &stage = report.stages[i];
    EXPECT_EQ(stage.name, expected[i]);
    EXPECT_GE(stage.seconds, 0);
    EXPECT_GE(stage.elapsed, previous) << stage.name;
    previous = stage.elapsed;
    sum += stage.seconds;
  }
  EXPECT_NEAR(sum, report.seconds, 1e-3 + 0.01 * report.seconds);
  EXPECT_DOUBLE_EQ(report.stages.back().elapsed, report.seconds);
  EXPECT_EQ(report.stages[2].detail,
            std::to_string(report.kernelCount) + " fusions, " +
                std::to_string(report.kernelFunctions) + " kernel functions");
  EXPECT_GT(report.kernelFunctions, 0);
}

namespace {

TEST(ObjectCode, ConstraintEliminationIsOffOnceAnythingCompiled) {
  // Superlinear in a function's conditions (ObjectCode.cpp): 91% of LLVM
  // on the host flow of 400 inputs. Its switch is a process-wide option
  // that the first compile turns off; a timed test would be noise, so this
  // checks the switch itself.
  client::GraphBuilder b("tiny");
  b.output(b.exp(b.parameter("x", v1::DTYPE_F32, {"n"})));
  ASSERT_TRUE(compiler::Compiler::compile(*b.build()).isOk());
  auto &options = llvm::cl::getRegisteredOptions();
  auto found = options.find("enable-constraint-elimination");
  ASSERT_NE(found, options.end());
  EXPECT_FALSE(static_cast<llvm::cl::opt<bool> *>(found->second)->getValue());
}

TEST(ObjectCode, CalledValuePropagationIsLeftOutOfLlvmsPipeline) {
  // 7.3 s of opt -O2 on the host flow of a 1,000-input concatenate; the
  // 1,000-input compile benchmark: 39.6 s with it, 30.9 s without.
  int64_t before = compiler::llvmPassesLeftOut();
  client::GraphBuilder b("tiny");
  b.output(b.tanh(b.parameter("x", v1::DTYPE_F32, {"n"})));
  ASSERT_TRUE(compiler::Compiler::compile(*b.build()).isOk());
  EXPECT_GE(compiler::llvmPassesLeftOut() - before, 1);
}

} // namespace

TEST(ObjectCode, PerfMapNamesTheKernelsWhenAsked) {
  // ANYSHAPE_PERF_MAP=1: every function the object defines, the kernels'
  // OpenMP bodies (local symbols) included, is appended to perf's map as
  // "START SIZE NAME"; unset, nothing is written.
  std::string path = jit::perfMapPath();
  std::filesystem::remove(path);
  ASSERT_TRUE(compiler::Compiler::compile(test::exampleGraph("mlp")).isOk());
  EXPECT_FALSE(std::filesystem::exists(path));

  setenv("ANYSHAPE_PERF_MAP", "1", 1);
  auto compiled = compiler::Compiler::compile(test::exampleGraph("mlp"));
  unsetenv("ANYSHAPE_PERF_MAP");
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  std::ifstream map(path);
  ASSERT_TRUE(map.good()) << path;
  bool entry = false, kernelBody = false;
  std::set<uint64_t> starts;
  std::string start, size, name;
  while (map >> start >> size >> name) {
    uint64_t address = std::stoull(start, nullptr, 16);
    EXPECT_GT(std::stoull(size, nullptr, 16), 0u) << name;
    EXPECT_TRUE(starts.insert(address).second) << "two symbols at " << start;
    entry |= name == "anyshape_entry";
    kernelBody |= name.find("..omp_par") != std::string::npos;
  }
  EXPECT_TRUE(entry);
  EXPECT_TRUE(kernelBody) << "the kernels' local symbols are missing";
  std::filesystem::remove(path);
}

TEST(ObjectCode, KernelsUseTheWidestVectorRegisters) {
  // LLVM's x86 tuning prefers 256-bit vectors on Intel's AVX-512 cores;
  // the kernels ask for 512 (softmax ran 1.35x faster), as CpuTarget's
  // row-loop split assumes.
  if (codegen::CpuTarget::host().vectorBytes != 64)
    GTEST_SKIP() << "no AVX-512 on this host";
  std::string dir = ::testing::TempDir() + "/anyshape_vector_width";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  client::GraphBuilder b("scale");
  client::Value x = b.parameter("x", v1::DTYPE_F32, {"n"});
  b.output(b.mul(x, b.scalar(0.5)), "y");
  auto graph = b.build();
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  compiler::CompileOptions options;
  options.dumpIrDir = dir;
  ASSERT_TRUE(compiler::Compiler::compile(*graph, options).isOk());
  std::string ir = readText(dir + "/4-llvm-optimise/after.ll");
  EXPECT_NE(ir.find("<16 x float>"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(ObjectCode, KernelLoopsVectoriseWithoutOverlapChecks) {
  // A kernel's buffers do not overlap (LoopHints.h), so its loops are
  // marked parallel: LLVM vectorises them with no run-time overlap check
  // and no scalar copy for when one fails. Unmarked, each of these loops
  // (two inputs, an output; a softmax row's three passes) had both.
  std::string dir = ::testing::TempDir() + "/anyshape_parallel_loops";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  client::GraphBuilder b("independent");
  client::Value x = b.parameter("x", v1::DTYPE_F32, {"n", "m"});
  client::Value y = b.parameter("y", v1::DTYPE_F32, {"n", "m"});
  b.output(b.softmax(b.add(b.mul(b.exp(x), y), x)), "z");
  auto graph = b.build();
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  compiler::CompileOptions options;
  options.dumpIrDir = dir;
  auto executable = compiler::Compiler::compile(*graph, options);
  ASSERT_TRUE(executable.isOk()) << executable.status().toString();
  std::string ir = readText(dir + "/4-llvm-optimise/after.ll");
  EXPECT_NE(ir.find("!llvm.access.group"), std::string::npos);
  EXPECT_NE(ir.find("vector.body"), std::string::npos);
  EXPECT_EQ(ir.find("vector.memcheck"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(ObjectCode, KernelsStayOutOfLineInTheOptimisedModule) {
  // Inlined, a small kernel's serial version was copied into @main at
  // every launch and optimised and emitted once per copy (ObjectCode.cpp:
  // keepKernelsOutOfLine). Every kernel of the pipeline's last IR but the
  // library calls must still be defined after LLVM's optimisation.
  std::string dir = ::testing::TempDir() + "/anyshape_kernels_out_of_line";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  compiler::CompileOptions options;
  options.dumpIrDir = dir;
  ASSERT_TRUE(compiler::Compiler::compile(
                  test::exampleGraph("bert_encoder_layer"), options)
                  .isOk());
  // The dump's MLIR files are numbered by stage: the last is what LLVM got.
  std::filesystem::path last;
  int lastStage = -1;
  for (const auto &entry : std::filesystem::recursive_directory_iterator(dir))
    if (entry.path().extension() == ".mlir") {
      int stage = std::atoi(entry.path().filename().c_str());
      if (stage > lastStage)
        std::tie(lastStage, last) = std::make_pair(stage, entry.path());
    }
  ASSERT_GE(lastStage, 0) << "no MLIR in the dump";
  auto matches = [](const std::string &text, const std::regex &pattern) {
    std::set<std::string> found;
    for (std::sregex_iterator it(text.begin(), text.end(), pattern), end;
         it != end; ++it)
      found.insert((*it)[1]);
    return found;
  };
  std::string mlir = readText(last.string());
  std::set<std::string> kernels = matches(
      mlir,
      std::regex(
          R"re(llvm.func @(main_kernel[0-9]+)\(.*dhlo.kernel = "k(Loop|Input|Stitch)")re"));
  std::set<std::string> defined =
      matches(readText(dir + "/4-llvm-optimise/after.ll"),
              std::regex(R"re(\ndefine .*@(main_kernel[0-9]+)\()re"));
  EXPECT_GE(kernels.size(), 4u);
  for (const std::string &kernel : kernels)
    EXPECT_TRUE(defined.count(kernel)) << kernel << " was inlined";
  std::filesystem::remove_all(dir);
}
