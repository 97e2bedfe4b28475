#!/usr/bin/env bash
# Runs a command that must succeed (exit status 0) with output matching an
# extended regex and never containing "MISMATCH".
#   expect_success.sh REGEX COMMAND [ARGS...]
set -u
regex=$1; shift
output=$(timeout 300 "$@" 2>&1); rc=$?
echo "$output"
if [ "$rc" -ne 0 ]; then
  echo "FAIL: expected exit status 0, got $rc" >&2
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
