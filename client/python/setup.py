"""Builds the anyshape package with its gRPC stubs generated from the
repository's proto/ (graph.proto, service.proto) by grpcio-tools, so the
wire format has one owner. The stubs land in anyshape/v1/, where their
own imports ("from anyshape.v1 import graph_pb2") find them.

    pip install client/python
"""
import os

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO_ROOT = os.path.join(HERE, "..", "..", "proto")
# The repository's VERSION: the one owner of the version (CMake reads it
# too). Written into the built package as anyshape/_version.py.
with open(os.path.join(HERE, "..", "..", "VERSION")) as f:
    VERSION = f.read().strip()
PROTOS = ["anyshape/v1/graph.proto", "anyshape/v1/service.proto"]


class BuildWithStubs(build_py):
    def run(self):
        from grpc_tools import protoc
        import grpc_tools

        if not os.path.isdir(PROTO_ROOT):
            raise SystemExit(f"anyshape: {PROTO_ROOT} not found: install "
                             "from the repository's client/python")
        super().run()
        # Into the built package itself: nothing generated in the tree.
        well_known = os.path.join(os.path.dirname(grpc_tools.__file__),
                                  "_proto")
        code = protoc.main(["grpc_tools.protoc", f"-I{PROTO_ROOT}",
                            f"-I{well_known}", f"--python_out={self.build_lib}",
                            f"--grpc_python_out={self.build_lib}"] + PROTOS)
        if code != 0:
            raise SystemExit("anyshape: protoc failed on proto/")
        with open(os.path.join(self.build_lib, "anyshape", "_version.py"),
                  "w") as f:
            f.write(f'__version__ = "{VERSION}"\n')


setup(version=VERSION, cmdclass={"build_py": BuildWithStubs})
