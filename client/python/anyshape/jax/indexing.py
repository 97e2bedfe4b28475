"""lax.gather and lax.scatter in every form jax.numpy emits: x[i],
x[:, i], x[i, j], take_along_axis, and x.at[...].set / add / mul / min /
max. Whole slices along one axis (an embedding's rows) are one wire
gather or scatter of rows; every other form is addressed element by
element: each element's row-major position in the operand (the window's
start from the indices, plus its iota, plus the batching dims' own
coordinates), read from or written into the operand flattened.

Out-of-range starts follow the primitive's mode. CLIP moves the window
into the operand (XLA's rule). A gather's FILL_OR_DROP (take_along_axis)
reads fill_value there, a scatter's (.at[] updates) drops the update.
PROMISE_IN_BOUNDS (x[i] after jnp has wrapped negative indices) is
checked where the window is one element wide: an index out of range is
an error naming the equation, not a read of some other element; wider
windows are clipped."""
import numpy as np

from anyshape.jax.rules import _result, _size_value, rule
from anyshape.jax.translate import dim, dim_expr, product, static_size
from anyshape.v1 import graph_pb2

_SCATTERS = {"scatter": graph_pb2.SCATTER_REPLACE,
             "scatter-add": graph_pb2.SCATTER_ADD,
             "scatter-mul": graph_pb2.SCATTER_MUL,
             "scatter-min": graph_pb2.SCATTER_MIN,
             "scatter-max": graph_pb2.SCATTER_MAX}


def _mode(eqn):
    return str(eqn.params.get("mode")).rsplit(".", 1)[-1]


def _i64(w, op, a, b):
    """a op b on i64 values, b broadcast to a's shape."""
    return w.emit(op, [a, w.broadcast(b, a.shape)], np.int64, a.shape)


def _iota(w, shape, axis):
    return w.emit("iota", [], np.int64, shape, ("iota", graph_pb2.IotaAttrs(
        dtype=graph_pb2.DTYPE_I64, shape=[dim(s) for s in shape],
        iota_dimension=axis)))


def _compare(w, a, b, direction):
    return w.emit("compare", [a, w.broadcast(b, a.shape)], np.bool_,
                  a.shape, ("compare", graph_pb2.CompareAttrs(
                      direction=direction)))


def _and(w, a, b):
    return b if a is None else w.emit("and", [a, b], np.bool_, a.shape)


def _column(w, indices, k):
    """indices[..., k] (the index vector is the last dim), i64."""
    lead = indices.shape[:-1]
    starts = [0] * indices.rank
    limits = list(indices.shape)
    starts[-1], limits[-1] = k, k + 1
    column = w.emit("slice", [indices], indices.dtype, lead + (1,), (
        "slice", graph_pb2.SliceAttrs(
            start_indices=[dim_expr(s) for s in starts],
            limit_indices=[dim_expr(s) for s in limits])))
    return w.convert(w.reshape(column, lead), np.int64)


def _positions(w, eqn, operand, indices, shape, window_dims, batch_dims,
               start_map, operand_batching, indices_batching, sizes, what):
    """Each element of `shape`'s row-major position in the operand, i64
    of `shape`, and where its window lies in the operand (bool, or None
    when the mode moves or checks it instead). window_dims: the element's
    dims that run through the window, matched in order to the operand's
    dims neither collapsed nor batching; batch_dims: the dims that run
    through the indices' leading dims, in order."""
    mode = _mode(eqn)
    inside = None
    starts = {}
    for k, d in enumerate(start_map):
        size = static_size(sizes[d])
        if size is None:
            raise w.error(f"a window of symbolic size {sizes[d]} at an "
                          "indexed dim")
        start = _column(w, indices, k)
        room = _i64(w, "sub", _size_value(w, operand, d),
                    w.constant(splat=size, dtype=np.int64))
        if mode == "FILL_OR_DROP":
            zero = w.constant(splat=0, dtype=np.int64)
            inside = _and(w, inside, w.emit("and", [
                _compare(w, start, zero, graph_pb2.COMPARE_GE),
                _compare(w, start, room, graph_pb2.COMPARE_LE)],
                np.bool_, start.shape))
        elif mode == "PROMISE_IN_BOUNDS" and size == 1:
            start = w.emit("check_index", [start, operand], np.int64,
                           start.shape, ("check_index",
                                         graph_pb2.CheckIndexAttrs(
                                             axis=d, allow_negative=False,
                                             what=what)))
        else:  # moved into the operand: max(0, min(start, room))
            start = _i64(w, "max", _i64(w, "min", start, room),
                         w.constant(splat=0, dtype=np.int64))
        starts[d] = w.broadcast(start, shape, batch_dims)
    if inside is not None:
        inside = w.broadcast(inside, shape, batch_dims)
    window = dict(zip(_window_operand_dims(operand.rank, eqn,
                                           operand_batching), window_dims))
    flat, stride = None, None
    for d in reversed(range(operand.rank)):
        at = starts.get(d)
        if d in window:
            step = _iota(w, shape, window[d])
            at = step if at is None else w.emit("add", [at, step], np.int64,
                                                shape)
        if d in operand_batching:
            own = batch_dims[indices_batching[operand_batching.index(d)]]
            at = _iota(w, shape, own)
        if at is not None:
            term = at if stride is None else _i64(w, "mul", at, stride)
            flat = term if flat is None else w.emit("add", [flat, term],
                                                    np.int64, shape)
        size = _size_value(w, operand, d)
        stride = size if stride is None else w.emit("mul", [stride, size],
                                                    np.int64, ())
    if flat is None:
        flat = w.broadcast(w.constant(splat=0, dtype=np.int64), shape)
    return flat, inside


