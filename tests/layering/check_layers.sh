#!/usr/bin/env bash
# The compiler/runtime split, checked (docs/architecture.md, Folders):
#   check_layers.sh SOURCE_DIR BINARY [BUILD_DIR]
# fails, naming what breaks it, when BINARY (anyshape-server) links MLIR,
# or when a file of the serving side includes the compiler's headers, or
# the worker's headers that include them: the loader and run path (jit/),
# the runtime (runtime/) and the server (server/, but for the compile
# worker's own files). With BUILD_DIR (a ninja build), the headers each
# object of the serving libraries was compiled with are checked too, which
# catches a compiler header reached through another header.
set -u
source_dir=$1 binary=$2 build_dir=${3:-}
failed=0
if ldd "$binary" | grep -i 'libMLIR'; then
  echo "FAIL: $binary links MLIR (above): the serving process must not" >&2
  failed=1
fi
cd "$source_dir" || exit 2
serving=$(find jit runtime server -name '*.h' -o -name '*.cpp' 2>/dev/null |
  grep -Ev '^server/worker/(CompileJob|ExecutableInfo|WorkerMain|main)\.' |
  sort)
if [ -z "$serving" ]; then
  echo "FAIL: no sources under $source_dir/{jit,runtime,server}" >&2
  exit 2
fi
compile_side='(compiler|codegen|frontend|ir/dhlo|ir/import|mlir)/|server/worker/(CompileJob|ExecutableInfo|WorkerMain)\.h'
if grep -nHE "#include \"($compile_side)" $serving; then
  echo "FAIL: the serving side includes the compiler's headers (above)" >&2
  failed=1
fi
if [ -n "$build_dir" ]; then
  reached=$(ninja -C "$build_dir" -t deps |
    awk '/^[^ ]/ {object = $1} /^    / {print object, $1}' |
    grep -E '^(server/CMakeFiles/anyshape_service|jit/CMakeFiles/anyshape_jit|runtime/CMakeFiles/anyshape_(cuda_)?runtime)\.dir/' |
    grep -E " (\S*/include/mlir/|\.\./($compile_side))")
  if [ -n "$reached" ]; then
    echo "$reached"
    echo "FAIL: a serving library was compiled with the compiler's headers (above)" >&2
    failed=1
  fi
fi
[ "$failed" -eq 0 ] && echo "OK: $(basename "$binary") links no compiler"
exit "$failed"
