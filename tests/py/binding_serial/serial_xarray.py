"""The xarray backend on one process (run by tests/py/test_xarray_backend.py with
TAPIO_XR_DATA naming what binding_mpi/write_blocks.py wrote on 4 ranks)."""
import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

DATA = Path(os.environ["TAPIO_XR_DATA"])
sys.path.insert(0, str(Path(__file__).parents[1] / "binding_mpi"))
from write_blocks import B, N, STEPS, values  # noqa: E402

BLOCK_BYTES = B * B * 8


def expected():
    return np.stack([values(s) for s in range(STEPS)])


@pytest.mark.parametrize("name", ["blocks", "blocks.nc"])
def test_open_dataset_returns_the_values_written(name):
    with xr.open_dataset(DATA / name, engine="tapio") as ds:
        assert ds.temp.dims == ("time", "y", "x")
        assert ds.temp.shape == (STEPS, N, N)
        assert ds.temp.attrs["units"] == "degC" and ds.attrs["title"] == "blocks"
        np.testing.assert_array_equal(ds.temp.values, expected())
        np.testing.assert_array_equal(ds.x.values, 0.5 * np.arange(N))
        np.testing.assert_array_equal(ds.temp[1, 3, 5:9].values, values(1)[3, 5:9])
        np.testing.assert_array_equal(ds.temp[:, ::5, -3].values, expected()[:, ::5, -3])


def test_the_netcdf_file_reads_as_netcdf4_reads_it():
    with xr.open_dataset(DATA / "blocks.nc", engine="tapio") as ours, \
         xr.open_dataset(DATA / "blocks.nc", engine="netcdf4") as theirs:
        xr.testing.assert_equal(ours.temp.drop_vars("x"), theirs.temp.drop_vars("x"))


def bytes_read(tmp_path, name, select):
    """POSIX_BYTES_READ of opening, select(ds) and closing. Without the coordinate x, which
    xarray would load at open as an index."""
    profile = tmp_path / f"{name}.json"
    with xr.open_dataset(DATA / "blocks", engine="tapio", drop_variables=["x"],
                         parameters={"profile": str(profile)}) as ds:
        got = select(ds)
    return json.loads(profile.read_text())["counters"]["POSIX_BYTES_READ"]["sum"], got


def test_selecting_one_block_reads_that_block_and_the_metadata(tmp_path):
    metadata = sum(p.stat().st_size for p in (DATA / "blocks").iterdir()
                   if p.name.startswith("tapio."))
    opened, _ = bytes_read(tmp_path, "open", lambda ds: None)
    one, got = bytes_read(tmp_path, "block", lambda ds: ds.temp[1, B:, :B].values)
    whole, _ = bytes_read(tmp_path, "whole", lambda ds: ds.temp.values)
    np.testing.assert_array_equal(got, values(1)[B:, :B])
    print(f"bytes read: open {opened}, one block {one}, everything {whole}; "
          f"block {BLOCK_BYTES}, metadata files {metadata}")
    assert opened <= metadata  # opening reads metadata only
    assert one - opened == BLOCK_BYTES  # exactly the block's bytes
    assert one <= BLOCK_BYTES + metadata
    assert whole - opened >= STEPS * 4 * BLOCK_BYTES


@pytest.mark.parametrize("name, rows", [("blocks", (B, B)), ("blocks.nc", (N,))])
def test_dask_chunks_follow_the_steps_and_the_blocks(name, rows):
    """The subfile dataset stores four 16 x 16 blocks per step; the NetCDF file one."""
    with xr.open_dataset(DATA / name, engine="tapio", chunks={}) as ds:
        assert ds.temp.chunks == ((1,) * STEPS, rows, rows)
        np.testing.assert_array_equal(ds.temp.mean("time").compute().values,
                                      expected().mean(axis=0))


def test_blocks_lists_what_each_writer_put():
    import tapio
    from mpi4py import MPI
    with tapio.open(DATA / "blocks", "r", comm=MPI.COMM_SELF) as f:
        quarters = [((j, i), (B, B)) for j in (0, B) for i in (0, B)]
        assert sorted(f.blocks("temp", 1)) == quarters
        assert f.blocks("x", 1) == [((0,), (N,))]  # fixed: whatever the step
        with pytest.raises(tapio.NotFoundError, match="step 2 requested but the file has 2"):
            f.blocks("temp", 2)
    with tapio.open(DATA / "blocks.nc", "r", comm=MPI.COMM_SELF) as f:
        assert f.blocks("temp", 0) == [((0, 0), (N, N))]


def test_offset_list_blocks_are_no_boxes_and_chunk_whole(tmp_path):
    import tapio
    from mpi4py import MPI
    path = tmp_path / "scattered"
    with tapio.open(path, "w", comm=MPI.COMM_SELF, engine="subfile") as f:
        f.define("v", (8,), np.float64, dims=("n",))
        with f.step():
            f.put("v", np.arange(4.0), offsets=np.array([0, 2, 4, 6], dtype=np.uint64))
    with tapio.open(path, "r", comm=MPI.COMM_SELF) as f:
        with pytest.raises(tapio.UnsupportedError, match="block 0 was written as an offset"):
            f.blocks("v", 0)
    with xr.open_dataset(path, engine="tapio", chunks={}) as ds:
        assert ds.v.chunks == ((1,), (8,))
        np.testing.assert_array_equal(ds.v.values[0, ::2], np.arange(4.0))


def test_the_backend_is_registered_and_guesses_datasets():
    from tapio.xarray_backend import TapioBackendEntrypoint
    assert "tapio" in xr.backends.list_engines()
    entry = TapioBackendEntrypoint()
    assert entry.guess_can_open(DATA / "blocks") and entry.guess_can_open(DATA / "blocks.nc")
    assert not entry.guess_can_open(DATA)


def test_a_header_whose_variables_overlap_is_refused(tmp_path):
    """blocks.nc with the fixed x's begin moved onto temp's first record (issue 29): x read
    temp's bytes; netCDF-C refuses such a file, and so does the backend, naming the file and
    the variables."""
    import tapio
    data = bytearray((DATA / "blocks.nc").read_bytes())
    be64 = lambda v: v.to_bytes(8, "big")  # noqa: E731
    at = data.index(b"\0\0\0\x06" + be64(N * N * 8)) + 12  # temp: NC_DOUBLE, vsize, begin
    temp_begin = int.from_bytes(data[at:at + 8], "big")
    x_begin_at = data.rindex(be64(1) + b"x\0\0\0") + 12 + 8 + 8 + 12 + 4 + 8  # x: no attributes
    data[x_begin_at:x_begin_at + 8] = be64(temp_begin)
    hostile = tmp_path / "hostile.nc"
    hostile.write_bytes(bytes(data))
    with pytest.raises(tapio.FormatError) as e:
        xr.open_dataset(hostile, engine="tapio")
    for words in ["hostile.nc", f"the record section begins at byte {temp_begin} (variable "
                  "'temp')", "fixed variable 'x'"]:
        assert words in str(e.value)
