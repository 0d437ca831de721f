"""Arrays of another numeric dtype than the variable's convert, as netCDF converts: float32 and
int32 puts to a float64 variable (read back by netCDF4-python where the file is NetCDF), gets
into an ``out`` of another dtype, and a value out of range raising RangeError on every rank."""
import numpy as np
import pytest

import tapio
from fixtures import comm, engine, shared_dir  # noqa: F401 (pytest fixtures)

N = 4  # elements per rank


def pieces(rank):
    """Rank's float32 and int32 blocks: fractions float32 rounds, integers past 2^24."""
    base = np.arange(N) + N * rank
    return (base * 1.5 - 3.1).astype(np.float32), ((base - 3) * 100001 - 7).astype(np.int32)


def test_float32_and_int32_puts_to_float64_read_back_exactly(shared_dir, comm, engine):
    path = f"{shared_dir}/convert.nc"
    a, b = pieces(comm.rank)
    with tapio.open(path, "w", comm=comm, engine=engine) as f:
        f.define("a", (N * comm.size,), np.float64, dims=("n",))
        f.define("b", (N * comm.size,), np.float64, dims=("n",))
        with f.step():
            f.put("a", a, start=(N * comm.rank,))
            f.put("b", b, start=(N * comm.rank,))
    want_a = np.concatenate([pieces(r)[0] for r in range(comm.size)]).astype(np.float64)
    want_b = np.concatenate([pieces(r)[1] for r in range(comm.size)]).astype(np.float64)
    with tapio.open(path, "r", comm=comm, engine=engine) as f:
        np.testing.assert_array_equal(f.get("a", step=0), want_a)
        np.testing.assert_array_equal(f.get("b", step=0), want_b)
    if engine != "subfile" and comm.rank == 0:
        import netCDF4
        with netCDF4.Dataset(path) as nc:
            assert nc["a"].dtype == np.float64 and nc["b"].dtype == np.float64
            np.testing.assert_array_equal(nc["a"][0, :], want_a)
            np.testing.assert_array_equal(nc["b"][0, :], want_b)
    comm.Barrier()


def test_get_into_an_out_of_another_dtype_converts(shared_dir, comm, engine):
    path = f"{shared_dir}/get_convert.nc"
    values = np.array([1.75, -2.5, 70000.25, 3e9])
    with tapio.open(path, "w", comm=comm, engine=engine) as f:
        f.define("x", (N * comm.size,), np.float64, dims=("n",))
        with f.step():
            f.put("x", values, start=(N * comm.rank,))
    with tapio.open(path, "r", comm=comm, engine=engine) as f:
        start = (N * comm.rank,)
        as_float = f.get("x", start, (N,), step=0, out=np.empty(N, np.float32))
        np.testing.assert_array_equal(as_float, values.astype(np.float32))
        as_int = f.get("x", start, (3,), step=0, out=np.empty(3, np.int32))
        np.testing.assert_array_equal(as_int, [1, -2, 70000])
        swapped = np.empty(3, ">i8")  # another byte order: converted, then copied
        f.get("x", start, (3,), step=0, out=swapped)
        np.testing.assert_array_equal(swapped, [1, -2, 70000])
        with pytest.raises(tapio.RangeError, match=r"variable 'x'.*element 3 \(float64 "
                           r"3000000000\) is out of the range of int32"):
            f.get("x", start, (N,), step=0, out=np.empty(N, np.int32))
        as_short = f.get("x", start, (2,), step=0, dtype=">i2")  # a new native int16 array
        assert as_short.dtype == np.int16
        np.testing.assert_array_equal(as_short, [1, -2])
        with pytest.raises(tapio.RangeError, match=r"element 2 \(float64 70000"):
            f.get("x", start, (3,), step=0, dtype=np.int16)
        with pytest.raises(tapio.ArgumentError, match="give dtype or out, not both"):
            f.get("x", start, (2,), step=0, dtype=np.int16, out=np.empty(2, np.int16))


def test_a_value_out_of_range_fails_the_step_on_every_rank(shared_dir, comm, engine):
    path = f"{shared_dir}/range.nc"
    bad = comm.size - 1
    with tapio.open(path, "w", comm=comm, engine=engine) as f:
        f.define("s", (N * comm.size,), np.int16, dims=("n",))
        with pytest.raises(tapio.RangeError, match="is not committed") as step_error:
            with f.step():
                data = np.array([1.0, 2.0, 3.0, 1e6 if comm.rank == bad else 4.0])
                if comm.rank == bad:
                    with pytest.raises(tapio.RangeError, match=rf"variable 's', rank {bad}: "
                                       r"element 3 \(float64 1000000\) is out of the range"):
                        f.put("s", data, start=(N * comm.rank,))
                else:
                    f.put("s", data, start=(N * comm.rank,))
        assert f"a put failed on rank {bad}" in str(step_error.value)
        with f.step():
            f.put("s", np.arange(N, dtype=np.int64), start=(N * comm.rank,))
    with tapio.open(path, "r", comm=comm, engine=engine) as f:
        assert f.nsteps == 1
        np.testing.assert_array_equal(f.get("s", step=0), np.tile(np.arange(N), comm.size))
