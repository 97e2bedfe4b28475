"""numpy arrays to and from the wire's Tensor (dtype, shape, raw bytes in
little-endian row-major order, as docs/ops.md defines them)."""
import numpy as np

from anyshape.v1 import graph_pb2

# bf16 has no numpy dtype: it travels as its uint16 bit patterns.
_TO_WIRE = {
    np.dtype(np.float32): graph_pb2.DTYPE_F32,
    np.dtype(np.float16): graph_pb2.DTYPE_F16,
    np.dtype(np.int32): graph_pb2.DTYPE_I32,
    np.dtype(np.int64): graph_pb2.DTYPE_I64,
    np.dtype(np.bool_): graph_pb2.DTYPE_BOOL,
}
_FROM_WIRE = {wire: dtype for dtype, wire in _TO_WIRE.items()}
_FROM_WIRE[graph_pb2.DTYPE_BF16] = np.dtype(np.uint16)


def to_tensor(array):
    """`array` (anything np.asarray takes; float64 becomes float32, as the
    service has no f64) as a wire Tensor; a wire Tensor is taken as is."""
    if isinstance(array, graph_pb2.Tensor):
        return array
    array = np.asarray(array)
    if not array.dtype.isnative:  # big-endian data is converted, not refused
        array = array.astype(array.dtype.newbyteorder("="))
    if array.dtype == np.float64:
        array = array.astype(np.float32)
    wire = _TO_WIRE.get(array.dtype)
    if wire is None:
        raise TypeError(f"anyshape has no dtype for numpy {array.dtype} "
                        f"(it takes {', '.join(map(str, _TO_WIRE))})")
    little = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<"))
    return graph_pb2.Tensor(dtype=wire, shape=list(array.shape),
                            data=little.tobytes())


def from_tensor(tensor):
    """A wire Tensor as a numpy array of its dtype and shape (bf16 as
    uint16 bit patterns)."""
    dtype = _FROM_WIRE.get(tensor.dtype)
    if dtype is None:
        raise ValueError(f"a tensor of unknown dtype {tensor.dtype}")
    shape = tuple(tensor.shape)
    count = int(np.prod(shape, dtype=np.int64))
    if len(tensor.data) != count * dtype.itemsize:
        raise ValueError(f"a tensor of shape {list(shape)} and dtype "
                         f"{dtype} holds {len(tensor.data)} bytes")
    little = np.frombuffer(tensor.data, dtype=dtype.newbyteorder("<"))
    return little.astype(dtype).reshape(shape)
