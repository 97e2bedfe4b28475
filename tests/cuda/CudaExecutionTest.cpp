// The whole CUDA path without a GPU: graphs compiled for the device
// (KernelBackend::kCuda: cubins and an ORC-JITed host flow), loaded and
// run through the runtime (runtime/cuda) against the fake libcuda.so.1
// (FakeCudaExecution.cpp), which checks every call and runs each launch
// with the kernel's CPU emulation, its parameters as the host flow passed
// them, and the fake libcublasLt.so.13 (FakeCublasLt.cpp), which runs the
// GEMMs on the same streams. Results are compared with the reference
// evaluator across shapes.
// ctest runs the FakeDevice tests with the fake driver and the NoDevice
// tests with none (tests/cuda/CMakeLists.txt).
#include "../jit/MatchesReference.h"
#include "../jit/RandomGraph.h"
#include "../jit/RandomInputs.h"
#include "../support/ArgsortGraph.h"
#include "../support/CopyGraph.h"
#include "../support/CumulativeGraph.h"
#include "../support/DrawShapes.h"
#include "../support/ExampleGraph.h"
#include "../support/NonZeroGraph.h"
#include "../support/ScatterGraph.h"
#include "compiler/Compiler.h"
#include "ir/graph/Bindings.h"
#include "ir/reference/Compare.h"
#include "ir/reference/Evaluator.h"
#include "runtime/cuda/CublasLt.h"
#include "runtime/cuda/CudaDevice.h"

#include "../support/IndexCheckGraph.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdlib>
#include <random>
#include <thread>

using namespace anyshape;

namespace {

using test::drawShapes;

/// One of the fake driver's counters (anyshapeFakeCuda<name>).
int64_t fakeCounter(const char *name) {
  void *driver =
      dlopen(std::getenv("ANYSHAPE_LIBCUDA"), RTLD_NOW | RTLD_NOLOAD);
  auto counter = reinterpret_cast<int64_t (*)()>(
      driver ? dlsym(driver, (std::string("anyshapeFakeCuda") + name).c_str())
             : nullptr);
  return counter ? counter() : -1;
}

compiler::CompileOptions onDevice(int64_t blockSize = 256,
                                  int64_t maxBlocks = 4096,
                                  std::string rowSchedule = "auto") {
  compiler::CompileOptions options;
  options.backend = compiler::KernelBackend::kCuda;
  options.cuda.emulatedKernels = true;
  options.cuda.target.blockSize = blockSize;
  options.cuda.target.maxBlocks = maxBlocks;
  options.cuda.rowSchedule = std::move(rowSchedule);
  return options;
}

void checkAcrossShapes(
    const v1::Graph &graph,
    const std::vector<std::map<std::string, int64_t>> &shapes,
    const std::string &label, const compiler::CompileOptions &options) {
  auto executable = compiler::Compiler::compile(graph, options);
  ASSERT_TRUE(executable.isOk())
      << label << ": " << executable.status().toString();
  ASSERT_FALSE((*executable)->deviceKernels().empty()) << label;
  int64_t launches = fakeCounter("Launches");
  for (size_t k = 0; k < shapes.size(); ++k)
    test::expectMatchesReference(**executable, graph, shapes[k], 100 * k,
                                 label);
  // Every launch the driver took ran the kernel's emulation.
  EXPECT_GT(fakeCounter("Launches"), launches) << label;
  EXPECT_EQ(fakeCounter("Launches"), fakeCounter("EmulatedLaunches"));
  EXPECT_EQ(fakeCounter("PendingOperations"), 0) << label;
}

} // namespace

