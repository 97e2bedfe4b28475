"""ONNX's own operator conformance cases (the node tests of the onnx
package, each a one-op model with inputs and the outputs the spec's
reference computes) run through anyshape-zoo-check, one backend per run.

  node_cases.py ZOO_CHECK WORK --backend cpu [--passing FILE] [--update]

Writes each case once per onnx version into WORK as model.onnx and
model.expected (examples/zoo/fixture.py's format); a case of an opset
outside 9-28 is moved into that range when every op it uses has the same
schema there. Then checks the promise: every case named in --passing
(passing.txt beside this script) matches the spec's outputs, and every
other case is refused with a clear error (exit 1, a message naming what is
unsupported; never INTERNAL, a mismatch, a crash or a hang). Cases run
as users compile them, where codegen may depart from the fusion plan with
a warning (ANYSHAPE_STRICT_FUSION_PLAN unset): a case that passes only so
must be named in known_departures.txt, with the finding it waits on (the
CUDA pipelines never depart: there such a case fails to compile), and one
named there that no longer departs is reported. --only-passing
runs the named cases alone. --update rewrites passing.txt from this run.
Exits 77 (skipped) when the onnx package is not installed."""

import argparse
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "examples", "zoo"))

try:
    import numpy as np
    import onnx
    from onnx import defs, numpy_helper
    from onnx.backend.test.case import node as onnx_node_cases
except ImportError as e:
    print(f"skipped: {e} (bench/peers/setup onnxruntime installs onnx)")
    sys.exit(77)

from fixture import DTYPES, write_fixture  # noqa: E402

SUPPORTED_OPSETS = range(9, 29)


def moved_into_range(model):
    """Sets the default domain's opset within SUPPORTED_OPSETS when every
    node's op has the same schema there; False when it cannot."""
    imports = [o for o in model.opset_import if o.domain in ("", "ai.onnx")]
    if len(imports) != 1 or len(model.opset_import) != 1:
        return False
    version = imports[0].version
    if version in SUPPORTED_OPSETS:
        return True
    target = max(SUPPORTED_OPSETS) if version > max(SUPPORTED_OPSETS) else \
        min(SUPPORTED_OPSETS)
    try:
        same = all(defs.get_schema(n.op_type, target, n.domain).since_version
                   == defs.get_schema(n.op_type, version, n.domain)
                   .since_version for n in model.graph.node)
    except Exception:  # an op the target opset does not have
        same = False
    if same:
        imports[0].version = target
    return same


def write_case(case, folder):
    """model.onnx and model.expected for one case; the reason it cannot be
    written as a fixture, or None."""
    model = case.model
    moved_into_range(model)  # else the importer's own opset error
    fixtures = []
    for k, (inputs, outputs) in enumerate(case.data_sets):
        named = [{}, {}]
        for values, infos, out in ((inputs, model.graph.input, named[0]),
                                   (outputs, model.graph.output, named[1])):
            for info, value in zip(infos, values):
                if not info.type.HasField("tensor_type"):
                    return "a value that is not a tensor"
                array = (numpy_helper.to_array(value)
                         if isinstance(value, onnx.TensorProto)
                         else np.asarray(value))
                if array.dtype not in DTYPES:
                    return f"dtype {array.dtype} (not in the fixture format)"
                out[info.name] = array
        fixtures.append((f"data_set_{k}", named[0], named[1]))
    os.makedirs(folder, exist_ok=True)
    onnx.save(model, os.path.join(folder, "model.onnx"))
    with open(os.devnull, "w") as quiet:
        stdout, sys.stdout = sys.stdout, quiet
        try:
            write_fixture(os.path.join(folder, "model.expected"), fixtures)
        finally:
            sys.stdout = stdout
    return None


def generate(work):
    stamp = os.path.join(work, "ONNX_VERSION")
    if os.path.exists(stamp) and open(stamp).read() == onnx.__version__:
        return
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    skipped = []
    for case in onnx_node_cases.collect_testcases(None):
        reason = write_case(case, os.path.join(work, case.name))
        if reason:
            skipped.append(f"{case.name}\t{reason}\n")
    with open(os.path.join(work, "SKIPPED"), "w") as f:
        f.writelines(skipped)
    with open(stamp, "w") as f:
        f.write(onnx.__version__)


