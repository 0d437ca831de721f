"""Predictions against measurements on this machine (docs/sim.md, "Validation"): for each case,
tapio-bench writes with the collective engine (parameters through a TAPIO_CONFIG rule, median
of --reps interleaved repetitions) and `tapio sim` predicts the same run on the calibrated
cluster file. Prints a markdown table and the error of each row.

With --aggregators, the choice of `aggregators = auto` against the measured best (docs/sim.md,
"Aggregators per node"): per pattern and directory, tapio-bench writes with 1, 2 and all 4
ranks as aggregators (one node) and with `auto` under the directory's calibrated cluster file,
the configurations in a shuffled order in each of --reps cycles (one job each); the model
predicts the three counts on the real pattern, and auto's count is read from its profile (the
ranks that wrote). Prints a markdown table, and each row's raw repetitions as JSON on stderr.

usage: sim_validate.py BUILD_DIR CLUSTER.toml [--quick]
       sim_validate.py BUILD_DIR --aggregators DIR=CLUSTER.toml [DIR=CLUSTER.toml ...] [--reps N]
"""
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile

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


def run_sim(build, cluster, pattern, ranks, params):
    sets = [f"ranks={ranks}", *PATTERNS[pattern][1]] + [f"params.{k}={v}" for k, v in params.items()]
    cmd = [os.path.join(build, "tools", "tapio"), "sim", cluster,
           os.path.join(ROOT, "examples", "sim", "workload.toml"), "--json"]
    for s in sets:
        cmd += ["--set", s]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def predict(build, cluster, pattern, ranks, params):
    p = run_sim(build, cluster, pattern, ranks, params)
    return p["bandwidth"] / 2**20, p["bottleneck"]["resource"]


AGGREGATOR_PATTERNS = ["licom", "e3sm-f"]
AGGREGATOR_COUNTS = ["1", "2", "4"]  # per node at 4 ranks on one node: 1, 2, all


def ranks_that_wrote(profile):
    with open(profile) as f:
        writes = json.load(f)["per_rank"]["counters"]["POSIX_WRITES"]
    return sum(1 for w in writes if w > 0)


def aggregators(build, targets, reps):
    """targets: [(directory, cluster file)]."""
    rows = []
    for directory, cluster in targets:
        for pattern in AGGREGATOR_PATTERNS:
            configs = AGGREGATOR_COUNTS + ["auto"]
            runs = {c: [] for c in configs}
            auto_counts = []
            for _ in range(reps):
                random.shuffle(configs)
                for c in configs:
                    params, profiled = {"aggregators": c}, {}
                    if c == "auto":
                        params["cluster"] = os.path.abspath(cluster)
                        profile = tempfile.mktemp(suffix=".json")
                        profiled["profile"] = profile
                    got = write_mib_s(build, 4, PATTERNS[pattern][0], params, 1, directory, profiled)
                    runs[c].append(got["median"])
                    if c == "auto":
                        auto_counts.append(ranks_that_wrote(profile))
                        os.remove(profile)
            predicted = {c: run_sim(build, cluster, pattern, 4, {"aggregators": c})["seconds"]
                         for c in AGGREGATOR_COUNTS}
            medians = {c: statistics.median(v) for c, v in runs.items()}
            best = max(AGGREGATOR_COUNTS, key=lambda c: medians[c])
            # The model's own rule (sim::least_memory_near_fastest): of counts predicted within
            # 1% of the fastest, the first tried (fewest aggregators).
            fastest = min(predicted.values())
            pick = next(c for c in AGGREGATOR_COUNTS if predicted[c] <= 1.01 * fastest)
            rows.append((directory, pattern, runs, medians, predicted, best, pick, auto_counts))
            print_aggregator_row(rows[-1], flush=True)
            print(json.dumps({"dir": directory, "pattern": pattern, "runs": runs,
                              "predicted": predicted, "auto_counts": auto_counts}),
                  file=sys.stderr, flush=True)
    return rows


def print_aggregator_row(row, flush=False):
    directory, pattern, runs, medians, predicted, best, pick, auto_counts = row
    cells = [f"{medians[c]:.0f} ({min(runs[c]):.0f}-{max(runs[c]):.0f})" for c in AGGREGATOR_COUNTS]
    auto = f"{medians['auto']:.0f} ({min(runs['auto']):.0f}-{max(runs['auto']):.0f})"
    counts = "/".join(sorted(set(str(n) for n in auto_counts)))
    print(f"| {pattern} | {directory} | " + " | ".join(cells) +
          f" | {best} | {pick} ({', '.join(f'{1e3 * predicted[c]:.1f}' for c in AGGREGATOR_COUNTS)} ms)"
          f" | {counts} | {auto} | {medians['auto'] / medians[best]:.2f} |", flush=flush)


def main():
    if "--aggregators" in sys.argv:
        build = sys.argv[1]
        reps = int(sys.argv[sys.argv.index("--reps") + 1]) if "--reps" in sys.argv else 3
        targets = [tuple(a.split("=", 1)) for a in sys.argv[2:] if "=" in a]
        load = os.getloadavg()
        print(f"load average at the start: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
        print("| pattern | dir | 1 aggregator MiB/s | 2 | 4 (all) | fastest | model's pick (predicted 1, 2, 4) "
              "| auto's count | auto MiB/s | auto / fastest |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        aggregators(build, targets, reps)
        load = os.getloadavg()
        print(f"load average at the end: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
        return
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