TEST(FakeDevice, ElementwiseReduceMatchesTheReference) {
  v1::Graph graph = test::exampleGraph("elementwise_reduce");
  auto shapes = drawShapes({{"rows", {0, 70}}, {"cols", {0, 700}}}, 25, 31);
  checkAcrossShapes(graph, shapes, "device", onDevice());
  // Blocks of 32, at most 3: every grid-stride loop strides.
  checkAcrossShapes(graph, shapes, "device, striding", onDevice(32, 3));
  for (const char *rows : {"thread", "warp", "block"})
    checkAcrossShapes(graph, shapes, std::string("device, rows per ") + rows,
                      onDevice(256, 4096, rows));
  compiler::CompileOptions scalar = onDevice();
  scalar.cuda.vectorAccesses = false;
  checkAcrossShapes(graph, shapes, "device, scalar only", scalar);
}

TEST(FakeDevice, EmbeddingReadsItsTablesFromDeviceConstants) {
  // Seeded tables (generated at load into host memory) and dense
  // constants: kernels read the device copies the host flow asks for.
  v1::Graph graph = test::exampleGraph("embedding");
  auto shapes = drawShapes({{"batch", {1, 5}}, {"seq", {1, 45}}}, 12, 32);
  checkAcrossShapes(graph, shapes, "embedding on the device", onDevice());
}

TEST(FakeDevice, MlpsGemmsRunThroughCublasLt) {
  // Its GEMMs through the (fake) cuBLASLt in the run's stream order, its
  // weights device constants.
  v1::Graph graph = test::exampleGraph("mlp");
  auto shapes = drawShapes({{"batch", {1, 37}}}, 10, 33);
  checkAcrossShapes(graph, shapes, "mlp on the device", onDevice());
}

TEST(FakeDevice, EncoderLayerMatchesTheReference) {
  // Batched GEMMs (attention scores, transposed operands), softmax and
  // layer norms: the whole layer on the device path.
  v1::Graph graph = test::exampleGraph("bert_encoder_layer");
  auto shapes = drawShapes({{"batch", {1, 2}}, {"seq", {1, 19}}}, 4, 34);
  checkAcrossShapes(graph, shapes, "encoder on the device", onDevice());
}

TEST(FakeDevice, GemmsTakeRowAndColumnMajorOperands) {
  // DeviceGemm's mapping of row-major C = A x B onto cuBLASLt's
  // column-major one, for each operand layout the host flow may pass: a
  // row-major view, and a transposed one (its first dim unit-stride).
  auto device = runtime::cuda::CudaDevice::get();
  ASSERT_TRUE(device.isOk()) << device.status().toString();
  const runtime::cuda::Driver &driver = (*device)->driver();
  ASSERT_TRUE((*device)->makeCurrent().isOk());
  auto stream = (*device)->acquireStream();
  ASSERT_TRUE(stream.isOk());
  const int64_t batch = 2, m = 3, k = 5, n = 4;
  std::vector<float> a(batch * m * k), b(batch * k * n);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<float>((i * 7) % 11) - 5;
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = static_cast<float>((i * 5) % 13) - 6;
  for (bool transposedA : {false, true})
    for (bool transposedB : {false, true}) {
      runtime::cuda::StreamAllocator allocator((*device)->memory());
      auto upload = [&](const std::vector<float> &host) {
        void *p = allocator.allocate(host.size() * 4);
        driver.cuMemcpyHtoD_v2(reinterpret_cast<uint64_t>(p), host.data(),
                               host.size() * 4);
        return static_cast<float *>(p);
      };
      // The same logical a[b, i, l] stored row-major, or as its transpose
      // a[b][l][i] (strides {m*k, 1, m}).
      std::vector<float> aStored(a.size()), bStored(b.size());
      for (int64_t q = 0; q < batch; ++q)
        for (int64_t i = 0; i < m; ++i)
          for (int64_t l = 0; l < k; ++l)
            aStored[q * m * k + (transposedA ? l * m + i : i * k + l)] =
                a[q * m * k + i * k + l];
      for (int64_t q = 0; q < batch; ++q)
        for (int64_t l = 0; l < k; ++l)
          for (int64_t j = 0; j < n; ++j)
            bStored[q * k * n + (transposedB ? j * k + l : l * n + j)] =
                b[q * k * n + l * n + j];
      float *da = upload(aStored), *db = upload(bStored);
      auto *dc = static_cast<float *>(allocator.allocate(batch * m * n * 4));
      runtime::Memref3D ma{da,
                           da,
                           0,
                           {batch, m, k},
                           {m * k, transposedA ? 1 : k, transposedA ? m : 1}};
      runtime::Memref3D mb{db,
                           db,
                           0,
                           {batch, k, n},
                           {k * n, transposedB ? 1 : n, transposedB ? k : 1}};
      runtime::Memref3D mc{dc, dc, 0, {batch, m, n}, {m * n, n, 1}};
      runtime::cuda::DeviceGemm gemm(**device);
      Status status = gemm.run(ma, mb, mc, *stream, allocator);
      ASSERT_TRUE(status.isOk()) << status.toString();
      std::vector<float> c(batch * m * n);
      driver.cuMemcpyDtoHAsync_v2(c.data(), reinterpret_cast<uint64_t>(dc),
                                  c.size() * 4, *stream);
      driver.cuStreamSynchronize(*stream);
      for (int64_t q = 0; q < batch; ++q)
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            float expected = 0;
            for (int64_t l = 0; l < k; ++l)
              expected += a[q * m * k + i * k + l] * b[q * k * n + l * n + j];
            ASSERT_EQ(c[q * m * n + i * n + j], expected)
                << "A " << (transposedA ? "transposed" : "row-major") << ", B "
                << (transposedB ? "transposed" : "row-major") << " at " << q
                << "," << i << "," << j;
          }
      EXPECT_EQ(gemm.cachedShapes(), 1u);
    }
  (*device)->releaseStream(*stream);
}

