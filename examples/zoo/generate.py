"""Greedy generation with the LLaMA-style decoder of llama/ through the
anyshape server, the KV cache kept in the server between steps
(ExecuteRequest.keep_outputs): each step sends one token id and the ids of
the cache, and gets back the logits and the ids of the grown cache.

    build/bin/anyshape-server --port-file /tmp/port &
    PYTHONPATH=build/python /usr/bin/python3 examples/zoo/generate.py \\
        --server $(cat /tmp/port)

prints the tokens, the decode rate, and whether they equal PyTorch's
(llama/greedy.expected). --expected, run with bench/peers/.venv's Python,
writes that file from PyTorch's own greedy decoding."""

import argparse
import os
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PROMPT = [5, 17, 99, 3, 42, 7, 61, 8]
NEW_TOKENS = 64
LAYERS, KV_HEADS, HEAD_DIM = 2, 2, 16  # llama.py's config
CACHE = [f"{kv}_{layer}" for layer in range(LAYERS) for kv in "kv"]


def empty_cache():
    return {f"past_{n}": np.zeros((1, KV_HEADS, 0, HEAD_DIM), np.float32)
            for n in CACHE}


def generate(client, executable, prompt=PROMPT, new_tokens=NEW_TOKENS):
    """Greedy tokens after `prompt`, the cache kept in the server; returns
    the tokens and the seconds the decode steps (after prefill) took."""
    keep = [f"present_{n}" for n in CACHE]
    past = empty_cache()
    ids = np.array([prompt], dtype=np.int64)
    tokens, held = [], []
    start = None
    try:
        for step in range(new_tokens):
            # The cache this step consumes is freed by the server after it.
            out = client.run(executable, {"input_ids": ids, **past},
                             keep=keep, free=held)
            held = [out[name] for name in keep]
            past = {f"past_{n}": out[f"present_{n}"] for n in CACHE}
            token = int(np.argmax(out["logits"][0, -1]))
            tokens.append(token)
            ids = np.array([[token]], dtype=np.int64)
            if step == 0:
                start = time.perf_counter()
        return tokens, time.perf_counter() - start
    finally:
        if held:
            client.free(held)


def expected_tokens():
    path = os.path.join(HERE, "llama", "greedy.expected")
    with open(path) as f:
        fields = dict(line.split(" ", 1) for line in f.read().splitlines())
    return ([int(t) for t in fields["prompt"].split()],
            [int(t) for t in fields["tokens"].split()])


def write_expected():
    import torch

    import llama
    module = llama.Step(llama.model())
    past = [torch.zeros(1, KV_HEADS, 0, HEAD_DIM) for _ in CACHE]
    ids = torch.tensor([PROMPT])
    tokens = []
    with torch.no_grad():
        for _ in range(NEW_TOKENS):
            logits, *past = module(ids, *past)
            token = int(logits[0, -1].argmax())
            tokens.append(token)
            ids = torch.tensor([[token]])
    path = os.path.join(HERE, "llama", "greedy.expected")
    with open(path, "w") as f:
        f.write("prompt " + " ".join(map(str, PROMPT)) + "\n")
        f.write("tokens " + " ".join(map(str, tokens)) + "\n")
    print(f"wrote {path}: {tokens}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", help="host:port of anyshape-server")
    parser.add_argument("--expected", action="store_true",
                        help="write llama/greedy.expected from PyTorch")
    args = parser.parse_args()
    if args.expected:
        write_expected()
        return
    if not args.server:
        parser.error("--server is required (or --expected)")
    import anyshape
    with anyshape.Client(args.server) as client:
        with open(os.path.join(HERE, "llama", "model.onnx"), "rb") as f:
            executable = client.compile_onnx(f.read())
        prompt, want = expected_tokens()
        tokens, seconds = generate(client, executable, prompt, len(want))
    print("tokens:", " ".join(map(str, tokens)))
    print(f"decode: {(len(tokens) - 1) / seconds:.0f} tokens/s "
          "(the cache kept in the server)")
    same = tokens == want
    print("identical to PyTorch's greedy tokens" if same
          else f"DIFFERENT from PyTorch's: {want}")
    raise SystemExit(0 if same else 1)


if __name__ == "__main__":
    main()
