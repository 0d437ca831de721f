"""Tests of the `tapio` command-line tool (tools/): ls and dump on NetCDF CDF-1/2/5 files that
tapio did not write (ncgen, netCDF4-python, the E3SM-IO decomposition map), and bad inputs.

The tool is $TAPIO_BUILD_DIR/tools/tapio (default build dir: /work/main/build).
"""
import json
import os
import random
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import under_ptrace

netCDF4 = pytest.importorskip("netCDF4")

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("TAPIO_BUILD_DIR", REPO / "build"))
TAPIO = BUILD / "tools" / "tapio"
E3SM_MAP = Path("/work/shared/data/e3sm-io/map_f_case_16p.nc")
TIMEOUT = 60

# One CDL, generated as CDF-1, CDF-2 and CDF-5: fixed and record variables, a scalar, the
# classic types, char arrays and attributes, with values known here.
CDL = r"""
netcdf sample {
dimensions:
  time = UNLIMITED ;
  depth = 2 ;
  lat = 3 ;
  lon = 4 ;
  strlen = 6 ;
  name = 2 ;
variables:
  double temp(time, depth, lat, lon) ;
    temp:units = "K" ;
    temp:valid_range = 0., 400. ;
  float lat(lat) ;
    lat:units = "degrees_north" ;
  int ids(name) ;
  short sh(lat) ;
  byte b(lon) ;
  char names(name, strlen) ;
  double t(time) ;
  int scalar ;
    scalar:note = "a \"quoted\"\nline" ;
  char c(time, strlen) ;
  :title = "test file" ;
  :version = 3 ;
  :ratio = 0.1f, 1.e30f ;
data:
  temp = 0.1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
         100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116,
         117, 118, 119, 120, 121, 122, 123.25 ;
  lat = -45.5, 0.1, 1e-7 ;
  ids = -2147483646, 2147483647 ;  // not the fill values -2147483647, -32767
  sh = -32766, 0, 32767 ;
  b = -128, -1, 0, 127 ;
  names = "alpha", "bet\"a" ;
  t = 1.5, 2.5 ;
  scalar = 42 ;
  c = "step0", "step1" ;
}
"""

TEMP = np.concatenate([np.arange(24.0), np.arange(100.0, 124.0)]).reshape(2, 2, 3, 4)
TEMP[0, 0, 0, 0] = 0.1
TEMP[1, 1, 2, 3] = 123.25
LAT = np.array([-45.5, 0.1, 1e-7], dtype=np.float32)

EXPECTED_VARS = {  # name: (type, dimensions, shape with the current record count)
    "temp": ("float64", ["time", "depth", "lat", "lon"], [2, 2, 3, 4]),
    "lat": ("float32", ["lat"], [3]),
    "ids": ("int32", ["name"], [2]),
    "sh": ("int16", ["lat"], [3]),
    "b": ("int8", ["lon"], [4]),
    "names": ("char", ["name", "strlen"], [2, 6]),
    "t": ("float64", ["time"], [2]),
    "scalar": ("int32", [], []),
    "c": ("char", ["time", "strlen"], [2, 6]),
}

# Types beyond CDF-2 (ncgen maps int64 variables to int, so netCDF4-python writes this one).
CDF5_TYPES = {
    "ub": ("u1", [0, 255]),
    "us": ("u2", [1, 65534]),
    "ui": ("u4", [1, 4294967294]),
    "i64": ("i8", [-9223372036854775807, 9223372036854775807]),
    "u64": ("u8", [1, 18446744073709551614]),
}

TAPIO_TYPE = {"i1": "int8", "u1": "uint8", "i2": "int16", "u2": "uint16", "i4": "int32",
              "u4": "uint32", "i8": "int64", "u8": "uint64", "f4": "float32", "f8": "float64",
              "S1": "char"}


# --- helpers --------------------------------------------------------------------------------

def tapio(*args, check=True):
    proc = subprocess.run([str(TAPIO), *map(str, args)], capture_output=True, text=True,
                          errors="replace", timeout=TIMEOUT)
    if check:
        assert proc.returncode == 0, f"tapio {args} failed: {proc.stderr}"
    return proc


def ls_json(path):
    return json.loads(tapio("ls", "--json", path).stdout)


