// The compile cache key (server/cache/CacheKey.h): names and symbol
// spellings do not change it; every compile option and every constant
// does; an invalid graph has no key.
#include "server/cache/CacheKey.h"
#include "server/worker/CompileJob.h"

#include "ServiceTestSupport.h"

#include <gtest/gtest.h>

#include <map>

using namespace anyshape;
using namespace anyshape::server;

namespace {

CompileSettings settingsOf(const v1::CompileOptions &options) {
  auto settings = resolveCompileOptions(options);
  EXPECT_TRUE(settings.isOk()) << settings.status().toString();
  return settings.isOk() ? *settings : CompileSettings();
}

std::string keyOf(const v1::Graph &graph,
                  const v1::CompileOptions &options = {}) {
  auto key = compileCacheKey(graph, settingsOf(options));
  EXPECT_TRUE(key.isOk()) << key.status().toString();
  return key.isOk() ? *key : std::string();
}

/// The example's text with every quoted string in `renames` replaced.
v1::Graph renamedExample(const std::string &name,
                         const std::map<std::string, std::string> &renames) {
  std::string text = test::readFile(test::examplePath(name));
  for (const auto &[from, to] : renames) {
    std::string quotedFrom = "\"" + from + "\"", quotedTo = "\"" + to + "\"";
    for (size_t at = text.find(quotedFrom); at != std::string::npos;
         at = text.find(quotedFrom, at + quotedTo.size()))
      text.replace(at, quotedFrom.size(), quotedTo);
  }
  auto graph = parseGraphText(text);
  EXPECT_TRUE(graph.isOk()) << graph.status().toString();
  return graph.isOk() ? *graph : v1::Graph();
}

TEST(CompileCacheKey, IsThirtyTwoLowercaseHexDigits) {
  std::string key = keyOf(test::exampleGraph("elementwise_reduce"));
  ASSERT_EQ(key.size(), 32u) << key;
  EXPECT_EQ(key.find_first_not_of("0123456789abcdef"), std::string::npos)
      << key;
  EXPECT_EQ(keyOf(test::exampleGraph("elementwise_reduce")), key);
  EXPECT_NE(keyOf(test::exampleGraph("mlp")), key);
}

TEST(CompileCacheKey, IgnoresNodeNamesAndSymbolSpelling) {
  std::string key = keyOf(test::exampleGraph("elementwise_reduce"));
  v1::Graph renamed = renamedExample("elementwise_reduce",
                                     {{"elementwise_reduce", "another_name"},
                                      {"rows", "n"},
                                      {"cols", "features"},
                                      {"mul_2", "scaled"}});
  // The edit did change the graph's text.
  ASSERT_EQ(renamed.inputs(0).type().dims(0).symbol(), "n");
  EXPECT_EQ(keyOf(renamed), key);
}

TEST(CompileCacheKey, InputAndOutputNamesArePartOfIt) {
  // Execute maps a request's names through the graph the key stands for.
  std::string key = keyOf(test::exampleGraph("elementwise_reduce"));
  v1::Graph input = renamedExample("elementwise_reduce", {{"x", "matrix"}});
  ASSERT_EQ(input.inputs(0).name(), "matrix");
  EXPECT_NE(keyOf(input), key);
  v1::Graph output =
      renamedExample("elementwise_reduce", {{"logsumexp", "lse"}});
  ASSERT_EQ(output.outputs(0), "lse");
  EXPECT_NE(keyOf(output), key);
}

TEST(CompileCacheKey, WhichDimsShareASymbolMatters) {
  // Two symbols merged into one: a different (more constrained) graph.
  v1::Graph merged = renamedExample("elementwise_reduce", {{"cols", "rows"}});
  EXPECT_NE(keyOf(merged), keyOf(test::exampleGraph("elementwise_reduce")));
}

TEST(CompileCacheKey, AChangedConstantChangesTheKey) {
  v1::Graph graph = test::exampleGraph("elementwise_reduce");
  std::string key = keyOf(graph);
  bool changed = false;
  for (v1::Node &node : *graph.mutable_nodes())
    if (node.has_constant()) {
      node.mutable_constant()->set_splat(node.constant().splat() + 1);
      changed = true;
    }
  ASSERT_TRUE(changed) << "the example has no constant";
  EXPECT_NE(keyOf(graph), key);
}

TEST(CompileCacheKey, EveryOptionIsPartOfTheKey) {
  v1::Graph graph = test::exampleGraph("elementwise_reduce");
  v1::CompileOptions plain;
  std::string key = keyOf(graph, plain);

  v1::CompileOptions cpu;
  cpu.set_target(v1::TARGET_CPU);
  EXPECT_EQ(keyOf(graph, cpu), key) << "unspecified means the CPU";
  v1::CompileOptions cuda;
  cuda.set_target(v1::TARGET_CUDA);
  EXPECT_NE(keyOf(graph, cuda), key);
  v1::CompileOptions h100 = cuda;
  h100.set_cuda_arch("sm_90");
  EXPECT_EQ(keyOf(graph, h100), keyOf(graph, cuda)) << "empty means sm_90";
  v1::CompileOptions a100 = cuda;
  a100.set_cuda_arch("sm_80");
  EXPECT_NE(keyOf(graph, a100), keyOf(graph, cuda));
  v1::CompileOptions digits = cuda;
  digits.set_cuda_arch("80");
  EXPECT_EQ(keyOf(graph, digits), keyOf(graph, a100))
      << "one chip, however it is spelt, is one key";

  v1::CompileOptions unfused;
  unfused.set_disable_fusion(true);
  EXPECT_NE(keyOf(graph, unfused), key);

  v1::CompileOptions rows3, rows4, cols3;
  (*rows3.mutable_static_symbols())["rows"] = 3;
  (*rows4.mutable_static_symbols())["rows"] = 4;
  (*cols3.mutable_static_symbols())["cols"] = 3;
  EXPECT_NE(keyOf(graph, rows3), key);
  EXPECT_NE(keyOf(graph, rows3), keyOf(graph, rows4));
  EXPECT_NE(keyOf(graph, rows3), keyOf(graph, cols3));
}

TEST(CompileCacheKey, EveryWireOptionIsKeyedAndMapped) {
  // resolveCompileOptions is the one reader of the wire options: the key
  // hashes what it resolves and compileOptionsFor maps it to the compiler.
  // A field added to CompileOptions must be resolved, keyed and mapped.
  EXPECT_EQ(v1::CompileOptions::descriptor()->field_count(), 4)
      << "a new CompileOptions field: resolve it (CompileSettings.cpp), key "
         "it (CacheKey.cpp), map it (worker/CompileJob.cpp), test all here";
  v1::CompileOptions options;
  options.set_disable_fusion(true);
  (*options.mutable_static_symbols())["rows"] = 3;
  compiler::CompileOptions mapped =
      compileOptionsFor(settingsOf(options), nullptr);
  EXPECT_FALSE(mapped.pipeline.fuse);
  EXPECT_EQ(mapped.staticSymbols,
            (std::map<std::string, int64_t>{{"rows", 3}}));
  EXPECT_TRUE(compileOptionsFor(settingsOf(v1::CompileOptions()), nullptr)
                  .pipeline.fuse);
  EXPECT_EQ(
      compileOptionsFor(settingsOf(v1::CompileOptions()), nullptr).backend,
      compiler::KernelBackend::kCpu);
  v1::CompileOptions cuda;
  cuda.set_target(v1::TARGET_CUDA);
  cuda.set_cuda_arch("sm_80");
  cuda.set_disable_fusion(true);
  compiler::CompileOptions device =
      compileOptionsFor(settingsOf(cuda), nullptr);
  EXPECT_EQ(device.backend, compiler::KernelBackend::kCuda);
  EXPECT_EQ(device.cuda.target.smVersion, 80);
  EXPECT_FALSE(device.cuda.fuse);
  cuda.clear_cuda_arch();
  EXPECT_EQ(compileOptionsFor(settingsOf(cuda), nullptr).cuda.target.smVersion,
            90);
}

TEST(CompileCacheKey, OptionsTheServerRefusesHaveNoSettings) {
  v1::CompileOptions unknownTarget;
  unknownTarget.set_target(static_cast<v1::Target>(7));
  v1::CompileOptions unknownChip;
  unknownChip.set_target(v1::TARGET_CUDA);
  unknownChip.set_cuda_arch("sm_70");
  v1::CompileOptions chipOnCpu;
  chipOnCpu.set_cuda_arch("sm_90");
  for (const auto &[options, says] :
       {std::pair{unknownTarget, "unknown target 7"},
        std::pair{unknownChip, "unknown cuda_arch 'sm_70' (sm_80, sm_90)"},
        std::pair{chipOnCpu, "cuda_arch is for target CUDA"}}) {
    auto settings = resolveCompileOptions(options);
    ASSERT_FALSE(settings.isOk()) << says;
    EXPECT_EQ(settings.status().code(), StatusCode::InvalidArgument);
    EXPECT_EQ(settings.status().message(), says);
  }
}

TEST(CompileCacheKey, StaticSymbolOrderDoesNotMatter) {
  v1::Graph graph = test::exampleGraph("elementwise_reduce");
  std::vector<std::pair<std::string, int64_t>> symbols;
  for (int k = 0; k < 12; ++k)
    symbols.emplace_back("s" + std::to_string(k), 10 + k);
  symbols.emplace_back("rows", 3);
  symbols.emplace_back("cols", 5);
  v1::CompileOptions forward, backward;
  for (const auto &[name, size] : symbols)
    (*forward.mutable_static_symbols())[name] = size;
  for (auto it = symbols.rbegin(); it != symbols.rend(); ++it)
    (*backward.mutable_static_symbols())[it->first] = it->second;
  EXPECT_EQ(keyOf(graph, forward), keyOf(graph, backward));
}

TEST(CompileCacheKey, AnInvalidGraphHasNoKey) {
  v1::Graph graph = test::exampleGraph("elementwise_reduce");
  graph.mutable_nodes(2)->set_operands(0, "no_such_value");
  auto key = compileCacheKey(graph, {});
  ASSERT_FALSE(key.isOk());
  EXPECT_EQ(key.status().code(), StatusCode::InvalidArgument);

  v1::Graph noOutput = test::exampleGraph("elementwise_reduce");
  noOutput.add_outputs("missing_output");
  EXPECT_EQ(compileCacheKey(noOutput, {}).status().code(),
            StatusCode::InvalidArgument);
}

TEST(CompileCacheKey, TheElementLimitIsKeyed) {
  // The generated shape checks enforce the server's --max-elements, so
  // servers with different limits never share an executable.
  v1::Graph graph = test::exampleGraph("mlp");
  auto byDefault = compileCacheKey(graph, {});
  auto explicitDefault =
      compileCacheKey(graph, {}, GraphLimits().maxElementsPerTensor);
  auto lower = compileCacheKey(graph, {}, 1000);
  ASSERT_TRUE(byDefault.isOk() && explicitDefault.isOk() && lower.isOk());
  EXPECT_EQ(*byDefault, *explicitDefault);
  EXPECT_NE(*byDefault, *lower);
}

TEST(CompileCacheKey, IdentityNamesTheBuildAndTarget) {
  const std::string &identity = compilerIdentity();
  EXPECT_NE(identity.find("anyshape.v1"), std::string::npos) << identity;
  EXPECT_NE(identity.find("build="), std::string::npos) << identity;
  EXPECT_NE(identity.find("llvm="), std::string::npos) << identity;
  EXPECT_EQ(&compilerIdentity(), &identity);
}

} // namespace

TEST(CompileCacheKey, AnOnnxModelIsKeyedByItsBytesAndItsOptions) {
  std::string model = "\x08\x07"; // any bytes: no import happens here
  std::string key = onnxCacheKey(model, {});
  EXPECT_TRUE(isCacheKey(key));
  EXPECT_EQ(onnxCacheKey(model, {}), key);
  EXPECT_NE(onnxCacheKey(model + " ", {}), key);
  EXPECT_NE(onnxCacheKey("", {}), key);
  v1::CompileOptions unfused;
  unfused.set_disable_fusion(true);
  EXPECT_NE(onnxCacheKey(model, settingsOf(unfused)), key);
  EXPECT_NE(onnxCacheKey(model, {}, 100), key);
}
