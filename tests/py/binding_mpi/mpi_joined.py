"""Joined arrays through the Python binding: each rank puts its own number of particles per
step (some none), as a subfile dataset and as the collective engine's NetCDF file, read back
whole, by block and by range; and the errors of bad counts and shapes. tests/py/test_joined.py converts such a dataset and reads it without tapio."""
import numpy as np
import pytest

import tapio
from fixtures import comm, shared_dir  # noqa: F401 (pytest fixtures)

STEPS = 3


def count_of(rank, step):
    return 0 if (rank + step) % 3 == 0 else 4 + 3 * rank + 5 * step


def positions(rank, step):
    n = count_of(rank, step)
    return (rank * 1000.0 + step * 1e5 + np.arange(3 * n, dtype=np.float64)).reshape(n, 3)


def write(path, comm, engine):
    with tapio.open(path, "w", comm=comm, engine=engine) as f:
        f.define("pos", (0, 3), np.float64, dims=("particle", "xyz"), joined=True)
        f.define("id", (0,), np.int64, dims=("particle",), joined=True)
        for s in range(STEPS):
            with f.step():
                mine = positions(comm.rank, s)
                f.put("pos", mine)
                f.put("id", comm.rank * 100000 + s * 100 + np.arange(len(mine), dtype=np.int64))


@pytest.mark.parametrize("engine", ["subfile", "collective"])
def test_round_trip(engine, comm, shared_dir):
    # subfile keeps each writer's block; the collective engine's NetCDF file one per step.
    path = f"{shared_dir}/particles" + (".nc" if engine == "collective" else "")
    write(path, comm, engine)
    with tapio.open(path, "r", comm=comm) as f:
        assert f["pos"].is_joined and f["id"].is_joined
        for s in f.steps():
            want = np.concatenate([positions(r, s) for r in range(comm.size)])
            assert f["pos"].shape == want.shape
            np.testing.assert_array_equal(f.get("pos"), want)
            # A writer's block, and a range, chosen per rank.
            blocks = [b for b in f.blocks("pos", s) if b[1][0] > 0]
            writers = [count_of(r, s) for r in range(comm.size) if count_of(r, s) > 0]
            if engine == "collective":
                writers = [sum(writers)] if writers else []
            assert [b[1][0] for b in blocks] == writers
            for start, count in blocks:
                block = f.get("pos", start, count)
                np.testing.assert_array_equal(block, want[start[0]:start[0] + count[0]])
            first = len(want) * comm.rank // comm.size
            last = len(want) * (comm.rank + 1) // comm.size
            got = f.get("pos", (first, 0), (last - first, 3))
            np.testing.assert_array_equal(got, want[first:last])
        # Outside the loop, one step at a time, any order.
        for s in reversed(range(STEPS)):
            want = np.concatenate([positions(r, s) for r in range(comm.size)])
            np.testing.assert_array_equal(f.get("pos", step=s), want)
        with pytest.raises(tapio.UnsupportedError, match="one step at a time"):
            f.get("pos")


def test_bad_counts_and_shapes(comm, shared_dir):
    with tapio.open(f"{shared_dir}/bad", "w", comm=comm, engine="subfile") as f:
        with pytest.raises(tapio.ShapeError, match=r"shape\[0\] = 0"):
            f.define("x", (5,), np.float64, joined=True)
        f.define("pos", (0, 3), np.float64, joined=True)
        assert f["pos"].dims[0] == "pos_sample"
        with pytest.raises(tapio.ArgumentError, match="negative"):
            tapio._tapio.var_set_joined_count(f["pos"]._handle, -3)
        with pytest.raises(tapio.ShapeError, match="step 0 is not committed"):
            with f.step():  # each refused put fails the step on every rank
                with pytest.raises(tapio.ShapeError, match="shape mismatch"):
                    f.put("pos", np.zeros((4, 2)))
                with pytest.raises(tapio.ArgumentError, match="placed by tapio"):
                    f.put("pos", np.zeros((4, 3)), start=(0, 0))
                f.put("pos", np.zeros((comm.rank, 3)))
        with f.step():
            f.put("pos", np.zeros((comm.rank, 3)))
    f = tapio.open(f"{shared_dir}/bad.nc", "w", comm=comm, engine="serial")
    f.define("pos", (0, 3), np.float64, joined=True)
    with pytest.raises(tapio.UnsupportedError, match="collective engine"):
        f.close()  # creates the file it was never stepped: the engine refuses the variable
