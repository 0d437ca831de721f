"""`tapio sim` from the command line: a prediction as JSON (phases adding up to the total, the
bandwidth from the bytes), the collection order mattering where waves share NICs, overrides,
--explain, --calibrate's cluster file, and errors naming the file, line and key.

The tool is $TAPIO_BUILD_DIR/tools/tapio (default: build/ beside the sources).
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import mpirun

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("TAPIO_BUILD_DIR", REPO / "build"))
TAPIO = BUILD / "tools" / "tapio"
EX = REPO / "examples" / "sim"


def sim(*args, check=True):
    proc = subprocess.run([str(TAPIO), "sim", *map(str, args)], capture_output=True, text=True,
                          timeout=120)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def predict(cluster, workload, *sets):
    args = [EX / cluster, EX / workload, "--json"]
    for s in sets:
        args += ["--set", s]
    return json.loads(sim(*args).stdout)


def test_prediction_adds_up():
    p = predict("tsubame25.toml", "hpio.toml")
    assert p["plan"]["mode"] == "two-phase"
    assert p["plan"]["writers"] == 64  # one aggregator per node
    assert p["plan"]["bytes_per_step"] == 768 * 8192 * 1024
    assert p["seconds"] == pytest.approx(sum(p["phases"].values()))
    assert p["bandwidth"] == pytest.approx(p["plan"]["bytes_per_step"] / p["seconds"])
    assert p["bottleneck"]["resource"] == p["resources"][0]["resource"]
    assert p["simulation"]["peak_memory_bytes"] > 0


def test_topology_order_beats_rank_order_when_the_nics_limit():
    topo = predict("tsubame25.toml", "hpio.toml", "params.aggregators=1/2")
    rank = predict("tsubame25.toml", "hpio.toml", "params.aggregators=1/2",
                   "params.collect_order=rank", "params.placement=rank-order")
    assert topo["bandwidth"] > 1.2 * rank["bandwidth"]

    def nic_share(p):
        return sum(r["seconds"] for r in p["resources"] if r["resource"] == "NIC") / p["seconds"]
    # ROMIO's order piles the first waves onto a few NICs: a third of the run is theirs.
    assert nic_share(rank) > 0.3 > nic_share(topo)


def test_explain_ranks_candidates():
    out = sim(EX / "local.toml", EX / "workload.toml", "--explain", "--set", "ranks=4").stdout
    assert "chosen: aggregators =" in out
    assert "two-level aggregation" in out
    # The starred candidate ties with others here (same buffer, same time, another stripe):
    # --explain says which rule picked it.
    rows = {line: line[1:].split() for line in out.splitlines() if line[:2] in ("* ", "  ")}
    star = next(fields for line, fields in rows.items() if line[0] == "*")
    # fields: aggregators, buffer (2), stripe (2), time (2), bottleneck
    alike = [f for f in rows.values() if (f[1:3], f[5:7]) == (star[1:3], star[5:7])]
    assert len(alike) > 1, out
    why = next(line for line in out.splitlines() if line.startswith("why this one: "))
    assert f"{len(alike)} are predicted exactly as fast" in why and "the first tried wins" in why


def test_bad_cluster_file_names_key_and_line(tmp_path):
    bad = tmp_path / "c.toml"
    bad.write_text("[nodes]\ncount = 4\n[storage]\ntargets = \"many\"\n")
    proc = sim(bad, EX / "hpio.toml", check=False)
    assert proc.returncode == 1
    assert f"cluster file '{bad}', line 4: 'storage.targets' must be an integer" in proc.stderr
    proc = sim(EX / "local.toml", EX / "hpio.toml", "--set", "params.aggregators=lots", check=False)
    assert proc.returncode == 1 and "--set 'params.aggregators=lots'" in proc.stderr


def test_calibrate_writes_a_cluster_file_the_model_reads(tmp_path):
    # Two ranks name the files they share alike (a name per rank failed the collective open),
    # and the writers' copy is measured beside the host's rate with a writer per core, the
    # readers' likewise.
    out = mpirun(2, TAPIO, "sim", "--calibrate", "--dir", tmp_path, timeout=120)
    cluster = tmp_path / "local.toml"
    cluster.write_text(out)
    for key in ("writer_bandwidth", "client_bandwidth", "reader_bandwidth",
                "client_read_bandwidth"):
        assert f"{key} = " in out, key
    assert list(tmp_path.iterdir()) == [cluster]  # its files removed
    p = json.loads(sim(cluster, EX / "workload.toml", "--json", "--set", "pattern.steps=3").stdout)
    assert p["seconds"] > 0
    # Later steps reuse the first step's plans: they plan for less.
    assert 0 < p["plan_per_step"]["later"] < p["plan_per_step"]["first"]


READ_UNDER_A_CLUSTER = """
import json, sys
import numpy as np
from mpi4py import MPI
import tapio
path, cluster, profile = sys.argv[1:4]
rank, size = MPI.COMM_WORLD.rank, MPI.COMM_WORLD.size
n = 1 << 16  # elements a rank: every size-th of the variable (interleaved, through aggregators)
mine = np.arange(rank, n * size, size, dtype=np.uint64)
with tapio.open(path, "w", engine="collective") as f:
    f.define("x", (n * size,), np.float64, dims=("n",))
    with f.step():
        f.put("x", mine.astype(np.float64), offsets=mine)
with tapio.open(path, "r", engine="collective",
                parameters={"cluster": cluster, "profile": profile, "stripe_size": 65536}) as f:
    got = f.get("x", offsets=mine, step=0)
assert (got == mine.astype(np.float64)).all()
"""


def test_reading_under_a_cluster_file_takes_the_readers_a_node_needs(tmp_path, python_binding):
    """aggregators = auto, reading a collective file with a cluster file named: 4 ranks on one
    node, a client reading 6 GiB/s and a reader 2.5 GiB/s: 3 aggregators, which are the ranks
    whose reads the profile counts (64 KiB stripes give each of them a domain); the values read
    are the ones written."""
    cluster = tmp_path / "cluster.toml"
    cluster.write_text('[storage]\nclient_read_bandwidth = "6GiB/s"\n'
                       'reader_bandwidth = "2.5GiB/s"\n')
    profile = tmp_path / "read.json"
    mpirun(4, sys.executable, "-c", READ_UNDER_A_CLUSTER, tmp_path / "x.nc", cluster, profile,
           timeout=120)
    reads = json.loads(profile.read_text())["per_rank"]["counters"]["POSIX_READS"]
    assert sum(1 for n in reads if n > 0) == 3, reads
