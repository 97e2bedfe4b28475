#!/usr/bin/env bash
# The compiler/runtime split, checked (docs/architecture.md, Folders):
#   check_layers.sh SOURCE_DIR BINARY
# fails, naming what breaks it, when BINARY (anyshape-server) links MLIR,
# or when a file of the serving side includes the compiler's headers: the
# loader and run path (jit/), the runtime (runtime/) and the server
# (server/, but for the compile worker's own files).
set -u
source_dir=$1 binary=$2
failed=0
if ldd "$binary" | grep -i 'libMLIR'; then
  echo "FAIL: $binary links MLIR (above): the serving process must not" >&2
  failed=1
fi
cd "$source_dir" || exit 2
serving=$(find jit runtime server -name '*.h' -o -name '*.cpp' 2>/dev/null |
  grep -Ev '^server/(ExecutableInfo\.|worker/(CompileJob\.|WorkerMain\.|main\.cpp))' |
  sort)
if [ -z "$serving" ]; then
  echo "FAIL: no sources under $source_dir/{jit,runtime,server}" >&2
  exit 2
fi
if grep -nHE '#include "(compiler|codegen|frontend|ir/dhlo|ir/import|mlir)/' \
    $serving; then
  echo "FAIL: the serving side includes the compiler's headers (above)" >&2
  failed=1
fi
[ "$failed" -eq 0 ] && echo "OK: $(basename "$binary") links no compiler"
exit "$failed"
