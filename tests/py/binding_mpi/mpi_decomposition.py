"""Decompositions through the Python binding: one map made once and given as offsets= to the
puts and gets of several variables over several steps, read back through it and as plain
offsets; what it refuses (another shape, another file's, a wrong array length)."""
import numpy as np
import pytest

import tapio
from fixtures import comm, engine, shared_dir  # noqa: F401 (pytest fixtures)

NY, NX, STEPS = 6, 35, 2


def cells_of(comm):
    rng = np.random.default_rng(5)
    return rng.permutation(NY * NX)[comm.rank::comm.size]  # scattered, unsorted


def value(var, step, cells):
    return 1000.0 * step + 100000.0 * var + cells


def test_one_map_for_many_puts_and_gets(shared_dir, comm, engine):
    path = f"{shared_dir}/decomp.nc"
    cells = cells_of(comm)
    with tapio.open(path, "w", comm=comm, engine=engine) as f:
        for v in range(3):
            f.define(f"v{v}", (NY, NX), np.float64, dims=("y", "x"))
        d = f.decomposition((NY, NX), cells)
        assert d.size == cells.size and d.shape == (NY, NX)
        for s in range(STEPS):
            with f.step():
                for v in range(3):
                    f.put(f"v{v}", value(v, s, cells), offsets=d)
    with tapio.open(path, "r", comm=comm, engine=engine) as f:
        d = f.decomposition((NY, NX), cells)
        for v in range(3):
            for s in range(STEPS):
                np.testing.assert_array_equal(f.get(f"v{v}", offsets=d, step=s),
                                              value(v, s, cells))
                np.testing.assert_array_equal(f.get(f"v{v}", offsets=cells, step=s),
                                              value(v, s, cells))


def test_refusals(shared_dir, comm, engine):
    cells = cells_of(comm)
    with tapio.open(f"{shared_dir}/other.nc", "w", comm=comm, engine=engine) as other, \
            tapio.open(f"{shared_dir}/refused.nc", "w", comm=comm, engine=engine) as f:
        f.define("wide", (NY, NX + 1), np.float64, dims=("y", "xw"))
        f.define("t", (NY, NX), np.float64, dims=("y", "x"))
        d = f.decomposition((NY, NX), cells)
        foreign = other.decomposition((NY, NX), cells)
        with pytest.raises(tapio.ShapeError, match="lies outside"):
            f.decomposition((NY, NX), [NY * NX])  # outside: refused when made
        with f.step():
            f.put("t", value(0, 0, cells), offsets=d)
        with pytest.raises(tapio.ShapeError, match=r"variable 'wide' has shape \[6, 36\]"):
            with f.step():
                f.put("wide", value(0, 1, cells), offsets=d)
        with pytest.raises(tapio.ArgumentError, match="another file"):
            with f.step():
                f.put("t", value(0, 1, cells), offsets=foreign)
        with pytest.raises(tapio.ShapeError, match="shape mismatch"):
            with f.step():
                f.put("t", value(0, 1, cells)[:-1] if cells.size else np.zeros(1), offsets=d)
        assert f.nsteps == 1
