"""tapio-bench follows its contract (docs/benchmarks.md): every implemented pattern runs small
with two methods at 2 ranks, writes the JSON fields, and every method verifies."""
import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import MPI_ENV, ROOT, SHARED, cmake_cache, mpiexec, mpirun, skip_optional_peer

FIELDS = {"write_mib_s", "read_mib_s", "storage_write_requests", "storage_read_requests",
          "storage_bytes_written", "storage_bytes_read", "messages", "peak_rss_mib", "verified"}

CASES = {
    "licom": ["--grid", "16x12x3", "--vars3d", "2", "--vars2d", "1", "--steps", "2"],
    "hpio": ["--count", "32", "--size", "64", "--spacing", "32", "--mem", "noncontig"],
    "matrix": ["--rows", "64", "--cols", "40", "--dist", "cyclic", "--nb", "3"],
    "shared-read": ["--mib", "1"],
}


def bench(build):
    # A build configured without it (-DTAPIO_BUILD_BENCH=OFF) has nothing to test here; one
    # configured with it must have built it.
    if cmake_cache("TAPIO_BUILD_BENCH") == "OFF":
        pytest.skip("tapio-bench is not built (TAPIO_BUILD_BENCH=OFF)")
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
    # A process has one MPI-IO component: under Open MPI's default (ompio) mpiio-romio is
    # unavailable, under MPICH (ROMIO) mpiio-ompio; the other one runs and verifies.
    out = tmp_path / "r.json"
    mpirun(2, bench(build), "licom", "--grid", "8x4x2", "--steps", "1", "--reps", "1",
           "--methods", "raw,mpiio-romio,mpiio-ompio", "--keep", "--dir", tmp_path,
           "--json", out)
    run = json.loads(out.read_text())
    components = [run["results"][m] for m in ("mpiio-romio", "mpiio-ompio")]
    missing = [r for r in components if r["status"] in ("unavailable", "not built")]
    ran = [r for r in components if r["status"] == "ok"]
    assert len(missing) == 1 and len(ran) == 1, components
    assert missing[0]["reason"] and missing[0]["verified"] is False
    assert ran[0]["verified"] is True
    assert run["results"]["raw"]["read_mib_s"] is None  # not timed without --read
    assert sorted(p.name for p in tmp_path.glob("licom.raw.*")) == ["licom.raw.0", "licom.raw.1"]


MD_FIELDS = {"steps", "blocks_per_step", "md_bytes", "md_bytes_per_block_step",
             "stabilise_ms_per_step", "fetch_ms_per_step", "end_to_end_ms_per_step"}


def check_ok(run, names):
    assert list(run["results"]) == names
    for name, r in run["results"].items():
        assert FIELDS <= r.keys(), name
        assert r["status"] == "ok" and r["verified"] is True, (name, r)


def test_e3sm_case_with_two_methods(build, tmp_path):
    out = tmp_path / "r.json"
    mpirun(2, bench(build), "e3sm", "--case", "g", "--vars-per-decomp", "1", "--steps", "2",
           "--methods", "collective,subfile", "--reps", "1", "--read", "--no-fsync",
           "--dir", tmp_path, "--json", out)
    run = json.loads(out.read_text())
    assert run["pattern"] == "e3sm" and run["params"]["case"] == "g"
    decs = run["params"]["decompositions"]
    assert sorted(decs) == ["D1", "D2", "D3", "D4", "D5", "D6"]
    assert all(d["variables"] == 1 for d in decs.values())  # --vars-per-decomp 1
    assert decs["D3"]["dims"] == [285, 100]  # --case g resizes the header's nCells to the map's
    assert run["params"]["whole_variables"] > 0
    check_ok(run, ["collective", "subfile"])
    assert set(run["results"]["subfile"]["metadata"]) >= MD_FIELDS
    assert not list(tmp_path.glob("e3sm.*")), "files left without --keep"


