#!/usr/bin/env bash
# Dynamic batching measured: one server without it and one with
# --max-batch, each loaded by anyshape-load at 1, 8 and 32 clients sending
# fixed-size requests (the BERT encoder layer, batch 1, seq LENGTH), the
# two servers alternated per client count; one JSON line per run.
#   bench/dynamic_batching.sh [LENGTH=8] [REQUESTS_PER_CLIENT=40] [BUILD=build]
# docs/benchmarks.md, "Service: dynamic batching", reads these.
set -eu
length=${1:-8} per=${2:-40} build=${3:-build}
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$work"' EXIT
start() { # NAME ARGS...: a server, its address in $work/NAME
  local name=$1
  shift
  "$build/bin/anyshape-server" --listen 127.0.0.1:0 \
    --port-file "$work/$name" "$@" 2>"$work/$name.log" &
  pids+=($!)
  for ((w = 0; w < 2000; ++w)); do
    [ -s "$work/$name" ] && return
    sleep 0.005
  done
  echo "server $name did not start" >&2
  exit 1
}
start plain
start batching --max-batch 64 --max-batch-delay-us 2000
for clients in 1 8 32; do
  for name in plain batching; do
    json=$("$build/bin/anyshape-load" --server "$(cat "$work/$name")" \
      --clients "$clients" --requests $((clients * per)) \
      --min "$length" --max "$length" --passes 2 --json)
    echo "{\"server\": \"$name\", \"length\": $length, \"result\": $json}"
  done
done