def dump_json(path, var, *args):
    return json.loads(tapio("dump", "--json", path, var, *args).stdout)


def dump_text(path, var, *args):
    return tapio("dump", path, var, *args).stdout


def parse_rows(text):
    """Text dump -> list of rows, each a list of number strings (without the row's indices)."""
    return [line.split(" = ", 1)[1].split(", ") for line in text.splitlines()]


def row_labels(text):
    """Text dump -> each row's indices, as printed: ["temp(0,1, 0-3)", ...]."""
    return [line.split(" = ", 1)[0] for line in text.splitlines()]


def fails(*args, contains=()):
    proc = tapio(*args, check=False)
    assert proc.returncode == 1, f"tapio {args}: rc {proc.returncode}\n{proc.stderr}"
    assert proc.stdout == ""
    assert proc.stderr.startswith("tapio: ") and "internal error" not in proc.stderr
    for text in contains:
        assert text in proc.stderr, f"{text!r} not in {proc.stderr!r}"
    return proc.stderr


def ncgen(kind, cdl, path):
    cdl_path = path.with_suffix(".cdl")
    cdl_path.write_text(cdl)
    subprocess.run(["ncgen", "-k", str(kind), "-o", str(path), str(cdl_path)], check=True,
                   timeout=TIMEOUT)
    return path


def tapio_type(dtype):
    return TAPIO_TYPE[np.dtype(dtype).str[1:]]


def compare_with_netcdf4(path):
    """Structure of `tapio ls --json` against netCDF4-python's view of the same file."""
    info = ls_json(path)
    with netCDF4.Dataset(path) as ds:
        assert list(info["dimensions"]) == list(ds.dimensions)
        for name, dim in ds.dimensions.items():
            assert info["dimensions"][name] == {"length": len(dim),
                                                "unlimited": dim.isunlimited()}
        assert list(info["attributes"]) == ds.ncattrs()
        assert list(info["variables"]) == list(ds.variables)
        for name, var in ds.variables.items():
            got = info["variables"][name]
            assert got["type"] == tapio_type(var.dtype), name
            assert got["dimensions"] == list(var.dimensions), name
            assert got["shape"] == list(var.shape), name
            assert list(got["attributes"]) == var.ncattrs(), name
    return info


# --- fixtures -------------------------------------------------------------------------------

@pytest.fixture(scope="session", autouse=True)
def tool_built():
    if not TAPIO.exists():
        pytest.fail(f"{TAPIO} not found: build the tapio_cli target (TAPIO_BUILD_DIR={BUILD})")


@pytest.fixture(scope="session")
def files(tmp_path_factory):
    """The sample CDL as CDF-1, CDF-2 and CDF-5: {1: path, 2: path, 5: path}."""
    d = tmp_path_factory.mktemp("cdl")
    return {k: ncgen(k, CDL, d / f"sample{k}.nc") for k in (1, 2, 5)}


@pytest.fixture(params=[1, 2, 5], ids=["cdf1", "cdf2", "cdf5"])
def sample(request, files):
    return request.param, files[request.param]


@pytest.fixture(scope="session")
def cdf5_types(tmp_path_factory):
    path = tmp_path_factory.mktemp("py") / "types5.nc"
    with netCDF4.Dataset(path, "w", format="NETCDF3_64BIT_DATA") as ds:
        ds.createDimension("n", 2)
        for name, (dtype, values) in CDF5_TYPES.items():
            ds.createVariable(name, dtype, ("n",))[:] = np.array(values, dtype=dtype)
        ds.createVariable("f", "f4", ("n",))[:] = np.array([np.nan, np.inf], dtype="f4")
        ds.createVariable("d", "f8", ("n",))[:] = np.array([-np.inf, 1e-300])
        ds.big = np.array([9223372036854775807, -9223372036854775807], dtype="i8")
    return path


# --- version and usage ----------------------------------------------------------------------

def test_version():
    version = re.search(r"project\(tapio VERSION ([0-9.]+)",
                        (REPO / "CMakeLists.txt").read_text()).group(1)
    assert tapio("--version").stdout.strip() == f"tapio {version}"


