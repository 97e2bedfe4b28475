// The CUDA kernels without a GPU, part 1: every example and 100 random
// graphs compile to cubins for sm_80 and sm_90, each kernel's PTX linked
// by nvJitLink, with what ptxas reports (registers, spills) checked. Their
// numerics are part 2, the emulated differential tests (DifferentialTest,
// RandomGraphTest).
#include "compiler/CudaKernels.h"
#include "../support/ExampleGraph.h"
#include "../support/ScratchDir.h"
#include "ir/graph/Specialize.h"
#include "runtime/cuda/NvJitLink.h"

#include "RandomGraph.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

using namespace anyshape;

namespace {

const std::vector<std::string> kChips = {"sm_80", "sm_90"};

compiler::CudaKernelsOptions optionsFor(const std::string &chip) {
  compiler::CudaKernelsOptions options;
  options.pipeline.target = *codegen::CudaTarget::fromChip(chip);
  return options;
}

/// A kernel's signature as its PTX states it: the entry, the product of
/// `.maxntid x, y, z`, and each `.param`'s bytes (".param .u64 name", or
/// ".param .align 2 .b8 name[2]" for a scalar PTX has no type for).
struct PtxSignature {
  std::string entry;
  int64_t maxThreads = 0;
  std::vector<int> parameterBytes;
};

PtxSignature signatureOf(const std::string &ptx) {
  PtxSignature signature;
  std::smatch match;
  if (std::regex_search(ptx, match, std::regex(R"(\.entry\s+([\w$]+)\s*\()")))
    signature.entry = match[1];
  if (std::regex_search(ptx, match,
                        std::regex(R"(\.maxntid\s+(\d+),\s*(\d+),\s*(\d+))")))
    signature.maxThreads =
        std::stoll(match[1]) * std::stoll(match[2]) * std::stoll(match[3]);
  auto open = ptx.find('(', ptx.find(".entry")), close = ptx.find(')', open);
  std::string params = ptx.substr(open, close - open);
  std::regex param(
      R"(\.param\s+(?:\.align\s+\d+\s+)?\.[a-z](\d+)\s+[\w$]+(?:\[(\d+)\])?)");
  for (std::sregex_iterator it(params.begin(), params.end(), param), end;
       it != end; ++it)
    signature.parameterBytes.push_back(
        std::stoi((*it)[1].str()) / 8 *
        ((*it)[2].matched ? std::stoi((*it)[2].str()) : 1));
  return signature;
}

/// Compiles `graph` for `chip`; checks every kernel linked into a cubin (an
/// ELF) and ptxas said what it uses.
std::vector<compiler::CudaKernel> checkCubins(const v1::Graph &graph,
                                              const std::string &chip,
                                              const std::string &label) {
  auto kernels = compiler::compileCudaKernels(graph, optionsFor(chip));
  EXPECT_TRUE(kernels.isOk())
      << label << " " << chip << ": " << kernels.status().toString();
  if (!kernels.isOk())
    return {};
  for (const compiler::CudaKernel &k : *kernels) {
    EXPECT_NE(k.ptx.find(".target " + chip), std::string::npos) << k.image.name;
    EXPECT_EQ(k.image.cubin.substr(0, 4), "\x7f"
                                          "ELF")
        << k.image.name;
    EXPECT_GT(k.linked.resources.registers, 0)
        << label << " " << k.image.name << ": " << k.linked.log;
    EXPECT_GE(k.image.maxThreads, 1) << k.image.name;
    // Parameters are 8-byte pointers and sizes or 4-byte scalars.
    EXPECT_FALSE(k.image.parameterBytes.empty()) << k.image.name;
    for (int bytes : k.image.parameterBytes)
      EXPECT_TRUE(bytes == 4 || bytes == 8 || bytes == 2 || bytes == 1)
          << k.image.name << ": a " << bytes << "-byte parameter";
    EXPECT_FALSE(k.image.entry.empty()) << k.image.name;
    // What codegen recorded of the kernel is what its PTX states.
    PtxSignature stated = signatureOf(k.ptx);
    EXPECT_EQ(k.image.entry, stated.entry) << k.image.name;
    EXPECT_EQ(k.image.maxThreads, stated.maxThreads) << k.image.name;
    EXPECT_EQ(k.image.parameterBytes, stated.parameterBytes) << k.image.name;
  }
  return std::move(*kernels);
}

} // namespace

