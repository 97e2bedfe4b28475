// The compile worker's side: `anyshape-compile-worker` reads one
// CompileJob and its stored tensors from stdin, writes kJobReceived to
// stdout, compiles in this process (compileForCache) and writes one
// CompileJobResult after it (CompileWorkers.h runs it). Returns the
// process's exit status: 0 when a result was written, whether the compile
// succeeded or failed.
#pragma once

namespace anyshape::server {

int runCompileWorker();

} // namespace anyshape::server
