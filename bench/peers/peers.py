"""bench/peers/run: anyshape against its peers on one trace of lengths.

Every system runs the same BERT-base encoder (encoder.py: anyshape's
example model and weights) on the same trace of sequence lengths, twice:
the cold pass pays for everything the system builds or compiles (once,
per shape, or per bucket), the warm pass is steady state. Each system
runs in a process of its own (its peak RSS is its own), on every core.
A peer's output is checked against the numpy reference at one length
before its numbers count. anyshape runs through its load generator,
in process and through a server, on the same trace.

Reported per system: cold total (build and compiles included), warm
total, warm p50 and p99 latency, compiles, peak RSS, and the ratios to
anyshape in process. Totals are sums of the run calls' latencies (input
preparation is outside them, for every system alike).
"""

import argparse
import importlib
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import encoder  # noqa: E402

# anyshape's own modes: compiled once in process (the base of the ratios),
# the same through a server, and the alternatives a user weighs: a compile
# per new length (static), one per power-of-two bucket, inputs padded, and
# none at all (the reference evaluator, eager: one op at a time).
ANYSHAPE_SYSTEMS = {
    "anyshape": ("anyshape (in process)", ["--in-process"]),
    "anyshape-server": ("anyshape (server, 1 client)", None),
    "anyshape-static": ("anyshape static per length",
                        ["--in-process", "--mode", "static"]),
    "anyshape-buckets": ("anyshape static per pow2 bucket, padded",
                         ["--in-process", "--mode", "buckets"]),
    "anyshape-reference": ("anyshape reference evaluator (eager)",
                           ["--in-process", "--mode", "reference"]),
}
# Left out of the default with several layers: an interpreter's minutes
# per layer (about 0.6 s a request at 128 tokens, 65x the compiled layer).
SLOW_PER_LAYER = {"anyshape-reference"}


def draw_trace(kind, count, seed, longest=512):
    rng = np.random.default_rng(seed)
    if kind == "uniform":
        lengths = rng.integers(1, longest + 1, count)
    else:  # log-uniform: mostly short, a long tail
        lengths = np.exp(rng.uniform(0, math.log(longest + 1), count))
        lengths = np.clip(np.floor(lengths), 1, longest)
    return [int(n) for n in lengths]


def percentile(sorted_values, p):
    rank = math.ceil(p / 100 * len(sorted_values))
    return sorted_values[max(0, min(rank, len(sorted_values)) - 1)]


def peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# --- one peer, in its own process ------------------------------------------

def run_peer(system_name, layers, batch, trace):
    import systems
    cls, packages = systems.SYSTEMS[system_name]
    threads = os.cpu_count()
    for module in cls.imports:  # a process's start, not the system's work
        importlib.import_module(module)
    start = time.perf_counter()
    system = cls(layers, threads)
    build_s = time.perf_counter() - start
    passes = []
    for _ in range(2):
        latencies = []
        for length in trace:
            x, mask = encoder.inputs(batch, length)
            start = time.perf_counter()
            system.run(x, mask)
            latencies.append(time.perf_counter() - start)
        passes.append(latencies)
    compiles = system.compiles
    x, mask = encoder.inputs(batch, 7, seed=99)
    error = float(np.max(np.abs(
        system.run(x, mask) - systems.reference(x, mask, system.weights))))
    warm = sorted(passes[1])
    return {
        "system": cls.name, "version": systems.version(*packages),
        "cold_s": build_s + sum(passes[0]), "warm_s": sum(passes[1]),
        "p50_ms": percentile(warm, 50) * 1e3,
        "p99_ms": percentile(warm, 99) * 1e3,
        "compiles": compiles, "peak_rss_mib": peak_rss_mib(),
        "max_abs_err": error,
    }


# --- anyshape, through anyshape-load ----------------------------------------

def anyshape_graph(layers, workdir):
    if layers == 1:
        return os.path.join(ROOT, "examples", "bert_encoder_layer.pbtxt")
    path = os.path.join(workdir, f"bert_encoder_{layers}_layers.pbtxt")
    subprocess.run([os.path.join(ROOT, "build", "bin", "anyshape-make-examples"),
                    "--encoder-layers", str(layers), path],
                   check=True, capture_output=True)
    return path


