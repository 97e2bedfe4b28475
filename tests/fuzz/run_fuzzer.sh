#!/usr/bin/env bash
# Runs a libFuzzer target for a bounded time from the committed seeds, in a
# scratch corpus (the seeds are not modified); a crash fails the test and
# leaves its input in the scratch directory, printed below, to be added as
# a regression seed.
#   run_fuzzer.sh FUZZER SEEDS_DIR SECONDS
set -euo pipefail
fuzzer=$(realpath "$1") seeds=$(realpath "$2") seconds=$3
work=$(mktemp -d /tmp/anyshape-fuzz-XXXXXX)
mkdir -p "$work/corpus"
cd "$work"
if "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
     -print_final_stats=1 -artifact_prefix="$work/" \
     "$work/corpus" "$seeds" > "$work/log" 2>&1; then
  grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb)" "$work/log" || true
  echo "fuzz: no crash in ${seconds} s ($(ls "$work/corpus" | wc -l) inputs in the corpus)"
  rm -rf "$work"
  exit 0
fi
tail -60 "$work/log"
echo "fuzz: a crash, kept in $work:" $(ls "$work" | grep -E '^(crash|leak|timeout|oom)-' || true)
exit 1
