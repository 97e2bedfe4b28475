"""anyshape: the Python client of the anyshape compilation service.

    import anyshape
    c = anyshape.Client("127.0.0.1:50051")
    exe = c.compile_onnx(open("model.onnx", "rb").read())   # once, any shape
    out = c.run(exe, {"input_ids": ids, "attention_mask": mask})

The wire format and service stubs are anyshape.v1 (graph_pb2, service_pb2,
service_pb2_grpc), generated from the repository's proto/ at build time.
docs/python.md documents the API.
"""
from anyshape.client import AnyShapeError, Client, Compiled
from anyshape.tensors import from_tensor, to_tensor
from anyshape.v1 import graph_pb2, service_pb2

__all__ = ["AnyShapeError", "Client", "Compiled", "from_tensor",
           "to_tensor", "graph_pb2", "service_pb2"]
from anyshape._version import __version__  # noqa: E402 (generated)
