"""bench/peers/zoo.py: every model of examples/zoo through anyshape, ONNX
Runtime and PyTorch eager, side by side in one run, over a trace of the
shapes of its fixture (each case's inputs, --passes times over).

    bench/peers/.venv/bin/python bench/peers/zoo.py [--passes 10]
        [--models gpt2,llama,...] [--out FILE.json]

Needs bench/peers/setup torch onnxruntime minilm, anyshape built, and
`bench/peers/.venv/bin/pip install client/python`. anyshape runs as users
run it: in process (`anyshape`: anyshape-zoo-check --passes, the C++
API, which also checks every output against the fixture), and through an
anyshape-server on loopback, the model sent as ONNX bytes by the Python
client (`anyshape-server`: its times include gRPC, the Python client and
the copies of inputs and outputs). ONNX Runtime runs the same file (CPU
provider, every core); PyTorch runs the module the file was exported from
(eager, no_grad).

Each system runs in a process of its own. The cold total is what the
system builds (anyshape's compile, ONNX Runtime's session, the module)
plus the first pass; the warm total is the other passes, p50 over their
calls. Before any timing, every output of every case is checked against
PyTorch's (the fixture) within 1e-4 + 1e-3 |x|. Peak RSS is the system's
process, plus the server's for anyshape.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ZOO = os.path.join(ROOT, "examples", "zoo")
sys.path.insert(0, ZOO)
import fixture  # noqa: E402
import loopback  # noqa: E402

SYSTEMS = ["anyshape", "anyshape-server", "onnxruntime", "torch"]
MODELS = ["bert", "roberta", "distilbert", "gpt2", "gpt2_cache", "llama",
          "tiny_llama", "t5", "moe", "recommender", "resnet", "wav2vec2",
          "vit", "unet"]


def peak_rss_mib(pid=None):
    if pid is None:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


class Torch:
    def __init__(self, model, outputs):
        import torch
        import modules
        torch.set_num_threads(os.cpu_count())
        self.torch = torch
        self.module = modules.module(model)
        self.outputs = outputs

    def run(self, inputs):
        with self.torch.no_grad():
            out = self.module(*[self.torch.from_numpy(v)
                                for v in inputs.values()])
        out = out if isinstance(out, (tuple, list)) else (out,)
        return dict(zip(self.outputs, (o.numpy() for o in out)))


class OnnxRuntime:
    def __init__(self, model, outputs):
        import onnxruntime
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = os.cpu_count()
        options.inter_op_num_threads = 1
        self.session = onnxruntime.InferenceSession(
            os.path.join(ZOO, model, "model.onnx"), options,
            providers=["CPUExecutionProvider"])
        self.names = [o.name for o in self.session.get_outputs()]

    def run(self, inputs):
        return dict(zip(self.names, self.session.run(None, inputs)))


class AnyShapeServer:
    def __init__(self, model, outputs):
        self.server, self.client = loopback.start_server("anyshape-zoo-")
        with open(os.path.join(ZOO, model, "model.onnx"), "rb") as f:
            self.executable = self.client.compile_onnx(f.read())

    def run(self, inputs):
        return self.client.run(self.executable, inputs)

    def close(self):
        stats = self.client.stats()
        rss = peak_rss_mib(self.server.pid)
        self.client.close()
        self.server.terminate()
        self.server.wait()
        return stats["compiles"], rss


CLASSES = {"anyshape-server": AnyShapeServer, "onnxruntime": OnnxRuntime,
           "torch": Torch}


def run_in_process(model, passes):
    """anyshape in process: anyshape-zoo-check checks every case, then
    times passes - 1 more passes."""
    zoo = os.path.join(ZOO, model)
    out = subprocess.run(
        [os.path.join(ROOT, "build", "bin", "anyshape-zoo-check"),
         os.path.join(zoo, "model.onnx"), os.path.join(zoo, "model.expected"),
         "--passes", str(passes - 1)], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"anyshape on {model}: {out.stdout[-300:]}"
                         f"{out.stderr[-300:]}")
    lines = out.stdout.splitlines()
    worst = max(float(w) for line in lines if line.startswith("case ")
                for w in line.split()[3::2])
    words = lines[-1].replace(",", "").split()
    compile_s, first_s = float(words[2]), float(words[6])
    calls, warm_s, p50 = int(words[8]), float(words[11]), float(words[14])
    return {"system": "anyshape", "model": model, "build_s": compile_s,
            "cold_s": compile_s + first_s, "warm_s": warm_s, "p50_ms": p50,
            "max_abs_err": worst, "calls": calls, "compiles": 1,
            "rss_mib": resource.getrusage(
                resource.RUSAGE_CHILDREN).ru_maxrss / 1024}


def run_system(name, model, passes):
    if name == "anyshape":
        return run_in_process(model, passes)
    cases = fixture.read_fixture(os.path.join(ZOO, model, "model.expected"))
    outputs = list(cases[0][2])
    start = time.perf_counter()
    system = CLASSES[name](model, outputs)
    build_s = time.perf_counter() - start
    worst = 0.0
    for _, inputs, expected in cases:
        got = system.run(inputs)
        for out, want in expected.items():
            error = np.abs(got[out].astype(np.float64) - want)
            if np.any(error > 1e-4 + 1e-3 * np.abs(want)):
                raise SystemExit(f"{name} on {model}: {out} differs from "
                                 f"PyTorch by {error.max()}")
            worst = max(worst, float(error.max()) if error.size else 0.0)
    cold = build_s
    warm = []
    for p in range(passes):
        for _, inputs, _ in cases:
            t = time.perf_counter()
            system.run(inputs)
            elapsed = time.perf_counter() - t
            if p == 0:
                cold += elapsed
            else:
                warm.append(elapsed)
    warm.sort()
    result = {"system": name, "model": model, "build_s": build_s,
              "cold_s": cold, "warm_s": sum(warm),
              "p50_ms": warm[len(warm) // 2] * 1e3, "max_abs_err": worst,
              "rss_mib": peak_rss_mib(), "calls": len(warm)}
    if name == "anyshape-server":
        result["compiles"], server_rss = system.close()
        result["rss_mib"] += server_rss
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--passes", type=int, default=10,
                        help="passes over each fixture's shapes (default 10;"
                             " the first is the cold one)")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--out", help="also write the results as JSON")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--model", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:  # the child process of one system on one model
        print(json.dumps(run_system(args.one, args.model, args.passes)))
        return
    print(f"{'model':12} {'system':16} {'build s':>8} {'cold s':>8} "
          f"{'warm s':>8} {'p50 ms':>8} {'warm/any':>8} {'compiles':>8} "
          f"{'RSS MiB':>8} {'max err':>8}")
    results = []
    for model in args.models.split(","):
        rows = []
        for name in args.systems.split(","):
            out = subprocess.run([sys.executable, __file__, "--one", name,
                                  "--model", model, "--passes",
                                  str(args.passes)],
                                 capture_output=True, text=True)
            if out.returncode != 0:
                print(f"{model:12} {name:16} failed: "
                      f"{out.stderr.strip()[-300:]}")
                continue
            rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
        base = next((r for r in rows if r["system"] == "anyshape"), None)
        for r in rows:
            ratio = r["warm_s"] / base["warm_s"] if base else float("nan")
            print(f"{model:12} {r['system']:16} {r['build_s']:8.2f} "
                  f"{r['cold_s']:8.2f} {r['warm_s']:8.3f} {r['p50_ms']:8.2f} "
                  f"{ratio:8.2f} {r.get('compiles', ''):>8} "
                  f"{r['rss_mib']:8.0f} {r['max_abs_err']:8.1e}", flush=True)
        results += rows
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
