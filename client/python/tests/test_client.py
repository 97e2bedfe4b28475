"""The Python client against a real anyshape-server on 127.0.0.1 (port 0),
over real gRPC: ONNX models compiled once and run at many shapes (checked
against numpy and against PyTorch's numbers), graphs from files, uploads,
async runs, the server's errors with their codes, and retries that give up
on a server that is not there.

    ANYSHAPE_SERVER=build/bin/anyshape-server ANYSHAPE_SOURCE_DIR=. \\
    PYTHONPATH=build/python python3 -m unittest discover -s client/python/tests
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

import grpc
import numpy as np

import anyshape

SOURCE = os.environ.get("ANYSHAPE_SOURCE_DIR", ".")
SERVER = os.environ.get("ANYSHAPE_SERVER", "build/bin/anyshape-server")
ONNX = os.path.join(SOURCE, "tests", "graphs", "onnx")


def read(path):
    with open(path, "rb") as f:
        return f.read()


def mlp_reference(x):
    """tests/graphs/onnx/mlp.onnx: softmax(relu(x @ W.T + B))."""
    w = np.array([[0.5, -1, 0.25, 2], [1, 0, -0.5, 0.75],
                  [-1, 1, 1, -0.25]], dtype=np.float64)
    h = np.maximum(x.astype(np.float64) @ w.T + [0.1, -0.2, 0.3], 0)
    e = np.exp(h - h.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def expected_cases(path):
    """The cases of a .expected file (examples/minilm/export_minilm.py)."""
    with open(path) as f:
        lines = [line.split() for line in f if line.strip()]
    for k in range(0, len(lines), 4):
        _, batch, seq, dim = lines[k]
        shape = (int(batch), int(seq))
        ids = np.array(lines[k + 1][1:], dtype=np.int64).reshape(shape)
        mask = np.array(lines[k + 2][1:], dtype=np.int64).reshape(shape)
        embeddings = np.array(lines[k + 3][1:], dtype=np.float64)
        yield ids, mask, embeddings.reshape(int(batch), int(dim))


def start_server(cls, *args):
    """Starts a server with `args` into cls.server, cls.address, cls.log;
    cls.dir is its scratch directory."""
    if not os.path.exists(SERVER):
        raise unittest.SkipTest(f"{SERVER} is not built")
    port_file = os.path.join(cls.dir, "port")
    cls.log = open(os.path.join(cls.dir, "log"), "w")
    cls.server = subprocess.Popen(
        [SERVER, "--listen", "127.0.0.1:0", "--port-file", port_file,
         "--drain-seconds", "5", *args], stderr=cls.log)
    for _ in range(600):
        if os.path.exists(port_file) and os.path.getsize(port_file):
            break
        if cls.server.poll() is not None:
            raise AssertionError("the server did not start")
        time.sleep(0.05)
    with open(port_file) as f:
        cls.address = f.read().strip()


class ServerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="anyshape-python-")
        start_server(cls)
        cls.client = anyshape.Client(cls.address)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.server.terminate()
        assert cls.server.wait(timeout=30) == 0, "the server did not exit 0"
        cls.log.close()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_an_onnx_model_compiles_once_for_every_batch(self):
        model = read(os.path.join(ONNX, "mlp.onnx"))
        before = self.client.stats()
        exe = self.client.compile_onnx(model)
        self.assertEqual(exe.inputs, ["x"])
        self.assertEqual(len(exe.id), 32)
        rng = np.random.default_rng(0)
        for batch in (1, 5, 33, 0):
            x = rng.standard_normal((batch, 4)).astype(np.float32)
            out = self.client.run(exe, {"x": x})
            self.assertEqual(list(out), exe.outputs)
            y = out[exe.outputs[0]]
            self.assertEqual(y.shape, (batch, 3))
            self.assertEqual(y.dtype, np.float32)
            np.testing.assert_allclose(y, mlp_reference(x), atol=1e-5)
        again = self.client.compile_onnx(model)
        self.assertTrue(again.cache_hit)
        self.assertEqual(again.id, exe.id)
        after = self.client.stats()
        self.assertEqual(after["compiles"] - before["compiles"], 1)
        self.assertGreaterEqual(after["executions"] - before["executions"], 4)

    def test_a_bert_export_matches_pytorch(self):
        exe = self.client.compile_file(os.path.join(ONNX, "tiny_bert.onnx"))
        self.assertEqual(exe.inputs, ["input_ids", "attention_mask"])
        for ids, mask, expected in expected_cases(
                os.path.join(ONNX, "tiny_bert.expected")):
            out = self.client.run(exe, {"input_ids": ids,
                                        "attention_mask": mask})
            np.testing.assert_allclose(out["embeddings"], expected, atol=1e-4)

    def test_graph_files_info_and_unload(self):
        exe = self.client.compile_file(
            os.path.join(SOURCE, "examples", "mlp.pbtxt"))
        info = self.client.info(exe)
        self.assertEqual(info.executable_id, exe.id)
        self.assertEqual([s.name for s in info.inputs], exe.inputs)
        self.assertTrue(self.client.unload(exe))
        self.assertFalse(self.client.unload(exe.id))

    def test_uploaded_tensors_serve_as_inputs(self):
        exe = self.client.compile_onnx(read(os.path.join(ONNX, "mlp.onnx")))
        x = np.linspace(-1, 1, 7 * 4, dtype=np.float32).reshape(7, 4)
        tensor_id = self.client.upload(x)
        self.assertEqual(self.client.upload(x), tensor_id)
        by_id = self.client.run(exe.id, {"x": tensor_id})
        inline = self.client.run(exe, {"x": x})
        np.testing.assert_array_equal(by_id["y"], inline["y"])
        big = np.ones((3 << 18, 4), dtype=np.float32)  # 12 MiB: 12 chunks
        big_id = self.client.upload(big)
        self.assertEqual(self.client.run(exe, {"x": big_id})["y"].shape,
                         (3 << 18, 3))

    def test_async_runs_share_one_compile(self):
        exe = self.client.compile_onnx_async(
            read(os.path.join(ONNX, "mlp.onnx"))).result()
        inputs = [np.full((b, 4), 0.1 * b, dtype=np.float32)
                  for b in range(1, 17)]
        futures = [self.client.run_async(exe, {"x": x}) for x in inputs]
        for x, future in zip(inputs, futures):
            np.testing.assert_allclose(future.result()["y"], mlp_reference(x),
                                       atol=1e-5)

    def test_greedy_decoding_keeps_the_cache_in_the_server(self):
        # examples/zoo/generate.py: the LLaMA-style decoder exported from
        # PyTorch, 64 greedy tokens, the KV cache kept in the server
        # between steps; the tokens are PyTorch's own.
        sys.path.insert(0, os.path.join(SOURCE, "examples", "zoo"))
        import generate
        with open(os.path.join(SOURCE, "examples", "zoo", "llama",
                               "model.onnx"), "rb") as f:
            exe = self.client.compile_onnx(f.read())
        before = self.client.stats()
        prompt, want = generate.expected_tokens()
        tokens, _ = generate.generate(self.client, exe, prompt, len(want))
        self.assertEqual(tokens, want)
        after = self.client.stats()
        self.assertEqual(after["kept_tensors"], before["kept_tensors"])
        self.assertEqual(after["compiles"], before["compiles"])

    def test_kept_outputs_are_ids_until_freed(self):
        exe = self.client.compile_onnx(read(os.path.join(ONNX, "mlp.onnx")))
        name = exe.outputs[0]
        x = np.ones((2, 4), np.float32)
        out = self.client.run(exe, {"x": x}, keep=[name])
        kept = out[name]
        self.assertIsInstance(kept, str)
        self.assertTrue(kept.startswith("kept-"))
        self.assertEqual(self.client.free([kept]), 1)
        self.assertEqual(self.client.free(kept), 0)  # a second free: none
        with self.assertRaises(anyshape.AnyShapeError) as caught:
            self.client.run(exe, {"x": x}, keep=["nope"])
        self.assertEqual(caught.exception.code,
                         grpc.StatusCode.INVALID_ARGUMENT)
        with self.assertRaises(anyshape.AnyShapeError) as caught:
            self.client.run(exe, {"x": kept})
        self.assertEqual(caught.exception.code, grpc.StatusCode.NOT_FOUND)
        self.assertIn("kept tensor", str(caught.exception))

    def test_server_errors_keep_their_codes(self):
        exe = self.client.compile_onnx(read(os.path.join(ONNX, "mlp.onnx")))
        cases = [
            (lambda: self.client.run(exe, {"z": np.zeros((1, 4), np.float32)}),
             grpc.StatusCode.INVALID_ARGUMENT, "no input 'z'"),
            (lambda: self.client.run(exe, {"x": np.zeros((2, 5), np.float32)}),
             grpc.StatusCode.INVALID_ARGUMENT, ""),
            (lambda: self.client.run("0" * 32, {}),
             grpc.StatusCode.NOT_FOUND, ""),
            (lambda: self.client.compile_onnx(b"not a model"),
             grpc.StatusCode.INVALID_ARGUMENT, "ONNX"),
            (lambda: self.client.compile_onnx(
                read(os.path.join(ONNX, "truncated.onnx"))),
             grpc.StatusCode.INVALID_ARGUMENT, "ONNX"),
        ]
        for call, code, text in cases:
            with self.assertRaises(anyshape.AnyShapeError) as raised:
                call()
            self.assertEqual(raised.exception.code, code, raised.exception)
            self.assertIn(text, raised.exception.details)
        with self.assertRaises(TypeError):
            self.client.run(exe, {"x": np.zeros((1, 4), np.complex64)})
        self.assertGreater(self.client.stats()["compile_errors"], 0)


class VersionTest(unittest.TestCase):
    def test_the_version_is_the_repositorys(self):
        # One owner: the repository's VERSION file, also CMake's.
        with open(os.path.join(SOURCE, "VERSION")) as f:
            self.assertEqual(anyshape.__version__, f.read().strip())


class UnreachableTest(unittest.TestCase):
    def test_connect_waits_then_says_unavailable(self):
        with self.assertRaises(anyshape.AnyShapeError) as raised:
            anyshape.Client("127.0.0.1:1", connect_timeout=0.2)
        self.assertEqual(raised.exception.code, grpc.StatusCode.UNAVAILABLE)

    def test_unavailable_is_retried_then_reported(self):
        client = anyshape.Client("127.0.0.1:1", connect_timeout=0,
                                 max_attempts=3, initial_backoff=0.05)
        start = time.monotonic()
        with self.assertRaises(anyshape.AnyShapeError) as raised:
            client.stats()
        elapsed = time.monotonic() - start
        client.close()
        self.assertEqual(raised.exception.code, grpc.StatusCode.UNAVAILABLE)
        self.assertIn("3 attempts", raised.exception.details)
        # Two waits of 50 ms and 100 ms, each scaled into [0.5, 1].
        self.assertGreaterEqual(elapsed, 0.075)


CERTIFICATES = r"""
set -e
key() { openssl ecparam -name prime256v1 -genkey -noout -out "$1"; }
key ca.key
openssl req -x509 -new -key ca.key -days 2 -subj /CN=ca -out ca.pem
key server.key
openssl req -new -key server.key -subj /CN=localhost -out server.csr
echo subjectAltName=DNS:localhost,IP:127.0.0.1 > server.ext
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial \
    -days 2 -extfile server.ext -out server.pem
