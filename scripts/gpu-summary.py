"""The tables of scripts/gpu-check's summary, from what its checks wrote.

  python3 scripts/gpu-summary.py RESULTS_DIR   (bench-cuda.json from
  anyshape-bench-cuda, torch-cuda.json from bench/peers/torch_cuda.py)

The encoder's fraction of static performance per seq (goal >= 95%) and
its device time split into GEMMs and fusions; PyTorch eager on the same
GPU against anyshape (goal >= 2x at seq 128); memory-bound fusions'
bandwidth against the device-to-device copy and HBM's peak (goal >= 70%);
the row kernels' schedules side by side.
A missing file leaves its columns empty and says why.
"""

import json
import os
import sys

HBM_PEAK = 4.8e12  # H200 SXM's HBM3e, bytes per second (NVIDIA's figure)


def load(path, what):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"\n(no {what}: {e})")
        return None


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(sys.argv) == 2 else 2
    results = sys.argv[1]
    bench = load(os.path.join(results, "bench-cuda.json"), "benchmark results")
    runs = {b["name"]: b for b in (bench or {}).get("benchmarks", [])
            if "real_time" in b and not b.get("error_occurred")}
    torch = (load(os.path.join(results, "torch-cuda.json"), "PyTorch results")
             or {}).get("seqs", {})

    print("\n| encoder, batch 1 | dynamic ms | static ms | static / dynamic "
          "| GEMMs ms (device) | fusions ms (device) | launches + GEMMs "
          "| PyTorch eager ms | PyTorch / anyshape |")
    print("|---|---|---|---|---|---|---|---|---|")
    for seq in (16, 128, 512):
        d = runs.get(f"BM_CudaEncoderDynamic/{seq}/real_time")
        s = runs.get(f"BM_CudaEncoderStatic/{seq}/real_time")
        t = torch.get(str(seq))
        if not d:
            continue
        cells = [f"seq {seq}", f"{d['real_time']:.3f}"]
        cells += ([f"{s['real_time']:.3f}",
                   f"{s['real_time'] / d['real_time']:.3f}"] if s else ["", ""])
        cells += [f"{d.get('gemm_ms', 0):.3f}", f"{d.get('kernels_ms', 0):.3f}",
                  f"{d.get('calls', 0):.0f}"]
        cells += ([f"{t['median_ms']:.3f}",
                   f"{t['median_ms'] / d['real_time']:.2f}"] if t else ["", ""])
        print("| " + " | ".join(cells) + " |")

    torch8 = (load(os.path.join(results, "torch-cuda-batch8.json"),
                   "PyTorch batch-8 results") or {}).get("seqs", {})
    print("\n| encoder, batch 8 | dynamic ms | GEMMs ms (device) "
          "| fusions ms (device) | PyTorch eager ms | PyTorch / anyshape |")
    print("|---|---|---|---|---|---|")
    for seq in (128, 512):
        d = runs.get(f"BM_CudaEncoderBatch8/{seq}/real_time")
        t = torch8.get(str(seq))
        if not d:
            continue
        cells = [f"seq {seq}", f"{d['real_time']:.3f}",
                 f"{d.get('gemm_ms', 0):.3f}", f"{d.get('kernels_ms', 0):.3f}"]
        cells += ([f"{t['median_ms']:.3f}",
                   f"{t['median_ms'] / d['real_time']:.2f}"] if t else ["", ""])
        print("| " + " | ".join(cells) + " |")

    print("\n| memory-bound, device time | GB/s | of the copy | of 4.8 TB/s |")
    print("|---|---|---|---|")
    copy = runs.get("BM_CudaCopy/iterations:20/manual_time")
    if copy:
        rate = copy["bytes_per_second"]
        print(f"| device-to-device copy, 1 GiB | {rate / 1e9:.0f} | 1 "
              f"| {rate / HBM_PEAK:.2f} |")
    for name in ("LoopFusion", "Gelu", "Softmax", "MaskedSoftmax",
                 "LayerNorm"):
        b = runs.get(f"BM_Cuda{name}/iterations:10/manual_time")
        if b:
            rate = b["bytes_per_second"]
            print(f"| {name} | {rate / 1e9:.0f} | {b.get('of_copy', 0):.2f} "
                  f"| {rate / HBM_PEAK:.2f} |")

    sweep = {}
    for name, b in runs.items():
        parts = name.split("/")
        if parts[0] == "BM_CudaRowSchedules" and len(parts) >= 4:
            n, schedule, op = (int(p) for p in parts[1:4])
            sweep[(op, n, schedule)] = b
    if sweep:
        print("\n| row kernel, device time | row length | warp per row GB/s "
              "| block per row GB/s | chosen per run GB/s |")
        print("|---|---|---|---|---|")
        for op, n in sorted({(op, n) for op, n, _ in sweep}):
            cells = ["layer norm" if op else "softmax", str(n)]
            for schedule in (0, 1, 2):
                b = sweep.get((op, n, schedule))
                cells.append(f"{b['bytes_per_second'] / 1e9:.0f}" if b else "")
            print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
