"""`tapio convert DATASET OUT.nc` and `tapio ls` / `tapio dump` on tapio datasets (subfile
engine directories).

The same puts are written twice by the examples: once to a `.nc` file by the serial engine
(TAPIO_CONFIG with one rule `engine = "serial"`) and once to a dataset (a path without `.nc`).
The dataset converted to NetCDF must equal the serial file: every dimension, attribute,
variable and step compared with netCDF4-python (values exact), and byte for byte with `cmp`.
"""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import MPI_ENV, SHARED, mpiexec, mpirun
from crash_harness import kill_all

netCDF4 = pytest.importorskip("netCDF4")

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("TAPIO_BUILD_DIR", REPO / "build"))
TAPIO = BUILD / "tools" / "tapio"
E3SM_MAP = SHARED / "data" / "e3sm-io" / "map_f_case_16p.nc"
TIMEOUT = 120


def run(*args, env=None, check=True):
    """Run a program alone (one rank: an Open MPI singleton when it calls MPI)."""
    proc = subprocess.run([str(a) for a in args], capture_output=True, text=True,
                          errors="replace", timeout=TIMEOUT, env=env or MPI_ENV)
    if check:
        assert proc.returncode == 0, f"{args} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc


def tapio(*args, check=True):
    return run(TAPIO, *args, check=check)


def serial_env(tmp_path):
    config = tmp_path / "serial.toml"
    config.write_text('[[rule]]\nengine = "serial"\n')
    return dict(MPI_ENV, TAPIO_CONFIG=str(config))


def assert_same_netcdf(got_path, want_path):
    """Every dimension, attribute, variable and step of two NetCDF files, values exact."""
    with netCDF4.Dataset(got_path) as got, netCDF4.Dataset(want_path) as want:
        got.set_auto_mask(False)
        want.set_auto_mask(False)
        assert got.data_model == want.data_model == "NETCDF3_64BIT_DATA"
        assert [(d.name, len(d), d.isunlimited()) for d in got.dimensions.values()] == \
               [(d.name, len(d), d.isunlimited()) for d in want.dimensions.values()]
        assert got.ncattrs() == want.ncattrs()
        for name in want.ncattrs():
            assert np.array_equal(got.getncattr(name), want.getncattr(name)), name
        assert list(got.variables) == list(want.variables)
        for name, w in want.variables.items():
            g = got.variables[name]
            assert (g.dtype, g.dimensions, g.shape) == (w.dtype, w.dimensions, w.shape), name
            assert g.ncattrs() == w.ncattrs(), name
            for a in w.ncattrs():
                assert np.array_equal(g.getncattr(a), w.getncattr(a)), (name, a)
            if w.dimensions and w.dimensions[0] == "time":
                for step in range(w.shape[0]):  # step by step, bit-exact
                    assert np.array_equal(g[step].view(np.uint8), w[step].view(np.uint8)), \
                        (name, step)
            else:
                assert np.array_equal(g[...].view(np.uint8), w[...].view(np.uint8)), name


def assert_identical(got_path, want_path):
    assert_same_netcdf(got_path, want_path)
    cmp = subprocess.run(["cmp", str(got_path), str(want_path)], capture_output=True, text=True,
                         timeout=TIMEOUT)
    assert cmp.returncode == 0, cmp.stdout + cmp.stderr


@pytest.fixture(scope="module")
def licom(tmp_path_factory):
    """The LICOM demo's 3 steps at 4 ranks, as a dataset and as the serial engine's file."""
    if not (BUILD / "examples" / "licom_demo").exists():
        pytest.fail(f"no build at {BUILD}: run `make build` first or set TAPIO_BUILD_DIR")
    d = tmp_path_factory.mktemp("licom")
    mpirun(4, BUILD / "examples" / "licom_demo", d / "ocean", 3)
    mpirun(4, BUILD / "examples" / "licom_demo", d / "serial.nc", 3, env=serial_env(d))
    assert (d / "ocean" / "tapio.idx").is_file()
    return d / "ocean", d / "serial.nc"


# --- convert --------------------------------------------------------------------------------

