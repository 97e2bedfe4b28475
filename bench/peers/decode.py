"""bench/peers/decode.py: greedy decoding with the LLaMA-style decoder of
examples/zoo/llama, from an empty cache to --tokens tokens, through
anyshape and its peers side by side in one run; tokens/s over the whole
loop and per stretch of cache length.

    bench/peers/.venv/bin/python bench/peers/decode.py [--tokens 1024]

Systems, each in a process of its own, each decoding the same prompt:
- anyshape-kept: an anyshape-server on loopback through the Python
  client, the KV cache kept in the server between steps (keep_outputs):
  each step sends one token and the cache's ids;
- anyshape-sent: the same server, the cache sent and returned every step
  (what a client without kept outputs does);
- onnxruntime: the same file, the cache left in ONNX Runtime's OrtValues
  between steps (IOBinding), every core;
- torch: the module itself, eager, no_grad.
Every system's tokens are checked against PyTorch's before its time
counts."""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ZOO = os.path.join(ROOT, "examples", "zoo")
sys.path.insert(0, ZOO)
import generate  # noqa: E402
import loopback  # noqa: E402

SYSTEMS = ["anyshape-kept", "anyshape-sent", "onnxruntime", "torch"]
CACHE = generate.CACHE
MODEL = os.path.join(ZOO, "llama", "model.onnx")


def decode(step, tokens):
    """Runs `step(ids, first)` -> logits for each token; returns the tokens
    and the time of each step."""
    ids = np.array([generate.PROMPT], dtype=np.int64)
    out, times = [], []
    for k in range(tokens):
        t = time.perf_counter()
        logits = step(ids, k == 0)
        times.append(time.perf_counter() - t)
        token = int(np.argmax(logits[0, -1]))
        out.append(token)
        ids = np.array([[token]], dtype=np.int64)
    return out, times


def run_system(name, tokens):
    start = time.perf_counter()
    if name.startswith("anyshape"):
        server, client = loopback.start_server("anyshape-decode-")
        with open(MODEL, "rb") as f:
            exe = client.compile_onnx(f.read())
        keep = [f"present_{n}" for n in CACHE] if name.endswith("kept") \
            else []
        state = {"past": generate.empty_cache(), "held": []}

        def step(ids, first):
            out = client.run(exe, {"input_ids": ids, **state["past"]},
                             keep=keep, free=state["held"])
            state["held"] = [out[n] for n in keep]
            state["past"] = {f"past_{n}": out[f"present_{n}"] for n in CACHE}
            return out["logits"]
    elif name == "onnxruntime":
        import onnxruntime
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = os.cpu_count()
        session = onnxruntime.InferenceSession(
            MODEL, options, providers=["CPUExecutionProvider"])
        state = {"past": {k: onnxruntime.OrtValue.ortvalue_from_numpy(v)
                          for k, v in generate.empty_cache().items()}}

        def step(ids, first):
            binding = session.io_binding()
            binding.bind_cpu_input("input_ids", ids)
            for k, v in state["past"].items():
                binding.bind_ortvalue_input(k, v)
            binding.bind_output("logits")
            for n in CACHE:
                binding.bind_output(f"present_{n}")
            session.run_with_iobinding(binding)
            outs = binding.get_outputs()
            state["past"] = {f"past_{n}": outs[1 + k]
                             for k, n in enumerate(CACHE)}
            return outs[0].numpy()
    else:
        import torch
        import modules
        torch.set_num_threads(os.cpu_count())
        module = modules.module("llama")
        state = {"past": [torch.zeros(1, generate.KV_HEADS, 0,
                                      generate.HEAD_DIM) for _ in CACHE]}

        def step(ids, first):
            with torch.no_grad():
                logits, *state["past"] = module(torch.from_numpy(ids),
                                                *state["past"])
            return logits.numpy()
    build_s = time.perf_counter() - start
    out, times = decode(step, tokens)
    result = {"system": name, "build_s": build_s, "tokens": out,
              "prefill_ms": times[0] * 1e3,
              "decode_tok_s": (len(times) - 1) / sum(times[1:])}
    for lo, hi in ((1, 128), (128, 512), (512, tokens)):
        part = times[lo:hi]
        if part:
            result[f"tok_s_{lo}_{hi}"] = len(part) / sum(part)
    if name.startswith("anyshape"):
        client.close()
        server.terminate()
        server.wait()
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=1024)
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--out", help="also write the results as JSON")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_system(args.one, args.tokens)))
        return
    results = []
    for name in args.systems.split(","):
        out = subprocess.run([sys.executable, __file__, "--one", name,
                              "--tokens", str(args.tokens)],
                             capture_output=True, text=True)
        if out.returncode != 0:
            print(f"{name}: failed: {out.stderr.strip()[-400:]}")
            continue
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
    reference = next((r["tokens"] for r in results if r["system"] == "torch"),
                     None)
    print(f"{'system':14} {'build s':>8} {'prefill ms':>10} {'tok/s':>8} "
          f"{'1-128':>8} {'128-512':>8} {'512-':>8} {'same tokens':>11}")
    for r in results:
        same = "yes" if reference is None or r["tokens"] == reference \
            else "NO"
        print(f"{r['system']:14} {r['build_s']:8.2f} {r['prefill_ms']:10.2f} "
              f"{r['decode_tok_s']:8.0f} {r.get('tok_s_1_128', 0):8.0f} "
              f"{r.get('tok_s_128_512', 0):8.0f} "
              f"{r.get(f'tok_s_512_{args.tokens}', 0):8.0f} {same:>11}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