"""


class SecureServerTest(unittest.TestCase):
    """TLS and tokens: the client's tls_root_certs and token options."""

    @classmethod
    def setUpClass(cls):
        if shutil.which("openssl") is None:
            raise unittest.SkipTest("no openssl command")
        cls.dir = tempfile.mkdtemp(prefix="anyshape-python-tls-")
        subprocess.run(["sh", "-c", CERTIFICATES], cwd=cls.dir, check=True,
                       capture_output=True)
        tokens = os.path.join(cls.dir, "tokens")
        with open(tokens, "w") as f:
            f.write("run-and-compile-0123456 compile,execute\n"
                    "only-the-stats-0123456 admin\n")
        os.chmod(tokens, 0o600)
        start_server(cls, "--tls-cert", os.path.join(cls.dir, "server.pem"),
                     "--tls-key", os.path.join(cls.dir, "server.key"),
                     "--auth-tokens", tokens)
        cls.ca = read(os.path.join(cls.dir, "ca.pem"))

    @classmethod
    def tearDownClass(cls):
        cls.server.terminate()
        assert cls.server.wait(timeout=30) == 0, "the server did not exit 0"
        cls.log.close()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def client(self, token):
        return anyshape.Client(self.address, token=token,
                               tls_root_certs=self.ca,
                               tls_server_name="localhost", max_attempts=1)

    def test_a_token_with_both_roles_compiles_and_runs_over_tls(self):
        client = self.client("run-and-compile-0123456")
        compiled = client.compile_onnx(read(os.path.join(ONNX, "mlp.onnx")))
        x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
        y = client.run(compiled, {compiled.inputs[0]: x})
        np.testing.assert_allclose(y[compiled.outputs[0]], mlp_reference(x),
                                   rtol=1e-5, atol=1e-6)
        client.close()

    def test_missing_tokens_and_roles_are_refused(self):
        anonymous = self.client(None)
        with self.assertRaises(anyshape.AnyShapeError) as raised:
            anonymous.stats()
        self.assertEqual(raised.exception.code,
                         grpc.StatusCode.UNAUTHENTICATED)
        anonymous.close()
        admin = self.client("only-the-stats-0123456")
        self.assertIn("compiles", admin.stats())
        with self.assertRaises(anyshape.AnyShapeError) as raised:
            admin.compile_onnx(read(os.path.join(ONNX, "mlp.onnx")))
        self.assertEqual(raised.exception.code,
                         grpc.StatusCode.PERMISSION_DENIED)
        admin.close()

    def test_a_plaintext_client_gets_no_channel(self):
        with self.assertRaises(anyshape.AnyShapeError) as raised:
            anyshape.Client(self.address, connect_timeout=1)
        self.assertEqual(raised.exception.code, grpc.StatusCode.UNAVAILABLE)


