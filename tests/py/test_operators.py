"""Per-variable operators of the subfile engine (docs/format.md, "Operators"): the LICOM-like
fields (operators/licom_fields.py) written on 4 ranks with zstd, shuffle+zstd and zfp, then
read by independent readers: `tapio convert` to NetCDF and netCDF4-python, compared with the
fields numpy computes. Lossless operators give the bytes back exactly, zfp stays within its
accuracy; `tapio ls` shows each variable's operator and ratio; bad operators fail on every
rank with a message naming the variable."""
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import BUILD, MPI_ENV, mpiexec, mpirun

netCDF4 = pytest.importorskip("netCDF4")

HERE = Path(__file__).parent / "operators"
sys.path.insert(0, str(HERE))
from licom_fields import STEPS, VARIABLES, field  # noqa: E402

TAPIO = BUILD / "tools" / "tapio"
RULES = "temp=zfp:accuracy=1e-3; ssh=zfp:rate=16; salt=zstd:level=3; *=shuffle+zstd"


def write(path, operator, engine="subfile", np_=4, check=True, env=MPI_ENV):
    cmd = mpiexec(np_, sys.executable, HERE / "operators_write.py", path, operator, engine)
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=240,
                          env=env)
    if check:
        assert proc.returncode == 0, f"{cmd}:\n{proc.stdout}\n{proc.stderr}"
    return proc


def tapio(*args):
    proc = subprocess.run([str(TAPIO), *map(str, args)], capture_output=True, text=True,
                          timeout=120, env=MPI_ENV)
    assert proc.returncode == 0, f"tapio {args}: {proc.stderr}"
    return proc.stdout


@pytest.fixture(scope="module")
def written(tmp_path_factory, python_binding):
    tmp = tmp_path_factory.mktemp("operators")
    path = tmp / "licom"
    write(path, RULES)
    tapio("convert", path, tmp / "licom.nc")
    return path, tmp / "licom.nc"


def test_lossless_operators_round_trip_bit_exact(written):
    _, nc = written
    with netCDF4.Dataset(nc) as ds:
        for name in ("salt", "mask"):
            v = ds[name]
            v.set_auto_mask(False)
            for s in range(STEPS):
                got, want = v[s], field(name, s)
                assert got.dtype == want.dtype
                assert got.tobytes() == want.tobytes(), (name, s)


def test_zfp_stays_within_its_accuracy(written):
    _, nc = written
    check_zfp(nc)


def check_zfp(nc):
    with netCDF4.Dataset(nc) as ds:
        temp = ds["temp"]
        assert temp.getncattr("tapio_operator") == "zfp:accuracy=0.001"
        assert temp.getncattr("tapio_error_bound") == pytest.approx(1e-3)
        worst = max(np.abs(temp[s] - field("temp", s)).max() for s in range(STEPS))
        assert 0 < worst <= 1e-3
        # Rate mode has no absolute bound: no attribute, but a 16-bit float32 field is close.
        ssh = ds["ssh"]
        assert ssh.getncattr("tapio_operator") == "zfp:rate=16"
        assert "tapio_error_bound" not in ssh.ncattrs()
        err = max(np.abs(ssh[s] - field("ssh", s)).max() for s in range(STEPS))
        assert 0 < err < 1e-2


def test_aggregated_rounds_carry_the_encoded_bytes(tmp_path, python_binding):
    # The ranks send their encoded blocks to the group's first rank, in 64 KiB rounds that cut
    # through blocks: what lands in the subfile is the same as each rank writing its own.
    config = tmp_path / "aggregate.toml"
    config.write_text('[[rule]]\nsubfile_write = "aggregate"\nbuffer_size = "64KiB"\n')
    path = tmp_path / "licom"
    write(path, RULES, env=dict(MPI_ENV, TAPIO_CONFIG=str(config)))
    tapio("convert", path, tmp_path / "licom.nc")
    with netCDF4.Dataset(tmp_path / "licom.nc") as ds:
        for s in range(STEPS):
            assert ds["salt"][s].tobytes() == field("salt", s).tobytes()
    check_zfp(tmp_path / "licom.nc")


def test_library_reads_other_decompositions_and_subranges(written, tmp_path):
    # 3 ranks read the 4 writers' coded blocks by columns and a sub-box: each decodes whole
    # blocks and selects (the binding's reads go through the C library).
    path, _ = written
    script = tmp_path / "read.py"
    script.write_text(f"""
import sys
sys.path.insert(0, {str(HERE)!r})
import numpy as np
from mpi4py import MPI
import tapio
from licom_fields import NX, field
comm = MPI.COMM_WORLD
i0, i1 = NX * comm.rank // comm.size, NX * (comm.rank + 1) // comm.size
with tapio.open({str(path)!r}, "r", comm=comm) as f:
    for s in range(3):
        salt = f.get("salt", step=s, start=(0, 0, i0), count=(20, 48, i1 - i0))
        assert salt.tobytes() == np.ascontiguousarray(field("salt", s)[..., i0:i1]).tobytes()
        temp = f.get("temp", step=s, start=(3, 10, i0), count=(2, 5, i1 - i0))
        assert np.abs(temp - field("temp", s)[3:5, 10:15, i0:i1]).max() <= 1e-3
print("read ok", comm.rank)
""")
    out = mpirun(3, sys.executable, script)
    assert out.count("read ok") == 3


def test_ls_shows_operator_and_ratio(written):
    path, _ = written
    info = json.loads(tapio("ls", "--json", path))
    for name in VARIABLES:
        v = info["variables"][name]
        assert v["ratio"] == pytest.approx(v["bytes"] / v["stored_bytes"])
        assert v["ratio"] > 1.2, (name, v["ratio"])
        assert "tapio_operator" in v["attributes"]
    assert info["variables"]["temp"]["ratio"] >= 2
    text = tapio("ls", path)
    assert "ratio " in text and "zfp:accuracy=0.001" in text
    # The data files hold what ls says (plus each rank's region padding to block_align).
    stored = sum(v["stored_bytes"] for v in info["variables"].values())
    on_disk = sum(f.stat().st_size for f in path.glob("data.*"))
    assert stored <= on_disk <= stored + 4 * STEPS * 4096


@pytest.mark.parametrize("operator, engine, message", [
    ("lz4", "subfile", "operator 'lz4': unknown operator (known: none, zstd, shuffle+zstd, zfp)"),
    ("salt=zstd:level=99", "subfile", "operator 'zstd:level=99': the level must be an integer"),
    ("zfp:accuracy=1e-3", "subfile", "variable 'mask' (int32): operator 'zfp:accuracy=0.001' "
                                     "compresses only float32 and float64"),
    ("zstd", "collective", "applies only to the subfile engine"),
])
def test_bad_operators_fail_on_every_rank(tmp_path, operator, engine, message):
    proc = write(tmp_path / "bad", operator, engine, np_=2, check=False)
    assert proc.returncode != 0
    # Each rank prints "rank R: message" (mpiexec may join the ranks' lines).
    said = dict(re.findall(r"rank (\d): (.*?)(?=rank \d: |\n|$)", proc.stdout))
    for rank in "01":
        assert message in said.get(rank, ""), proc.stdout
        assert said[rank].count(str(tmp_path / "bad")) == 1, said[rank]
