#!/usr/bin/env bash
# One seam per target (docs/architecture.md), checked:
#   check_targets.sh SOURCE_DIR
# fails, naming the line, when one target's codegen includes another's
# (codegen/CPU and codegen/CUDA each build on codegen/Common alone), or
# when the compiler names a target's pipeline or picks a target anywhere
# but its Backend seam (compiler/Backend.*, compiler/backends/, and
# Compiler.*, whose backendFor makes the one Backend of a compile).
set -u
cd "$1" || exit 2
failed=0
report() { # $1: what breaks the rule; $2: the lines that break it
  if [ -n "$2" ]; then
    echo "$2"
    echo "FAIL: $1 (above)" >&2
    failed=1
  fi
}
report "codegen/CPU or codegen/Common includes codegen/CUDA" \
  "$(grep -rnE '#include "codegen/CUDA/' codegen/CPU codegen/Common 2>/dev/null)"
report "codegen/CUDA or codegen/Common includes codegen/CPU's passes" \
  "$(grep -rnE '#include "codegen/CPU/(CpuPipeline|Passes)' codegen/CUDA \
       codegen/Common 2>/dev/null)"
report "the compiler names a target's pipeline outside compiler/backends/" \
  "$(grep -rnE 'build(Cpu|Cuda)Pipeline|registerCudaPipelineDialects' \
       compiler 2>/dev/null | grep -vE '^compiler/(backends/|Backend\.)')"
report "the compiler picks a target outside its Backend seam" \
  "$(grep -rnE 'KernelBackend::k' compiler 2>/dev/null |
       grep -vE '^compiler/(Backend|Compiler)\.')"
[ "$failed" -eq 0 ] && echo "OK: one seam per target"
exit "$failed"