class PolynomialTest(unittest.TestCase):
    """Size polynomials are canonical: one size written two ways (as
    Dynamo writes a strided slice's length and the view after it) is one
    polynomial, as the server's SymExpr has it."""

    def test_quotients_are_canonical(self):
        from anyshape import polynomial as poly
        h = poly.symbol("h")

        def plus(p, c):
            total = dict(p)
            poly.add_into(total, poly.constant(c))
            return total

        half_up = poly.quotient(plus(h, 1), 2)
        self.assertEqual(plus(poly.quotient(plus(h, -1), 2), 1), half_up)
        self.assertEqual(poly.quotient(plus(poly.scale(h, 2), 2), 4), half_up)
        self.assertEqual(poly.quotient(plus(poly.quotient(h, 2), 1), 2),
                         poly.quotient(plus(h, 2), 4))
        self.assertEqual(poly.quotient(plus(poly.scale(h, 4), 4), 4),
                         plus(h, 1))
        self.assertEqual(poly.quotient(plus(h, 1), 1), plus(h, 1))
        self.assertNotEqual(half_up, poly.quotient(h, 2))
        # Its wire form reads back as itself.
        self.assertEqual(poly.from_dim_expr(poly.to_dim_expr(half_up)),
                         half_up)


if __name__ == "__main__":
    unittest.main()
