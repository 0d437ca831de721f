"""A subfile dataset keeps the dimensions the program declared (format version 6): `tapio ls`
lists them in declaration order, the unused one included, and `tapio convert` writes them in
that order (read with netCDF4-python), as the NetCDF engines write them."""
import shutil
import subprocess
import sys

import netCDF4
import numpy as np

from conftest import BUILD, MPI_ENV, ROOT, mpirun

# Two ranks: rank 0 puts everything. An order no variable uses the dimensions in.
WRITE = """
import sys
import numpy as np
from mpi4py import MPI
import tapio
with tapio.open(sys.argv[1], "w", engine="subfile") as f:
    for name, length in [("x", 6), ("unused", 3), ("y", 2), ("t", 0)]:
        f.define_dimension(name, length)
    f.define("temp", (2, 6), np.float64, dims=("y", "x"))
    f.define("xc", (6,), np.float32, dims=("x",), fixed=True)
    for step in range(2):
        with f.step():
            if MPI.COMM_WORLD.rank == 0:
                f.put("temp", np.full((2, 6), 1.5 + step))
                if step == 0:
                    f.put("xc", np.arange(6, dtype=np.float32))
"""
DIMENSIONS = [("x", 6, False), ("unused", 3, False), ("y", 2, False), ("t", 2, True)]


def tapio(*args):
    proc = subprocess.run([BUILD / "tools" / "tapio", *map(str, args)], capture_output=True,
                          text=True, timeout=120, env=MPI_ENV)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_subfile_dataset_keeps_declared_dimensions_through_ls_and_convert(tmp_path,
                                                                           python_binding):
    dataset, out = tmp_path / "dims", tmp_path / "dims.nc"
    mpirun(2, sys.executable, "-c", WRITE, dataset)
    listing = tapio("ls", dataset)
    assert listing.split("dimensions:\n")[1].split("global")[0].split("variables")[0] == (
        "  x = 6\n  unused = 3\n  y = 2\n  t = UNLIMITED (2 currently)\n")
    tapio("convert", dataset, out)
    with netCDF4.Dataset(out) as nc:
        assert [(d.name, len(d), d.isunlimited()) for d in nc.dimensions.values()] == DIMENSIONS
        assert nc["temp"].dimensions == ("t", "y", "x")
        np.testing.assert_array_equal(nc["temp"][1], np.full((2, 6), 2.5))
        np.testing.assert_array_equal(nc["xc"][:], np.arange(6))


def index_version(dataset):
    return int.from_bytes((dataset / "tapio.idx").read_bytes()[8:12], "little")


def test_version_5_dataset_is_read_and_appended_to_as_version_5(tmp_path, python_binding):
    """tests/data/subfile_v5: the bands example written on 2 ranks by the tapio before declared
    dimensions (format version 5). This tapio's bands reads it on 3 ranks and checks every
    value; `tapio convert` numbers its dimensions by use; a step appended keeps the header at
    version 5 (no dimensions written, so a version-5 tapio still reads it)."""
    old = ROOT / "tests" / "data" / "subfile_v5"
    assert index_version(old) == 5
    mpirun(3, BUILD / "examples" / "bands", "read", old)
    tapio("convert", old, tmp_path / "v5.nc")
    with netCDF4.Dataset(tmp_path / "v5.nc") as ds:
        assert list(ds.dimensions)[0] == "time" and ds.dimensions["time"].isunlimited()
    copy = tmp_path / "v5"
    shutil.copytree(old, copy)
    with python_binding.open(str(copy), "a", engine="subfile") as f:
        assert f.dimensions == {}
        with f.step():
            pass
    assert index_version(copy) == 5
    with python_binding.open(str(copy), "r", engine="subfile") as f:
        assert f.nsteps == 4
