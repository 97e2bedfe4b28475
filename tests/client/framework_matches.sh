#!/usr/bin/env bash
# Runs one of the framework entry points' tests (client/python/tests/
# test_torch.py, test_jax.py) on bench/peers/.venv's Python with the
# package as the build stages it; skips, saying so, where that venv lacks
# the framework.
#   framework_matches.sh SOURCE_DIR PYTHON_PACKAGE_DIR SERVER TEST MODULES
#   (MODULES: what the test imports, e.g. "torch, transformers")
set -euo pipefail
source_dir=$1 package=$2 server=$3 test=$4 modules=$5
python=$source_dir/bench/peers/.venv/bin/python
if ! [ -x "$python" ] || ! "$python" -c "import $modules" 2>/dev/null; then
  echo "SKIPPED: no bench/peers/.venv with $modules (run bench/peers/setup)"
  exit 77
fi
if ! "$python" -c "import grpc, google.protobuf" 2>/dev/null; then
  echo "SKIPPED: bench/peers/.venv lacks the client's grpcio and protobuf" \
       "(run bench/peers/setup again)"
  exit 77
fi
cd "$source_dir"
ANYSHAPE_SERVER=$server PYTHONPATH=$package exec "$python" -m unittest -v \
  "client/python/tests/$test"