def test_usage_errors_exit_2():
    assert tapio(check=False).returncode == 2
    assert tapio("dump", "x.nc", check=False).returncode == 2       # VAR missing
    assert tapio("ls", "--bogus", "x.nc", check=False).returncode == 2
    assert tapio("--help").stdout.count("dump") >= 1


# --- ls -------------------------------------------------------------------------------------

def test_ls_json_structure(sample):
    kind, path = sample
    assert path.read_bytes()[:4] == b"CDF" + bytes([kind])
    info = ls_json(path)
    assert info["format"] == f"CDF-{kind}" and info["version"] == kind
    assert info["numrecs"] == 2 and info["truncated"] is False
    assert info["file_size"] == path.stat().st_size
    assert info["dimensions"] == {
        "time": {"length": 2, "unlimited": True}, "depth": {"length": 2, "unlimited": False},
        "lat": {"length": 3, "unlimited": False}, "lon": {"length": 4, "unlimited": False},
        "strlen": {"length": 6, "unlimited": False}, "name": {"length": 2, "unlimited": False}}
    attrs = info["attributes"]
    assert attrs["title"] == {"type": "char", "value": "test file"}
    assert attrs["version"] == {"type": "int32", "value": [3]}
    assert attrs["ratio"]["type"] == "float32"
    assert np.array_equal(np.float32(attrs["ratio"]["value"]), np.float32([0.1, 1e30]))
    assert list(info["variables"]) == list(EXPECTED_VARS)  # definition order
    for name, (type_, dims, shape) in EXPECTED_VARS.items():
        var = info["variables"][name]
        assert (var["type"], var["dimensions"], var["shape"]) == (type_, dims, shape), name
        assert var["record"] == (dims[:1] == ["time"])
        assert var.get("steps") == (2 if var["record"] else None)
    temp = info["variables"]["temp"]["attributes"]
    assert temp == {"units": {"type": "char", "value": "K"},
                    "valid_range": {"type": "float64", "value": [0, 400]}}
    assert info["variables"]["scalar"]["attributes"]["note"]["value"] == 'a "quoted"\nline'
    compare_with_netcdf4(path)


def test_ls_text(sample):
    kind, path = sample
    out = tapio("ls", path).stdout
    lines = out.splitlines()
    assert lines[1].startswith(f"format: CDF-{kind}")
    assert "  time = UNLIMITED (2 currently)" in lines
    assert "  lon = 4" in lines
    assert '  char     title = "test file"' in lines
    assert "  float32  ratio = 0.100000001, 1.00000002e+30" in lines
    temp = next(line for line in lines if "temp" in line and "[" in line)
    assert temp.split() == ["float64", "temp", "[time=2,", "depth=2,", "lat=3,", "lon=4]", "2",
                            "steps"]
    assert re.search(r"^ {6}char +units = \"K\"$", out, re.M)
    assert re.search(r"^ {6}float64 +valid_range = 0, 400$", out, re.M)
    assert re.search(r"^  int32 +scalar +scalar$", out, re.M)
    assert re.search(r'note = "a \\"quoted\\"\\nline"$', out, re.M)


def statfs_magic(path):
    """The file system's magic number, asked of stat(1), not of tapio."""
    out = subprocess.run(["stat", "-f", "-c", "%t", path], capture_output=True, text=True,
                         check=True, timeout=TIMEOUT).stdout
    return int(out.strip(), 16)


@pytest.mark.parametrize("root,name,magic", [("/tmp", "ext4", 0xEF53),
                                             ("/dev/shm", "tmpfs", 0x01021994)])
def test_ls_storage_detects_the_file_system(root, name, magic):
    if statfs_magic(root) != magic:
        pytest.skip(f"{root} is not {name} here")
    # A file about to be created: its nearest existing ancestor answers.
    out = tapio("ls", "--storage", f"{root}/not/yet/out.nc").stdout
    assert f"file system:   {name} (statfs magic {magic:#x}, from {root})" in out
    # On ext4 and tmpfs the registry's defaults stay.
    assert re.search(r"^  stripe_size +1048576 +\(registry default\)$", out, re.M)
    assert re.search(r"^  block_align +4096 +\(registry default\)$", out, re.M)
    assert re.search(r"^  data_align +512 +\(registry default\)$", out, re.M)


