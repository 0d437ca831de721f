"""Predictions against measurements on this machine (docs/sim.md, "Validation"): for each case,
tapio-bench writes with the collective engine (parameters through a TAPIO_CONFIG rule, median
of --reps interleaved repetitions) and `tapio sim` predicts the same run on the calibrated
cluster file. Prints a markdown table and the error of each row.

usage: sim_validate.py BUILD_DIR CLUSTER.toml [--quick]
"""
import json
import os
import subprocess
import sys

from sim_bench import ROOT, write_mib_s

# name, ranks, bench pattern args, sim pattern keys, tapio parameters
PATTERNS = {
    "licom": (["licom", "--grid", "144x96x30", "--vars3d", "4", "--vars2d", "2", "--steps", "5"],
              ["pattern.name=licom", "pattern.grid=144x96x30", "pattern.vars3d=4",
               "pattern.vars2d=2", "pattern.steps=5"]),
    "hpio": (["hpio", "--count", "8192", "--size", "256", "--spacing", "256", "--file", "noncontig"],
             ["pattern.name=hpio", "pattern.count=8192", "pattern.size=256", "pattern.spacing=256",
              "pattern.file=noncontig"]),
    "matrix": (["matrix", "--rows", "70400", "--cols", "200", "--dist", "block"],
               ["pattern.name=matrix", "pattern.rows=70400", "pattern.cols=200", "pattern.dist=block"]),
    "e3sm-f": (["e3sm", "--case", "f", "--vars-per-decomp", "16", "--steps", "2"],
               ["pattern.name=e3sm", "pattern.case=f", "pattern.vars_per_decomp=16", "pattern.steps=2"]),
}

CASES = [
    # pattern, ranks, {parameter: value}
    ("licom", 1, {}),
    ("licom", 4, {}),
    ("licom", 4, {"ranks_per_node": "2"}),
    ("licom", 16, {"buffer_size": "1MiB"}),
    ("licom", 16, {"ranks_per_node": "4", "aggregators": "all"}),
    ("hpio", 4, {}),
    ("hpio", 4, {"ranks_per_node": "1", "buffer_size": "1MiB"}),
    ("hpio", 8, {"aggregators": "2"}),
    ("hpio", 16, {"ranks_per_node": "4"}),
    ("matrix", 2, {}),
    ("matrix", 8, {"ranks_per_node": "2", "buffer_size": "4MiB"}),
    ("matrix", 16, {"aggregators": "1/4"}),
    ("e3sm-f", 4, {}),
    ("e3sm-f", 16, {"ranks_per_node": "4"}),
]


def measure(build, pattern, ranks, params, reps):
    return write_mib_s(build, ranks, PATTERNS[pattern][0], params, reps)


def predict(build, cluster, pattern, ranks, params):
    sets = [f"ranks={ranks}", *PATTERNS[pattern][1]] + [f"params.{k}={v}" for k, v in params.items()]
    cmd = [os.path.join(build, "tools", "tapio"), "sim", cluster,
           os.path.join(ROOT, "examples", "sim", "workload.toml"), "--json"]
    for s in sets:
        cmd += ["--set", s]
    p = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    return p["bandwidth"] / 2**20, p["bottleneck"]["resource"]


def main():
    build, cluster = sys.argv[1], sys.argv[2]
    reps = 3 if "--quick" in sys.argv else 5
    print("| pattern | ranks | parameters | measured MiB/s (min-max) | predicted MiB/s | error | model's bottleneck |")
    print("|---|---|---|---|---|---|---|")
    for pattern, ranks, params in CASES:
        got = measure(build, pattern, ranks, params, reps)
        want, neck = predict(build, cluster, pattern, ranks, params)
        err = (want - got["median"]) / got["median"]
        ptext = ", ".join(f"{k}={v}" for k, v in params.items()) or "defaults"
        print(f"| {pattern} | {ranks} | {ptext} | {got['median']:.0f} ({got['min']:.0f}-{got['max']:.0f}) "
              f"| {want:.0f} | {err:+.0%} | {neck} |", flush=True)


if __name__ == "__main__":
    main()
