// Helpers of the server's end-to-end tests (EndToEndTest.cpp,
// FaultTest.cpp): raw-stub Upload calls, executions checked against the
// reference evaluator, scratch cache directories; the Compile and Stats
// calls every server test makes are tests/support/ServiceCalls.h's.
#pragma once

#include "../support/ScratchDir.h"
#include "../support/ServerProcess.h"
#include "../support/ServiceCalls.h"

#include "ir/graph/Bindings.h"
#include "ir/reference/Compare.h"
#include "ir/reference/Evaluator.h"

#include "../jit/RandomInputs.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace anyshape::test {

/// A "cache" path inside a new scratch directory (so that the cache key,
/// beside it, is scratch too), removed when the tests exit.
inline std::string freshDirectory() { return freshPath("cache"); }

/// An Execute request of `id` with `tensors` as the graph's inputs, in
/// order.
inline v1::ExecuteRequest
executeRequest(const std::string &id, const v1::Graph &graph,
               const std::vector<v1::Tensor> &tensors) {
  v1::ExecuteRequest request;
  request.set_executable_id(id);
  for (int k = 0; k < graph.inputs_size(); ++k) {
    v1::NamedTensor *input = request.add_inputs();
    input->set_name(graph.inputs(k).name());
    *input->mutable_tensor() = tensors[k];
  }
  return request;
}

/// Executes `id` at `symbols` on random inputs and checks every output
/// against the reference evaluator; returns the gRPC status (and the
/// response's timing in `timing`, if given).
inline grpc::Status
executeAndCheck(v1::AnyShape::Stub &stub, const std::string &id,
                const v1::Graph &graph,
                const std::map<std::string, int64_t> &symbols, uint64_t seed,
                v1::ExecuteTiming *timing = nullptr) {
  auto shapes = inputShapesFor(graph, symbols);
  EXPECT_TRUE(shapes.isOk());
  auto inputs = test::randomInputs(graph, *shapes, seed);
  v1::ExecuteRequest request = executeRequest(id, graph, inputs.tensors);
  grpc::ClientContext context;
  v1::ExecuteResponse response;
  grpc::Status status = stub.Execute(&context, request, &response);
  if (!status.ok())
    return status;
  if (timing)
    *timing = response.timing();
  auto expected = evaluateGraph(graph, inputs.literals);
  EXPECT_TRUE(expected.isOk());
  EXPECT_EQ(response.outputs_size(), graph.outputs_size());
  for (int k = 0; k < response.outputs_size() && expected.isOk(); ++k) {
    EXPECT_EQ(response.outputs(k).name(), graph.outputs(k));
    auto literal = literalFromTensor(response.outputs(k).tensor());
    EXPECT_TRUE(literal.isOk());
    NumericDiff diff = compareLiterals(*literal, (*expected)[k]);
    EXPECT_TRUE(diff.ok()) << "output " << k << ": " << diff.firstMismatch;
  }
  return status;
}

inline std::string cacheFileIn(const std::string &dir) {
  for (const auto &entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".anyshape")
      return entry.path();
  return "";
}

/// Uploads `tensor` in chunks of `chunkBytes`.
inline grpc::Status upload(v1::AnyShape::Stub &stub, const v1::Tensor &tensor,
                           size_t chunkBytes,
                           v1::UploadTensorResponse &response) {
  grpc::ClientContext context;
  auto writer = stub.UploadTensor(&context, &response);
  size_t at = 0;
  do {
    v1::UploadTensorChunk chunk;
    if (at == 0) {
      chunk.set_dtype(tensor.dtype());
      *chunk.mutable_shape() = tensor.shape();
    }
    chunk.set_data(tensor.data().substr(at, chunkBytes));
    at += chunkBytes;
    if (!writer->Write(chunk))
      break;
  } while (at < tensor.data().size());
  writer->WritesDone();
  return writer->Finish();
}

} // namespace anyshape::test
