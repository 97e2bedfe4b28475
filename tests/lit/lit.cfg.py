# lit configuration for anyshape's IR tests: the dhlo dialect, the passes,
# the importer. Run through ctest (one test per file, see CMakeLists.txt),
# or by hand:
#   /usr/lib/llvm-19/build/utils/lit/lit.py -v tests/lit \
#       --param bin_dir=build/bin --param exec_root=build/tests/lit
import os

import lit.formats

config.name = "anyshape"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".pbtxt"]
config.excludes = ["lit.cfg.py", "CMakeLists.txt", "Inputs"]
config.test_source_root = os.path.dirname(__file__)

bin_dir = lit_config.params.get("bin_dir")
if not bin_dir:
    lit_config.fatal("pass --param bin_dir=<build>/bin")
config.test_exec_root = lit_config.params.get(
    "exec_root", os.path.join(os.path.dirname(bin_dir), "tests", "lit"))
llvm_bin = lit_config.params.get("llvm_bin", "/usr/lib/llvm-19/bin")

config.substitutions.append(("%anyshape-opt", os.path.join(bin_dir, "anyshape-opt")))
config.substitutions.append(("%anyshape", os.path.join(bin_dir, "anyshape")))
config.substitutions.append(("%examples", os.path.join(
    os.path.dirname(os.path.dirname(config.test_source_root)), "examples")))
for tool in ["FileCheck", "not", "count"]:
    config.substitutions.append((r"\b%s\b" % tool, os.path.join(llvm_bin, tool)))