def _window_operand_dims(rank, eqn, operand_batching):
    numbers = eqn.params["dimension_numbers"]
    dropped = set(getattr(numbers, "collapsed_slice_dims", None) or
                  getattr(numbers, "inserted_window_dims", ()))
    return [d for d in range(rank)
            if d not in dropped and d not in operand_batching]


def _batching(numbers, gather):
    operand = tuple(getattr(numbers, "operand_batching_dims", ()))
    indices = tuple(getattr(numbers, "start_indices_batching_dims" if gather
                            else "scatter_indices_batching_dims", ()))
    return operand, indices


def _row_axis(numbers, indices, operand_batching, sizes_fit):
    """The one axis whole slices are taken along, or None."""
    collapsed = tuple(getattr(numbers, "collapsed_slice_dims", None) or
                      getattr(numbers, "inserted_window_dims", ()))
    start_map = tuple(getattr(numbers, "start_index_map", None) or
                      getattr(numbers, "scatter_dims_to_operand_dims", ()))
    if len(start_map) != 1 or collapsed != start_map or operand_batching \
            or indices.shape[-1] != 1 or not sizes_fit(start_map[0]):
        return None
    return start_map[0]


@rule("gather")
def _gather(w, eqn, operand, indices):
    numbers = eqn.params["dimension_numbers"]
    sizes = eqn.params["slice_sizes"]
    dtype, shape = _result(eqn)
    what = f"jax gather '{eqn.outvars[0]}'"
    operand_batching, indices_batching = _batching(numbers, True)
    axis = _row_axis(numbers, indices, operand_batching, lambda a: all(
        sizes[d] == operand.shape[d] for d in range(operand.rank) if d != a))
    offset_dims = tuple(numbers.offset_dims)
    if axis is not None and _mode(eqn) != "FILL_OR_DROP" and offset_dims == \
            tuple(range(axis)) + tuple(range(indices.rank - 1 + axis,
                                             len(shape))):
        # Rows: one wire gather (it clamps, as CLIP does).
        index = w.reshape(indices, indices.shape[:-1])
        if _mode(eqn) == "PROMISE_IN_BOUNDS":
            index = w.emit("check_index", [index, operand], index.dtype,
                           index.shape, ("check_index",
                                         graph_pb2.CheckIndexAttrs(
                                             axis=axis, allow_negative=False,
                                             what=what)))
        return w.emit("gather", [operand, index], dtype, shape,
                      ("gather", graph_pb2.GatherAttrs(axis=axis)))
    batch_dims = [d for d in range(len(shape)) if d not in offset_dims]
    flat, inside = _positions(
        w, eqn, operand, indices, shape, list(offset_dims), batch_dims,
        tuple(numbers.start_index_map), operand_batching, indices_batching,
        sizes, what)
    whole = w.reshape(operand, (product(operand.shape),))
    gathered = w.emit("gather", [whole, flat], dtype, shape,
                      ("gather", graph_pb2.GatherAttrs(axis=0)))
    if inside is None:
        return gathered
    fill = eqn.params.get("fill_value")
    if fill is None:
        fill = np.nan if np.issubdtype(dtype, np.floating) else (
            np.iinfo(dtype).min if np.issubdtype(dtype, np.signedinteger)
            else np.iinfo(dtype).max if np.issubdtype(dtype, np.integer)
            else True)
    filler = w.broadcast(w.constant(splat=fill, dtype=dtype), shape)
    return w.emit("select", [inside, gathered, filler], dtype, shape)


def _scatter(reduction):
    def translate(w, eqn, operand, indices, updates):
        numbers = eqn.params["dimension_numbers"]
        dtype = operand.dtype
        what = f"jax {eqn.primitive.name} '{eqn.outvars[0]}'"
        operand_batching, indices_batching = _batching(numbers, False)
        window_dims = tuple(numbers.update_window_dims)
        window_operand = _window_operand_dims(operand.rank, eqn,
                                              operand_batching)
        sizes = [1] * operand.rank
        for d, u in zip(window_operand, window_dims):
            sizes[d] = updates.shape[u]
        batch_dims = [d for d in range(updates.rank) if d not in window_dims]
        flat, inside = _positions(
            w, eqn, operand, indices, updates.shape, list(window_dims),
            batch_dims, tuple(numbers.scatter_dims_to_operand_dims),
            operand_batching, indices_batching, sizes, what)
        count = product(operand.shape)
        whole = w.reshape(operand, (count,))
        if inside is not None:  # dropped updates land on one spare slot
            spare = w.broadcast(w.constant(splat=0, dtype=dtype), (1,))
            whole = w.emit("concatenate", [whole, spare], dtype, (count + 1,),
                           ("concatenate",
                            graph_pb2.ConcatenateAttrs(dimension=0)))
            past = w.broadcast(_size_value(w, whole, 0), flat.shape)
            past = _i64(w, "sub", past, w.constant(splat=1, dtype=np.int64))
            flat = w.emit("select", [inside, flat, past], np.int64,
                          flat.shape)
        m = product(updates.shape)
        written = w.emit("scatter", [whole, w.reshape(flat, (m,)),
                                     w.reshape(w.convert(updates, dtype),
                                               (m,))],
                         dtype, whole.shape, ("scatter",
                                              graph_pb2.ScatterAttrs(
                                                  reduction=reduction)))
        if inside is not None:
            written = w.emit("slice", [written], dtype, (count,), (
                "slice", graph_pb2.SliceAttrs(start_indices=[dim_expr(0)],
                                              limit_indices=[dim_expr(count)])))
        return w.reshape(written, operand.shape)
    return translate


for _name, _reduction in _SCATTERS.items():
    rule(_name)(_scatter(_reduction))
