// The compile worker's side: `anyshape-server --compile-worker` reads one
// CompileJob and its stored tensors from stdin, writes kJobReceived to
// stdout, compiles in this process (compileForCache) and writes one
// CompileJobResult after it (CompileWorkers.h runs it). Returns the
// process's exit status: 0 when a result was written, whether the compile
// succeeded or failed.
#pragma once

namespace anyshape::server {

/// The first byte a worker writes, once it has its whole job: a worker that
/// dies without it never started the compile (a spare killed while it
/// waited), so the job is not to blame and gets another worker.
constexpr char kJobReceived = 'J';

int runCompileWorker();

} // namespace anyshape::server
