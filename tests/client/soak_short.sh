#!/usr/bin/env bash
# The short soak of CI (issue 20): anyshape-load --soak against one real
# server for SECONDS with 4 clients -- compiles and executions of 8 graphs
# at random shapes, a sample checked against the reference evaluator, 5%
# malformed requests that must get their codes, the server's RSS growth
# bounded -- then the server must drain and exit 0.
#   soak_short.sh SERVER LOAD SECONDS
set -euo pipefail
server=$1 load=$2 seconds=$3
dir=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$dir"' EXIT

"$server" --listen 127.0.0.1:0 --port-file "$dir/port" \
  --metrics-listen 127.0.0.1:0 --drain-seconds 10 2>"$dir/log" &
pid=$!
for _ in $(seq 600); do [ -s "$dir/port" ] && break; sleep 0.05; done
address=$(cat "$dir/port")
# The metrics address is only in the server's startup log line.
metrics=$(grep -o '"metrics":"[^"]*"' "$dir/log" | head -1 | cut -d'"' -f4)
[ -n "$metrics" ] || { echo "FAIL: no metrics address in the log" >&2; exit 1; }

out=$("$load" --server "$address" --metrics "$metrics" --soak "$seconds" \
  --clients 4 --seed 7)
echo "$out"
grep -q "soak: passed" <<<"$out"
grep -Eq "soak: [0-9]+ requests" <<<"$out"

kill -TERM "$pid"
wait "$pid"
pid=
echo "server drained and exited 0"
