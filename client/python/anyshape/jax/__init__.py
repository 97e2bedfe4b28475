"""JAX in: anyshape.jax.export(fn, *args) compiles `fn` once on the
server for every shape its symbolic arguments allow (docs/python.md).

    b, s = jax.export.symbolic_shape("b, s")
    run = anyshape.jax.export(apply, params,
                              jax.ShapeDtypeStruct((b, s), jnp.int32))
    logits = run(tokens)            # any b and s; params already there

`args` are pytrees: a jax.ShapeDtypeStruct leaf is an input of each call
(its shape may be symbolic); any array leaf is a weight, uploaded once
by content and named in the graph. JAX's shape assertions (a dim that
must be at least 1, or equal another) are the wire's own shape checks.
"""
import jax
import numpy as np

from anyshape.jax.translate import TranslationError, translate
from anyshape.local import connect, session
from anyshape.v1 import graph_pb2

__all__ = ["TranslationError", "connect", "export", "session"]


class Exported:
    """Call with the inputs (the ShapeDtypeStruct leaves, in order);
    returns the function's outputs in its structure, as numpy arrays."""

    def __init__(self, fn, args, name):
        leaves, tree = jax.tree_util.tree_flatten(args)
        self._user = [isinstance(x, jax.ShapeDtypeStruct) for x in leaves]
        specs = [x if user else jax.ShapeDtypeStruct(np.shape(x),
                                                     np.asarray(x).dtype)
                 for x, user in zip(leaves, self._user)]

        def flat(*xs):
            return fn(*jax.tree_util.tree_unflatten(tree, xs))
        closed, shapes = jax.make_jaxpr(flat, return_shape=True)(*specs)
        self._out_tree = jax.tree_util.tree_structure(shapes)
        self._out_dtypes = [np.dtype(s.dtype)
                            for s in jax.tree_util.tree_leaves(shapes)]
        self.session = current = session()
        kinds = ["user" if user else "weight" for user in self._user]

        def upload(k):
            return current.client.upload(np.asarray(leaves[k]))
        self.graph, self._outputs = translate(closed, kinds, upload, name)
        self.compiled = current.compile(self.graph)
        self._inputs = [f"input{k}" for k, user in enumerate(self._user)
                        if user]

    def __call__(self, *inputs):
        if len(inputs) != len(self._inputs):
            raise TypeError(f"anyshape.jax: {len(self._inputs)} inputs "
                            f"expected, got {len(inputs)}")
        results = self.session.client.run(
            self.compiled, {name: _wire(np.asarray(x))
                            for name, x in zip(self._inputs, inputs)})
        # bf16 comes back as its bits: viewed as JAX's own bfloat16.
        return jax.tree_util.tree_unflatten(self._out_tree, [
            results[name].view(dtype) if dtype == _BFLOAT16 else
            results[name] for name, dtype in zip(self._outputs,
                                                 self._out_dtypes)])


_BFLOAT16 = np.dtype(jax.numpy.bfloat16)


def _wire(array):
    """An input as the client sends it: bf16 (which numpy lacks) as a
    wire tensor of its bits."""
    if array.dtype != _BFLOAT16:
        return array
    return graph_pb2.Tensor(dtype=graph_pb2.DTYPE_BF16,
                            shape=list(array.shape),
                            data=array.view(np.uint16).astype("<u2").tobytes())


def export(fn, *args, name="jax"):
    """`fn` traced at `args` (ShapeDtypeStruct leaves are inputs, other
    leaves weights) and compiled once for every shape; see Exported."""
    return Exported(fn, args, name)

