// The client's two policies at the gRPC boundary, kept apart from the calls
// so they can be tested without a server: how a gRPC status becomes an
// anyshape::Status, and how long to wait before retrying an UNAVAILABLE call.
#pragma once

#include "anyshape/client/Client.h"

#include <grpcpp/support/status.h>

#include <chrono>

namespace anyshape::client {

/// The same code (anyshape's codes are gRPC's numbers) and message. gRPC
/// codes anyshape has no name for (CANCELLED, ABORTED, ...) keep their
/// number, and their name is put in front of the message so it is not lost.
Status fromGrpcStatus(const grpc::Status &status);

/// The wait before retry `retry` (1 for the first retry): initialBackoff *
/// 2^(retry-1), capped at maxBackoff, times `jitter` clamped to [0.5, 1]
/// (the caller draws it uniformly, so concurrent clients spread out).
std::chrono::milliseconds backoffDelay(const ClientOptions &options, int retry,
                                       double jitter);

} // namespace anyshape::client