TEST(FakeDevice, RandomGraphsMatchTheReference) {
  int ran = 0;
  for (uint64_t seed = 0; seed < 60; ++seed) {
    v1::Graph graph = test::RandomGraph(seed).build(12);
    auto executable = compiler::Compiler::compile(graph, onDevice(64, 5));
    ASSERT_TRUE(executable.isOk())
        << "seed " << seed << ": " << executable.status().toString();
    ASSERT_EQ((*executable)->target(), jit::Target::kCuda);
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int64_t> size(1, 37);
    for (int run = 0; run < 8; ++run)
      test::expectMatchesReference(
          **executable, graph,
          {{"a", run == 0 ? 1 : size(rng)}, {"b", run == 1 ? 1 : size(rng)}},
          seed * 10 + run, "seed " + std::to_string(seed));
    ++ran;
  }
  EXPECT_EQ(ran, 60);
}

TEST(FakeDevice, ConcurrentRunsEachHaveTheirOwnStream) {
  v1::Graph graph = test::exampleGraph("elementwise_reduce");
  auto executable = compiler::Compiler::compile(graph, onDevice());
  ASSERT_TRUE(executable.isOk()) << executable.status().toString();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int run = 0; run < 5; ++run)
        test::expectMatchesReference(
            **executable, graph, {{"rows", 3 + t}, {"cols", 50 * run + t}},
            t * 7 + run, "thread " + std::to_string(t));
    });
  for (std::thread &thread : threads)
    thread.join();
}

TEST(FakeDevice, AFailedShapeCheckLaunchesNothing) {
  v1::Graph graph = test::exampleGraph("elementwise_reduce");
  auto executable = compiler::Compiler::compile(graph, onDevice());
  ASSERT_TRUE(executable.isOk()) << executable.status().toString();
  auto shapes = inputShapesFor(graph, {{"rows", 3}, {"cols", 4}});
  auto [inputs, tensors] = test::randomInputs(graph, *shapes, 1);
  tensors[1].set_shape(0, 5); // y has cols elements
  tensors[1].mutable_data()->resize(5 * 4);
  int64_t launches = fakeCounter("Launches");
  auto result = (*executable)->run(tensors);
  ASSERT_FALSE(result.isOk());
  EXPECT_EQ(result.status().code(), StatusCode::InvalidArgument)
      << result.status().toString();
  EXPECT_EQ(fakeCounter("Launches"), launches);
}