def test_e3sm_map_and_header(build, tmp_path):
    """Any map and any ncdump -h text: variables match decompositions by shape, in turn when
    several have the same dims; the rest (lev, scalars) are written whole by rank 0."""
    header = tmp_path / "h.txt"
    header.write_text("""netcdf h {
dimensions:
\ttime = UNLIMITED ; // (1 currently)
\tlev = 72 ;
\tncol = 866 ;
variables:
\tdouble lev(lev) ;
\t\tlev:units = "hPa" ;
\tdouble P0 ;
\tint date(time) ;
\tdouble PS(time, ncol) ;
\tfloat TS(time, ncol) ;
\tdouble T(time, lev, ncol) ;
\tdouble area(ncol) ;

// global attributes:
\t\t:title = "t" ;
}
""")
    out = tmp_path / "r.json"
    mpirun(3, bench(build), "e3sm", "--map", SHARED / "data/e3sm-io/map_f_case_16p.nc",
           "--header", header, "--methods", "subfile,serial", "--reps", "1", "--no-fsync",
           "--keep", "--dir", tmp_path, "--json", out)
    run = json.loads(out.read_text())
    p = run["params"]
    assert p["variables"] == 7 and p["whole_variables"] == 3
    assert {k: v["variables"] for k, v in p["decompositions"].items()} == {"D1": 2, "D2": 1, "D3": 1}
    check_ok(run, ["subfile", "serial"])
    assert (tmp_path / "e3sm.subfile" / "tapio.md").is_file()  # a dataset is a directory
    assert (tmp_path / "e3sm.serial.nc").is_file()


def test_metadata_pattern_reports_metadata_costs(build, tmp_path):
    out = tmp_path / "r.json"
    mpirun(2, bench(build), "metadata", "--vars", "3", "--blocks", "2", "--steps", "4",
           "--methods", "subfile-log,subfile-aligned/all", "--reps", "2", "--no-fsync",
           "--keep", "--dir", tmp_path, "--json", out)
    run = json.loads(out.read_text())
    assert run["params"]["blocks_per_rank_step"] == 6
    check_ok(run, ["subfile-log", "subfile-aligned/all"])
    for name, r in run["results"].items():
        md = r["metadata"]
        assert MD_FIELDS <= md.keys(), name
        assert md["blocks_per_step"] == 12 and md["steps"] == 4
        assert md["md_bytes"] > 0
        assert md["md_bytes_per_block_step"] == pytest.approx(md["md_bytes"] / 48)
        for k in ("stabilise_ms_per_step", "fetch_ms_per_step", "end_to_end_ms_per_step"):
            assert 0 < md[k]["min"] <= md[k]["median"] <= md[k]["max"]
        assert md["window_steps"] == 2
    # "/" in a method name becomes "_" in its dataset's name.
    assert (tmp_path / "metadata.subfile-aligned_all" / "tapio.idx").is_file()
    assert (tmp_path / "metadata.subfile-log" / "tapio.idx").is_file()


def test_metadata_presets_and_named_only_variants(build, tmp_path):
    out = tmp_path / "r.json"
    mpirun(1, bench(build), "metadata", "--preset", "warpx", "--steps", "2", "--reps", "1",
           "--methods", "subfile,pnetcdf", "--no-fsync", "--dir", tmp_path, "--json", out)
    run = json.loads(out.read_text())
    assert run["params"]["vars"] == 35 and run["params"]["blocks"] == 2
    assert run["results"]["subfile"]["verified"] is True
    assert run["results"]["pnetcdf"]["status"] in ("ok", "not built")
    # The backend variants are not in the default method set.
    out2 = tmp_path / "d.json"
    mpirun(1, bench(build), "metadata", "--vars", "2", "--blocks", "1", "--steps", "1",
           "--reps", "1", "--no-fsync", "--dir", tmp_path, "--json", out2)
    names = list(json.loads(out2.read_text())["results"])
    assert "subfile" in names and "subfile-fpp" in names
    assert not any(n.startswith(("subfile-log", "subfile-gather", "subfile-aligned")) for n in names)


def test_e3sm_bad_arguments_exit_2(build):
    proc = subprocess.run(mpiexec(1, bench(build), "e3sm"), capture_output=True, text=True,
                          timeout=60, env=MPI_ENV)
    assert proc.returncode == 2
    assert "--case" in proc.stderr


# The optional peers (parallel HDF5, ADIOS 1, ADIOS2): a box pattern, an irregular one (e3sm G: runs of
# a real map) and one with gaps in memory and file, each verified; skipped when not built.
PEER_CASES = {
    "licom": ["--grid", "16x12x3", "--vars3d", "2", "--vars2d", "1", "--steps", "2"],
    "e3sm": ["--case", "g", "--vars-per-decomp", "1", "--steps", "2"],
    "hpio": ["--count", "32", "--size", "64", "--spacing", "32", "--mem", "noncontig"],
}