def run_anyshape(system_name, layers, batch, trace, workdir):
    bin_dir = os.path.join(ROOT, "build", "bin")
    lengths = os.path.join(workdir, "lengths.txt")
    with open(lengths, "w") as f:
        f.write(" ".join(map(str, trace)) + "\n")
    command = [os.path.join(bin_dir, "anyshape-load"),
               "--graph", anyshape_graph(layers, workdir),
               "--lengths", lengths, "--passes", "2", "--clients", "1",
               "--dims", f"batch={batch}", "--json"]
    server = None
    try:
        if system_name == "anyshape-server":
            port_file = os.path.join(workdir, "port")
            log = open(os.path.join(workdir, "server.log"), "w")
            server = subprocess.Popen(
                [os.path.join(bin_dir, "anyshape-server"), "--listen",
                 "127.0.0.1:0", "--port-file", port_file, "--metrics-listen",
                 "127.0.0.1:0"], stderr=log)
            for _ in range(600):
                if os.path.exists(port_file) and os.path.getsize(port_file):
                    break
                time.sleep(0.05)
            metrics = None
            with open(os.path.join(workdir, "server.log")) as f:
                for line in f:
                    if '"metrics":"' in line:
                        metrics = line.split('"metrics":"')[1].split('"')[0]
            command += ["--server", open(port_file).read().strip()]
            if metrics:
                command += ["--metrics", metrics]
        else:
            command += ANYSHAPE_SYSTEMS[system_name][1]
        out = subprocess.run(command, check=True, capture_output=True, text=True)
    finally:
        if server:
            server.terminate()
            server.wait()
    result = json.loads(out.stdout)
    cold, warm = result["passes"]
    count = len(trace)
    rss = result["peak_rss_bytes"]
    return {
        "system": ANYSHAPE_SYSTEMS[system_name][0],
        "version": subprocess.run(["git", "-C", ROOT, "rev-parse", "--short",
                                   "HEAD"], capture_output=True,
                                  text=True).stdout.strip(),
        "cold_s": result["compile_ms"] / 1e3 + cold["mean"] * count / 1e3,
        "warm_s": warm["mean"] * count / 1e3,
        "p50_ms": warm["p50"], "p99_ms": warm["p99"],
        "compiles": result["compiles"],
        "peak_rss_mib": rss / 2**20 if rss else None,
        "max_abs_err": None,
    }


# --- the table ---------------------------------------------------------------

def table(results, base):
    def ratio(value, of):
        return f"{value / of:.2f}" if value and of else ""

    def number(value, fmt):
        return fmt.format(value) if value is not None else "n/a"
    lines = ["| system | cold total | warm total | warm p50 | warm p99 | "
             "compiles | peak RSS | warm / anyshape | p50 / anyshape | "
             "max error |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        if "error" in r:
            lines.append(f"| {r['system']} | {r['error']} |||||||||")
            continue
        lines.append(
            f"| {r['system']} ({r['version']}) | {r['cold_s']:.2f} s | "
            f"{r['warm_s']:.2f} s | {r['p50_ms']:.2f} ms | "
            f"{r['p99_ms']:.2f} ms | {number(r['compiles'], '{}')} | "
            f"{number(r['peak_rss_mib'], '{:.0f} MiB')} | "
            f"{ratio(r['warm_s'], base['warm_s'])} | "
            f"{ratio(r['p50_ms'], base['p50_ms'])} | "
            f"{number(r['max_abs_err'], '{:.1e}')} |")
    return "\n".join(lines)


def main():
    import systems
    names = list(ANYSHAPE_SYSTEMS) + list(systems.SYSTEMS)
    parser = argparse.ArgumentParser(
        prog="bench/peers/run", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--layers", type=int, default=1,
                        help="encoder layers (1 or BERT-base's 12)")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--trace", choices=["uniform", "loguniform"],
                        default="uniform",
                        help="lengths uniform in 1..512, or log-uniform "
                        "(mostly short)")
    parser.add_argument("--count", type=int, default=60,
                        help="requests per pass")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--systems",
                        help="comma-separated, of: " + ", ".join(names) +
                        " (default: all; with --layers above 1 all but "
                        "anyshape-reference, an interpreter that takes about "
                        "2.5 minutes over the uniform trace per layer)")
    parser.add_argument("--out", help="also write the results as JSON here")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    trace = draw_trace(args.trace, args.count, args.seed)

    if args.worker:  # one system, in this process
        print(json.dumps(run_peer(args.worker, args.layers, args.batch, trace)))
        return 0

    if args.systems is None:
        args.systems = ",".join(
            n for n in names if args.layers == 1 or n not in SLOW_PER_LAYER)
    chosen = [s for s in args.systems.split(",") if s]
    unknown = [s for s in chosen if s not in names]
    if unknown:
        parser.error(f"unknown systems: {', '.join(unknown)}")
    print(f"# {args.layers} layer(s), batch {args.batch}, {args.trace} trace "
          f"of {args.count} lengths (seed {args.seed}: "
          f"{sum(trace)} tokens per pass), {os.cpu_count()} cores",
          flush=True)
    results = []
    with tempfile.TemporaryDirectory(prefix="peers-") as workdir:
        for name in chosen:
            print(f"running {name}...", file=sys.stderr, flush=True)
            start = time.perf_counter()
            try:
                if name in ANYSHAPE_SYSTEMS:
                    result = run_anyshape(name, args.layers, args.batch, trace,
                                          workdir)
                else:
                    out = subprocess.run(
                        [sys.executable, __file__, "--worker", name,
                         "--layers", str(args.layers), "--batch",
                         str(args.batch), "--trace", args.trace, "--count",
                         str(args.count), "--seed", str(args.seed)],
                        capture_output=True, text=True, check=True)
                    result = json.loads(out.stdout.strip().splitlines()[-1])
            except subprocess.CalledProcessError as e:
                tail = (e.stderr or "").strip().splitlines()[-1:] or ["failed"]
                result = {"system": name, "error": tail[0][:200]}
            except (ImportError, OSError, ValueError) as e:
                result = {"system": name, "error": str(e)[:200]}
            print(f"  {name}: {time.perf_counter() - start:.1f} s "
                  f"{result.get('error', '')}", file=sys.stderr, flush=True)
            results.append(result)
    base = next((r for r in results if r["system"] == "anyshape (in process)"
                 and "error" not in r), None)
    print(table(results, base or {"warm_s": None, "p50_ms": None}))
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"args": vars(args), "trace": trace,
                       "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
