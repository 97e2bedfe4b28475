"""The systems bench/peers/run compares, one class each.

Every system runs the encoder of encoder.py (the same model and weights as
anyshape's example) on the same trace of sequence lengths. A system is
built cold, inside the timed region: its first pass over the trace pays
for every compile it makes (once, per shape, or per bucket), the second
pass is warm. `run(x, mask)` returns the output as a numpy array, so
each peer is checked against the numpy reference before it is timed.

anyshape is not here: bench/peers/peers.py runs it through its own load
generator (`anyshape-load --in-process` and `--server`), on the same
trace.
"""

import importlib.metadata
import math

import numpy as np

import encoder


def version(*packages):
    found = []
    for package in packages:
        try:
            found.append(f"{package} {importlib.metadata.version(package)}")
        except importlib.metadata.PackageNotFoundError:
            pass
    return ", ".join(found)


class System:
    name = ""
    compiles = None  # compiles so far, where the system can say
    imports = ()  # imported before the clock starts (not a cold cost)

    def __init__(self, layers, threads):
        self.layers = layers
        self.threads = threads
        self.weights = encoder.weights(layers)

    def run(self, x, mask):
        raise NotImplementedError


def reference(x, mask, weights):
    """The numpy reference without scipy: erf from math, vectorised."""
    erf = np.vectorize(math.erf, otypes=[np.float64])

    def erf32(t):
        return erf(t).astype(np.float32)
    return encoder.forward(np, erf32, x, mask, weights)


class TorchEager(System):
    """PyTorch as a user writes BERT: F.scaled_dot_product_attention,
    F.layer_norm, F.gelu (erf)."""
    name = "PyTorch eager"
    imports = ("torch",)

    def __init__(self, layers, threads, compile_mode=None):
        super().__init__(layers, threads)
        import torch
        import torch.nn.functional as F
        torch.set_num_threads(threads)
        self.torch = torch
        self.w = [{k: torch.from_numpy(v) for k, v in w.items()}
                  for w in self.weights]

        def forward(x, mask):
            b, s = x.shape[0], x.shape[1]
            additive = ((1.0 - mask) * -10000.0).reshape(b, 1, 1, s)

            def heads(t):
                return t.reshape(b, s, encoder.HEADS,
                                 encoder.HEAD_DIM).transpose(1, 2)
            for w in self.w:
                q = heads(x @ w["wq"] + w["bq"])
                k = heads(x @ w["wk"] + w["bk"])
                v = heads(x @ w["wv"] + w["bv"])
                context = F.scaled_dot_product_attention(
                    q, k, v, attn_mask=additive)
                context = context.transpose(1, 2).reshape(b, s, encoder.HIDDEN)
                attended = F.layer_norm(x + context @ w["wo"] + w["bo"],
                                        (encoder.HIDDEN,), w["g1"], w["b1"],
                                        encoder.EPSILON)
                up = F.gelu(attended @ w["wi"] + w["bi"])
                x = F.layer_norm(attended + up @ w["wd"] + w["bd"],
                                 (encoder.HIDDEN,), w["g2"], w["b2"],
                                 encoder.EPSILON)
            return x

        self.forward = forward
        if compile_mode is not None:
            self.forward = torch.compile(forward, **compile_mode)

    @property
    def compiles(self):
        try:
            from torch._dynamo.utils import counters
            return int(counters["stats"]["unique_graphs"])
        except Exception:  # noqa: BLE001 (internal API; may move)
            return None

    def run(self, x, mask):
        with self.torch.inference_mode():
            return self.forward(self.torch.from_numpy(x),
                                self.torch.from_numpy(mask)).numpy()


class TorchCompileDynamic(TorchEager):
    name = "torch.compile(dynamic=True)"

    def __init__(self, layers, threads):
        super().__init__(layers, threads, {"dynamic": True})


class TorchCompileDefault(TorchEager):
    """The default: static first, dynamic after the first new shape."""
    name = "torch.compile (default)"

    def __init__(self, layers, threads):
        super().__init__(layers, threads, {})


