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


def test_chunks_follow_the_steps_with_dask():
    with xr.open_dataset(DATA / "blocks", engine="tapio", chunks={}) as ds:
        assert ds.temp.chunks == ((1,) * STEPS, (N,), (N,))
        np.testing.assert_array_equal(ds.temp.mean("time").compute().values,
                                      expected().mean(axis=0))


def test_the_backend_is_registered_and_guesses_datasets():
    from tapio.xarray_backend import TapioBackendEntrypoint
    assert "tapio" in xr.backends.list_engines()
    entry = TapioBackendEntrypoint()
    assert entry.guess_can_open(DATA / "blocks") and entry.guess_can_open(DATA / "blocks.nc")
    assert not entry.guess_can_open(DATA)
