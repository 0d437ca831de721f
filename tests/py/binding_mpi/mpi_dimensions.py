"""Declared dimensions through the Python binding: the file numbers them in declaration order,
the unused one included (checked with netCDF4-python where the file is NetCDF), and reading or
appending gives them back in that order, from a NetCDF file and a subfile dataset alike."""
import numpy as np
import pytest

import tapio
from fixtures import comm, engine, shared_dir  # noqa: F401 (pytest fixtures)

DECLARED = {"x": 6, "unused": 3, "y": 2, "t": 0}  # an order no variable uses them in


def write(path, comm, engine, mode):
    with tapio.open(path, mode, comm=comm, engine=engine) as f:
        if mode == "w":  # appending: the file's definitions, opened with it
            for name, length in DECLARED.items():
                f.define_dimension(name, length)
            f.define("temp", (2, 6), np.float64, dims=("y", "x"))
        assert f.dimensions == DECLARED
        with f.step() as step:
            if comm.rank == 0:
                f.put("temp", np.full((2, 6), 1.5 + step))
        assert f.dimensions == DECLARED


def test_declared_dimensions_keep_their_order(shared_dir, comm, engine):
    path = f"{shared_dir}/dims.nc"
    write(path, comm, engine, "w")
    write(path, comm, engine, "a")
    with tapio.open(path, "r", comm=comm, engine=engine) as f:
        assert f.dimensions == DECLARED
        assert f.nsteps == 2
        np.testing.assert_array_equal(f.get("temp", step=1), np.full((2, 6), 2.5))
    if engine != "subfile" and comm.rank == 0:
        import netCDF4
        with netCDF4.Dataset(path) as nc:
            assert [(d.name, len(d), d.isunlimited()) for d in nc.dimensions.values()] == [
                ("x", 6, False), ("unused", 3, False), ("y", 2, False), ("t", 2, True)]
            assert nc["temp"].dimensions == ("t", "y", "x")
    comm.Barrier()


def test_a_second_unlimited_dimension_is_refused(shared_dir, comm):
    with tapio.open(f"{shared_dir}/two.nc", "w", comm=comm, engine="collective") as f:
        f.define_dimension("t", 0)
        with pytest.raises(tapio.ArgumentError, match="already has an unlimited dimension"):
            f.define_dimension("t2", 0)
        f.define("a", (1,), np.int32, dims=("one",))
        with f.step():
            if comm.rank == 0:
                f.put("a", np.array([7], dtype=np.int32))