TEST(NvJitLink, ParsesPtxasResources) {
  runtime::cuda::KernelResources r = runtime::cuda::parseKernelResources(
      "info    : Function properties for k\n"
      "info    : 16 bytes stack frame, 8 bytes spill stores, 4 bytes spill "
      "loads\n"
      "info    : Used 31 registers, used 0 barriers, 2048 bytes smem\n");
  EXPECT_EQ(r.registers, 31);
  EXPECT_EQ(r.spillStoreBytes, 8);
  EXPECT_EQ(r.spillLoadBytes, 4);
  EXPECT_EQ(r.stackFrameBytes, 16);
  EXPECT_EQ(r.sharedBytes, 2048);
}

TEST(NvJitLink, RejectsBadPtxWithItsLog) {
  auto linked = runtime::cuda::linkPtxToCubin(
      ".version 8.0\n.target sm_90\nnonsense", "sm_90");
  ASSERT_FALSE(linked.isOk());
  EXPECT_EQ(linked.status().code(), StatusCode::Internal);
  EXPECT_NE(linked.status().message().find("rejected the PTX"),
            std::string::npos)
      << linked.status().toString();
}

TEST(CudaKernels, TheChipIsAlwaysExplicit) {
  EXPECT_FALSE(codegen::CudaTarget::fromChip("sm_50"));
  EXPECT_FALSE(codegen::CudaTarget::fromChip("sm_100"));
  EXPECT_EQ(codegen::CudaTarget::fromChip("80")->chip(), "sm_80");
  EXPECT_EQ(codegen::CudaTarget::fromChip("sm_90")->chip(), "sm_90");
}

class ExampleCubins
    : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

/// The examples' kernels must not spill: a spill is local memory traffic
/// in the inner loop of a memory-bound kernel.
TEST_P(ExampleCubins, LinkWithoutSpills) {
  auto [name, chip] = GetParam();
  std::vector<compiler::CudaKernel> kernels =
      checkCubins(test::exampleGraph(name), chip, name);
  EXPECT_FALSE(kernels.empty()) << name;
  for (const compiler::CudaKernel &k : kernels) {
    EXPECT_EQ(k.linked.resources.spillStoreBytes, 0)
        << k.image.name << k.linked.log;
    EXPECT_EQ(k.linked.resources.spillLoadBytes, 0)
        << k.image.name << k.linked.log;
    // What a reader of the test log wants to know of each kernel.
    std::printf(
        "%s %s %s: %d registers, block %lld, %zu-byte cubin\n", name.c_str(),
        chip.c_str(), k.image.name.c_str(), k.linked.resources.registers,
        static_cast<long long>(k.image.maxThreads), k.image.cubin.size());
  }
}

INSTANTIATE_TEST_SUITE_P(
    Examples, ExampleCubins,
    ::testing::Combine(::testing::Values(std::string("elementwise_reduce"),
                                         std::string("mlp"),
                                         std::string("embedding"),
                                         std::string("bert_encoder_layer")),
                       ::testing::ValuesIn(kChips)),
    [](const auto &info) {
      return std::get<0>(info.param) + "_" + std::get<1>(info.param);
    });

TEST(CudaKernels, DumpIrWritesPtxAndLinkLogPerKernel) {
  test::ScratchDir scratch;
  std::filesystem::path dir = scratch.path();
  compiler::CudaKernelsOptions options = optionsFor("sm_90");
  options.dumpIrDir = dir.string();
  auto kernels = compiler::compileCudaKernels(
      test::exampleGraph("elementwise_reduce"), options);
  ASSERT_TRUE(kernels.isOk()) << kernels.status().toString();
  // A folder per stage (compiler/Stage.h), the kernels in their own.
  EXPECT_TRUE(std::filesystem::exists(dir / "1-import" / "main.mlir"));
  EXPECT_TRUE(std::filesystem::is_directory(dir / "2-mlir-pipeline"));
  std::filesystem::path kernelDir = dir / "3-cuda-kernels";
  ASSERT_FALSE(kernels->empty());
  for (const compiler::CudaKernel &k : *kernels) {
    EXPECT_TRUE(std::filesystem::exists(kernelDir / (k.image.name + ".ptx")));
    EXPECT_TRUE(
        std::filesystem::exists(kernelDir / (k.image.name + ".nvjitlink.log")));
  }
}

