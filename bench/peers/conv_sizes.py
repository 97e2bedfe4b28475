"""bench/peers/conv_sizes.py: the zoo's convolutional models at the sizes
users run them (images of 64-256 pixels a side, seconds of audio), through
anyshape in process (anyshape-zoo-check: one compile for every size) and
ONNX Runtime, side by side in one run. For each size: the first run (for
anyshape the creation of that size's oneDNN convolution primitives; for
ONNX Runtime its first-run allocations) and the steady-state p50 over
--runs more. The expected outputs are ONNX Runtime's own, so anyshape is
also checked against it at every size.

Run with bench/peers/.venv's Python (bench/peers/setup onnxruntime)."""

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnxruntime

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
ZOO = os.path.join(ROOT, "examples", "zoo")
sys.path.insert(0, ZOO)
import fixture  # noqa: E402

# (model, input name, shapes): what the model's users send.
SIZES = {
    "resnet": ("image", [(1, 3, 224, 224), (1, 3, 160, 240), (4, 3, 128, 128)]),
    "unet": ("image", [(1, 3, 128, 128), (1, 3, 256, 192), (2, 3, 96, 96)]),
    "wav2vec2": ("audio", [(1, 16000), (1, 48000), (4, 8000)]),
    "vit": ("pixels", [(1, 3, 224, 224), (1, 3, 160, 256), (4, 3, 96, 96)]),
    "segformer": ("pixels", [(1, 3, 224, 224), (1, 3, 160, 256),
                             (4, 3, 96, 96)]),
}


def ort_session(path):
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = os.cpu_count()
    options.inter_op_num_threads = 1
    return onnxruntime.InferenceSession(path, options,
                                        providers=["CPUExecutionProvider"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default=",".join(SIZES))
    parser.add_argument("--runs", type=int, default=20,
                        help="steady-state runs per size after the first")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print(f"{'model':10} {'size':18} {'first ms: any / ORT':>22} "
          f"{'p50 ms: any / ORT':>20} {'ORT p50 / any':>14}")
    for model in args.models.split(","):
        name, shapes = SIZES[model]
        path = os.path.join(ZOO, model, "model.onnx")
        session = ort_session(path)
        outputs = [o.name for o in session.get_outputs()]
        cases, ort = [], []
        for shape in shapes:
            x = rng.standard_normal(shape).astype(np.float32)
            start = time.perf_counter()
            got = session.run(None, {name: x})
            first = time.perf_counter() - start
            times = []
            for _ in range(args.runs):
                start = time.perf_counter()
                session.run(None, {name: x})
                times.append(time.perf_counter() - start)
            ort.append((first, sorted(times)[len(times) // 2]))
            label = "x".join(str(d) for d in shape)
            cases.append((label, {name: x}, dict(zip(outputs, got))))
        with tempfile.TemporaryDirectory() as directory:
            expected = os.path.join(directory, "model.expected")
            fixture.write_fixture(expected, cases)
            anyshape = []
            for k in range(len(cases)):
                # One size per process: its first pass is that size's
                # first run, the compile apart.
                one = os.path.join(directory, f"case{k}.expected")
                fixture.write_fixture(one, [cases[k]])
                out = subprocess.run(
                    [os.path.join(ROOT, "build", "bin", "anyshape-zoo-check"),
                     path, one, "--passes", str(args.runs)],
                    capture_output=True, text=True)
                if out.returncode != 0:
                    raise SystemExit(f"anyshape on {model}: "
                                     f"{out.stdout[-300:]}{out.stderr[-300:]}")
                words = out.stdout.splitlines()[-1].replace(",", "").split()
                anyshape.append((float(words[2]), float(words[6]),
                                 float(words[14]) / 1e3))
        for k, shape in enumerate(shapes):
            build, first, p50 = anyshape[k]
            label = "x".join(str(d) for d in shape)
            print(f"{model:10} {label:18} {first * 1e3:10.2f} / "
                  f"{ort[k][0] * 1e3:8.2f}  {p50 * 1e3:9.2f} / "
                  f"{ort[k][1] * 1e3:8.2f}  {ort[k][1] / p50:13.2f}"
                  f"   (anyshape build {build:.2f} s)", flush=True)


if __name__ == "__main__":
    main()
