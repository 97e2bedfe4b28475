"""torch.compile(model, backend="anyshape"): Dynamo's graph lowered to
ATen by AOTAutograd (functional, with the decompositions of ops.py),
translated to one wire graph and compiled once by the server for every
shape. With dynamic=True (or mark_dynamic) one Dynamo graph and one
server compile serve every length.

The backend serves inference: it traces without autograd, so its outputs
carry no gradient history. A graph the translator cannot express, or
the server does not compile, runs eagerly instead, with one warning line
naming the op and its source line (or the server's error), and counts in
`counters["fallbacks"]`; it never fails the call. `counters["graphs"]`
counts the graphs Dynamo handed over, some of which Dynamo itself may
trace again and drop (torch._dynamo.utils.counters["stats"]
["unique_graphs"] counts those it kept).
"""
import collections
import warnings

import torch
from torch._functorch.aot_autograd import aot_module_simplified, \
    make_boxed_func
from torch._subclasses.fake_tensor import unset_fake_temporarily

from anyshape.client import AnyShapeError
from anyshape.torch import dims as wdims
from anyshape.torch.dims import TranslationError
from anyshape.torch.ops import decompositions
from anyshape.torch.session import Executable

# Server compiles are anyshape.torch.session().compiles.
counters = collections.Counter()


def _kind(example):
    if not isinstance(example, torch.Tensor):
        return "size"
    # Dynamo marks parameters and buffers as static inputs.
    if getattr(example, "_dynamo_static_input_type", None) is not None:
        return "weight"
    return "user"


def _mutated_inputs():
    """The inputs the graph writes to (AOTAutograd's metadata): these are
    state, not weights, and are sent on every call."""
    context = torch._guards.TracingContext.try_get()
    metadata = getattr(context, "fw_metadata", None)
    if metadata is None:
        return set()
    return {i for i, info in enumerate(metadata.input_info)
            if info.mutates_data or info.mutates_metadata}


def _input_views(aten_gm):
    """The outputs of `aten_gm` that are views of one of its inputs (the
    fake tensors share a storage): (output position, input position,
    size, stride, storage offset from the input's), as expressions of
    the graph's symbols. AOTAutograd rebuilds such an output from the
    input with the metadata of the tensor the compiled graph returns, so
    the graph must return that very view of the input, as Inductor does:
    from a copy, at offset 0, x[:, n // 2:] would be x[:, :n - n // 2]."""
    placeholders = [n for n in aten_gm.graph.nodes if n.op == "placeholder"]
    output = next(n for n in aten_gm.graph.nodes if n.op == "output")
    storages = {}
    for index, node in enumerate(placeholders):
        val = node.meta.get("val")
        if isinstance(val, torch.Tensor):
            storages.setdefault(val.untyped_storage()._cdata, (index, val))
    views = []
    for position, node in enumerate(output.args[0]):
        val = node.meta.get("val") if isinstance(node, torch.fx.Node) \
            else None
        if not isinstance(val, torch.Tensor):
            continue
        held = storages.get(val.untyped_storage()._cdata)
        if held is None:
            continue
        index, base = held
        views.append((position, index,
                      [wdims.as_expr(d) for d in val.shape],
                      [wdims.as_expr(d) for d in val.stride()],
                      wdims.as_expr(val.storage_offset()) -
                      wdims.as_expr(base.storage_offset())))
    return views


def backend(gm, example_inputs, options=None):
    """The Dynamo backend: compiles `gm` for every shape of its inputs.
    torch.compile(..., options={"strict": True}) raises the translator's
    error instead of running eagerly."""
    strict = bool((options or {}).get("strict", False))
    counters["graphs"] += 1
    # AOTAutograd puts the module's own parameters and buffers first, in
    # this order (none when Dynamo lifted them to inputs, its default).
    lifted = [*dict(gm.named_parameters(remove_duplicate=False)).values(),
              *dict(gm.named_buffers(remove_duplicate=False)).values()]
    args = lifted + list(example_inputs)
    kinds = ["weight"] * len(lifted) + [_kind(e) for e in example_inputs]

    def compile_forward(aten_gm, aten_inputs):
        for i in _mutated_inputs():
            if kinds[i] == "weight":
                kinds[i] = "user"
        try:
            # The compiler runs inside Dynamo's fake mode; the weights it
            # uploads are real.
            with unset_fake_temporarily():
                executable = Executable(aten_gm, list(kinds), args,
                                        f"dynamo_{counters['graphs']}")
        except (TranslationError, AnyShapeError) as error:
            # Also a graph the server refuses: the call still runs.
            if strict:
                raise
            counters["fallbacks"] += 1
            warnings.warn(f"anyshape: running a graph eagerly: {error}",
                          stacklevel=2)
            return make_boxed_func(aten_gm.forward)

        views = _input_views(aten_gm)
        origin = executable.translation.symbol_origin
        unknown = {symbol for view in views
                   for expr in view[2] + view[3] + [view[4]]
                   for symbol in expr.free_symbols} - set(origin)
        if unknown:
            message = (f"an output is a view of an input whose layout "
                       f"reads {sorted(map(str, unknown))}, which no input "
                       f"size gives")
            if strict:
                raise TranslationError(message)
            counters["fallbacks"] += 1
            warnings.warn(f"anyshape: running a graph eagerly: {message}",
                          stacklevel=2)
            return make_boxed_func(aten_gm.forward)

        def run(call_args):
            with torch.no_grad():
                outputs = executable(call_args)
                if views:
                    values = {symbol: call_args[i] if axis is None else
                              call_args[i].shape[axis]
                              for symbol, (i, axis) in origin.items()}
                    for position, index, size, stride, offset in views:
                        base = call_args[index]
                        outputs[position] = base.as_strided(
                            [int(e.subs(values)) for e in size],
                            [int(e.subs(values)) for e in stride],
                            base.storage_offset() + int(offset.subs(values)))
                return outputs
        run._boxed_call = True
        return run

    with torch.no_grad():
        return aot_module_simplified(gm, example_inputs,
                                     fw_compiler=compile_forward,
                                     decompositions=decompositions())


def register():
    """Makes backend="anyshape" known to torch.compile."""
    from torch._dynamo.backends.registry import _COMPILER_FNS, \
        register_backend
    if "anyshape" not in _COMPILER_FNS:  # not yet, by this or the entry point
        register_backend(name="anyshape")(backend)
