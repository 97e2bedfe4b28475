"""PyTorch in, without export files (docs/python.md, "PyTorch").

    import anyshape.torch
    fast = torch.compile(model, backend="anyshape", dynamic=True)
    exported = anyshape.torch.export(model, (ids,), dynamic_shapes=...)

Both lower the model to core ATen, translate it to one wire graph whose
sizes stay symbolic, and compile it once on the server for every shape.
connect() chooses the server; with none, a private one starts on first
use. `translate` is the translator itself, for tools and tests.
"""
from anyshape.torch.dims import TranslationError
from anyshape.torch.dynamo import backend, counters, register
from anyshape.torch.export import export
from anyshape.local import connect, session
from anyshape.torch.translate import translate

register()

__all__ = ["TranslationError", "backend", "connect", "counters", "export",
           "session", "translate"]