TEST(FakeDevice, IndexChecksReadTheIndicesFromTheDevice) {
  // The host flow copies each checked index tensor from the device in
  // stream order (after the kernels computing it) and checks it there.
  v1::Graph graph = test::indexCheckGraph();
  checkAcrossShapes(graph,
                    drawShapes({{"rows", {9, 20}},
                                {"batch", {0, 3}},
                                {"seq", {1, 9}},
                                {"k", {0, 5}}},
                               6, 33),
                    "index checks on the device", onDevice());
  auto executable = compiler::Compiler::compile(graph, onDevice());
  ASSERT_TRUE(executable.isOk()) << executable.status().toString();
  Literal table = randomLiteral(v1::DTYPE_F32, {5, 4}, 1);
  Literal columns = Literal::zeros(v1::DTYPE_I32, {1});
  auto result = (*executable)
                    ->run({literalToTensor(table),
                           test::i64Tensor({1, 3}, {0, 4, 1000000000}),
                           literalToTensor(columns)});
  ASSERT_FALSE(result.isOk());
  EXPECT_EQ(result.status().code(), StatusCode::InvalidArgument);
  EXPECT_EQ(result.status().message(),
            "node 'emb' (Gather): index 1000000000 is out of range [-5, 5) "
            "for axis 0 of size 5");
  EXPECT_EQ(fakeCounter("PendingOperations"), 0);
}

TEST(FakeDevice, NonZeroCountsOnTheHostAndWritesTheCoordinatesBack) {
  // The host flow copies the operand from the device in stream order,
  // counts there, sizes what follows by the count, and copies the
  // coordinates into the device's result.
  v1::Graph graph = test::positiveRowsGraph();
  checkAcrossShapes(graph, drawShapes({{"n", {0, 40}}}, 8, 5),
                    "nonzero on the device", onDevice());
  EXPECT_EQ(fakeCounter("PendingOperations"), 0);
}

TEST(FakeDevice, ARuleOnACountStopsTheRunAndLeavesTheDeviceClean) {
  // count == n is checked on the host once the count has crossed; a run
  // that breaks it stops there, its stream synchronised and its device
  // buffers back in the pool, and the next run is right.
  v1::Graph graph = test::countMeetsInputGraph();
  auto executable = compiler::Compiler::compile(graph, onDevice());
  ASSERT_TRUE(executable.isOk()) << executable.status().toString();
  auto vector = [](std::vector<double> values) {
    Literal x = Literal::zeros(v1::DTYPE_F32, {int64_t(values.size())});
    for (size_t k = 0; k < values.size(); ++k)
      x.setDouble(int64_t(k), values[k]);
    return x;
  };
  for (int round = 0; round < 3; ++round) {
    auto broken = (*executable)->run({literalToTensor(vector({1, -2, 3}))});
    ASSERT_FALSE(broken.isOk());
    EXPECT_EQ(broken.status().code(), StatusCode::InvalidArgument);
    EXPECT_NE(broken.status().message().find("where n is 3 and count is 2"),
              std::string::npos)
        << broken.status().message();
    EXPECT_EQ(fakeCounter("PendingOperations"), 0);
    Literal x = vector({1, 2, 3, 4});
    auto out = (*executable)->run({literalToTensor(x)});
    ASSERT_TRUE(out.isOk()) << out.status().toString();
    auto expected = evaluateGraph(graph, {x});
    ASSERT_TRUE(expected.isOk());
    EXPECT_EQ(literalFromTensor((*out)[0])->f, (*expected)[0].f);
  }
}

TEST(FakeDevice, ASizeKernelsReadAsDataIsUploaded) {
  // The positive elements' linear indices are row * dim_size(x, 1) +
  // column: the host flow writes the size into a small buffer on its
  // stack and uploads it, in stream order, for the kernel to read.
  v1::Graph graph = test::positiveElementsGraph();
  checkAcrossShapes(graph, drawShapes({{"n", {0, 9}}, {"m", {0, 7}}}, 8, 9),
                    "a size read as data on the device", onDevice());
  EXPECT_EQ(fakeCounter("PendingOperations"), 0);
}

