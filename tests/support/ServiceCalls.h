// The raw-stub calls every test of a running server makes: Compile (with
// its time, and the failure printed, since a test of faults reads it) and
// Stats. One copy, for the server's end-to-end, fault and compile-worker
// tests.
#pragma once

#include "anyshape/v1/service.grpc.pb.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>

namespace anyshape::test {

struct Called {
  grpc::Status status;
  v1::CompileResponse compiled;
  double seconds = 0; ///< the call's, as the client waited
};

/// Compile of `graph` with `options`, waiting at most `deadline`.
inline Called
compile(v1::AnyShape::Stub &stub, const v1::Graph &graph,
        const v1::CompileOptions &options = {},
        std::chrono::milliseconds deadline = std::chrono::minutes(5)) {
  v1::CompileRequest request;
  *request.mutable_graph() = graph;
  *request.mutable_options() = options;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + deadline);
  Called called;
  auto start = std::chrono::steady_clock::now();
  called.status = stub.Compile(&context, request, &called.compiled);
  called.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (!called.status.ok())
    std::printf("compile of %s: code %d after %.2f s: %s\n",
                graph.name().c_str(), called.status.error_code(),
                called.seconds, called.status.error_message().c_str());
  return called;
}

/// Compiles `graph`; its executable id, or "" (with a failure) if the
/// compile failed.
inline std::string compiledId(v1::AnyShape::Stub &stub,
                              const v1::Graph &graph) {
  Called called = compile(stub, graph);
  EXPECT_TRUE(called.status.ok()) << called.status.error_message();
  return called.status.ok() ? called.compiled.info().executable_id() : "";
}

inline v1::StatsResponse stats(v1::AnyShape::Stub &stub) {
  grpc::ClientContext context;
  v1::StatsResponse response;
  EXPECT_TRUE(stub.Stats(&context, v1::StatsRequest(), &response).ok());
  return response;
}

} // namespace anyshape::test
