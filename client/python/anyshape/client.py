"""Client: one connection to an anyshape server (docs/python.md).

Mirrors the C++ client (docs/client.md): calls that fail with UNAVAILABLE
(server starting, draining, restarting, connection lost) are retried with
exponential backoff and jitter, up to max_attempts in all, inside the
per-call deadline. Every RPC of the service is idempotent (compiles and
uploads are keyed by content), so retrying is always safe. Other errors
raise AnyShapeError carrying the server's gRPC code and message unchanged.
"""
import concurrent.futures
import os
import random
import threading
import time

import grpc
from google.protobuf import text_format

from anyshape.tensors import from_tensor, to_tensor
from anyshape.v1 import graph_pb2, service_pb2, service_pb2_grpc

_CHUNK_BYTES = 1 << 20  # upload chunk, as the C++ client


class AnyShapeError(Exception):
    """A failed call: `code` is the server's grpc.StatusCode, `details`
    its message (naming the input, node or limit at fault)."""

    def __init__(self, code, details):
        super().__init__(f"{code.name}: {details}")
        self.code = code
        self.details = details


class Compiled:
    """A compiled executable. `id` is the server's compile cache key: the
    same for every client compiling the same graph with the same options,
    whatever the shapes it later runs at."""

    def __init__(self, response):
        self.info = response.info
        self.id = response.info.executable_id
        self.cache_hit = response.cache_hit
        self.compile_ms = response.compile_ms
        self.inputs = [s.name for s in response.info.inputs]
        self.outputs = [s.name for s in response.info.outputs]

    def __repr__(self):
        return (f"Compiled(id={self.id!r}, inputs={self.inputs}, "
                f"outputs={self.outputs}, cache_hit={self.cache_hit})")


