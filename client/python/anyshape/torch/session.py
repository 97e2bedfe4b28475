"""An Executable: one server executable and the plan to call it. The
user's tensors go as wire tensors; weights were uploaded once by content
(the same bytes are never sent twice) and are named in the graph; a
weight changed in place since (its version counter moved) makes the
executable translate and compile again rather than run on stale weights.
The server is anyshape.local's session.
"""
import os
import weakref

import numpy as np
import torch
from google.protobuf import text_format

from anyshape.local import session
from anyshape.torch.translate import tensor_bytes, translate, wire_dtype
from anyshape.v1 import graph_pb2


def to_wire(tensor):
    return graph_pb2.Tensor(dtype=wire_dtype(tensor.dtype),
                            shape=list(tensor.shape),
                            data=tensor_bytes(tensor))


def from_numpy(array, dtype):
    """What the client returned, as a torch tensor of `dtype` (bf16 comes
    back as its bits), of its shape: a 0-d result (a loss, a full
    reduction) stays 0-d, which np.ascontiguousarray would make 1-d."""
    array = np.require(array, requirements="C")
    if dtype == torch.bfloat16:
        return torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(array).to(dtype)


def weight_id(current, tensor):
    """The content id of `tensor` in the server, uploaded once. Keyed by
    id(tensor), with a weak reference that tells a live tensor from a new
    one at a freed one's address, and an identity that tells a tensor
    written in place since."""
    uploads = current.uploads
    held = uploads.get(id(tensor))
    if held is None or held[0]() is not tensor or \
            held[1] != _identity(tensor):
        content = current.client.upload(to_wire(tensor))
        key = id(tensor)

        def forget(ref, key=key):
            if uploads.get(key, (None,))[0] is ref:
                del uploads[key]
        held = (weakref.ref(tensor, forget), _identity(tensor), content)
        uploads[key] = held
    return held[2]


def _identity(tensor):
    return (tensor.untyped_storage().data_ptr(), tensor.storage_offset(),
            tensor._version, tensor.dtype, tuple(tensor.shape),
            tuple(tensor.stride()))


class Executable:
    """A graph module compiled by the server, called with the graph's
    arguments (tensors, sizes) in placeholder order."""

    def __init__(self, gm, kinds, args, name):
        self.gm, self.kinds, self.name = gm, kinds, name
        self._build(args)

    def _build(self, args):
        # The server that compiled it runs it, whatever connect() says
        # later.
        self.session = current = session()
        self._weights = {i: _identity(args[i]) for i, k in
                         enumerate(self.kinds) if k == "weight"}
        self.translation = translate(
            self.gm, self.kinds,
            lambda i: weight_id(current, args[i]), self.name)
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
        for i, wire in plan.sizes:  # the size as an empty tensor's dim
            inputs[wire] = graph_pb2.Tensor(dtype=graph_pb2.DTYPE_BOOL,
                                            shape=[int(args[i]), 0])
        device = next((args[i].device for i, _ in plan.inputs), None)
        results = self.session.client.run(self.compiled, inputs)
        outputs = []
        for spec in plan.outputs:
            if spec[0] == "tensor":
                tensor = from_numpy(results[spec[1]], spec[2])
                outputs.append(tensor.to(device) if device is not None and
                               device.type != "cpu" else tensor)
            elif spec[0] == "size":
                values = {s: args[i] if axis is None else
                          args[i].shape[axis]
                          for s, (i, axis) in plan.symbol_origin.items()}
                outputs.append(int(spec[1].subs(values)))
            else:
                outputs.append(spec[1])
        return outputs
