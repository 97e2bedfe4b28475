#!/usr/bin/env bash
# A server's cost before its first request: the time from its start to the
# port file (serving) and its resident memory after 3 s idle, N starts.
#   bench/server_idle.sh SERVER_BINARY [N=5] [SERVER ARGS...]
# Alternate two binaries to compare them (docs/benchmarks.md).
set -u
server=$1 runs=${2:-5}
shift $(( $# >= 2 ? 2 : 1 ))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for ((i = 0; i < runs; ++i)); do
  rm -f "$work/port"
  start=$(date +%s%N)
  "$server" --listen 127.0.0.1:0 --port-file "$work/port" "$@" 2>/dev/null &
  pid=$!
  for ((w = 0; w < 2000; ++w)); do
    [ -s "$work/port" ] && break
    sleep 0.005
  done
  ready=$(date +%s%N)
  sleep 3
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
  echo "start_ms=$(( (ready - start) / 1000000 )) idle_rss_kib=$rss"
  kill "$pid"
  wait "$pid" 2>/dev/null
done
