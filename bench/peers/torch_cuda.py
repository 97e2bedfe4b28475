"""PyTorch eager on the GPU: the encoder of encoder.py, timed the way
anyshape-bench-cuda times anyshape's CUDA executable.

scripts/gpu-check runs it on a lent GPU machine (its own Python, torch
with CUDA). Each run starts from host arrays and ends with the output back
in host memory (x and mask copied in, the layers, the output copied out),
as Executable::run does, so the two are compared on the same work. FP32
throughout: TF32 is off, as anyshape's cuBLASLt GEMMs use
CUBLAS_COMPUTE_32F. The output at the first length is checked against the
numpy reference first.

  python3 bench/peers/torch_cuda.py [--seqs 16,128,512] [--layers 1]
                                    [--batch 1] [--runs 50] [--out FILE.json]
                                    [--device cpu]  (a check without a GPU)
"""

import argparse
import json
import statistics
import sys
import time

import numpy as np

import encoder
import systems


class TorchEagerCuda(systems.TorchEager):
    """TorchEager with its weights, inputs and output on `device`."""

    def __init__(self, layers, device="cuda"):
        super().__init__(layers, threads=1)
        torch = self.torch
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        self.device = device
        self.w = [{k: v.to(device) for k, v in w.items()} for w in self.w]

    def run(self, x, mask):
        torch = self.torch
        with torch.inference_mode():
            out = self.forward(torch.from_numpy(x).to(self.device),
                               torch.from_numpy(mask).to(self.device))
            return out.cpu().numpy()  # waits for the device


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seqs", default="16,128,512")
    parser.add_argument("--layers", type=int, default=1)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--out", help="write the results as JSON here")
    parser.add_argument("--device", default="cuda")
    args = parser.parse_args()

    import torch
    if args.device == "cuda" and not torch.cuda.is_available():
        print("torch_cuda: no CUDA device for torch", file=sys.stderr)
        return 1
    system = TorchEagerCuda(args.layers, args.device)
    rng = np.random.default_rng(7)
    device_name = (torch.cuda.get_device_name() if args.device == "cuda"
                   else args.device)
    results = {"system": f"PyTorch eager ({args.device})",
               "device": device_name,
               "torch": torch.__version__, "layers": args.layers,
               "batch": args.batch, "seqs": {}}
    for index, seq in enumerate(int(s) for s in args.seqs.split(",")):
        x = rng.uniform(-1, 1, (args.batch, seq, encoder.HIDDEN)).astype(
            np.float32)
        mask = np.ones((args.batch, seq), np.float32)
        mask[:, seq - seq // 4:] = 0  # a padded tail
        if index == 0:
            want = systems.reference(x, mask, system.weights)
            error = float(np.max(np.abs(system.run(x, mask) - want)))
            results["max_abs_error"] = error
            if error > 1e-3:
                print(f"torch_cuda: off the reference by {error}",
                      file=sys.stderr)
                return 1
        for _ in range(5):  # warm: cuBLAS handles, the caching allocator
            system.run(x, mask)
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            system.run(x, mask)
            times.append((time.perf_counter() - start) * 1e3)
        results["seqs"][seq] = {"median_ms": statistics.median(times),
                                "min_ms": min(times)}
        print(f"seq {seq}: median {statistics.median(times):.3f} ms, "
              f"min {min(times):.3f} ms")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