TEST(FakeDevice, ScattersRunOnTheHostBetweenTheKernels) {
  // The operands' spans are copied from the device in stream order (after
  // the kernels computing them), the result written on the host and
  // copied back before the kernels that read it.
  v1::Graph graph = test::scattersGraph();
  checkAcrossShapes(graph, drawShapes({{"n", {1, 12}}, {"m", {0, 20}}}, 6, 14),
                    "scatter on the device", onDevice());
  EXPECT_EQ(fakeCounter("PendingOperations"), 0);
}

TEST(FakeDevice, ArgsortsRunOnTheHostBetweenTheKernels) {
  // As scatter's: the operand's span comes from the device after the
  // kernels computing it; the positions go back before the kernels that
  // read them (the top-3's gather).
  v1::Graph graph = test::argsortsGraph();
  checkAcrossShapes(graph, drawShapes({{"n", {1, 9}}, {"m", {3, 40}}}, 6, 15),
                    "argsort on the device", onDevice());
  EXPECT_EQ(fakeCounter("PendingOperations"), 0);
}

TEST(FakeDevice, CumulativesRunOnTheHostBetweenTheKernels) {
  v1::Graph graph = test::cumulativesGraph();
  checkAcrossShapes(graph, drawShapes({{"n", {1, 9}}, {"m", {1, 40}}}, 6, 16),
                    "cumulative on the device", onDevice());
  EXPECT_EQ(fakeCounter("PendingOperations"), 0);
}

TEST(FakeDevice, StridedCopiesRunAsGrids) {
  // A fusion's copies (a concatenate's parts, a reshape of a transposed
  // view) are kernels of their own, strided or not; a copy left as one
  // would be a call of the CPU runtime's memrefCopy in device code.
  v1::Graph graph = test::stridedCopiesGraph();
  checkAcrossShapes(
      graph, drawShapes({{"n", {2, 40}}, {"m", {1, 70}}, {"k", {0, 9}}}, 8, 12),
      "strided copies on the device", onDevice());
  checkAcrossShapes(
      graph, drawShapes({{"n", {2, 9}}, {"m", {1, 300}}, {"k", {1, 3}}}, 4, 13),
      "strided copies, striding", onDevice(32, 3));
}

TEST(FakeDevice, OutOfDeviceMemoryIsResourceExhaustedAndTheDeviceRecovers) {
  v1::Graph graph = test::exampleGraph("elementwise_reduce");
  auto executable = compiler::Compiler::compile(graph, onDevice());
  ASSERT_TRUE(executable.isOk()) << executable.status().toString();
  runtime::cuda::setDeviceMemoryLimit(int64_t{1} << 20);
  auto shapes = inputShapesFor(graph, {{"rows", 1000}, {"cols", 1000}});
  auto [inputs, tensors] = test::randomInputs(graph, *shapes, 2);
  auto result = (*executable)->run(tensors);
  ASSERT_FALSE(result.isOk());
  EXPECT_EQ(result.status().code(), StatusCode::ResourceExhausted)
      << result.status().toString();
  // Small runs still fit, and the limit lifted, the large one runs.
  test::expectMatchesReference(**executable, graph,
                               {{"rows", 10}, {"cols", 10}}, 3, "small");
  runtime::cuda::setDeviceMemoryLimit(0);
  test::expectMatchesReference(**executable, graph,
                               {{"rows", 1000}, {"cols", 1000}}, 4, "large");
}