def test_ls_cdf5_types(cdf5_types):
    info = compare_with_netcdf4(cdf5_types)
    assert info["format"] == "CDF-5"
    for name, (dtype, _) in CDF5_TYPES.items():
        assert info["variables"][name]["type"] == tapio_type(dtype)
    assert info["attributes"]["big"] == {"type": "int64",
                                         "value": [9223372036854775807, -9223372036854775807]}


# --- dump -----------------------------------------------------------------------------------

def test_dump_whole_record_var(sample):
    _, path = sample
    out = dump_text(path, "temp")
    rows = parse_rows(out)
    assert row_labels(out) == [f"temp({s},{d},{y}, 0-3)" for s in range(2) for d in range(2)
                               for y in range(3)]
    assert rows[0][0] == "0.10000000000000001"  # %.17g
    assert np.array_equal(np.array(rows, dtype=float).reshape(TEMP.shape), TEMP)


def test_dump_box_one_step(sample):
    _, path = sample
    out = dump_text(path, "temp", "--step", 1, "--start", "1,0,1", "--count", "1,3,2")
    assert out == ("temp(1,1,0, 1-2) = 113, 114\ntemp(1,1,1, 1-2) = 117, 118\n"
                   "temp(1,1,2, 1-2) = 121, 122\n")
    # --start alone runs to the end of each dimension
    assert dump_text(path, "temp", "--step", 0, "--start", "1,2,1") == \
        "temp(0,1,2, 1-3) = 21, 22, 23\n"
    # one element a row: every index, as ncdump writes it
    assert dump_text(path, "temp", "--step", 1, "--start", "0,1,3", "--count", "2,1,1") == \
        "temp(1,0,1,3) = 107\ntemp(1,1,1,3) = 119\n"


def test_dump_json(sample):
    _, path = sample
    got = dump_json(path, "temp", "--start", "0,1,0", "--count", "2,2,4")
    assert got["type"] == "float64" and got["dimensions"] == ["depth", "lat", "lon"]
    assert got["shape"] == [2, 3, 4] and got["start"] == [0, 1, 0] and got["count"] == [2, 2, 4]
    assert [s["step"] for s in got["steps"]] == [0, 1]
    for s in got["steps"]:
        assert np.array_equal(np.array(s["values"]), TEMP[s["step"], :, 1:3, :])
    one = dump_json(path, "temp", "--step", 1, "--start", "1,2,3", "--count", "1,1,1")
    assert one["steps"] == [{"step": 1, "values": [[[123.25]]]}]
    assert dump_json(path, "lat")["values"] == [float(x) for x in
                                                ("-45.5", "0.100000001", "1.00000001e-07")]
    assert dump_json(path, "scalar")["values"] == 42
    assert dump_json(path, "t")["steps"] == [{"step": 0, "values": 1.5},
                                             {"step": 1, "values": 2.5}]
    empty = dump_json(path, "temp", "--step", 0, "--start", "0,0,0", "--count", "2,0,4")
    assert empty["steps"][0]["values"] == [[], []]


def test_dump_numbers_full_precision(sample):
    _, path = sample
    assert parse_rows(dump_text(path, "lat")) == [["-45.5", "0.100000001", "1.00000001e-07"]]
    assert np.array_equal(np.array(parse_rows(dump_text(path, "lat"))[0], dtype=np.float32), LAT)
    assert parse_rows(dump_text(path, "ids")) == [["-2147483646", "2147483647"]]
    assert parse_rows(dump_text(path, "sh")) == [["-32766", "0", "32767"]]
    assert parse_rows(dump_text(path, "b")) == [["-128", "-1", "0", "127"]]
    assert dump_text(path, "scalar") == "scalar = 42\n"
    assert dump_text(path, "t") == "t(0) = 1.5\nt(1) = 2.5\n"
    assert dump_text(path, "lat", "--start", "1") == "lat(1-2) = 0.100000001, 1.00000001e-07\n"