DEPARTURE = "codegen departs from the fusion plan"


def run_case(zoo_check, folder, backend):
    """(outcome, departs, last line): pass, refused (a clear error) or
    broken, and whether codegen departed from the fusion plan."""
    env = {k: v for k, v in os.environ.items()
           if k != "ANYSHAPE_STRICT_FUSION_PLAN"}
    try:
        done = subprocess.run(
            [zoo_check, os.path.join(folder, "model.onnx"),
             os.path.join(folder, "model.expected"), "--backend", backend],
            capture_output=True, text=True, timeout=120, env=env)
    except subprocess.TimeoutExpired:
        return "broken", False, "hung (over 120 s)"
    lines = [l for l in (done.stdout + done.stderr).splitlines() if l.strip()]
    last = lines[-1] if lines else ""
    departs = any(DEPARTURE in l for l in lines)
    if done.returncode == 0:
        return "pass", departs, last
    clear = (done.returncode == 1 and last.startswith("error: ") and
             "INTERNAL" not in last and
             not any("MISMATCH" in l for l in lines))
    return ("refused" if clear else "broken"), departs, \
        f"exit {done.returncode}: {last}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("zoo_check")
    parser.add_argument("work")
    parser.add_argument("--backend", default="cpu")
    parser.add_argument("--passing", default=os.path.join(HERE,
                                                          "passing.txt"))
    parser.add_argument("--known-departures",
                        default=os.path.join(HERE, "known_departures.txt"))
    parser.add_argument("--only-passing", action="store_true")
    parser.add_argument("--update", action="store_true")
    args = parser.parse_args()
    generate(args.work)
    passing = set(open(args.passing).read().split())
    known_departures = {line.split()[0]
                        for line in open(args.known_departures)
                        if line.strip() and not line.startswith("#")}
    names = sorted(n for n in os.listdir(args.work)
                   if os.path.exists(os.path.join(args.work, n,
                                                  "model.expected")))
    if args.only_passing:
        names = [n for n in names if n in passing]
    start = time.time()
    outcomes, departed, problems = {}, set(), []
    for name in names:
        outcome, departs, line = run_case(
            args.zoo_check, os.path.join(args.work, name), args.backend)
        outcomes[name] = outcome
        if departs:
            departed.add(name)
        # The CUDA pipelines never depart: there a listed case fails.
        if outcome == "broken" and not (departs and name in known_departures):
            problems.append(f"{name}: {line}")
        elif departs and name not in known_departures:
            problems.append(f"{name}: {DEPARTURE} ({line})")
        elif outcome == "refused" and name in passing:
            problems.append(f"{name}: passed before, now {line}")
    missing = sorted(passing - set(names))
    if not args.only_passing or missing:
        problems += [f"{n}: listed as passing but not generated"
                     for n in missing]
    count = {o: sum(1 for v in outcomes.values() if v == o)
             for o in ("pass", "refused", "broken")}
    newly = sorted(n for n, o in outcomes.items()
                   if o == "pass" and n not in passing)
    print(f"{len(names)} ONNX node cases on {args.backend} in "
          f"{time.time() - start:.0f} s: {count['pass']} pass, "
          f"{count['refused']} refused clearly, {count['broken']} broken")
    for n in newly:
        print(f"now passes (add it to {os.path.basename(args.passing)}): {n}")
    for n in sorted(known_departures & set(names)):
        if n in departed:
            print(f"known departure (known_departures.txt): {n}")
        else:
            print(f"no longer departs (take it off known_departures.txt): "
                  f"{n}")
    if args.update:
        with open(args.passing, "w") as f:
            f.writelines(f"{n}\n" for n, o in sorted(outcomes.items())
                         if o == "pass")
        return 0
    for p in problems:
        print("FAIL " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