/// 100 graphs, both chips. Some graphs have no kernel (their outputs are
/// GEMMs, views or inputs), so the count is checked over all of them.
TEST(RandomGraphCubins, HundredGraphsLinkForBothChips) {
  int64_t kernels = 0;
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    v1::Graph graph = test::RandomGraph(seed).build(12);
    for (const std::string &chip : kChips)
      kernels +=
          checkCubins(graph, chip, "seed " + std::to_string(seed)).size();
  }
  std::printf("%lld kernels linked\n", static_cast<long long>(kernels));
  EXPECT_GT(kernels, 300);
}

/// The encoder's kLoop kernels (bias adds, GELU) have 4-wide versions
/// whose accesses are 128-bit in the PTX: without the alignment the host
/// check proves (anyshape-align-vector-accesses), NVPTX would split each
/// into four 32-bit ones. Four distinct kernels: the bias adds of equal
/// shapes are one (anyshape-merge-identical-kernels).
TEST(CudaKernels, FourWideVersionsAccess128BitsAtATime) {
  auto kernels = compiler::compileCudaKernels(
      test::exampleGraph("bert_encoder_layer"), optionsFor("sm_90"));
  ASSERT_TRUE(kernels.isOk()) << kernels.status().toString();
  int wide = 0;
  for (const compiler::CudaKernel &k : *kernels)
    wide += k.ptx.find("ld.global.v4.f32") != std::string::npos &&
            k.ptx.find("st.global.v4.f32") != std::string::npos;
  EXPECT_GE(wide, 4) << "kernels with 128-bit loads and stores";
}

/// Without libnvJitLink, the toolkit's ptxas assembles the same PTX into
/// a cubin, with a report of its own. (The two do not allocate registers
/// alike: elementwise_reduce's warp-per-row kernel for sm_80 takes 48
/// through nvJitLink and 30 through ptxas, with -O3 for both, and with
/// -Xptxas=-O3 too; docs/cuda.md.)
TEST(NvJitLink, PtxasFallbackAgreesWithTheLibrary) {
  auto kernels = compiler::compileCudaKernels(
      test::exampleGraph("elementwise_reduce"), optionsFor("sm_80"));
  ASSERT_TRUE(kernels.isOk()) << kernels.status().toString();
  ASSERT_FALSE(kernels->empty());
  for (const compiler::CudaKernel &k : *kernels) {
    EXPECT_EQ(k.linked.assembler, "nvJitLink");
    auto fallback = runtime::cuda::assembleWithPtxas(k.ptx, "sm_80");
    ASSERT_TRUE(fallback.isOk()) << fallback.status().toString();
    EXPECT_EQ(fallback->assembler, "ptxas");
    EXPECT_EQ(fallback->cubin.substr(0, 4), "\x7f"
                                            "ELF")
        << k.image.name;
    EXPECT_GT(fallback->resources.registers, 0) << fallback->log;
  }
  auto bad = runtime::cuda::assembleWithPtxas(
      ".version 8.0\n.target sm_80\nnonsense", "sm_80");
  ASSERT_FALSE(bad.isOk());
  EXPECT_NE(bad.status().message().find("ptxas rejected"), std::string::npos)
      << bad.status().toString();
}

TEST(CudaKernels, StaticShapesKeepTheSharedRowVersions) {
  // The row kernels' warp- and block-per-row versions (blocks of 128 and
  // of 256 with shared memory) exist for fixed shapes too. They once did
  // not: with batch = 1 canonicalization left two views of one row, the
  // scalar a stitched row stores was not forwarded to its reload, and only
  // the thread-per-row version was built (on an H200, the static encoder's
  // fusions took 7-15x the dynamic one's).
  v1::Graph graph = test::exampleGraph("bert_encoder_layer");
  auto fixed = specializeGraph(graph, {{"batch", 1}, {"seq", 128}});
  ASSERT_TRUE(fixed.isOk()) << fixed.status().toString();
  auto rowVersions = [](const std::vector<compiler::CudaKernel> &kernels) {
    int64_t warp = 0, block = 0;
    for (const compiler::CudaKernel &k : kernels) {
      warp += k.image.maxThreads == 128;
      block += k.linked.resources.sharedBytes > 0;
    }
    return std::pair{warp, block};
  };
  auto dynamic = rowVersions(checkCubins(graph, "sm_90", "dynamic"));
  auto specialised = rowVersions(checkCubins(*fixed, "sm_90", "static"));
  EXPECT_GE(dynamic.first, 2); // softmax and the layer norms
  EXPECT_EQ(specialised, dynamic);
}
