"""bench/peers/torch_compile.py: transformers models under
torch.compile(dynamic=True) over 20 lengths: the anyshape backend
(anyshape.torch, a private server on this machine) against Inductor and
eager PyTorch, each backend in a process of its own, side by side in one
run, and the ONNX path (torch.onnx.export with dynamic axes, compiled by
the same kind of private server). For each: the Dynamo graphs compiled,
the cold total (the first pass over the lengths, compiles and for ONNX
the export included), the warm total (a second pass) and the warm p50 per
call; every output is checked against eager's. Inductor's caches are
cleared (a fresh TORCHINDUCTOR_CACHE_DIR), so its cold total compiles.

Run with bench/peers/.venv's Python (bench/peers/setup torch minilm), the
built package on PYTHONPATH:

    PYTHONPATH=build/python bench/peers/.venv/bin/python \\
        bench/peers/torch_compile.py --models bert,gpt2,llama
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

BACKENDS = ["eager", "inductor", "anyshape", "onnx"]
LENGTHS = list(range(8, 168, 8))  # 20 sequence lengths, batch 2


def model(name):
    import torch
    import transformers as T
    torch.manual_seed(0)
    if name == "bert":
        m = T.BertModel(T.BertConfig(
            vocab_size=1000, hidden_size=256, num_hidden_layers=4,
            num_attention_heads=4, intermediate_size=1024))
    elif name == "gpt2":
        m = T.GPT2LMHeadModel(T.GPT2Config(
            vocab_size=1000, n_embd=256, n_layer=4, n_head=4))
    elif name == "llama":
        m = T.LlamaForCausalLM(T.LlamaConfig(
            vocab_size=1000, hidden_size=256, num_hidden_layers=4,
            num_attention_heads=4, num_key_value_heads=2,
            intermediate_size=688))
    else:
        raise SystemExit(f"unknown model {name}")
    return m.eval()


def measure(name, backend):
    """One backend in this process: a dict of the figures."""
    import torch
    from torch._dynamo.utils import counters
    m = model(name)
    kwargs = {} if name == "bert" else {"use_cache": False}
    if backend == "anyshape":
        import anyshape.torch  # noqa: F401 (registers the backend)
    if backend == "onnx":
        run = onnx_path(m, kwargs)
    elif backend == "eager":
        run = m
    else:
        run = torch.compile(m, backend=backend, dynamic=True)
    torch.manual_seed(1)
    batches = [torch.randint(0, 1000, (2, n)) for n in LENGTHS]
    worst = 0.0
    with torch.no_grad():
        start = time.perf_counter()
        if backend == "onnx":
            run = run()  # the export and the compile count as cold
        for ids in batches:
            out = run(input_ids=ids, **kwargs)
        cold = time.perf_counter() - start
        times = []
        for ids in batches:
            t0 = time.perf_counter()
            out = run(input_ids=ids, **kwargs)
            times.append(time.perf_counter() - t0)
            got = out[0]
            want = m(input_ids=ids, **kwargs)[0]
            worst = max(worst, (got - want).abs().max().item())
    return {"graphs": counters["stats"]["unique_graphs"], "cold_s": cold,
            "warm_s": sum(times), "p50_ms": statistics.median(times) * 1e3,
            "max_error": worst}


def onnx_path(m, kwargs):
    """A function making the ONNX path's callable: the model exported by
    torch.onnx (dynamo) with batch and length dynamic, compiled once by a
    private anyshape-server, run through the Python client."""
    import tempfile

    import torch

    import anyshape.torch

    class Logits(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.m = m

        def forward(self, input_ids):
            return self.m(input_ids=input_ids, **kwargs)[0]

    def make():
        ids = torch.randint(0, 1000, (2, 16))
        dims = {0: torch.export.Dim("batch", max=64),
                1: torch.export.Dim("seq", max=1024)}
        program = torch.onnx.export(Logits(), (ids,), dynamo=True,
                                    dynamic_shapes=(dims,),
                                    input_names=["input_ids"], verbose=False)
        with tempfile.NamedTemporaryFile(suffix=".onnx") as f:
            program.save(f.name)
            client = anyshape.torch.session().client
            compiled = client.compile_file(f.name)

        def run(input_ids, **_):
            out = client.run(compiled, {"input_ids": input_ids.numpy()})
            return (torch.from_numpy(next(iter(out.values()))),)
        return run
    return make


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default="bert,gpt2,llama")
    parser.add_argument("--measure", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(*args.measure)))
        return
    import torch
    print(f"torch {torch.__version__}; {len(LENGTHS)} lengths "
          f"{LENGTHS[0]}-{LENGTHS[-1]}, batch 2")
    print(f"{'model':6} {'backend':9} {'graphs':>6} {'cold s':>8} "
          f"{'warm s':>8} {'p50 ms':>8} {'max err':>9}")
    for name in args.models.split(","):
        for backend in BACKENDS:
            with tempfile.TemporaryDirectory() as cache:
                result = subprocess.run(
                    [sys.executable, __file__, "--measure", name, backend],
                    capture_output=True, text=True,
                    env={**os.environ, "TORCHINDUCTOR_CACHE_DIR": cache})
            if result.returncode != 0:
                print(f"{name:6} {backend:9} failed: "
                      f"{result.stderr.strip().splitlines()[-1]}")
                continue
            r = json.loads(result.stdout.strip().splitlines()[-1])
            print(f"{name:6} {backend:9} {r['graphs']:>6} "
                  f"{r['cold_s']:>8.2f} {r['warm_s']:>8.3f} "
                  f"{r['p50_ms']:>8.2f} {r['max_error']:>9.1e}")


if __name__ == "__main__":
    main()
