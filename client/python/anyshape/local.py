"""Where the framework entry points (anyshape.torch, anyshape.jax) run
their graphs: a server connect() names or, by default, a private
anyshape-server this process starts on first use, on a Unix socket of
its own, and stops at exit."""
import atexit
import os
import shutil
import subprocess
import tempfile
import threading
import time

import anyshape


def find_server():
    """$ANYSHAPE_SERVER, anyshape-server on PATH, or the build's, beside
    the staged package (build/python/anyshape -> build/bin)."""
    candidates = [os.environ.get("ANYSHAPE_SERVER"),
                  shutil.which("anyshape-server"),
                  os.path.join(os.path.dirname(anyshape.__file__), "..",
                               "..", "bin", "anyshape-server")]
    for path in candidates:
        if path and os.access(path, os.X_OK):
            return os.path.abspath(path)
    raise RuntimeError("anyshape: no anyshape-server to start (set "
                       "ANYSHAPE_SERVER, put it on PATH, or call "
                       "anyshape.torch.connect(address))")


class LocalServer:
    """A private server on a Unix socket, stopped at exit."""

    def __init__(self, path=None):
        self.dir = tempfile.mkdtemp(prefix="anyshape-torch-")
        port_file = os.path.join(self.dir, "address")
        self.log = open(os.path.join(self.dir, "log"), "w")
        self.process = subprocess.Popen(
            [path or find_server(), "--listen",
             f"unix:{os.path.join(self.dir, 'socket')}", "--port-file",
             port_file, "--drain-seconds", "1"],
            stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + 60
        while not (os.path.exists(port_file) and os.path.getsize(port_file)):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("anyshape: the private server did not "
                                   "start")
            time.sleep(0.02)
        with open(port_file) as f:
            self.address = f.read().strip()
        atexit.register(self.stop)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class Session:
    """A client, the server it may own, the compiles it made, and a
    cache its entry points keep their uploads in."""

    def __init__(self, client, server=None):
        self.client = client
        self.server = server
        self.compiles = 0  # compiles the server ran for this session
        self.uploads = {}  # entry point's key -> what it keeps

    def compile(self, graph):
        compiled = self.client.compile(graph)
        if not compiled.cache_hit:
            self.compiles += 1
        return compiled

    def close(self):
        self.client.close()
        if self.server is not None:
            self.server.stop()


_lock = threading.Lock()
_default = None


def connect(address=None, **client_options):
    """Chooses the server the torch entry points use: `address` with the
    options anyshape.Client takes (token, tls_root_certs, ...), or with
    None a private local server, started now."""
    global _default
    with _lock:
        if _default is not None:
            _default.close()
        server = LocalServer() if address is None else None
        client = anyshape.Client(server.address if server else address,
                                 **client_options)
        _default = Session(client, server)
        return _default


def session():
    """The session connect() chose, or a private server's."""
    if _default is None:
        connect()
    return _default