class Client:
    """Opens a channel to `address` ("host:port") and waits up to
    `connect_timeout` seconds for it (0: do not wait); raises AnyShapeError
    UNAVAILABLE if the server is not there. Safe to share between threads.
    `deadline` (seconds, None for none) bounds each call, retries
    included. `token` is sent as `authorization: Bearer TOKEN` (a server
    run with --auth-tokens). `tls_root_certs` (PEM bytes of the CA of the
    server's certificate) turns on TLS; `tls_cert_chain` and
    `tls_private_key` (PEM bytes) add a client certificate for mutual TLS;
    `tls_server_name` is the name the server's certificate carries when it
    is not the address's host."""

    def __init__(self, address, *, max_attempts=5, initial_backoff=0.05,
                 max_backoff=2.0, deadline=None, connect_timeout=5.0,
                 max_message_bytes=256 << 20, token=None,
                 tls_root_certs=None, tls_cert_chain=None,
                 tls_private_key=None, tls_server_name=None):
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.address = address
        self.max_attempts = max_attempts
        self.initial_backoff = initial_backoff
        self.max_backoff = max_backoff
        self.deadline = deadline
        self._metadata = (("authorization", f"Bearer {token}"),) \
            if token else None
        options = [
            ("grpc.max_send_message_length", max_message_bytes),
            ("grpc.max_receive_message_length", max_message_bytes),
        ]
        if tls_root_certs:
            if tls_server_name:
                options.append(("grpc.ssl_target_name_override",
                                tls_server_name))
            credentials = grpc.ssl_channel_credentials(
                root_certificates=tls_root_certs,
                private_key=tls_private_key,
                certificate_chain=tls_cert_chain)
            self._channel = grpc.secure_channel(address, credentials,
                                                options=options)
        elif tls_cert_chain or tls_private_key:
            raise ValueError("a TLS client certificate needs tls_root_certs, "
                             "the CA of the server's certificate")
        else:
            self._channel = grpc.insecure_channel(address, options=options)
        self._stub = service_pb2_grpc.AnyShapeStub(self._channel)
        self._pool = None
        self._pool_lock = threading.Lock()
        if connect_timeout:
            try:
                grpc.channel_ready_future(self._channel).result(
                    timeout=connect_timeout)
            except grpc.FutureTimeoutError:
                self._channel.close()
                raise AnyShapeError(
                    grpc.StatusCode.UNAVAILABLE,
                    f"no anyshape server at {address} within "
                    f"{connect_timeout:g} s") from None

    # ---- compile ------------------------------------------------------

    def compile(self, graph, options=None):
        """Compiles a wire Graph (anyshape.v1.graph_pb2.Graph) once for
        every shape; `options` is a service_pb2.CompileOptions."""
        return self._compile(service_pb2.CompileRequest(
            graph=graph, options=options))

    def compile_onnx(self, model_bytes, options=None):
        """Compiles an ONNX model from its bytes; the server imports it
        (docs/onnx.md). Its weights travel inline: external data is an
        error."""
        return self._compile(service_pb2.CompileRequest(
            onnx_model=bytes(model_bytes), options=options))

    def compile_file(self, path, options=None):
        """Compiles a model file: .onnx, .pbtxt (a Graph as text) or .pb."""
        with open(path, "rb") as f:
            data = f.read()
        extension = os.path.splitext(path)[1]
        if extension == ".onnx":
            return self.compile_onnx(data, options)
        if extension == ".pbtxt":
            graph = text_format.Parse(data.decode("utf-8"), graph_pb2.Graph())
        elif extension == ".pb":
            graph = graph_pb2.Graph.FromString(data)
        else:
            raise ValueError(f"{path}: not .onnx, .pbtxt or .pb")
        return self.compile(graph, options)

    def _compile(self, request):
        response = self._call(self._stub.Compile, request)
        if not response.info.executable_id:
            raise AnyShapeError(grpc.StatusCode.INTERNAL,
                                "Compile returned no executable id")
        return Compiled(response)

    # ---- run ----------------------------------------------------------

    def run(self, executable, inputs, keep=(), free=()):
        """Runs `executable` (a Compiled or its id) on `inputs`, a dict
        from input name to a numpy array (or anything np.asarray takes) or
        to the id of a tensor stored with upload() or kept by an earlier
        run. Returns a dict from output name to numpy array, in the graph's
        output order; the outputs named in `keep` stay in the server and
        map to their id instead (a str: pass it as a later input, free it
        with free()). A decoder's cache thus stays in the server between
        steps; one no run names for the server's idle limit is dropped.
        `free`: kept ids the server frees once this run is done (the cache
        the step consumed), without a free() round trip."""
        request = service_pb2.ExecuteRequest(
            executable_id=getattr(executable, "id", executable),
            keep_outputs=list(keep), free_after=list(free))
        for name, value in inputs.items():
            named = request.inputs.add(name=name)
            if isinstance(value, str):
                named.tensor_id = value
            else:
                named.tensor.CopyFrom(to_tensor(value))
        response = self._call(self._stub.Execute, request)
        return {o.name: o.tensor_id if o.WhichOneof("value") == "tensor_id"
                else from_tensor(o.tensor) for o in response.outputs}

    def free(self, tensor_ids):
        """Frees kept outputs (ids from run(..., keep=...)); returns how
        many were held. Ids already freed or dropped are skipped."""
        if isinstance(tensor_ids, str):
            tensor_ids = [tensor_ids]
        return self._call(self._stub.FreeTensors,
                          service_pb2.FreeTensorsRequest(
                              tensor_ids=list(tensor_ids))).freed

    # ---- tensors, executables, counters -------------------------------

    def upload(self, array):
        """Stores `array` in the server's tensor store in 1 MiB chunks and
        returns its content id (the same bytes always get the same id): a
        weight sent once and named by later runs."""
        tensor = to_tensor(array)

        def chunks():
            data = tensor.data
            yield service_pb2.UploadTensorChunk(
                dtype=tensor.dtype, shape=tensor.shape,
                data=data[:_CHUNK_BYTES])
            for at in range(_CHUNK_BYTES, len(data), _CHUNK_BYTES):
                yield service_pb2.UploadTensorChunk(
                    data=data[at:at + _CHUNK_BYTES])

        return self._call(lambda _, **kw: self._stub.UploadTensor(
            chunks(), **kw), None).tensor_id

    def info(self, executable):
        """The executable's ExecutableInfo: signatures, symbols, kernels,
        fusion plan."""
        return self._call(self._stub.GetExecutable,
                          service_pb2.GetExecutableRequest(
                              executable_id=getattr(executable, "id",
                                                    executable)))

    def unload(self, executable):
        """Frees the executable in the server's memory; True if it was
        loaded."""
        return self._call(self._stub.Unload, service_pb2.UnloadRequest(
            executable_id=getattr(executable, "id", executable))).was_loaded

    def stats(self):
        """The server's counters as a dict (compiles, cache_hits, ...)."""
        response = self._call(self._stub.Stats, service_pb2.StatsRequest())
        return {f.name: getattr(response, f.name)
                for f in response.DESCRIPTOR.fields}

    # ---- async --------------------------------------------------------

    def compile_async(self, graph, options=None):
        """compile() without blocking: a concurrent.futures.Future."""
        return self._submit(self.compile, graph, options)

    def compile_onnx_async(self, model_bytes, options=None):
        return self._submit(self.compile_onnx, model_bytes, options)

    def run_async(self, executable, inputs):
        """run() without blocking: a concurrent.futures.Future of the
        outputs dict (or of the AnyShapeError)."""
        return self._submit(self.run, executable, inputs)

    def upload_async(self, array):
        return self._submit(self.upload, array)

    def _submit(self, function, *args):
        with self._pool_lock:
            if self._pool is None:
                self._pool = concurrent.futures.ThreadPoolExecutor(
                    max_workers=8, thread_name_prefix="anyshape")
        return self._pool.submit(function, *args)

    # ---- lifetime -----------------------------------------------------

    def close(self):
        """Waits for the async calls in flight, then closes the channel."""
        with self._pool_lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)
        self._channel.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- retries ------------------------------------------------------

    def _backoff(self, attempt):
        wait = min(self.initial_backoff * 2 ** (attempt - 1),
                   self.max_backoff)
        return wait * random.uniform(0.5, 1.0)

    def _call(self, method, request):
        end = None if self.deadline is None else time.monotonic() + \
            self.deadline
        attempt = 0
        while True:
            attempt += 1
            timeout = None if end is None else max(end - time.monotonic(), 0)
            try:
                return method(request, timeout=timeout,
                              metadata=self._metadata, wait_for_ready=False)
            except grpc.RpcError as error:
                code = error.code()
                # CANCELLED too: this client never cancels a call, so it
                # is the server's, one shutting down as the call arrived.
                if code not in (grpc.StatusCode.UNAVAILABLE,
                                grpc.StatusCode.CANCELLED) or \
                        attempt >= self.max_attempts:
                    details = error.details() or ""
                    if code == grpc.StatusCode.UNAVAILABLE:
                        details = (f"{details} (anyshape server at "
                                   f"{self.address}, {attempt} attempts)")
                    raise AnyShapeError(code, details) from None
                wait = self._backoff(attempt)
                if end is not None and time.monotonic() + wait >= end:
                    raise AnyShapeError(
                        grpc.StatusCode.DEADLINE_EXCEEDED,
                        f"{error.details()} (the deadline passed while "
                        f"retrying, after {attempt} attempts)") from None
                time.sleep(wait)
