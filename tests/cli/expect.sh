#!/usr/bin/env bash
# Runs a command and checks how it ended: the exit status must be exactly
# STATUS (1 for a clean failure: not 0, not a usage error, not a crash or
# signal), the output must match an extended regex, and it must never say
# MISMATCH (a result that differs from the reference evaluator).
#   expect.sh STATUS REGEX COMMAND [ARGS...]
set -u
status=$1 regex=$2; shift 2
output=$(timeout 300 "$@" 2>&1); rc=$?
echo "$output"
if [ "$rc" -ne "$status" ]; then
  echo "FAIL: expected exit status $status, got $rc" >&2
  exit 1
fi
if ! grep -Eq -- "$regex" <<<"$output"; then
  echo "FAIL: output does not match /$regex/" >&2
  exit 1
fi
if grep -q MISMATCH <<<"$output"; then
  echo "FAIL: a result differs from the reference" >&2
  exit 1
fi
