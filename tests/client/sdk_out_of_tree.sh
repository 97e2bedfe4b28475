#!/usr/bin/env bash
# The installed C++ SDK from an outside project: `cmake --install` the
# build into a fresh prefix, configure and build examples/sdk against it
# (find_package(anyshape), no source tree, no LLVM), and run the program
# against a real anyshape-server; it checks its own results and that the
# server compiled once. The installed package must not mention LLVM/MLIR.
#   sdk_out_of_tree.sh BUILD_DIR SOURCE_DIR SERVER CXX_COMPILER
set -euo pipefail
build=$1 source=$2 server=$3 cxx=$4
dir=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$dir"' EXIT

cmake --install "$build" --prefix "$dir/prefix" >/dev/null
if grep -rqiE "llvm|mlir" "$dir/prefix/lib/cmake/anyshape"; then
  echo "FAIL: the installed package names LLVM or MLIR" >&2
  exit 1
fi
# The package's version is the repository's VERSION (its one owner).
if ! grep -q "PACKAGE_VERSION \"$(cat "$source/VERSION")\"" \
    "$dir/prefix/lib/cmake/anyshape/anyshapeConfigVersion.cmake"; then
  echo "FAIL: the installed package's version is not VERSION's" >&2
  exit 1
fi
linker=()
case "$cxx" in *clang*) linker=(-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld) ;; esac
cmake -S "$source/examples/sdk" -B "$dir/example" -G Ninja \
  -DCMAKE_PREFIX_PATH="$dir/prefix" -DCMAKE_CXX_COMPILER="$cxx" \
  "${linker[@]}" >/dev/null
cmake --build "$dir/example" >/dev/null

"$server" --listen 127.0.0.1:0 --port-file "$dir/port" 2>"$dir/log" &
pid=$!
for _ in $(seq 600); do [ -s "$dir/port" ] && break; sleep 0.05; done
out=$("$dir/example/sdk-example" "$(cat "$dir/port")")
echo "$out"
grep -q "one compile (compiled now), ok" <<<"$out"
