"""What every zoo export script shares: exporting a module to ONNX with
dynamic axes (torch.onnx.export, as users call it) and writing the fixture
that tests/onnx/ZooCheck.cpp reads: per case the inputs and what PyTorch
computed from them.

Run a script with bench/peers/.venv's Python (bench/peers/setup torch
onnxruntime minilm installs torch, onnx and transformers there); reading
a fixture (read_fixture) needs only numpy."""

import argparse
import os

import numpy as np

DTYPES = {
    np.dtype("float32"): "f32",
    np.dtype("float16"): "f16",
    np.dtype("int64"): "i64",
    np.dtype("int32"): "i32",
    np.dtype("bool"): "bool",
}


def arguments(description):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--out", default=None,
                        help="folder for model.onnx and model.expected "
                             "(default: beside this script, in the "
                             "model's own folder)")
    return parser.parse_args()


def out_dir(args, name):
    path = args.out or os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    name)
    os.makedirs(path, exist_ok=True)
    return path


def _tensor_lines(kind, name, value):
    a = np.array(value, order="C")  # (ascontiguousarray makes 0-d 1-d)
    head = f"{kind} {name} {DTYPES[a.dtype]} {a.ndim} " + " ".join(
        str(d) for d in a.shape)
    if a.dtype == np.bool_:
        body = " ".join("1" if v else "0" for v in a.ravel())
    elif a.dtype.kind == "f":  # the shortest text that reads back exactly
        body = " ".join(str(v) for v in a.ravel())
    else:
        body = " ".join(str(int(v)) for v in a.ravel())
    return head.rstrip() + "\n" + body + "\n"


def write_fixture(path, cases):
    """cases: (label, {input: array}, {output: array}) tuples."""
    with open(path, "w") as f:
        for label, inputs, outputs in cases:
            f.write(f"case {label}\n")
            for name, value in inputs.items():
                f.write(_tensor_lines("input", name, value))
            for name, value in outputs.items():
                f.write(_tensor_lines("output", name, value))
    print(f"wrote {len(cases)} cases to {path}")


def record(module, path, cases, outputs):
    """Runs `module` on each (label, inputs) of `cases` (generated as it
    goes) and writes the fixture at `path`, its results named `outputs`."""
    written = []
    for label, given in cases:
        written.append((label, given, dict(zip(outputs, run(module, given)))))
    write_fixture(path, written)


def export(module, example, path, input_names, output_names, dynamic,
           exporter="dynamo", opset=None):
    import torch
    """Exports `module` on the example inputs with torch.onnx.export, each
    dim named in `dynamic` ({input: {axis: "seq"}}) kept symbolic under
    that name; one name on several inputs is one size. `exporter` is
    "dynamo" (torch.export underneath, the default since torch 2.9) or
    "torchscript" (the older tracer, for models torch.export cannot take).
    `opset` is the exporter's own default unless given (at 23 the dynamo
    exporter writes attention as one Attention node and RMSNorm as
    RMSNormalization). The weights go inside the one file."""
    args = tuple(torch.from_numpy(v) for v in example)
    if exporter == "torchscript":
        torch.onnx.export(module, args, path, input_names=input_names,
                          output_names=output_names, dynamic_axes=dynamic,
                          opset_version=17, dynamo=False)
        print(f"wrote {path}")
        return
    dims = {}

    def dim(name):
        return dims.setdefault(name, torch.export.Dim(name, min=0))

    shapes = tuple({axis: dim(d) for axis, d in dynamic.get(n, {}).items()}
                   or None for n in input_names)
    torch.onnx.export(module, args, path, input_names=input_names,
                      output_names=output_names, dynamic_shapes=shapes,
                      external_data=False, verbose=False,
                      **({"opset_version": opset} if opset else {}))
    print(f"wrote {path}")


def export_token_model(module, folder, vocab, output="logits"):
    """A model of `input_ids[batch, seq]` alone (a decoder's logits, an
    encoder's states): exported at (2, 7) and recorded at seq 1, 7, 16
    and 33, random ids below `vocab` from one seeded generator."""
    rng = np.random.default_rng(0)

    def ids(b, s):
        return rng.integers(0, vocab, (b, s), dtype=np.int64)

    export(module, [ids(2, 7)], f"{folder}/model.onnx", ["input_ids"],
           [output], {"input_ids": {0: "batch", 1: "seq"}})
    record(module, f"{folder}/model.expected",
           ((f"batch={b},seq={s}", {"input_ids": ids(b, s)})
            for b, s in [(1, 1), (2, 7), (3, 16), (1, 33)]),
           [output])


def run(module, inputs):
    import torch
    # In eval mode whatever mode it was left in: the TorchScript exporter
    # restores the mode the module had before the export, which for a
    # fresh wrapper is training, dropout included, for every submodule.
    module.eval()
    with torch.no_grad():
        out = module(*[torch.from_numpy(v) for v in inputs.values()])
    if not isinstance(out, (tuple, list)):
        out = (out,)
    return [o.numpy() for o in out]


_NUMPY = {"f32": np.float32, "f16": np.float16, "i64": np.int64,
          "i32": np.int32, "bool": np.bool_}


def read_fixture(path):
    """The cases write_fixture wrote: (label, inputs, outputs) tuples."""
    cases = []
    with open(path) as f:
        lines = f.read().splitlines()
    k = 0
    while k < len(lines):
        words = lines[k].split()
        if words and words[0] == "case":
            cases.append((lines[k][5:], {}, {}))
        elif words and words[0] in ("input", "output"):
            kind, name, dtype, rank = words[:4]
            shape = [int(d) for d in words[4:4 + int(rank)]]
            values = np.array(lines[k + 1].split(), dtype=np.float64)
            array = values.astype(_NUMPY[dtype]).reshape(shape)
            cases[-1][1 if kind == "input" else 2][name] = array
            k += 1
        k += 1
    return cases