@pytest.mark.parametrize("method", ["phdf5", "adios1", "adios2-bp5", "adios2-bp5-fpp"])
@pytest.mark.parametrize("pattern", sorted(PEER_CASES))
def test_peer_method_verifies(build, tmp_path, method, pattern):
    out = tmp_path / "r.json"
    mpirun(2, bench(build), pattern, *PEER_CASES[pattern], "--methods", f"raw,{method}",
           "--reps", "1", "--read", "--no-fsync", "--dir", tmp_path, "--json", out)
    r = json.loads(out.read_text())["results"][method]
    if r["status"] == "not built":
        skip_optional_peer(f"{method} not built: {r['reason']}")
    assert FIELDS <= r.keys()
    assert r["status"] == "ok" and r["verified"] is True, r
    assert r["write_mib_s"]["median"] > 0 and r["read_mib_s"]["median"] > 0
    assert r["storage_write_requests"] is None  # inside the library: n/a, never guessed
    assert not list(tmp_path.glob(f"{pattern}.*")), "files left without --keep"


# The selection pattern: 100 blocks of 8x8 doubles over 10 steps, rank 0 reading one block-sized
# tile of the middle step; raw has no format to find it in.
SELECTION = ["--blocks", "100", "--block", "8x8", "--steps", "10"]


def selection_run(build, tmp_path, methods, *extra):
    out = tmp_path / "r.json"
    mpirun(4, bench(build), "selection", *SELECTION, *extra, "--methods", methods, "--reps", "2",
           "--read", "--no-fsync", "--keep", "--dir", tmp_path, "--json", out)
    return json.loads(out.read_text())


def test_selection_tile_reads_one_block_and_metadata(build, tmp_path):
    run = selection_run(build, tmp_path, "raw,collective,subfile,phdf5")
    p = run["params"]
    assert p["block_grid"] == [10, 10] and p["shape"] == [80, 80]
    assert p["selection"] == {"start": [40, 40], "count": [8, 8]}  # the middle block, aligned
    assert p["block_bytes"] == 512 and p["blocks_touched"] == 1 and p["steps_read"] == 1
    assert run["read_bytes"] == p["selection_bytes"] == 512
    res = run["results"]
    assert res["raw"]["status"] == "unavailable" and res["raw"]["reason"]
    for name in ("collective", "subfile", "phdf5"):
        r = res[name]
        if r["status"] == "not built":
            continue
        assert r["status"] == "ok" and r["verified"] is True, (name, r)
        assert 0 < r["read_ms"]["min"] <= r["read_ms"]["median"] <= r["read_ms"]["max"]
        assert r["storage_bytes_read"] >= p["selection_bytes"], name
    # The subfile engine reads the blocks the tile meets (one) and the dataset's metadata.
    ds = tmp_path / "selection.subfile"
    metadata = (ds / "tapio.md").stat().st_size + (ds / "tapio.idx").stat().st_size
    assert res["subfile"]["storage_bytes_read"] <= 2 * p["block_bytes"] + metadata, metadata
    assert res["subfile"]["metadata"]["blocks_per_step"] == 100
    if res["phdf5"]["status"] == "ok":  # chunked by block, as an h5py user would
        import netCDF4
        with netCDF4.Dataset(tmp_path / "selection.phdf5.h5") as f:
            assert f["field"].chunking() == [1, 8, 8] and f["field"].shape == (10, 80, 80)


def test_selection_row_over_all_steps_verifies_with_peers(build, tmp_path):
    run = selection_run(build, tmp_path, "subfile-fpp,pnetcdf,adios1,mpiio-ompio",
                        "--select", "row", "--read-steps", "all")
    p = run["params"]
    assert p["selection"] == {"start": [40, 0], "count": [1, 80]}
    assert p["steps_read"] == 10 and p["blocks_touched"] == 10 * 10
    assert run["read_bytes"] == p["selection_bytes"] == 80 * 8 * 10
    for name, r in run["results"].items():
        assert r["status"] in ("ok", "not built", "unavailable"), (name, r)
        assert r["status"] != "ok" or r["verified"] is True, (name, r)
    assert run["results"]["subfile-fpp"]["status"] == "ok"