class JaxJit(System):
    """jax.jit: one XLA compile per input shape."""
    name = "JAX jit"
    imports = ("jax", "jax.numpy")

    def __init__(self, layers, threads):
        super().__init__(layers, threads)
        import jax
        import jax.numpy as jnp
        from jax.scipy.special import erf
        w = [{k: jnp.asarray(v) for k, v in layer.items()}
             for layer in self.weights]
        self.jitted = jax.jit(
            lambda x, mask: encoder.forward(jnp, erf, x, mask, w))

    @property
    def compiles(self):
        return int(self.jitted._cache_size())

    def run(self, x, mask):
        return np.asarray(self.jitted(x, mask))


class OnnxRuntime(System):
    """ONNX Runtime on the ONNX graph of onnx_model.py (dynamic batch and
    seq), all graph optimisations on."""
    name = "ONNX Runtime"
    imports = ("onnxruntime", "onnx")

    def __init__(self, layers, threads):
        super().__init__(layers, threads)
        import onnxruntime as ort
        import onnx_model
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = (
            ort.GraphOptimizationLevel.ORT_ENABLE_ALL)
        model = onnx_model.build(self.weights).SerializeToString()
        self.session = ort.InferenceSession(
            model, options, providers=["CPUExecutionProvider"])

    compiles = 1  # the session's graph optimisation, once

    def run(self, x, mask):
        return self.session.run(None, {"x": x, "mask": mask})[0]


class Iree(System):
    """IREE: the same ONNX graph imported (iree-import-onnx) and compiled
    ahead once for this CPU with its dims dynamic (llvm-cpu)."""
    name = "IREE (llvm-cpu)"
    imports = ("iree.compiler", "iree.runtime", "onnx")

    def __init__(self, layers, threads):
        super().__init__(layers, threads)
        import os
        import subprocess
        import tempfile
        import iree.compiler
        import iree.runtime
        import onnx
        import onnx_model
        workdir = tempfile.mkdtemp(prefix="peers-iree-")
        onnx_path = os.path.join(workdir, "model.onnx")
        mlir_path = os.path.join(workdir, "model.mlir")
        onnx.save(onnx_model.build(self.weights), onnx_path)
        subprocess.run(["iree-import-onnx", onnx_path, "-o", mlir_path],
                       check=True, capture_output=True)
        vmfb = iree.compiler.compile_file(
            mlir_path, target_backends=["llvm-cpu"],
            extra_args=["--iree-llvmcpu-target-cpu=host"])
        self.module = iree.runtime.load_vm_flatbuffer(vmfb, driver="local-task")

    compiles = 1

    def run(self, x, mask):
        # iree-import-onnx names the function after the ONNX graph.
        return np.asarray(self.module.bert_encoder(x, mask))


class TvmRelax(System):
    """TVM Relax: the ONNX graph imported with its dims symbolic, built
    once for this CPU (llvm -mcpu=native), run on the Relax VM."""
    name = "TVM Relax"
    imports = ("tvm", "tvm.relax", "onnx")

    def __init__(self, layers, threads):
        super().__init__(layers, threads)
        import tvm
        from tvm import relax
        from tvm.relax.frontend.onnx import from_onnx
        import onnx_model
        mod = from_onnx(onnx_model.build(self.weights), keep_params_in_input=False)
        mod = relax.transform.DecomposeOpsForInference()(mod)
        mod = relax.transform.LegalizeOps()(mod)
        target = tvm.target.Target({"kind": "llvm", "mcpu": "native"})
        executable = relax.build(mod, target=target)
        self.vm = relax.VirtualMachine(executable, tvm.cpu())
        self.tvm = tvm

    compiles = 1

    def run(self, x, mask):
        out = self.vm["main"](self.tvm.runtime.tensor(x),
                              self.tvm.runtime.tensor(mask))
        return out.numpy()


# Name on the command line -> (class, the packages whose versions count).
SYSTEMS = {
    "torch-eager": (TorchEager, ("torch",)),
    "torch-compile-dynamic": (TorchCompileDynamic, ("torch",)),
    "torch-compile": (TorchCompileDefault, ("torch",)),
    "jax-jit": (JaxJit, ("jax", "jaxlib")),
    "onnxruntime": (OnnxRuntime, ("onnxruntime", "onnx")),
    "iree": (Iree, ("iree-base-compiler", "iree-base-runtime")),
    "tvm": (TvmRelax, ("apache-tvm",)),
}
