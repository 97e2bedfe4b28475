"""Where the translated graphs run: a server (connect()) or, by default,
a private anyshape-server this process starts on first use and stops at
exit, on a Unix socket of its own.

An Executable is one server executable and the plan to call it: the
user's tensors go as wire tensors, weights were uploaded once by content
(the same bytes are never sent twice) and are named in the graph, and a
weight changed in place since (its version counter moved) makes the
executable translate and compile again rather than run on stale weights.
"""
import atexit
import os
import shutil
import subprocess
import tempfile
import threading
import time
import weakref

import numpy as np
import torch
from google.protobuf import text_format

import anyshape
from anyshape.torch.translate import tensor_bytes, translate, wire_dtype
from anyshape.v1 import graph_pb2

def to_wire(tensor):
    return graph_pb2.Tensor(dtype=wire_dtype(tensor.dtype),
                            shape=list(tensor.shape),
                            data=tensor_bytes(tensor))


def from_numpy(array, dtype):
    """What the client returned, as a torch tensor of `dtype` (bf16 comes
    back as its bits)."""
    if dtype == torch.bfloat16:
        return torch.from_numpy(np.ascontiguousarray(array).view(
            np.int16)).view(torch.bfloat16)
    return torch.from_numpy(np.ascontiguousarray(array)).to(dtype)


def find_server():
    """$ANYSHAPE_SERVER, anyshape-server on PATH, or the build's, beside
    the staged package (build/python/anyshape -> build/bin)."""
    candidates = [os.environ.get("ANYSHAPE_SERVER"),
                  shutil.which("anyshape-server"),
                  os.path.join(os.path.dirname(anyshape.__file__), "..",
                               "..", "bin", "anyshape-server")]
    for path in candidates:
        if path and os.access(path, os.X_OK):
            return os.path.abspath(path)
    raise RuntimeError("anyshape: no anyshape-server to start (set "
                       "ANYSHAPE_SERVER, put it on PATH, or call "
                       "anyshape.torch.connect(address))")


class LocalServer:
    """A private server on a Unix socket, stopped at exit."""

    def __init__(self, path=None):
        self.dir = tempfile.mkdtemp(prefix="anyshape-torch-")
        port_file = os.path.join(self.dir, "address")
        self.log = open(os.path.join(self.dir, "log"), "w")
        self.process = subprocess.Popen(
            [path or find_server(), "--listen",
             f"unix:{os.path.join(self.dir, 'socket')}", "--port-file",
             port_file, "--drain-seconds", "1"],
            stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + 60
        while not (os.path.exists(port_file) and os.path.getsize(port_file)):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("anyshape: the private server did not "
                                   "start")
            time.sleep(0.02)
        with open(port_file) as f:
            self.address = f.read().strip()
        atexit.register(self.stop)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class Session:
    """A client, the weights it uploaded and the compiles it made."""

    def __init__(self, client, server=None):
        self.client = client
        self.server = server
        self.compiles = 0  # compiles the server ran for this session
        # id(tensor) -> (weak reference, identity, content id). The weak
        # reference tells a live tensor from a new one at a freed one's
        # address; the identity, a tensor written in place since.
        self._uploaded = {}

    def weight_id(self, tensor):
        held = self._uploaded.get(id(tensor))
        if held is None or held[0]() is not tensor or \
                held[1] != _identity(tensor):
            content = self.client.upload(to_wire(tensor))
            key = id(tensor)

            def forget(ref, key=key):
                if self._uploaded.get(key, (None,))[0] is ref:
                    del self._uploaded[key]
            held = (weakref.ref(tensor, forget), _identity(tensor), content)
            self._uploaded[key] = held
        return held[2]

    def compile(self, graph):
        compiled = self.client.compile(graph)
        if not compiled.cache_hit:
            self.compiles += 1
        return compiled

    def close(self):
        self.client.close()
        if self.server is not None:
            self.server.stop()


def _identity(tensor):
    return (tensor.untyped_storage().data_ptr(), tensor.storage_offset(),
            tensor._version, tensor.dtype, tuple(tensor.shape),
            tuple(tensor.stride()))


_lock = threading.Lock()
_default = None


def connect(address=None, **client_options):
    """Chooses the server the torch entry points use: `address` with the
    options anyshape.Client takes (token, tls_root_certs, ...), or with
    None a private local server, started now."""
    global _default
    with _lock:
        if _default is not None:
            _default.close()
        server = LocalServer() if address is None else None
        client = anyshape.Client(server.address if server else address,
                                 **client_options)
        _default = Session(client, server)
        return _default


def session():
    """The session connect() chose, or a private server's."""
    if _default is None:
        connect()
    return _default


class Executable:
    """A graph module compiled by the server, called with the graph's
    arguments (tensors, sizes) in placeholder order."""

    def __init__(self, gm, kinds, args, name):
        self.gm, self.kinds, self.name = gm, kinds, name
        self._build(args)

    def _build(self, args):
        current = session()
        self._weights = {i: _identity(args[i]) for i, k in
                         enumerate(self.kinds) if k == "weight"}
        self.translation = translate(
            self.gm, self.kinds,
            lambda i: current.weight_id(args[i]), self.name)
        dump = os.environ.get("ANYSHAPE_TORCH_DUMP")
        if dump:  # the wire graphs, for `anyshape eval` and bug reports
            os.makedirs(dump, exist_ok=True)
            with open(os.path.join(dump, f"{self.name}.pbtxt"), "w") as f:
                f.write(text_format.MessageToString(self.translation.graph))
        self.compiled = current.compile(self.translation.graph)

    def __call__(self, args):
        if any(_identity(args[i]) != key for i, key in self._weights.items()):
            self._build(args)
        plan = self.translation
        inputs = {wire: to_wire(args[i]) for i, wire in plan.inputs}
        device = next((args[i].device for i, _ in plan.inputs), None)
        results = session().client.run(self.compiled, inputs)
        outputs = []
        for spec in plan.outputs:
            if spec[0] == "tensor":
                tensor = from_numpy(results[spec[1]], spec[2])
                outputs.append(tensor.to(device) if device is not None and
                               device.type != "cpu" else tensor)
            elif spec[0] == "size":
                values = {s: args[i].shape[axis] for s, (i, axis) in
                          plan.symbol_origin.items()}
                outputs.append(int(spec[1].subs(values)))
            else:
                outputs.append(spec[1])
        return outputs