TEST(FakeDevice, EverythingIsReleased) {
  {
    v1::Graph graph = test::exampleGraph("elementwise_reduce");
    auto executable = compiler::Compiler::compile(graph, onDevice());
    ASSERT_TRUE(executable.isOk()) << executable.status().toString();
    EXPECT_GT(fakeCounter("LiveModules"), 0);
    test::expectMatchesReference(**executable, graph,
                                 {{"rows", 9}, {"cols", 33}}, 5, "run");
  }
  // The executable unloaded its modules; the device's pool holds the
  // only device memory, and trimming frees it.
  EXPECT_EQ(fakeCounter("LiveModules"), 0);
  auto device = runtime::cuda::CudaDevice::get();
  ASSERT_TRUE(device.isOk());
  (*device)->trim();
  EXPECT_EQ(fakeCounter("LiveAllocations"), 0);
  EXPECT_EQ((*device)->memory().heldBytes(), 0);
  EXPECT_EQ(fakeCounter("LivePinned"), 0);
}

TEST(FakeDevice, OutputsLiveInPinnedBlocksUntilReleased) {
  // A run's outputs are the pinned blocks they were copied back into:
  // held while the caller holds them, back to the device's pool after.
  v1::Graph graph = test::exampleGraph("elementwise_reduce");
  auto executable = compiler::Compiler::compile(graph, onDevice());
  ASSERT_TRUE(executable.isOk()) << executable.status().toString();
  auto device = runtime::cuda::CudaDevice::get();
  ASSERT_TRUE(device.isOk());
  auto shapes = inputShapesFor(graph, {{"rows", 7}, {"cols", 300}});
  auto [inputs, tensors] = test::randomInputs(graph, *shapes, 0);
  std::vector<const v1::Tensor *> pointers;
  for (const v1::Tensor &t : tensors)
    pointers.push_back(&t);
  auto want = (*executable)->run(tensors);
  ASSERT_TRUE(want.isOk()) << want.status().toString();
  {
    auto held = (*executable)->runToBuffers(pointers);
    ASSERT_TRUE(held.isOk()) << held.status().toString();
    (*device)->trim(); // frees idle blocks only
    EXPECT_GE(fakeCounter("LivePinned"),
              static_cast<int64_t>(held->buffers().size()));
    auto again = held->toTensors();
    ASSERT_EQ(again.size(), want->size());
    for (size_t k = 0; k < again.size(); ++k)
      EXPECT_EQ(again[k].data(), (*want)[k].data()) << "output " << k;
  }
  (*device)->trim();
  EXPECT_EQ(fakeCounter("LivePinned"), 0);
}

TEST(FakeDevice, DeviceTimingCountsEveryLaunchAndGemm) {
  v1::Graph graph = test::exampleGraph("mlp");
  auto executable = compiler::Compiler::compile(graph, onDevice());
  ASSERT_TRUE(executable.isOk()) << executable.status().toString();
  auto shapes = inputShapesFor(graph, {{"batch", 5}});
  auto [inputs, tensors] = test::randomInputs(graph, *shapes, 0);
  ASSERT_TRUE((*executable)->run(tensors).isOk()); // untimed
  EXPECT_TRUE((*executable)->deviceTimes().empty());

  ASSERT_TRUE((*executable)->timeDevice(true).isOk());
  int64_t launches = fakeCounter("Launches");
  constexpr int kRuns = 3;
  for (int run = 0; run < kRuns; ++run)
    ASSERT_TRUE((*executable)->run(tensors).isOk());
  auto times = (*executable)->deviceTimes();
  int64_t kernelCalls = 0, gemmCalls = 0;
  for (const auto &time : times) {
    EXPECT_EQ(time.calls % kRuns, 0) << time.name;
    EXPECT_GE(time.milliseconds, 0) << time.name;
    (time.name == runtime::cuda::kGemmName ? gemmCalls : kernelCalls) +=
        time.calls;
  }
  EXPECT_EQ(kernelCalls, fakeCounter("Launches") - launches);
  EXPECT_GT(gemmCalls, 0); // the MLP's layers
  EXPECT_EQ(fakeCounter("LiveEvents"), 0);

  // Off: runs add nothing; on again: the totals start afresh.
  ASSERT_TRUE((*executable)->timeDevice(false).isOk());
  ASSERT_TRUE((*executable)->run(tensors).isOk());
  int64_t callsAfter = 0;
  for (const auto &time : (*executable)->deviceTimes())
    callsAfter += time.calls;
  EXPECT_EQ(callsAfter, kernelCalls + gemmCalls);
  ASSERT_TRUE((*executable)->timeDevice(true).isOk());
  EXPECT_TRUE((*executable)->deviceTimes().empty());

  auto cpu = compiler::Compiler::compile(graph);
  ASSERT_TRUE(cpu.isOk());
  EXPECT_EQ((*cpu)->timeDevice(true).code(), StatusCode::FailedPrecondition);
}

