// What a compile reports besides its executable reaches the client: the
// service's one compile routine (server/worker/CompileJob.h) puts a
// departure from the fusion plan, a warning where the service compiles as
// users do, into ExecutableInfo.warnings, which the compile cache and the
// compile workers carry with the executable.
#include "server/worker/CompileJob.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace anyshape;

TEST(CompileWarnings, ADepartureFromThePlanReachesExecutableInfo) {
  // ONNX's own expansion of grouped-query Attention at static shapes
  // departs from the plan (docs/pipeline.md).
  std::ifstream in(std::string(ANYSHAPE_SOURCE_DIR) +
                       "/tests/graphs/onnx/gqa_attention_expanded.onnx",
                   std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  v1::CompileRequest request;
  request.set_onnx_model(bytes.str());
  // The suite compiles strictly (cmake/StrictFusionPlan.cmake); the
  // service, as users run it, does not.
  const char *strict = std::getenv("ANYSHAPE_STRICT_FUSION_PLAN");
  std::string saved = strict ? strict : "";
  setenv("ANYSHAPE_STRICT_FUSION_PLAN", "0", 1);
  compiler::CompileReport report;
  auto stored =
      server::compileForCache(request, "key", nullptr, GraphLimits{}, &report);
  if (strict)
    setenv("ANYSHAPE_STRICT_FUSION_PLAN", saved.c_str(), 1);
  else
    unsetenv("ANYSHAPE_STRICT_FUSION_PLAN");
  ASSERT_TRUE(stored.isOk()) << stored.status().toString();
  ASSERT_EQ(stored->info.warnings_size(), 1);
  EXPECT_NE(stored->info.warnings(0).find(
                "codegen departs from the fusion plan: fusion #"),
            std::string::npos)
      << stored->info.warnings(0);
}