def test_help_lists_convert():
    out = tapio("--help").stdout
    assert "convert" in out
    assert "DATASET" in tapio("convert", "--help").stdout


def test_licom_convert_one_rank_without_mpiexec(licom, tmp_path):
    dataset, serial = licom
    out = tmp_path / "converted.nc"
    text = tapio("convert", dataset, out).stdout
    assert "3 steps" in text and "collective" in text and "1 rank" in text
    assert_identical(out, serial)


@pytest.mark.parametrize("np_", [2, 3, 4])
def test_licom_convert_parallel(licom, tmp_path, np_):
    dataset, serial = licom
    out = tmp_path / f"converted{np_}.nc"
    text = mpirun(np_, TAPIO, "convert", dataset, out)
    assert text.count("\n") == 1 and text.startswith("converted ")  # rank 0 reports alone
    assert_identical(out, serial)


@pytest.mark.parametrize("engine", ["serial", "mpiio"])
def test_convert_engine_option(licom, tmp_path, engine):
    dataset, serial = licom
    out = tmp_path / f"{engine}.nc"
    assert f"the {engine} engine" in mpirun(2, TAPIO, "convert", "--engine", engine, dataset, out)
    assert_identical(out, serial)


def test_convert_engine_from_config(licom, tmp_path):
    dataset, serial = licom
    out = tmp_path / "configured.nc"
    config = tmp_path / "mpiio.toml"
    config.write_text('[[rule]]\npath = "*.nc"\nengine = "mpiio"\n')
    text = mpirun(2, TAPIO, "convert", dataset, out, env=dict(MPI_ENV, TAPIO_CONFIG=str(config)))
    assert "the mpiio engine" in text
    assert_identical(out, serial)


def test_convert_writes_one_netcdf_file_whatever_engine_a_rule_picks(licom, tmp_path):
    """A rule meant for a program's output (`engine = "subfile"` for *.nc) does not turn OUT.nc
    into a directory: convert writes the one CDF-5 file its command line names, says it ignored
    the engine, and still takes the rule's parameters (here its profile)."""
    dataset, serial = licom
    out, profile = tmp_path / "out.nc", tmp_path / "convert.json"
    config = tmp_path / "subfile.toml"
    config.write_text(f'[[rule]]\npath = "*.nc"\nengine = "subfile"\nprofile = "{profile}"\n')
    proc = run(*mpiexec(2, TAPIO, "convert", dataset, out),
               env=dict(MPI_ENV, TAPIO_CONFIG=str(config)))
    assert "the collective engine" in proc.stdout
    assert proc.stderr.count(f"config file '{config}' picks engine 'subfile'") == 1  # rank 0
    assert out.is_file()
    assert_identical(out, serial)
    assert json.loads(profile.read_text())["engine"] == "collective"
    bad = tapio("convert", "--engine", "subfile", dataset, tmp_path / "x.nc", check=False)
    assert bad.returncode == 2 and "subfile" in bad.stderr and not (tmp_path / "x.nc").exists()


def test_datasets_are_read_whatever_engine_a_rule_picks(licom, tmp_path):
    """`engine = "serial"` for every path is a program's choice of writer: ls and dump still
    read a dataset with the subfile engine."""
    dataset, _ = licom
    config = tmp_path / "serial.toml"
    config.write_text('[[rule]]\nengine = "serial"\n')
    env = dict(MPI_ENV, TAPIO_CONFIG=str(config))
    for args in (["ls", dataset], ["dump", dataset, "lat"]):
        assert run(TAPIO, *args, env=env).stdout == tapio(*args).stdout


@pytest.mark.parametrize("np_", [1, 4])
def test_e3sm_map_replay_convert(tmp_path, np_):
    if not E3SM_MAP.exists():
        pytest.skip(f"{E3SM_MAP} not present")
    replay = BUILD / "examples" / "e3sm_replay"
    mpirun(np_, replay, E3SM_MAP, tmp_path / "e3sm", 3)
    mpirun(np_, replay, E3SM_MAP, tmp_path / "serial.nc", 3, env=serial_env(tmp_path))
    out = tmp_path / "converted.nc"
    mpirun(np_, TAPIO, "convert", tmp_path / "e3sm", out)
    assert_identical(out, tmp_path / "serial.nc")
    with netCDF4.Dataset(out) as f:  # the map's irregular runs, all 3 steps
        names = [n for n in f.variables if n.endswith("_var")]
        assert names and all(f.variables[n].shape[0] == 3 for n in names)


