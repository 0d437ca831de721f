"""auto against a parameter sweep on this machine (make bench; docs/sim.md, "Choosing"):
tapio-bench writes each pattern with the collective engine under every swept buffer_size x
stripe_size and under buffer_size = stripe_size = auto with cluster = examples/sim/local.toml
(parameters through a TAPIO_CONFIG rule), the configurations interleaved in a shuffled order, CYCLES times; the
median of each is compared. Writes
JSON to OUT_DIR/sim_sweep.json and prints a markdown table; with DOC, also puts the table in
DOC between its sweep markers (make bench: docs/sim.md).

usage: sim_sweep.py BUILD_DIR OUT_DIR [NP [DOC]]
"""
import json
import os
import random
import re
import statistics
import sys

from sim_bench import ROOT, write_mib_s

CYCLES = int(os.environ.get("SWEEP_CYCLES", "5"))
PATTERNS = {
    "licom": ["licom", "--grid", "144x96x30", "--vars3d", "4", "--vars2d", "2", "--steps", "5"],
    "hpio": ["hpio", "--count", "8192", "--size", "256", "--spacing", "256", "--file", "noncontig"],
    "matrix": ["matrix", "--rows", "70400", "--cols", "200", "--dist", "block"],
}
SWEEP = [{"buffer_size": b, "stripe_size": s} for b in ("1MiB", "4MiB", "16MiB", "64MiB")
         for s in ("1MiB", "4MiB")]
# auto for this machine as calibrated: with a cluster file the aggregator count is chosen too.
AUTO = {"buffer_size": "auto", "stripe_size": "auto", "aggregators": "auto",
        "cluster": os.path.join(ROOT, "examples", "sim", "local.toml")}


def run(build, np, pattern, params):
    return write_mib_s(build, np, PATTERNS[pattern], params, 1)["median"]


def label(params):
    return ", ".join(f"{k}={v}" for k, v in params.items())


BEGIN, END = "<!-- sim_sweep.py: begin -->", "<!-- sim_sweep.py: end -->"


def fill_doc(doc, lines):
    with open(doc) as f:
        text = f.read()
    region = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
    if not region.search(text):
        sys.exit(f"{doc}: no {BEGIN} ... {END} region for the sweep table")
    with open(doc, "w") as f:
        f.write(region.sub(lambda _: "\n".join([BEGIN, *lines, END]), text))


def emit(lines, line):
    print(line, flush=True)
    lines.append(line)


def main():
    build, out_dir = sys.argv[1], sys.argv[2]
    np = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    doc = sys.argv[4] if len(sys.argv) > 4 else None
    results = {}
    lines = []
    emit(lines, "| pattern | best of the sweep | its MiB/s | auto MiB/s | auto / best |")
    emit(lines, "|---|---|---|---|---|")
    for pattern in PATTERNS:
        configs = SWEEP + [AUTO]
        got = {label(c): [] for c in configs}
        order = random.Random(len(pattern))
        for _ in range(CYCLES):  # interleaved: every configuration once per cycle, in a new
            # order each time (a run after one that left much dirty page cache is slower)
            for c in order.sample(configs, len(configs)):
                got[label(c)].append(run(build, np, pattern, c))
        med = {k: statistics.median(v) for k, v in got.items()}
        best = max((k for k in med if "auto" not in k), key=med.get)
        auto = med[label(AUTO)]
        results[pattern] = {"ranks": np, "cycles": CYCLES, "mib_s": got, "best": best,
                            "auto_over_best": auto / med[best]}
        emit(lines, f"| {pattern} | {best} | {med[best]:.0f} | {auto:.0f} | {auto / med[best]:.2f} |")
    emit(lines, "")
    emit(lines, f"({np} ranks, write MiB/s, the median of {CYCLES} cycles.)")
    with open(os.path.join(out_dir, "sim_sweep.json"), "w") as f:
        json.dump(results, f, indent=1)
    if doc:
        fill_doc(doc, lines)


if __name__ == "__main__":
    main()
