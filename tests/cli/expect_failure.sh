#!/usr/bin/env bash
# Runs a command that must fail cleanly: exit status 1 (not 0, not a usage
# error, not a crash or signal) with output matching an extended regex.
#   expect_failure.sh REGEX COMMAND [ARGS...]
set -u
regex=$1; shift
output=$(timeout 60 "$@" 2>&1); rc=$?
echo "$output"
if [ "$rc" -ne 1 ]; then
  echo "FAIL: expected exit status 1, got $rc" >&2
  exit 1
fi
if ! grep -Eq -- "$regex" <<<"$output"; then
  echo "FAIL: output does not match /$regex/" >&2
  exit 1
fi