def test_dump_chars(sample):
    _, path = sample
    assert dump_text(path, "names") == 'names(0, 0-5) = "alpha"\nnames(1, 0-5) = "bet\\"a"\n'
    assert dump_json(path, "names")["values"] == ["alpha", 'bet"a']
    assert dump_text(path, "c") == 'c(0, 0-5) = "step0"\nc(1, 0-5) = "step1"\n'
    assert dump_text(path, "names", "--start", "1,1", "--count", "1,3") == \
        'names(1, 1-3) = "et\\""\n'
    assert dump_json(path, "c", "--step", 1)["steps"] == [{"step": 1, "values": "step1"}]
    assert dump_json(path, "names", "--start", "1,1", "--count", "1,3")["values"] == ['et"']


def ncdump_values(path, var):
    """Values of `var` from `ncdump -v var -p 9,17` (flattened, as strings)."""
    out = subprocess.run(["ncdump", "-p", "9,17", "-v", var, str(path)], capture_output=True,
                         text=True, check=True, timeout=TIMEOUT).stdout
    data = out.split("data:", 1)[1]
    body = re.search(rf"\b{re.escape(var)} =(.*?);", data, re.S).group(1)
    return [v.strip() for v in body.replace("\n", " ").split(",") if v.strip()]


def ncdump_row_labels(path, var):
    """The row annotations of `ncdump -b c -v var`: ["temp(0,0,0, 0-3)", ...]."""
    out = subprocess.run(["ncdump", "-b", "c", "-v", var, str(path)], capture_output=True,
                         text=True, check=True, timeout=TIMEOUT).stdout
    return re.findall(r"^ *// (.*)$", out.split("data:", 1)[1], re.M)


@pytest.mark.parametrize("var", ["temp", "names", "c"])
def test_dump_rows_carry_the_indices_ncdump_gives_them(files, var):
    ours = row_labels(dump_text(files[5], var))
    assert ours and ours == ncdump_row_labels(files[5], var)


@pytest.mark.parametrize("var", ["temp", "lat", "ids", "sh", "b"])
def test_dump_matches_ncdump(files, var):
    path = files[5]
    ours = [v for row in parse_rows(dump_text(path, var)) for v in row]
    theirs = ncdump_values(path, var)
    assert len(ours) == len(theirs)
    as_float = np.float32 if var == "lat" else float
    for a, b in zip(ours, theirs):
        assert as_float(a) == as_float(b.rstrip("f")), (a, b)


def test_dump_cdf5_types(cdf5_types):
    for name, (_, values) in CDF5_TYPES.items():
        assert parse_rows(dump_text(cdf5_types, name)) == [[str(v) for v in values]]
        assert dump_json(cdf5_types, name)["values"] == values
    assert parse_rows(dump_text(cdf5_types, "f")) == [["nan", "inf"]]
    assert parse_rows(dump_text(cdf5_types, "d")) == [["-inf", "1e-300"]]
    assert dump_json(cdf5_types, "f")["values"] == [None, None]  # JSON has no NaN/Inf


def test_dump_reads_one_run_at_a_time(files, tmp_path):
    """A box of 2 contiguous runs costs the header read plus 2 reads of the data."""
    if shutil.which("strace") is None:
        pytest.skip("strace not installed")
    path = files[5]
    log = tmp_path / "strace.log"
    proc = subprocess.run(["strace", "-f", "-y", "-e", "trace=pread64,read", "-o", str(log),
                           str(TAPIO), "dump", str(path), "temp", "--step", "1", "--start",
                           "0,1,0", "--count", "2,2,4"],
                          capture_output=True, text=True, timeout=TIMEOUT,
                          env=under_ptrace(os.environ))
    if proc.returncode != 0:
        pytest.skip(f"strace unusable here: {proc.stderr[-200:]}")
    reads = [line for line in log.read_text().splitlines() if f"<{path}>" in line]
    assert len(reads) == 3, reads
    assert all(line.endswith("= 64") for line in reads[1:]), reads  # 2 rows x 4 x 8 bytes


def test_streaming_numrecs(files, tmp_path):
    """numrecs = STREAMING (all ones): the records are counted from the file size."""
    for kind, width in ((1, 4), (5, 8)):
        data = bytearray(files[kind].read_bytes())
        data[4:4 + width] = b"\xff" * width
        path = tmp_path / f"streaming{kind}.nc"
        path.write_bytes(bytes(data))
        info = ls_json(path)
        assert info["numrecs"] == 2 and info["variables"]["temp"]["shape"] == [2, 2, 3, 4]
        assert dump_text(path, "t") == "t(0) = 1.5\nt(1) = 2.5\n"