# --- ls and dump on datasets ----------------------------------------------------------------

def test_ls_dataset_text(licom):
    dataset, serial = licom
    got = tapio("ls", dataset).stdout.splitlines()
    want = tapio("ls", serial).stdout.splitlines()
    assert got[0] == f"file: {dataset}" and got[1] == "format: tapio subfile dataset"
    assert got[2] == "writer: closed"  # its writer closed it (tests/py/test_dead_writer.py)
    assert got[3:] == want[2:]
    assert "  float64  temp  [time=3, depth=30, lat=96, lon=144]  3 steps" in got
    assert "  time = UNLIMITED (3 currently)" in got


def test_ls_dataset_json(licom):
    dataset, serial = licom
    got = json.loads(tapio("ls", "--json", dataset).stdout)
    want = json.loads(tapio("ls", "--json", serial).stdout)
    assert got["format"] == "tapio subfile dataset" and got["numrecs"] == 3
    assert got["writer"]["closed"] and got["writer"]["committed_steps"] == 3
    for key in ("dimensions", "attributes"):
        assert got[key] == want[key]
    for name, var in want["variables"].items():
        var.pop("begin")
        assert got["variables"][name] == var


@pytest.mark.parametrize("args", [
    ["temp", "--step", "2", "--start", "29,95,140", "--count", "1,1,4"],
    ["ssh", "--start", "10,0", "--count", "2,144"],
    ["lat"],
    ["mld", "--step", "0"],
])
def test_dump_dataset_text_matches_netcdf(licom, args):
    dataset, serial = licom
    got = tapio("dump", dataset, *args).stdout
    assert got == tapio("dump", serial, *args).stdout
    assert got


def test_dump_dataset_json_matches_netcdf(licom):
    dataset, serial = licom
    args = ["u", "--start", "3,4,5", "--count", "2,3,4"]
    got = json.loads(tapio("dump", "--json", dataset, *args).stdout)
    want = json.loads(tapio("dump", "--json", serial, *args).stdout)
    assert got.pop("file") == str(dataset)
    want.pop("file")
    assert got == want
    assert len(got["steps"]) == 3


def test_dump_whole_record_variable_in_slabs(licom):
    """A whole 3-D variable (more than the 4 MiB slab) over all steps, as NetCDF prints it."""
    dataset, serial = licom
    assert tapio("dump", dataset, "v").stdout == tapio("dump", serial, "v").stdout


def test_dump_dataset_values(licom):
    dataset, _ = licom
    values = json.loads(tapio("dump", "--json", dataset, "temp", "--step", "1", "--start",
                              "0,0,0", "--count", "1,1,3").stdout)["steps"][0]["values"]
    assert values == [[[1048576.0, 1048577.0, 1048578.0]]]  # g + v/4 + s * 2^20


# --- errors ---------------------------------------------------------------------------------

def fails(*args, contains=()):
    proc = tapio(*args, check=False)
    assert proc.returncode == 1, f"tapio {args}: rc {proc.returncode}\n{proc.stderr}"
    assert proc.stdout == ""
    assert proc.stderr.startswith("tapio: ") and "internal error" not in proc.stderr
    for text in contains:
        assert text in proc.stderr, f"{text!r} not in {proc.stderr!r}"
    return proc.stderr


def copy_dataset(src, dst):
    dst.mkdir()
    for f in src.iterdir():
        (dst / f.name).write_bytes(f.read_bytes())
    return dst


def flip_byte(path, at):
    data = bytearray(path.read_bytes())
    data[at] ^= 0xFF
    path.write_bytes(bytes(data))


