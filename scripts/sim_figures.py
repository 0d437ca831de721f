"""The seeds' findings as the cluster model predicts them (docs/sim.md): runs `tapio sim`
over parameter sweeps and draws docs/img/sim_seed000_procs.png, sim_seed000_osts.png,
sim_seed001.png and sim_seed002.png. Every parameter is in the examples/sim files named below
or in the --set arguments here.

usage: sim_figures.py BUILD_DIR [OUT_DIR]
"""
import json
import os
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EX = os.path.join(ROOT, "examples", "sim")


def sim(build, cluster, workload, *sets):
    cmd = [os.path.join(build, "tools", "tapio"), "sim", os.path.join(EX, cluster),
           os.path.join(EX, workload), "--json"]
    for s in sets:
        cmd += ["--set", s]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def gib(p):
    return p["bandwidth"] / 2**30


def seed000(build, out):
    procs = [240, 480, 960, 1920, 2400, 3600, 4800, 7200]
    methods = {
        "collective engine (MPI-IO's two-phase)": ("collective", []),
        "subfile, file per process (ADIOS POSIX)": ("subfile", ["params.aggregators=all",
                                                                "storage.stripe_count=1"]),
        "serial (rank 0)": ("serial", []),
    }
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for label, (engine, extra) in methods.items():
        ys = [gib(sim(build, "tianhe1a.toml", "licom.toml", f"ranks={p}", f"engine={engine}", *extra))
              for p in procs]
        ax.plot(procs, ys, marker="o", label=label)
    ax.set_xscale("log")
    # the process counts themselves as ticks: log-scale minor labels overlap at this width
    ax.set_xticks(procs, [str(p) for p in procs], fontsize=8)
    ax.minorticks_off()
    ax.set_xlabel("processes (12 per node)")
    ax.set_ylabel("predicted output bandwidth (GiB/s)")
    ax.set_title("seed 000: LICOM3 0.1 deg (15 GB); shared file on 16 OSTs, files on 1 each", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "sim_seed000_procs.png"), dpi=110)

    osts = [1, 2, 4, 8, 16, 32, 64]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=False)
    for ax, (label, (engine, extra)) in zip(axes, list(methods.items())[:2]):
        for p in [320, 1280, 4800]:
            ys = [gib(sim(build, "tianhe1a.toml", "licom.toml", f"ranks={p}", f"engine={engine}",
                          *extra, f"storage.stripe_count={n}")) for n in osts]
            ax.plot(osts, ys, marker="o", label=f"{p} processes")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("OSTs per file (stripe count; 160 in the file system)")
        ax.set_ylabel("predicted output bandwidth (GiB/s)")
        ax.set_title(label, fontsize=9)
        ax.legend(fontsize=8)
    fig.suptitle("seed 000: the effect of OST count", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "sim_seed000_osts.png"), dpi=110)


def seed001(build, out):
    ratios = [("64", 64), ("128", 128), ("1/4", 192), ("1/3", 256), ("1/2", 384), ("all", 768)]
    plans = {
        "topology order, spread (tapio)": ["params.collect_order=topology", "params.placement=spread"],
        "rank order, rank-order placement (ROMIO)": ["params.collect_order=rank",
                                                     "params.placement=rank-order"],
    }
    # The paper's algorithms cut domains in rounds of the buffer size, as min_rounds = 1 does.
    plans = {label: extra + ["params.min_rounds=1"] for label, extra in plans.items()}
    fig, ax = plt.subplots(figsize=(6.5, 4))
    results = {}
    for label, extra in plans.items():
        ys = [gib(sim(build, "tsubame25.toml", "hpio.toml", f"params.aggregators={a}", *extra))
              for a, _ in ratios]
        results[label] = ys
        ax.plot([n for _, n in ratios], ys, marker="o", label=label)
    ax.set_xscale("log", base=2)
    ax.set_xticks([n for _, n in ratios], [f"{n}\n({a})" for a, n in ratios], fontsize=8)
    ax.set_xlabel("aggregators")
    ax.set_ylabel("predicted write bandwidth (GiB/s)")
    ax.set_title("seed 001: HPIO, 768 processes on 64 nodes (TSUBAME2.5-like)", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "sim_seed001.png"), dpi=110)
    return results


def seed002(build, out):
    sizes = [16, 64, 256, 1024, 4096, 16384, 65536]
    total = 64 << 20  # the paper's 64 MB request
    base = ["ranks=128", "params.ranks_per_node=1", "params.aggregators=16",
            "params.placement=rank-order", "params.stripe_size=4MiB", "params.shared_memory=false",
            "params.direct=never", "params.fill=false",
            "params.min_rounds=1"]  # IDDIO's groups are set by the buffer size alone
    def run(size, *extra):
        count = total // (128 * size)
        return sim(build, "iddio_table1.toml", "iddio.toml", f"pattern.size={size}",
                   f"pattern.count={count}", *base, *extra)
    modes = {
        "DDIO (a message per piece)": ["messages=per-piece", "params.buffer_size=4MiB"],
        "IDDIO block mode (packed)": ["params.pipeline=false", "params.buffer_size=4MiB"],
        "IDDIO pipeline mode, 8 groups": ["params.pipeline=true", "params.buffer_size=512KiB"],
    }
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    for label, extra in modes.items():
        ax1.plot(sizes, [run(s, *extra)["bandwidth"] / 1e6 for s in sizes], marker="o", label=label)
    ax1.set_xscale("log", base=2)
    ax1.set_xlabel("interleave size (bytes)")
    ax1.set_ylabel("predicted bandwidth (MB/s)")
    ax1.set_title("seed 002: 128 PN, 16 ION, 64 MB (table 1)", fontsize=10)
    ax1.legend(fontsize=8)
    groups = [1, 2, 4, 8, 16, 32, 64]
    for size in [16, 1024]:
        ys = []
        for g in groups:
            buf = max(8192, (total // 16) // g // 8192 * 8192)
            ys.append(run(size, "params.pipeline=true", f"params.buffer_size={buf}")["bandwidth"] / 1e6)
        ax2.plot(groups, ys, marker="o", label=f"interleave {size} B")
    ax2.set_xscale("log", base=2)
    ax2.set_xlabel("pipeline groups (rounds per ION)")
    ax2.set_ylabel("predicted bandwidth (MB/s)")
    ax2.set_title("pipeline mode: groups", fontsize=10)
    ax2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "sim_seed002.png"), dpi=110)


if __name__ == "__main__":
    build = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "docs", "img")
    which = sys.argv[3:] or ["000", "001", "002"]
    if "000" in which:
        seed000(build, out)
    if "001" in which:
        print(json.dumps(seed001(build, out)))
    if "002" in which:
        seed002(build, out)
