#!/usr/bin/env bash
# Runs node_cases.py on bench/peers/.venv's Python (which has the onnx
# package); skips, saying so, where that venv is missing.
#   run.sh SOURCE_DIR ZOO_CHECK WORK BACKEND [node_cases.py options]
set -euo pipefail
source_dir=$1 zoo_check=$2 work=$3 backend=$4
shift 4
python=$source_dir/bench/peers/.venv/bin/python
if ! [ -x "$python" ] || ! "$python" -c "import onnx" 2>/dev/null; then
  echo "SKIPPED: no bench/peers/.venv with onnx (run bench/peers/setup" \
       "onnxruntime)"
  exit 77
fi
exec "$python" "$source_dir/tests/onnx/conformance/node_cases.py" \
  "$zoo_check" "$work" --backend "$backend" "$@"