def test_no_variables(tmp_path):
    path = ncgen(1, "netcdf e {\n}\n", tmp_path / "e.nc")
    info = ls_json(path)
    assert (info["dimensions"], info["attributes"], info["variables"]) == ({}, {}, {})
    assert tapio("ls", path).stdout.splitlines()[1] == "format: CDF-1 (classic)"
    fails("dump", path, "x", contains=["no variable 'x'", "no variables"])


# --- the E3SM-IO decomposition map (written by PnetCDF) -------------------------------------

def ncdump_header_vars(path):
    """{name: [dim names]} and {dim: length} from `ncdump -h`."""
    out = subprocess.run(["ncdump", "-h", str(path)], capture_output=True, text=True,
                         check=True, timeout=TIMEOUT).stdout
    dims = {m[0]: int(m[1]) for m in re.findall(r"^\t(\S+) = (\d+) ;$", out, re.M)}
    decl = re.findall(r"^\t(?:int|float|double|char|short|byte|int64) (\S+)\(([^)]*)\) ;$",
                      out, re.M)
    return {name: [d.strip() for d in ds.split(",")] for name, ds in decl}, dims


@pytest.mark.skipif(not E3SM_MAP.exists(), reason="E3SM-IO map not available")
def test_e3sm_map_ls():
    info = compare_with_netcdf4(E3SM_MAP)
    assert info["format"] == "CDF-5"
    vars_, dims = ncdump_header_vars(E3SM_MAP)
    assert "D1.nreqs" in vars_ and len(vars_) == len(info["variables"])
    for name, dim_names in vars_.items():
        var = info["variables"][name]
        assert var["type"] == "int32"
        assert var["dimensions"] == dim_names
        assert var["shape"] == [dims[d] for d in dim_names]
    assert info["variables"]["D1.lengths"]["attributes"]["max"] == {"type": "int32",
                                                                    "value": [36]}
    text = tapio("ls", E3SM_MAP).stdout
    assert re.search(r"^  int32 +D1\.nreqs +\[decomp_nprocs=16\]$", text, re.M)
    assert re.search(r"^  int32 +D3\.offsets +\[D3\.total_nreqs=62352\]$", text, re.M)


@pytest.mark.skipif(not E3SM_MAP.exists(), reason="E3SM-IO map not available")
def test_e3sm_map_dump_matches_netcdf4():
    with netCDF4.Dataset(E3SM_MAP) as ds:
        nreqs = ds["D1.nreqs"][:].tolist()
        offsets = ds["D3.offsets"][1000:1500].tolist()
        raw = ds["D2.raw_offsets"][:].tolist()
    assert dump_json(E3SM_MAP, "D1.nreqs")["values"] == nreqs
    got = dump_json(E3SM_MAP, "D3.offsets", "--start", 1000, "--count", 500)
    assert got["values"] == offsets
    rows = parse_rows(dump_text(E3SM_MAP, "D2.raw_offsets"))
    assert [int(v) for v in rows[0]] == raw


# --- bad inputs -----------------------------------------------------------------------------

def test_missing_file(tmp_path):
    fails("ls", tmp_path / "nope.nc", contains=["nope.nc", "No such file"])
    fails("dump", tmp_path / "nope.nc", "x", contains=["nope.nc"])


def test_not_netcdf(tmp_path):
    fails("ls", "/bin/ls", contains=["'/bin/ls'", "not a NetCDF file"])
    empty = tmp_path / "empty.nc"
    empty.write_bytes(b"")
    fails("ls", empty, contains=["empty.nc", "not a NetCDF file", "empty"])
    short = tmp_path / "short.nc"
    short.write_bytes(b"CD")
    fails("ls", short, contains=["short.nc", "not a NetCDF file"])
    text = tmp_path / "text.nc"
    text.write_text("netcdf x { }\n")
    fails("dump", text, "x", contains=["text.nc", "not a NetCDF file"])
    fails("ls", tmp_path, contains=["is a directory"])


def test_truncated_header(files, tmp_path):
    data = files[2].read_bytes()
    cut = tmp_path / "cut.nc"
    cut.write_bytes(data[:100])
    fails("ls", cut, contains=["cut.nc", "truncated"])
    fails("dump", cut, "temp", contains=["cut.nc", "truncated"])


