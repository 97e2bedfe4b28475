// anyshape-compile-worker: one compile, for anyshape-server.
//
// The server starts one per compile (CompileWorkers.h) and talks to it on
// its stdin and stdout (WorkerProtocol.h); it is not meant to be run by
// hand. It is the only service binary that links the compiler. It exits
// without running static destructors: the result is written, and tearing
// down LLVM and the thread pools would only cost time.
#include "server/worker/WorkerMain.h"

#include <cstdio>
#include <cstring>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc > 1) {
    bool help =
        std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0;
    std::fputs("usage: anyshape-compile-worker < JOB\n\n"
               "One compile for anyshape-server, which starts it and writes "
               "the job\n(worker.proto's CompileJob, framed) on its stdin; "
               "the result comes\nback on stdout. Not meant to be run by "
               "hand; it takes no options.\n",
               help ? stdout : stderr);
    return help ? 0 : 2;
  }
  ::_exit(anyshape::server::runCompileWorker());
}
