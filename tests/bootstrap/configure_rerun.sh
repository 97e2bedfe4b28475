#!/usr/bin/env bash
# A re-run of scripts/configure after a failed configure ends in the same
# clang-19 build as a first run. The failure is made the way the real one
# happened: the old bootstrap's cmake call (compilers by bare name) stopped
# after project() had written the compilers' resolved paths into the cache;
# re-running that call on that cache configured a g++ build.
#   configure_rerun.sh SOURCE_DIR
set -euo pipefail
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build=$tmp/build
fail() { echo "FAIL: $*" >&2; exit 1; }
cxx_in_cache() { sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt"; }
want_cxx=$(command -v clang++-19)

echo 'message(FATAL_ERROR "configure stopped after project() (simulated)")' > "$tmp/stop.cmake"
if cmake -S "$src" -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang-19 \
     -DCMAKE_CXX_COMPILER=clang++-19 -DCMAKE_PREFIX_PATH=/usr/lib/llvm-19 \
     -DCMAKE_PROJECT_INCLUDE="$tmp/stop.cmake" > "$tmp/failed.log" 2>&1; then
  fail "the simulated configure failure did not fail"
fi
[ -f "$build/CMakeCache.txt" ] || fail "the failed configure left no cache to trip over"

echo "== re-run after the failed configure"
BUILD_DIR=$build "$src/scripts/configure" > "$tmp/rerun.log" 2>&1 || { cat "$tmp/rerun.log"; fail "re-run failed"; }
grep -E '^configure: ' "$tmp/rerun.log"
grep -q "^configure: C $(command -v clang-19), C++ $want_cxx" "$tmp/rerun.log" \
  || fail "configure does not print the compilers it uses"
[ "$(cxx_in_cache)" = "$want_cxx" ] || fail "C++ compiler is $(cxx_in_cache), expected $want_cxx"
[ -f "$build/.configured" ] || fail "no stamp after a finished configure"

echo "== a finished configure is kept"
BUILD_DIR=$build "$src/scripts/configure" > "$tmp/again.log" 2>&1 || fail "second run failed"
[ ! -s "$tmp/again.log" ] || { cat "$tmp/again.log"; fail "a finished configure was redone"; }

echo "== an interrupted re-configure (no stamp) is redone afresh"
rm "$build/.configured"
BUILD_DIR=$build "$src/scripts/configure" > "$tmp/interrupted.log" 2>&1 || fail "re-run failed"
grep -q "configuring it afresh" "$tmp/interrupted.log" || fail "a configure without a stamp was trusted"
[ "$(cxx_in_cache)" = "$want_cxx" ] || fail "C++ compiler is $(cxx_in_cache) after the redo"
echo "PASS: every re-run configured C++ with $want_cxx"
