"""Round trips through the Python binding: blocks, offsets, fixed variables, step loops and
step ranges, attributes; every value read back is compared with what was written."""
import numpy as np
import pytest

import tapio
from fixtures import comm, engine, shared_dir  # noqa: F401 (pytest fixtures)

NY, NX, STEPS = 12, 10, 3


def expected(step):
    return 1000.0 * step + np.arange(NY * NX, dtype=np.float64).reshape(NY, NX)


def rows_of(comm, n):
    first = n * comm.rank // comm.size
    return first, n * (comm.rank + 1) // comm.size - first


def write_file(path, comm, engine):
    r0, nr = rows_of(comm, NY)
    cells = np.arange(NY * NX)[comm.rank::comm.size][::-1]  # irregular and unsorted
    with tapio.open(path, "w", comm=comm, engine=engine) as f:
        f.attrs["title"] = "py roundtrip"
        f.attrs["version"] = np.int32(3)
        f.attrs["range"] = np.array([-1.5, 2.5])
        f.define("t", (NY, NX), np.float64, dims=("y", "x"), attrs={"units": "K"})
        f.define("flat", (NY * NX,), np.int64, dims=("cell",))
        f.define("y", (NY,), np.float32, dims=("y",), fixed=True)
        for s in range(STEPS):
            with f.step() as step:
                assert step == s
                f.put("t", expected(s)[r0:r0 + nr], start=(r0, 0))
                f.put("flat", expected(s).ravel()[cells].astype(np.int64), offsets=cells)
                if s == 0 and comm.rank == 0:
                    f.put("y", np.arange(NY, dtype=np.float32) / 2)
        assert f.nsteps == STEPS


def test_write_then_read_step_by_step(shared_dir, comm, engine):
    path = f"{shared_dir}/rt.nc"
    write_file(path, comm, engine)
    c0, nc = rows_of(comm, NX)  # read by columns: another decomposition
    with tapio.open(path, "r", comm=comm, engine=engine) as f:
        assert f.engine == engine
        assert f.nsteps == STEPS
        assert f.attrs["title"] == "py roundtrip"
        assert f.attrs["version"] == 3 and f.attrs["version"].dtype == np.int32
        np.testing.assert_array_equal(f.attrs["range"], [-1.5, 2.5])
        assert dict(f["t"].attrs) == {"units": "K"}
        assert set(f.variables) == {"t", "flat", "y"}
        t = f["t"]
        assert (t.shape, t.dims, t.dtype, t.is_record) == ((NY, NX), ("y", "x"), np.float64, True)
        assert not f["y"].is_record
        seen = []
        for s in f.steps():
            seen.append(s)
            cols = f.get("t", start=(0, c0), count=(NY, nc))
            np.testing.assert_array_equal(cols, expected(s)[:, c0:c0 + nc])
            mine = np.arange(comm.rank, NY * NX, comm.size)
            np.testing.assert_array_equal(f.get("flat", offsets=mine), expected(s).ravel()[mine])
        assert seen == list(range(STEPS))


def test_read_ranges_of_steps_outside_a_loop(shared_dir, comm, engine):
    path = f"{shared_dir}/ranges.nc"
    write_file(path, comm, engine)
    with tapio.open(path, "r", comm=comm, engine=engine) as f:
        everything = f.get("t")
        assert everything.shape == (STEPS, NY, NX)
        np.testing.assert_array_equal(everything, np.stack([expected(s) for s in range(STEPS)]))
        two = f.get("t", start=(2, 3), count=(4, 5), steps=range(1, 3))
        np.testing.assert_array_equal(two, np.stack([expected(s)[2:6, 3:8] for s in (1, 2)]))
        one = f.get("t", step=2, start=(0, 0), count=(1, NX))
        np.testing.assert_array_equal(one, expected(2)[:1])
        np.testing.assert_array_equal(f.get("y"), np.arange(NY, dtype=np.float32) / 2)


def test_append_continues_the_steps(shared_dir, comm):
    path = f"{shared_dir}/append"
    write_file(path, comm, "subfile")
    r0, nr = rows_of(comm, NY)
    with tapio.open(path, "a", comm=comm) as f:
        with f.step() as s:
            assert s == STEPS
            f.put("t", expected(s)[r0:r0 + nr], start=(r0, 0))
    with tapio.open(path, "r", comm=comm) as f:
        assert f.nsteps == STEPS + 1
        np.testing.assert_array_equal(f.get("t", step=STEPS), expected(STEPS))


def test_get_into_out_fills_that_memory(shared_dir, comm, engine):
    path = f"{shared_dir}/out.nc"
    write_file(path, comm, engine)
    with tapio.open(path, "r", comm=comm, engine=engine) as f:
        out = np.zeros((NY, NX))
        got = f.get("t", step=1, out=out)
        assert got is out
        np.testing.assert_array_equal(out, expected(1))
        swapped = np.zeros((NY, NX), dtype=">f8")  # filled through one copy
        f.get("t", step=1, out=swapped)
        np.testing.assert_array_equal(swapped, expected(1))
        with pytest.raises(tapio.CopyRefusedError, match="native byte order"):
            f.get("t", step=1, out=swapped, allow_copy=False)


def test_a_rank_with_nothing_to_put_or_get(shared_dir, comm, engine):
    path = f"{shared_dir}/nothing.nc"
    with tapio.open(path, "w", comm=comm, engine=engine) as f:
        f.define("x", (4,), np.float64)
        with f.step():
            if comm.rank == 0:
                f.put("x", np.arange(4.0))
            else:
                f.put("x", np.empty(0), offsets=[])
    with tapio.open(path, "r", comm=comm, engine=engine) as f:
        mine = 4 if comm.rank == 0 else 0
        np.testing.assert_array_equal(f.get("x", count=(mine,), step=0), np.arange(4.0)[:mine])
        got = f.get("x", offsets=[3, 1] if comm.rank == 0 else [], step=0)
        np.testing.assert_array_equal(got, [3.0, 1.0] if comm.rank == 0 else [])
