// What the server and its compile workers exchange, and nothing that
// compiles: both sides include it, the server without linking the
// compiler. A job goes to the worker on its stdin as worker.proto's
// CompileJob followed by the stored tensors it names, each framed (a u64
// little-endian byte count, then the bytes); the worker answers on stdout
// with kJobReceived once it has the whole job, then one framed
// CompileJobResult (WorkerMain.h, CompileWorkers.h).
#pragma once

#include "anyshape/v1/service.pb.h"
#include "runtime/support/Status.h"

#include <google/protobuf/message.h>

#include <string>
#include <vector>

namespace anyshape::server {

/// The first byte a worker writes, once it has its whole job: a worker that
/// dies without it never started the compile (a spare killed while it
/// waited), so the job is not to blame and gets another worker.
constexpr char kJobReceived = 'J';

/// The stored tensors the graph's constants reference, each once, in
/// order of first use.
std::vector<std::string> storedTensorIds(const v1::Graph &graph);

/// Appends one framed message to `out` (written with server/Io.h's
/// writeAll).
void appendFramed(const google::protobuf::Message &message, std::string &out);
/// Reads one framed message from a blocking `fd` (at most `maxBytes`).
Status readFramed(int fd, google::protobuf::Message &message,
                  uint64_t maxBytes);

} // namespace anyshape::server
