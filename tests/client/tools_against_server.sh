#!/usr/bin/env bash
# The command-line tools against one real anyshape-server: `anyshape
# --server` eval (checked against the reference evaluator) and stats,
# anyshape-load with the server's RSS from its metrics endpoint (and the
# same trace --in-process, no server, and both ways --against-in-process),
# and the
# encoder client example that scripts/demo runs; then SIGTERM must stop the
# server cleanly and the CLI must report it unreachable (exit 1).
#   tools_against_server.sh SERVER ANYSHAPE LOAD ENCODER_CLIENT EXAMPLES_DIR
set -euo pipefail
server=$1 cli=$2 load=$3 encoder=$4 examples=$5
dir=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$dir"' EXIT

expect() { # expect REGEX OUTPUT
  if ! grep -Eq -- "$1" <<<"$2"; then
    echo "FAIL: output does not match /$1/" >&2
    exit 1
  fi
}

"$server" --listen 127.0.0.1:0 --port-file "$dir/port" \
  --metrics-listen 127.0.0.1:0 2>"$dir/log" &
pid=$!
for _ in $(seq 600); do [ -s "$dir/port" ] && break; sleep 0.05; done
address=$(cat "$dir/port")
# The metrics address is only in the server's startup log line.
metrics=$(grep -o '"metrics":"[^"]*"' "$dir/log" | head -1 | cut -d'"' -f4)
echo "server at $address, metrics at ${metrics:-(unknown)}"

echo "== anyshape --server eval"
out=$("$cli" --server "$address" eval "$examples/mlp.pbtxt" \
  --sweep batch=1,3,8 --check --seed 4)
echo "$out"
expect "backend server  dims batch=8" "$out"
expect "server compiles: 1, cache hits: 0" "$out"
if grep -q MISMATCH <<<"$out"; then exit 1; fi

echo "== anyshape --server stats"
out=$("$cli" --server "$address" stats)
echo "$out"
expect '^\{"compiles": 1, "compile_errors": 0, "cache_hits": 0, "cache_misses": 1, "disk_loads": 0, ' "$out"
expect '"stored_tensor_bytes": [0-9]+\}$' "$out"

echo "== anyshape-load"
out=$("$load" --server "$address" --graph "$examples/mlp.pbtxt" \
  --symbol batch --min 1 --max 16 --dist skewed --clients 4 --requests 40 \
  --json ${metrics:+--metrics "$metrics"})
echo "$out"
expect '"ok": 40, "errors": 0' "$out"
expect '"compiles": 0, "cache_hits": 1, "cache_misses": 0' "$out"
expect '"server_run_ms_p50": [0-9.]+, "overhead_ms_p50": [0-9.]+' "$out"
if [ -n "$metrics" ]; then expect '"peak_rss_bytes": [0-9]' "$out"; fi

echo "== anyshape-load --in-process (the same trace without a server)"
out=$("$load" --in-process --graph "$examples/mlp.pbtxt" \
  --symbol batch --min 1 --max 16 --dist skewed --clients 4 --requests 40 \
  --json)
echo "$out"
expect '^\{"server": "in-process", ' "$out"
expect '"server_run_ms_p50": null, "overhead_ms_p50": null' "$out"
expect '"ok": 40, "errors": 0' "$out"
expect '"compiles": 1, "cache_hits": 0, "cache_misses": 0' "$out"
expect '"peak_rss_bytes": [0-9]' "$out"

echo "== anyshape-load --against-in-process (the trace both ways, one client)"
out=$("$load" --server "$address" --against-in-process --graph \
  "$examples/mlp.pbtxt" --symbol batch --min 1 --max 16 --requests 20 \
  --passes 2 --json)
echo "$out"
expect '"mode": "against-in-process", "requests": 20, "errors": 0, ' "$out"
expect '"total_ratio": [0-9.]+, ' "$out"
expect '"server_run_ms_p50": [0-9.]+, ' "$out"
expect '"passes": \[\{[^]]*\}, \{[^]]*\}\]' "$out" # two passes
status=0
out=$("$load" --server "$address" --against-in-process --clients 2 2>&1) ||
  status=$?
[ "$status" -eq 2 ] || { echo "FAIL: expected exit 2, got $status" >&2; exit 1; }
expect "one client's comparison" "$out"

echo "== anyshape-load --in-process --mode static|buckets: compiles per size"
echo "3 5 3 8 1" >"$dir/lengths"
out=$("$load" --in-process --graph "$examples/mlp.pbtxt" --symbol batch \
  --lengths "$dir/lengths" --passes 2 --clients 2 --mode static --json)
echo "$out"
expect '"ok": 5, "errors": 0' "$out"
expect '"compiles": 4, ' "$out" # 3, 5, 8, 1
expect '"mode": "static"' "$out"
out=$("$load" --in-process --graph "$examples/mlp.pbtxt" --symbol batch \
  --lengths "$dir/lengths" --clients 2 --mode buckets --json)
echo "$out"
expect '"ok": 5, "errors": 0' "$out"
expect '"compiles": 3, ' "$out" # buckets 4, 8, 1

echo "== anyshape-load --in-process --mode reference: no compile"
out=$("$load" --in-process --graph "$examples/mlp.pbtxt" --symbol batch \
  --lengths "$dir/lengths" --clients 2 --mode reference --json)
echo "$out"
expect '"ok": 5, "errors": 0' "$out"
expect '"compiles": 0, ' "$out"
expect '"mode": "reference"' "$out"

echo "== encoder client"
out=$("$encoder" --server "$address" --lengths 1,3,20)
echo "$out"
expect "uploaded 7 weight tensors" "$out"
expect " 20 +[0-9.]+  y: f32\[1, 20, 768\]" "$out"
expect "server: 2 compiles, 2 cache hits, 2 cache misses" "$out" # mlp: load, against

echo "== SIGTERM"
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pid=
[ "$status" -eq 0 ] || { echo "FAIL: server exited $status" >&2; exit 1; }
status=0
out=$("$cli" --server "$address" stats 2>&1) || status=$?
echo "$out"
[ "$status" -eq 1 ] || { echo "FAIL: expected exit 1, got $status" >&2; exit 1; }
expect "cannot connect to an anyshape server" "$out"
echo "PASS"