def test_not_a_dataset(licom, tmp_path):
    dataset, serial = licom
    fails("ls", tmp_path, contains=["is a directory", "tapio.idx"])
    fails("convert", tmp_path, tmp_path / "x.nc", contains=["not a tapio dataset", "tapio.idx"])
    fails("convert", serial, tmp_path / "x.nc", contains=["not a tapio dataset"])
    fails("convert", tmp_path / "nope", tmp_path / "x.nc", contains=["nope"])
    assert not (tmp_path / "x.nc").exists()


def test_older_format_version_is_rejected_clearly(tmp_path):
    # A dataset written by the tapio before subfile format version 2 (tests/data/subfile_v1: a
    # 4 x 3 double variable, one step), read by this one: a clear error, never garbage.
    old = Path(__file__).resolve().parents[1] / "data" / "subfile_v1"
    want = ["format version 1, this tapio reads versions 2 to 6", "older tapio", "subfile_v1"]
    fails("ls", old, contains=want)
    fails("dump", old, "x", contains=want)
    fails("convert", old, tmp_path / "x.nc", contains=want)
    assert not (tmp_path / "x.nc").exists()


def test_version_2_dataset_is_still_read(tmp_path):
    # tests/data/subfile_v2: the bands example (examples/bands) written on 2 ranks by the tapio
    # before operators (format version 3). This tapio's bands reads it on 3 ranks and checks
    # every value; convert gives NetCDF with bands' values.
    old = Path(__file__).resolve().parents[1] / "data" / "subfile_v2"
    mpirun(3, BUILD / "examples" / "bands", "read", old)
    tapio("convert", old, tmp_path / "v2.nc")
    with netCDF4.Dataset(tmp_path / "v2.nc") as ds:
        t = ds["t"][:]
        s, j, i = np.meshgrid(range(3), range(8), range(6), indexing="ij")
        assert np.array_equal(t, 1000 * s + 6 * j + i)


def test_dataset_lookup_errors(licom):
    dataset, _ = licom
    fails("dump", dataset, "tmp", contains=["no variable 'tmp'", "did you mean 'temp'"])
    fails("dump", dataset, "temp", "--step", "3", contains=["step 3 out of range", "3 steps"])
    fails("dump", dataset, "lat", "--step", "0", contains=["record variables only"])
    fails("dump", dataset, "ssh", "--start", "96,0", contains=["outside dimension 'lat'"])


def test_corrupt_data_checksum(licom, tmp_path):
    dataset, _ = licom
    bad = copy_dataset(dataset, tmp_path / "bad")
    data = sorted(bad.glob("data.*"))[0]
    flip_byte(data, 5000)
    out = tmp_path / "bad.nc"
    fails("convert", bad, out, contains=["checksum mismatch", data.name, "step 0"])
    assert not out.exists()  # no half-converted file is left behind
    assert not (tmp_path / ".bad.nc.tapio-partial").exists()  # nor the one being written
    out.write_text("an earlier file")
    fails("convert", bad, out, contains=["checksum mismatch"])
    assert out.read_text() == "an earlier file"  # a failed convert leaves OUT as it was
    fails("dump", bad, "temp", "--step", "0", "--count", "1,1,1",
          contains=["checksum mismatch", data.name])
    cmd = mpiexec(2, TAPIO, "convert", bad, out)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, env=MPI_ENV)
    assert proc.returncode != 0
    assert proc.stderr.count("tapio: ") == 1 and "checksum mismatch" in proc.stderr


def test_corrupt_metadata_checksum(licom, tmp_path):
    dataset, _ = licom
    bad = copy_dataset(dataset, tmp_path / "badmd")
    md = bad / "tapio.md"
    first_length = int.from_bytes(md.read_bytes()[8:16], "little")  # of the first record
    flip_byte(md, 24 + first_length - 1)  # the last byte of its payload
    fails("ls", bad, contains=["checksum mismatch", "tapio.md"])
    fails("convert", bad, tmp_path / "x.nc", contains=["checksum mismatch", "tapio.md"])


# --- names (issue 29 item 6) and a killed convert (item 9) ------------------------------------

