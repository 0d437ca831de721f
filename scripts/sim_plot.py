"""Draw one `tapio sim --json` prediction: each round's exchange and write time (the slower
one sets the pace when pipelined) and the run's time per phase. Called by `tapio sim --plot`.

usage: sim_plot.py PREDICTION.json OUT.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(src, out):
    with open(src) as f:
        p = json.load(f)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [3, 1]})
    rounds = p["rounds"]
    xs = range(len(rounds))
    ax1.bar([x - 0.2 for x in xs], [r["exchange"] * 1e3 for r in rounds], 0.4, label="exchange")
    ax1.bar([x + 0.2 for x in xs], [r["write"] * 1e3 for r in rounds], 0.4, label="write")
    ax1.set_xlabel("round")
    ax1.set_ylabel("ms (one step)")
    ax1.legend()
    w = p["workload"]
    ax1.set_title(f"{w['pattern']}, {w['ranks']} ranks, {w['engine']} ({p['plan']['mode']}): "
                  f"{p['seconds']:.3g} s, {p['bandwidth'] / 2**30:.3g} GiB/s", fontsize=9)
    phases = {k: v for k, v in p["phases"].items() if v > 0}
    ax2.barh(list(phases), [v for v in phases.values()])
    ax2.set_xlabel("s (whole run)")
    b = p["bottleneck"]
    ax2.set_title(f"bottleneck: {b['resource']}\n({b['instance']})", fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main(*sys.argv[1:3])
