"""tapio's PIO-compatible C layer (libtapio_pio, docs/pio.md) read by independent readers.

tests/pio/pio_history.c writes a CESM-style history file through <pio.h> (a round-robin
decomposition with land cells as holes, a user-named unlimited dimension, a variable
converted from double memory to float, a coordinate written with put_vara, a fixed variable written after a read made every frame
go to disk) and reads it back itself; here netCDF4-python compares every value with what the program wrote, computed anew,
and ncdump names the format the mode flags asked for.
"""
import json
import subprocess

import numpy as np
import pytest

from conftest import BUILD, MPI_ENV, SHARED, mpiexec, mpirun

netCDF4 = pytest.importorskip("netCDF4")

HISTORY = BUILD / "tests" / "pio" / "pio_history"
NLAT, NLON, FRAMES = 6, 8, 3
KINDS = {1: "classic", 2: "64-bit offset", 5: "cdf5"}


def expected(frame):
    """The program's values: 100 f + c + 0.5 at cell c; land cells are holes."""
    cells = np.arange(NLAT * NLON)
    land = (cells // NLON + cells % NLON) % 5 == 0
    return (100.0 * frame + cells + 0.5).reshape(NLAT, NLON), land.reshape(NLAT, NLON)


@pytest.mark.parametrize("fmt", [1, 2, 5])
def test_history_file_holds_what_the_pio_program_wrote(tmp_path, fmt):
    path = tmp_path / f"history_cdf{fmt}.nc"
    out = mpirun(4, HISTORY, path, fmt, timeout=120)
    assert "pio_history OK" in out
    kind = subprocess.run(["ncdump", "-k", path], capture_output=True, text=True, check=True)
    assert kind.stdout.strip() == KINDS[fmt]
    with netCDF4.Dataset(path) as ds:
        assert list(ds.dimensions) == ["ocean_time", "lat", "lon"]
        assert ds.dimensions["ocean_time"].isunlimited()
        assert len(ds.dimensions["ocean_time"]) == FRAMES
        assert ds.title == "pio_history"
        assert ds.history == "late"  # added by PIOc_redef once every frame was on disk
        assert ds["temp"].units == "degC"
        np.testing.assert_array_equal(ds["lat"][:], -75.0 + 30.0 * np.arange(NLAT))
        # Written after every frame was on disk: in place, adding no frame.
        np.testing.assert_array_equal(ds["area"][:].ravel(), 1.0 + np.arange(NLAT * NLON) / 4.0)
        for var in ("temp", "salt", "mask"):
            ds[var].set_auto_mask(False)
        for f in range(FRAMES):
            values, land = expected(f)
            temp, salt, mask = ds["temp"][f], ds["salt"][f], ds["mask"][f]
            assert temp.dtype == np.float32 and salt.dtype == np.float32
            np.testing.assert_array_equal(temp[~land], values[~land].astype(np.float32))
            np.testing.assert_array_equal(salt[~land], (values[~land] / 4).astype(np.float32))
            cells = np.arange(NLAT * NLON).reshape(NLAT, NLON)
            np.testing.assert_array_equal(mask[~land], f * 1000 + cells[~land])
            # Holes read as the variable's _FillValue, or the type's default without one.
            assert (temp[land] == np.float32(-1.0e30)).all()
            assert (salt[land] == np.float32(netCDF4.default_fillvals["f4"])).all()
            assert (mask[land] == netCDF4.default_fillvals["i4"]).all()


def test_tapio_config_overrides_the_iotype(tmp_path):
    """A TAPIO_CONFIG rule still chooses the engine of a file the PIO layer opens: here the
    subfile engine (a dataset directory) for a PNETCDF iotype, read back by the program."""
    config = tmp_path / "tapio.toml"
    config.write_text('[[rule]]\npath = "*dataset*"\nengine = "subfile"\n')
    env = dict(MPI_ENV, TAPIO_CONFIG=str(config))
    path = tmp_path / "history_dataset"
    out = mpirun(2, HISTORY, path, 5, env=env, timeout=120)
    assert "pio_history OK" in out
    assert (path / "tapio.idx").exists()


def test_read_ahead_reads_variables_of_one_decomposition_together(tmp_path):
    """pio_history reads back each frame's temp and salt (one float decomposition), then mask
    (an int one): with the read-ahead the first read_darray of a frame reads temp and salt in
    one collective batch, so the read-only file's profile counts 2 batches per frame and rank,
    not 3; the program checks every value it reads."""
    ranks = 2
    profile = tmp_path / "profile.json"
    config = tmp_path / "tapio.toml"
    config.write_text(f'[[rule]]\nprofile = "{profile}"\n')  # the last file closed: the read
    out = mpirun(ranks, HISTORY, tmp_path / "history.nc", 5,
                 env=dict(MPI_ENV, TAPIO_CONFIG=str(config)), timeout=120)
    assert "pio_history OK" in out
    read = json.loads(profile.read_text())
    assert read["counters"]["batches"]["sum"] == ranks * FRAMES * 2


def test_read_ahead_reads_the_frames_after_a_sequential_one(tmp_path):
    """pio_errors reads its 3-frame file pio_errors_limit_refused.nc frame after frame (one
    variable) and checks every value: frame 0 alone, then frames 1 and 2 in one read ahead, so
    the reader's profile counts 2 batches per rank, not 3."""
    ranks = 2
    profile = tmp_path / "profile.json"
    config = tmp_path / "tapio.toml"
    config.write_text(f'[[rule]]\npath = "*limit_refused*"\nprofile = "{profile}"\n')
    out = mpirun(ranks, BUILD / "tests" / "pio" / "pio_errors", "return",
                 env=dict(MPI_ENV, TAPIO_CONFIG=str(config)), cwd=tmp_path, timeout=120)
    assert "pio_errors OK" in out
    read = json.loads(profile.read_text())  # the last engine closed on that path: the reader
    assert read["counters"]["batches"]["sum"] == ranks * 2


def test_scorpio_adios_iotype_writes_a_subfile_dataset(tmp_path):
    """SCORPIO's PIO_IOTYPE_ADIOS (5) goes to the subfile engine."""
    path = tmp_path / "history_adios"
    out = mpirun(2, HISTORY, path, 5, 5, timeout=120)
    assert "pio_history OK" in out
    assert (path / "tapio.idx").exists()


def test_internal_error_mode_prints_the_message_and_aborts(tmp_path):
    """PIO_INTERNAL_ERROR (PIO's default): the first bad call (an unknown iotype) prints what
    failed, naming the file, and ends the job with a failure, rather than returning."""
    proc = subprocess.run(mpiexec(2, BUILD / "tests" / "pio" / "pio_errors", "abort"),
                          capture_output=True, text=True, timeout=60, env=MPI_ENV, cwd=tmp_path)
    assert proc.returncode != 0
    assert "tapio PIO: PIOc_createfile: file 'pio_errors_bad.nc': unknown iotype 99" in proc.stderr
    assert "pio_errors OK" not in proc.stdout


def test_decomposition_text_files_in_pios_format(tmp_path):
    """PIOc_writemap writes PIO's text format (checked here line by line), PIOc_readmap gives
    every task its map back, and E3SM's 16-task piodecomp file is refused at 3 tasks."""
    path = tmp_path / "map.dat"
    e3sm = SHARED / "data" / "e3sm-io" / "piodecomp16tasks16io01dims_ioid_514.dat"
    args = [path, e3sm] if e3sm.exists() else [path]
    out = mpirun(3, BUILD / "tests" / "pio" / "pio_mapfile", *args, timeout=60)
    assert "pio_mapfile OK" in out
    lines = path.read_text().splitlines()
    assert lines[0].split() == ["version", "2001", "npes", "3", "ndims", "2"]
    assert lines[1].split() == ["3", "12"]
    for rank in range(3):
        maplen = 5 if rank % 2 else 3
        assert lines[2 + 2 * rank].split() == [str(rank), str(maplen)]
        want = [0 if i == 1 else rank * 5 + i + 1 for i in range(maplen)]
        assert [int(v) for v in lines[3 + 2 * rank].split()] == want
