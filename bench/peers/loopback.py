"""An anyshape-server on loopback and a Python client to it, as the peer
benchmarks run anyshape the way users do (minilm.py, zoo.py, decode.py)."""
import os
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def start_server(prefix):
    """Starts build/bin/anyshape-server on 127.0.0.1 (a free port) and
    returns (server process, anyshape.Client connected to it)."""
    import anyshape
    directory = tempfile.mkdtemp(prefix=prefix)
    port_file = os.path.join(directory, "port")
    server = subprocess.Popen(
        [os.path.join(ROOT, "build", "bin", "anyshape-server"), "--listen",
         "127.0.0.1:0", "--port-file", port_file],
        stderr=open(os.path.join(directory, "log"), "w"))
    for _ in range(600):
        if os.path.exists(port_file) and os.path.getsize(port_file):
            break
        if server.poll() is not None:
            raise SystemExit(f"anyshape-server exited: see {directory}/log")
        time.sleep(0.05)
    with open(port_file) as f:
        return server, anyshape.Client(f.read().strip())
