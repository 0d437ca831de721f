"""`tapio sim` from the command line: a prediction as JSON (phases adding up to the total, the
bandwidth from the bytes), the collection order mattering where waves share NICs, overrides,
--explain, --calibrate's cluster file, and errors naming the file, line and key.

The tool is $TAPIO_BUILD_DIR/tools/tapio (default: build/ beside the sources).
"""
import json
import os
import subprocess
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
    # and the writers' copy is measured beside the host's rate with a writer per core.
    out = mpirun(2, TAPIO, "sim", "--calibrate", "--dir", tmp_path, timeout=120)
    cluster = tmp_path / "local.toml"
    cluster.write_text(out)
    assert "writer_bandwidth = " in out and "client_bandwidth = " in out
    assert list(tmp_path.iterdir()) == [cluster]  # its files removed
    p = json.loads(sim(cluster, EX / "workload.toml", "--json", "--set", "pattern.steps=3").stdout)
    assert p["seconds"] > 0
    # Later steps reuse the first step's plans: they plan for less.
    assert 0 < p["plan_per_step"]["later"] < p["plan_per_step"]["first"]
