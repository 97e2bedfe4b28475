"""bench/peers/minilm.py: all-MiniLM-L6-v2 through anyshape, ONNX Runtime
and PyTorch eager, side by side in one run, on one trace of sentence
lengths at batch 1 and batch 8 (batches of mixed lengths, padded to the
longest, with the attention mask).

    HF_HUB_OFFLINE=1 bench/peers/.venv/bin/python bench/peers/minilm.py \\
        [--count 40] [--out FILE.json]

Needs bench/peers/setup torch onnxruntime minilm, anyshape built, and
`bench/peers/.venv/bin/pip install client/python`. anyshape runs as users
run it: an anyshape-server on loopback, the model sent as ONNX bytes by
the Python client (so its times include gRPC and the copies of inputs and
outputs). ONNX Runtime runs the same exported file (CPU provider, every
core); PyTorch runs the model module itself (eager, no_grad, every core).

Each system runs in a process of its own, twice over the trace: the cold
pass includes what the system builds (anyshape's compile, ONNX Runtime's
session); the warm pass is steady state. Before any timing, a system's
embeddings for one batch are checked against PyTorch's (within 1e-4).
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

import loopback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SYSTEMS = ["anyshape-server", "onnxruntime", "torch"]


def trace(count, seed=0, longest=128):
    """Sentence lengths in tokens, log-uniform in [4, longest]."""
    rng = np.random.default_rng(seed)
    lengths = np.exp(rng.uniform(math.log(4), math.log(longest + 1), count))
    return [int(n) for n in np.clip(np.floor(lengths), 4, longest)]


def batches(lengths, batch, seed=1):
    """(input_ids, attention_mask) per call: `batch` consecutive lengths,
    padded to the longest of them."""
    rng = np.random.default_rng(seed)
    for k in range(0, len(lengths) - batch + 1, batch):
        group = lengths[k:k + batch]
        seq = max(group)
        ids = rng.integers(1000, 30000, (batch, seq)).astype(np.int64)
        mask = np.zeros((batch, seq), dtype=np.int64)
        for row, n in enumerate(group):
            mask[row, :n] = 1
        ids[:, 0] = 101
        yield ids * mask, mask


class Torch:
    def __init__(self, model_path):
        import torch
        sys.path.insert(0, os.path.join(ROOT, "examples", "minilm"))
        import export_minilm
        torch.set_num_threads(os.cpu_count())
        self.torch = torch
        self.model = export_minilm.SentenceEmbedder(
            export_minilm.load_bert(0)).eval()

    def run(self, ids, mask):
        with self.torch.no_grad():
            return self.model(self.torch.from_numpy(ids),
                              self.torch.from_numpy(mask)).numpy()


class OnnxRuntime:
    def __init__(self, model_path):
        import onnxruntime
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = os.cpu_count()
        options.inter_op_num_threads = 1
        self.session = onnxruntime.InferenceSession(
            model_path, options, providers=["CPUExecutionProvider"])

    def run(self, ids, mask):
        return self.session.run(None, {"input_ids": ids,
                                       "attention_mask": mask})[0]


class AnyShapeServer:
    def __init__(self, model_path):
        self.server, self.client = loopback.start_server("anyshape-minilm-")
        with open(model_path, "rb") as f:
            self.executable = self.client.compile_onnx(f.read())

    def run(self, ids, mask):
        return self.client.run(self.executable, {
            "input_ids": ids, "attention_mask": mask})["embeddings"]

    def compiles(self):
        return self.client.stats()["compiles"]

    def close(self):
        self.client.close()
        self.server.terminate()
        self.server.wait()


CLASSES = {"anyshape-server": AnyShapeServer, "onnxruntime": OnnxRuntime,
           "torch": Torch}


def run_system(name, model_path, count):
    """One system in this process: check, then two passes per batch size."""
    start = time.perf_counter()
    system = CLASSES[name](model_path)
    build_s = time.perf_counter() - start
    reference = Torch(model_path) if name != "torch" else system
    ids, mask = next(batches(trace(8, seed=5), 8))
    error = float(np.max(np.abs(system.run(ids, mask) -
                                reference.run(ids, mask))))
    if error > 1e-4:
        raise SystemExit(f"{name}: max abs error {error} against PyTorch")
    lengths = trace(count)
    result = {"system": name, "build_s": build_s, "max_abs_err": error}
    for batch in (1, 8):
        calls = list(batches(lengths, batch))
        for label in ("cold", "warm"):
            latencies = []
            for ids, mask in calls:
                t = time.perf_counter()
                system.run(ids, mask)
                latencies.append(time.perf_counter() - t)
            total = sum(latencies)
            if label == "cold" and batch == 1:
                total += build_s
            latencies.sort()
            result[f"b{batch}_{label}_s"] = total
            result[f"b{batch}_p50_ms"] = latencies[len(latencies) // 2] * 1e3
    if name == "anyshape-server":
        result["compiles"] = system.compiles()
        system.close()
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=40,
                        help="sentences in the trace (default 40)")
    parser.add_argument("--model", help="an exported minilm.onnx (default: "
                        "export one with examples/minilm/export_minilm.py)")
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--out", help="also write the results as JSON")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:  # the child process of one system
        print(json.dumps(run_system(args.one, args.model, args.count)))
        return
    model = args.model
    if not model:
        model = os.path.join(tempfile.mkdtemp(prefix="minilm-"),
                             "minilm.onnx")
        subprocess.run([sys.executable, os.path.join(
            ROOT, "examples", "minilm", "export_minilm.py"), model],
            check=True, capture_output=True)
    lengths = trace(args.count)
    print(f"trace: {len(lengths)} sentences, {min(lengths)}-{max(lengths)} "
          f"tokens (log-uniform); batch 1 and 8 (padded), {os.cpu_count()} "
          "cores")
    results = []
    for name in args.systems.split(","):
        out = subprocess.run([sys.executable, __file__, "--one", name,
                              "--model", model, "--count", str(args.count)],
                             capture_output=True, text=True)
        if out.returncode != 0:
            print(f"{name}: failed: {out.stderr.strip()[-400:]}")
            continue
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
    base = next((r for r in results if r["system"] == "anyshape-server"),
                None)
    print(f"{'system':16} {'build s':>8} {'b1 cold s':>10} {'b1 warm s':>10} "
          f"{'b1 p50 ms':>10} {'b8 warm s':>10} {'b8 p50 ms':>10} "
          f"{'warm vs anyshape (b1, b8)':>26} {'max err':>8}")
    for r in results:
        ratio = (f"{r['b1_warm_s'] / base['b1_warm_s']:.2f}x, "
                 f"{r['b8_warm_s'] / base['b8_warm_s']:.2f}x") if base else ""
        print(f"{r['system']:16} {r['build_s']:8.2f} {r['b1_cold_s']:10.2f} "
              f"{r['b1_warm_s']:10.3f} {r['b1_p50_ms']:10.2f} "
              f"{r['b8_warm_s']:10.3f} {r['b8_p50_ms']:10.2f} {ratio:>26} "
              f"{r['max_abs_err']:8.1e}")
    if base:
        print(f"anyshape compiles over both passes and batch sizes: "
              f"{base['compiles']}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
