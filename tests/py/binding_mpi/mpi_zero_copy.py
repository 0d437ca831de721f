"""Zero-copy puts and gets: tapio reads a C-contiguous native numpy array's own memory.

Two witnesses: tracemalloc (numpy reports its data allocations to it) sees no allocation of
the array's size while the put is queued and written, where a byte-swapped array's copy shows;
and the subfile engine's profile counts no byte copied in memory (its direct writes go from the
numpy buffer to the file), while it wrote the array's bytes."""
import json
import tracemalloc

import numpy as np
import pytest

import tapio
from fixtures import comm, shared_dir  # noqa: F401 (pytest fixtures)

N = 1 << 18  # 2 MiB of float64 per rank


def put_one_step(path, comm, array, profile=None):
    """Bytes newly allocated (peak, traced) while array is put and its step written."""
    params = {"profile": profile} if profile else None
    with tapio.open(path, "w", comm=comm, engine="subfile", parameters=params) as f:
        f.define("x", (N * comm.size,), np.float64)
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        with f.step():
            f.put("x", array, start=(N * comm.rank,))
        peak = tracemalloc.get_traced_memory()[1] - base
        tracemalloc.stop()
    return peak


def test_an_aligned_native_put_allocates_nothing_of_its_size(shared_dir, comm):
    a = np.arange(N, dtype=np.float64) + comm.rank * N
    profile = f"{shared_dir}/profile.json"
    peak = put_one_step(f"{shared_dir}/zc", comm, a, profile)
    assert peak < a.nbytes // 8, f"a put allocated {peak} bytes for a {a.nbytes}-byte array"
    if comm.rank == 0:
        counters = json.load(open(profile))["counters"]
        assert counters["bytes_copied"]["sum"] == 0
        assert counters["POSIX_BYTES_WRITTEN"]["sum"] >= a.nbytes * comm.size
    with tapio.open(f"{shared_dir}/zc", "r", comm=comm) as f:
        np.testing.assert_array_equal(f.get("x", step=0), np.arange(N * comm.size))


def test_a_byte_swapped_put_is_copied_once_and_reads_back(shared_dir, comm):
    a = (np.arange(N) + comm.rank * N).astype(">f8")
    peak = put_one_step(f"{shared_dir}/swapped", comm, a)
    assert a.nbytes <= peak < 2 * a.nbytes + (1 << 16)  # the one native copy, and only it
    with tapio.open(f"{shared_dir}/swapped", "r", comm=comm) as f:
        np.testing.assert_array_equal(f.get("x", step=0), np.arange(N * comm.size))


def test_a_get_reads_into_the_result_without_a_second_buffer(shared_dir, comm):
    a = np.arange(N, dtype=np.float64) + comm.rank * N
    put_one_step(f"{shared_dir}/get", comm, a)
    with tapio.open(f"{shared_dir}/get", "r", comm=comm) as f:
        out = np.empty(N)
        tracemalloc.start()
        got = f.get("x", start=(N * comm.rank,), count=(N,), step=0, out=out)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert got is out and peak < out.nbytes // 8
    np.testing.assert_array_equal(out, a)


def test_fortran_ordered_and_strided_arrays_are_copied_or_refused(shared_dir, comm):
    grid = np.arange(24.0).reshape(4, 6) + 100 * comm.rank
    with tapio.open(f"{shared_dir}/order.nc", "w", comm=comm) as f:
        f.define("g", (4 * comm.size, 6), np.float64)
        f.define("h", (4 * comm.size, 3), np.float64)
        # A refused copy is a refused put: its step fails on every rank, nothing committed.
        with pytest.raises(tapio.ArgumentError, match="step 0 is not committed"):
            with f.step():
                for bad in (np.asfortranarray(grid), grid[:, ::2]):
                    try:
                        f.put("g", bad, start=(4 * comm.rank, 0), allow_copy=False)
                    except tapio.CopyRefusedError as e:
                        assert "not C-contiguous" in str(e)
                    else:
                        raise AssertionError("a copy was not refused")
        with f.step():
            f.put("g", np.asfortranarray(grid), start=(4 * comm.rank, 0))
            f.put("h", grid[:, ::2], start=(4 * comm.rank, 0))
    with tapio.open(f"{shared_dir}/order.nc", "r", comm=comm) as f:
        want = np.concatenate([np.arange(24.0).reshape(4, 6) + 100 * r for r in range(comm.size)])
        np.testing.assert_array_equal(f.get("g", step=0), want)
        np.testing.assert_array_equal(f.get("h", step=0), want[:, ::2])