NAMES_WRITER = """
import sys
import numpy as np
import tapio
with tapio.open(sys.argv[1], "w") as f:
    try:
        f.define("v", (4,), np.float64, dims=("time",))  # the dimension NetCDF keeps steps in
    except tapio.ArgumentError as e:
        print("refused:", e)
    try:
        f.define("e\u0301", (4,), np.float64)  # "e" + combining acute: not NFC
    except tapio.ArgumentError as e:
        print("refused:", e)
    f.define("\u00e9t\u00e9", (3,), np.float64, dims=("0\u20ac",), fixed=True,
             attrs={"unit\u00e9": "m"})
    f.define("1 a.b", (2,), np.int32, dims=("n",))
    for s in range(2):
        with f.step():
            f.put("1 a.b", np.array([s, 10 + s], dtype=np.int32))
            if s == 0:
                f.put("\u00e9t\u00e9", np.array([0.5, 1.5, 2.5]))
"""


def test_names_are_checked_at_definition_and_a_dataset_converts(tmp_path, python_binding):
    """The subfile engine took a dimension named `time` (and names NetCDF rejects), and then
    `tapio convert` of the dataset failed; now such names fail at definition, and every name
    NetCDF accepts converts."""
    dataset = tmp_path / "names"
    out = mpirun(1, sys.executable, "-c", NAMES_WRITER, dataset)
    refusals = [line for line in out.splitlines() if line.startswith("refused:")]
    assert len(refusals) == 2, out
    assert "dimension name 'time' is reserved" in refusals[0]
    assert "normalization form C" in refusals[1] and "'\u00e9'" in refusals[1]
    tapio("convert", dataset, tmp_path / "names.nc")
    with netCDF4.Dataset(tmp_path / "names.nc") as ds:
        assert list(ds.variables) == ["\u00e9t\u00e9", "1 a.b"]
        assert list(ds.dimensions) == ["time", "0\u20ac", "n"]
        assert ds["\u00e9t\u00e9"].getncattr("unit\u00e9") == "m"
        assert np.array_equal(ds["\u00e9t\u00e9"][:], [0.5, 1.5, 2.5])
        assert np.array_equal(ds["1 a.b"][:], [[0, 10], [1, 11]])


KILL_STEPS = 400

LONG_WRITER = """
import sys
import numpy as np
import tapio
with tapio.open(sys.argv[1], "w") as f:
    f.define("v", (8192,), np.float64, dims=("n",))
    for s in range(int(sys.argv[2])):
        with f.step():
            f.put("v", np.full(8192, float(s)))
"""


def records_being_written(proc, paths, timeout=60):
    """numrecs (>= 1) of whichever of `paths` (CDF-5) the running convert writes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, "convert ended before it could be killed"
        for path in paths:
            try:
                head = path.read_bytes()[:12]
            except OSError:
                continue
            if len(head) == 12 and int.from_bytes(head[4:], "big") >= 1:
                return int.from_bytes(head[4:], "big")
        time.sleep(0.002)
    raise AssertionError("no step was written")


def test_killed_convert_leaves_no_partial_file(tmp_path, python_binding):
    """SIGKILL in the middle of a convert: OUT does not exist (a valid NetCDF file holding only
    the first steps was left there before); the next convert completes it."""
    dataset = tmp_path / "long"
    mpirun(1, sys.executable, "-c", LONG_WRITER, dataset, KILL_STEPS)
    out, partial = tmp_path / "out.nc", tmp_path / ".out.nc.tapio-partial" / "out.nc"
    proc = subprocess.Popen(mpiexec(2, TAPIO, "convert", dataset, out), env=MPI_ENV,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        written = records_being_written(proc, [out, partial])
    finally:
        kill_all(proc)
    assert 1 <= written < KILL_STEPS  # the kill landed mid-run
    assert not out.exists(), f"a killed convert left {out} with {written}+ of {KILL_STEPS} steps"
    text = tapio("convert", dataset, out).stdout  # reuses the partial directory left behind
    assert f"{KILL_STEPS} steps" in text
    assert not partial.parent.exists()
    with netCDF4.Dataset(out) as ds:
        v = ds["v"][:]
        assert v.shape == (KILL_STEPS, 8192)
        assert np.array_equal(v, np.repeat(np.arange(KILL_STEPS, dtype=float)[:, None], 8192, 1))
