"""tapio-bench follows its contract (docs/benchmarks.md): every implemented pattern runs small
with two methods at 2 ranks, writes the JSON fields, and every method verifies."""
import json
import subprocess

import pytest

from conftest import MPI_ENV, mpirun

FIELDS = {"write_mib_s", "read_mib_s", "storage_write_requests", "storage_read_requests",
          "storage_bytes_written", "storage_bytes_read", "messages", "peak_rss_mib", "verified"}

CASES = {
    "licom": ["--grid", "16x12x3", "--vars3d", "2", "--vars2d", "1", "--steps", "2"],
    "hpio": ["--count", "32", "--size", "64", "--spacing", "32", "--mem", "noncontig"],
    "matrix": ["--rows", "64", "--cols", "40", "--dist", "cyclic", "--nb", "3"],
    "shared-read": ["--mib", "1"],
}


def bench(build):
    return build / "bench" / "tapio-bench"


@pytest.mark.parametrize("pattern", sorted(CASES))
def test_pattern_runs_and_verifies(build, tmp_path, pattern):
    out = tmp_path / "r.json"
    mpirun(2, bench(build), pattern, *CASES[pattern], "--methods", "serial,raw", "--reps", "2",
           "--read", "--no-fsync", "--dir", tmp_path, "--json", out)
    run = json.loads(out.read_text())
    assert run["pattern"] == pattern and run["ranks"] == 2
    assert {"params", "machine"} <= run.keys()
    assert list(run["results"]) == ["serial", "raw"]
    for name, r in run["results"].items():
        assert FIELDS <= r.keys(), name
        assert r["verified"] is True, (name, r)
        for k in ("write_mib_s", "read_mib_s"):
            assert r[k]["min"] <= r[k]["median"] <= r[k]["max"] and r[k]["min"] > 0
        assert r["storage_write_requests"] > 0 and r["peak_rss_mib"] > 0
    # raw counts its own requests: the bytes are exactly the pattern's.
    assert run["results"]["raw"]["storage_bytes_written"] == run["write_bytes"]
    assert run["results"]["raw"]["messages"] == 0
    assert not list(tmp_path.glob(f"{pattern}.*")), "files left without --keep"


def test_keep_and_unavailable_methods_are_reported(build, tmp_path):
    out = tmp_path / "r.json"
    mpirun(2, bench(build), "licom", "--grid", "8x4x2", "--steps", "1", "--reps", "1",
           "--methods", "raw,phdf5", "--keep", "--dir", tmp_path, "--json", out)
    run = json.loads(out.read_text())
    assert run["results"]["phdf5"]["status"] == "not built"
    assert run["results"]["phdf5"]["verified"] is False
    assert run["results"]["raw"]["read_mib_s"] is None  # not timed without --read
    assert sorted(p.name for p in tmp_path.glob("licom.raw.*")) == ["licom.raw.0", "licom.raw.1"]


@pytest.mark.parametrize("pattern", ["e3sm", "metadata"])
def test_unimplemented_patterns_say_so(build, pattern):
    proc = subprocess.run(["mpiexec.openmpi", "--oversubscribe", "-n", "1", str(bench(build)),
                           pattern], capture_output=True, text=True, timeout=60, env=MPI_ENV)
    assert proc.returncode == 2
    assert "not yet implemented" in proc.stderr
