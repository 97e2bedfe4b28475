"""anyshape.torch.export: torch.export's program, compiled once by the
server for every shape the dynamic_shapes allow, as a callable that
takes the model's own arguments.

The program is decomposed with the table of ops.py; parameters, buffers
and lifted constants become weights uploaded once; the user's inputs are
the flattened (args, kwargs) in torch.export's order, and the outputs
come back in the model's own structure.
"""
import torch
from torch.export.graph_signature import InputKind, OutputKind, \
    TensorArgument
from torch.utils import _pytree as pytree

from anyshape.torch.dims import TranslationError
from anyshape.torch.ops import decompositions
from anyshape.torch.session import Executable


class ExportedModel:
    """Call it as the model: it runs on the server's executable."""

    def __init__(self, program):
        self.program = program
        signature = program.graph_signature
        state = {**program.state_dict, **program.constants}
        self._kinds, self._weights, self._user = [], {}, []
        for index, spec in enumerate(signature.input_specs):
            if spec.kind == InputKind.USER_INPUT:
                tensor = isinstance(spec.arg, TensorArgument)
                self._kinds.append("user" if tensor else "size")
                self._user.append(index)
            elif spec.kind in (InputKind.PARAMETER, InputKind.BUFFER,
                               InputKind.CONSTANT_TENSOR):
                self._kinds.append("weight")
                self._weights[index] = state[spec.target]
            else:
                raise TranslationError(f"an input of kind {spec.kind.name}")
        for spec in signature.output_specs:
            if spec.kind != OutputKind.USER_OUTPUT:
                raise TranslationError(
                    f"the model writes state ({spec.kind.name} of "
                    f"'{spec.target}'): pass it as an input and return it")
        self._inputs = [(node.name,
                         getattr(node.meta.get("val"), "dtype", None))
                        for node in program.graph.nodes
                        if node.op == "placeholder"]
        weights = [self._weights.get(i) for i in range(len(self._kinds))]
        shape_env = _shape_env(program)
        guarded = len(shape_env.guards) if shape_env is not None else 0
        self._executable = Executable(program.graph_module, self._kinds,
                                      weights, "export")
        if shape_env is not None and len(shape_env.guards) > guarded:
            # A rule decided on a size (a Python `if` on a SymInt): the
            # graph would hold for the example's sizes only, and nothing
            # guards a program, so that is refused.
            raise TranslationError(
                "the translation took a size condition as the example's "
                "sizes have it: " + ", ".join(
                    str(g.expr) for g in shape_env.guards[guarded:]))

    def _arguments(self, args, kwargs):
        flat, spec = pytree.tree_flatten((tuple(args), dict(kwargs)))
        expected = self.program.call_spec.in_spec
        if expected is not None and spec != expected:
            raise TypeError("anyshape.torch.export: the arguments differ in "
                            f"structure from the exported ones ({spec} vs "
                            f"{expected})")
        call = [None] * len(self._kinds)
        for index, value in zip(self._user, flat):
            call[index] = value
        for index, tensor in self._weights.items():
            call[index] = tensor
        return call

    def __call__(self, *args, **kwargs):
        # The ranges and equalities torch.export assumed of the sizes
        # (Dim's min and max, and what its trace decided), checked as the
        # program's own module() checks them: the graph holds only there.
        self.program._check_input_constraints(
            pytree.tree_flatten_with_path((tuple(args), dict(kwargs)))[0])
        call = self._arguments(args, kwargs)
        for index in self._user:
            # The client sends float64 as float32, so the server cannot
            # tell it from an exported float32 (other dtypes it refuses,
            # naming the input).
            (name, want), value = self._inputs[index], call[index]
            if isinstance(value, torch.Tensor) and \
                    value.dtype == torch.float64 and want != torch.float64:
                raise TypeError(f"anyshape.torch.export: input '{name}' is "
                                f"torch.float64, exported as {want}")
        outputs = self._executable(call)
        return pytree.tree_unflatten(outputs,
                                     self.program.call_spec.out_spec)

    @property
    def graph(self):
        """The wire graph (anyshape.v1.graph_pb2.Graph) the server runs."""
        return self._executable.translation.graph


def _shape_env(program):
    """The ShapeEnv of the program's symbolic sizes, if it has any."""
    for node in program.graph.nodes:
        val = node.meta.get("val")
        sizes = val.shape if isinstance(val, torch.Tensor) else (val,)
        for size in sizes:
            if isinstance(size, torch.SymInt):
                return size.node.shape_env
    return None


def export(model, args, kwargs=None, dynamic_shapes=None, *, strict=False):
    """torch.export.export's arguments; returns an ExportedModel, compiled
    by the server once for every shape."""
    program = torch.export.export(model, tuple(args), kwargs or {},
                                  dynamic_shapes=dynamic_shapes,
                                  strict=strict)
    program = program.run_decompositions(decompositions())
    return ExportedModel(program)