def test_truncated_data(files, tmp_path):
    """The header is whole but the data is not: ls warns, dump fails before printing."""
    path = files[1]
    cut = tmp_path / "cut.nc"
    cut.write_bytes(path.read_bytes()[:path.stat().st_size - 40])
    proc = tapio("ls", "--json", cut)
    assert json.loads(proc.stdout)["truncated"] is True
    assert "warning" in proc.stderr and "cut.nc" in proc.stderr and "truncated" in proc.stderr
    fails("dump", cut, "temp", contains=["cut.nc", "'temp'", "truncated", "step 1"])
    assert parse_rows(dump_text(cut, "temp", "--step", 0))[0][0] == "0.10000000000000001"


def test_no_records_is_not_truncated(tmp_path):
    """Record variables of a file with 0 records occupy no bytes: the second one begins past the
    end of the file, and the file is whole."""
    cdl = ("netcdf z {\ndimensions:\n  time = UNLIMITED ;\n  n = 100 ;\nvariables:\n"
           "  double a(time, n) ;\n  double temp(time, n) ;\n}\n")
    path = ncgen(5, cdl, tmp_path / "z.nc")
    proc = tapio("ls", "--json", path)
    assert proc.stderr == ""
    info = json.loads(proc.stdout)
    assert info["numrecs"] == 0 and info["truncated"] is False
    assert info["variables"]["temp"]["begin"] > path.stat().st_size
    assert tapio("ls", path).stderr == ""
    assert dump_text(path, "temp") == ""


def test_unknown_variable_suggests(files):
    err = fails("dump", files[1], "tmep", contains=["'tmep'", "did you mean 'temp'?"])
    assert str(files[1]) in err
    fails("dump", E3SM_MAP, "d1.NREQS", contains=["did you mean 'D1.nreqs'?"])


def test_step_errors(files):
    path = files[5]
    fails("dump", path, "temp", "--step", 2, contains=["'temp'", "step 2 out of range", "0..1"])
    fails("dump", path, "temp", "--step", -1, contains=["--step", "'-1'"])
    fails("dump", path, "temp", "--step", "x", contains=["--step", "'x'"])
    fails("dump", path, "lat", "--step", 0, contains=["'lat'", "record variables only"])


def test_box_errors(files):
    path = files[5]
    fails("dump", path, "temp", "--start", "0,0", contains=[
        "'temp'", "--start has 2 entries, expected 3 (depth, lat, lon)", "--step"])
    fails("dump", path, "temp", "--count", "1,1,1,1", contains=["--count has 4 entries"])
    fails("dump", path, "scalar", "--start", "0", contains=["expected none"])
    fails("dump", path, "temp", "--start", "0,3,0",
          contains=["start 3 is outside dimension 'lat' of length 3"])
    fails("dump", path, "temp", "--start", "0,1,0", "--count", "1,3,1",
          contains=["start 1 + count 3 is outside dimension 'lat' of length 3"])
    fails("dump", path, "temp", "--start", "0,a,0", contains=["'temp'", "--start", "'a'"])


def test_garbage_never_crashes(files, tmp_path):
    """Mutated and truncated copies of real files: exit 0 or 1, never a signal or a hang."""
    rng = random.Random(1234)
    sources = [files[k].read_bytes() for k in (1, 2, 5)] + [E3SM_MAP.read_bytes()[:8192]]
    path = tmp_path / "garbage.nc"
    for i in range(60):
        data = bytearray(rng.choice(sources))
        if i % 3 == 0:
            data = data[:rng.randrange(len(data))]
        else:
            for _ in range(rng.randint(1, 6)):
                data[rng.randrange(min(len(data), 700))] = rng.randrange(256)
        path.write_bytes(bytes(data))
        for args in (["ls", path], ["ls", "--json", path], ["dump", path, "temp"],
                     ["dump", "--json", path, "names"]):
            proc = tapio(*args, check=False)
            assert proc.returncode in (0, 1), (args, proc.returncode, proc.stderr, bytes(data))
            if proc.returncode == 1:
                assert proc.stderr.startswith("tapio: ") and "internal error" not in proc.stderr