def test_report_shows_the_selection_read(build, tmp_path):
    pytest.importorskip("matplotlib")  # the report's plots (scripts/setup.sh --bench)
    results = tmp_path / "json"
    results.mkdir()
    mpirun(2, bench(build), "selection", *SELECTION, "--methods", "subfile,phdf5", "--reps", "1",
           "--read", "--no-fsync", "--dir", tmp_path, "--json", results / "selection.shm.json")
    doc = tmp_path / "benchmarks.md"
    doc.write_text("# hand-written part\n\n<!-- results: everything below is generated by `make bench` -->\n")
    subprocess.run([sys.executable, ROOT / "bench" / "bench_report.py", results, doc, tmp_path / "img"],
                   check=True, timeout=120)
    lines = doc.read_text().splitlines()
    assert lines[0] == "# hand-written part"
    head = lines.index("| method | write MiB/s | selection read ms median [min–max] | bytes read | "
                       "read requests | bytes read / block | speed vs phdf5 |")
    rows = {}
    for line in itertools.takewhile(str.strip, lines[head + 2:]):
        cells = [c.strip() for c in line.split("|")[1:-1]]
        rows[cells[0]] = cells
    ran = json.loads((results / "selection.shm.json").read_text())["results"]
    assert list(rows) == [n for n, r in ran.items() if r["status"] == "ok"]  # phdf5 if built
    assert int(rows["subfile"][3]) > 0  # bytes read, from the engine's profile
    if "phdf5" in rows:
        assert rows["phdf5"][6] == "1.00"  # HDF5 against itself


# The particles pattern: joined arrays whose per-rank counts change by step (the last rank has
# none in step 1), read back by each rank (own) or in equal ranges across writers (even).
@pytest.mark.parametrize("reader", ["own", "even"])
def test_particles_joined_arrays_verify(build, tmp_path, reader):
    out = tmp_path / "r.json"
    mpirun(3, bench(build), "particles", "--particles", "500", "--steps", "3", "--reader", reader,
           "--methods", "raw,subfile,subfile-fpp,serial,phdf5,adios1", "--reps", "2", "--read",
           "--no-fsync", "--dir", tmp_path, "--json", out)
    run = json.loads(out.read_text())
    p = run["params"]
    assert p["rank_step_min"] == 0 and 250 <= p["rank_step_max"] <= 750
    assert len(p["particles_per_step"]) == 3
    assert run["write_bytes"] == run["read_bytes"] == sum(p["particles_per_step"]) * 7 * 8
    res = run["results"]
    assert res["serial"]["status"] == "unavailable"  # the NetCDF engines have no joined arrays
    assert res["raw"]["status"] == ("ok" if reader == "own" else "unavailable")
    for name, r in res.items():
        assert r["status"] in ("ok", "unavailable", "not built"), (name, r)
        assert r["status"] != "ok" or r["verified"] is True, (name, r)
    for name in ("subfile", "subfile-fpp"):
        assert res[name]["status"] == "ok", (name, res[name])
    if reader == "own":
        assert res["raw"]["storage_bytes_written"] == run["write_bytes"]
    assert not list(tmp_path.glob("particles.*")), "files left without --keep"


ADIOS2 = ["adios2-bp5", "adios2-bp5-fpp"]


def test_adios2_methods_verify_or_are_not_built(build, tmp_path):
    """ADIOS2 is built from source by `scripts/setup.sh --bench` and may be missing: its methods
    are in the default set all the same, and each either verifies (here with fsync at close, and
    on shared-read, whose reads are not the written blocks) or says why it is not built."""
    # The BP5 reader writes a profile into /tmp on every rank, whatever the directory; the
    # methods remove it.
    profiles = set(Path("/tmp").glob("*.adios2-bp5*.bp_*_profiling.json"))
    out = tmp_path / "r.json"
    mpirun(2, bench(build), "licom", *PEER_CASES["licom"], "--reps", "1", "--read",
           "--dir", tmp_path, "--json", out)
    results = json.loads(out.read_text())["results"]
    assert set(ADIOS2) <= results.keys()  # never silently missing
    if any(results[m]["status"] == "not built" for m in ADIOS2):
        assert all(results[m]["status"] == "not built" and results[m]["reason"] for m in ADIOS2)
        skip_optional_peer(f"adios2 not built: {results[ADIOS2[0]]['reason']}")
    out2 = tmp_path / "s.json"
    mpirun(2, bench(build), "shared-read", "--mib", "1", "--methods", ",".join(ADIOS2),
           "--reps", "2", "--read", "--dir", tmp_path, "--json", out2)
    for r in (results, json.loads(out2.read_text())["results"]):
        for m in ADIOS2:
            assert r[m]["status"] == "ok" and r[m]["verified"] is True, (m, r[m])
            assert r[m]["messages"] is None  # inside ADIOS2: n/a, never guessed
    assert not list(tmp_path.glob("*.adios2-*")), "files left without --keep"
    assert set(Path("/tmp").glob("*.adios2-bp5*.bp_*_profiling.json")) <= profiles