// On a real device (scripts/gpu-check, a lent GPU machine): the same
// examples, kernels on the GPU, GEMMs through the real cuBLASLt. Without
// a device they skip and say why.
TEST(RealDevice, ExamplesMatchTheReference) {
  auto device = runtime::cuda::CudaDevice::get();
  if (!device.isOk())
    GTEST_SKIP() << "no CUDA device: " << device.status().toString();
  compiler::CompileOptions options = onDevice();
  options.cuda.emulatedKernels = false;
  options.cuda.target.smVersion = (*device)->info().smVersion >= 90 ? 90 : 80;
  struct Example {
    const char *name;
    std::map<std::string, std::pair<int64_t, int64_t>> ranges;
  };
  for (const Example &example :
       {Example{"elementwise_reduce",
                {{"rows", {0, 300}}, {"cols", {0, 3000}}}},
        Example{"embedding", {{"batch", {1, 8}}, {"seq", {1, 128}}}},
        Example{"mlp", {{"batch", {1, 257}}}},
        Example{"bert_encoder_layer",
                {{"batch", {1, 4}}, {"seq", {1, 128}}}}}) {
    v1::Graph graph = test::exampleGraph(example.name);
    auto executable = compiler::Compiler::compile(graph, options);
    ASSERT_TRUE(executable.isOk()) << executable.status().toString();
    for (const auto &symbols : drawShapes(example.ranges, 12, 35))
      test::expectMatchesReference(**executable, graph, symbols, 7,
                                   example.name);
  }
}

TEST(NoDevice, ACudaCompileWorksAndItsRunsSayWhatIsMissing) {
  v1::Graph graph = test::exampleGraph("elementwise_reduce");
  compiler::CompileOptions options = onDevice();
  options.cuda.emulatedKernels = false;
  auto executable = compiler::Compiler::compile(graph, options);
  ASSERT_TRUE(executable.isOk()) << executable.status().toString();
  EXPECT_FALSE((*executable)->deviceKernels().empty());
  for (const auto &kernel : (*executable)->deviceKernels())
    EXPECT_EQ(kernel.cubin.rfind("\x7f"
                                 "ELF",
                                 0),
              0u)
        << kernel.name;
  auto shapes = inputShapesFor(graph, {{"rows", 2}, {"cols", 3}});
  auto [inputs, tensors] = test::randomInputs(graph, *shapes, 0);
  auto result = (*executable)->run(tensors);
  ASSERT_FALSE(result.isOk());
  EXPECT_EQ(result.status().code(), StatusCode::FailedPrecondition);
  EXPECT_NE(result.status().message().find("no CUDA driver"), std::string::npos)
      << result.status().toString();
  // Its host object never loads without its device code (it would
  // launch with a CPU context), nor a CPU object with device code.
  auto hostOnly = jit::Executable::load((*executable)->graph(),
                                        (*executable)->objectCode());
  ASSERT_FALSE(hostOnly.isOk());
  EXPECT_EQ(hostOnly.status().code(), StatusCode::InvalidArgument);
  auto cpu = compiler::Compiler::compile(graph);
  ASSERT_TRUE(cpu.isOk());
  EXPECT_FALSE(jit::Executable::load((*cpu)->graph(), (*cpu)->objectCode(), {},
                                     (*executable)->deviceCode())
                   .isOk());
}
