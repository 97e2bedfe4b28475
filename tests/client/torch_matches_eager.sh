#!/usr/bin/env bash
# Runs client/python/tests/test_torch.py on bench/peers/.venv's Python
# (torch, transformers) with the package as the build stages it; skips,
# saying so, where that venv is missing.
#   torch_matches_eager.sh SOURCE_DIR PYTHON_PACKAGE_DIR SERVER
set -euo pipefail
source_dir=$1 package=$2 server=$3
python=$source_dir/bench/peers/.venv/bin/python
if ! [ -x "$python" ] || ! "$python" -c 'import torch, transformers' 2>/dev/null; then
  echo "SKIPPED: no bench/peers/.venv with torch and transformers (run bench/peers/setup torch minilm)"
  exit 77
fi
cd "$source_dir"
ANYSHAPE_SERVER=$server PYTHONPATH=$package exec "$python" -m unittest -v \
  client/python/tests/test_torch.py
