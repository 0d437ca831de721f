"""tapio's PIO-compatible C layer (libtapio_pio, docs/pio.md) read by independent readers.

tests/pio/pio_history.c writes a CESM-style history file through <pio.h> (a round-robin
decomposition with land cells as holes, a user-named unlimited dimension, a variable
converted from double memory to float, a coordinate written with put_vara, a fixed variable written after a read made every frame
go to disk) and reads it back itself; here netCDF4-python compares every value with what the program wrote, computed anew,
and ncdump names the format the mode flags asked for.
"""
import json
import os
import subprocess

import numpy as np
import pytest

from conftest import (BUILD, MPI_ENV, ROOT, SHARED, cmake_cache, mpiexec, mpirun,
                      skip_optional_peer)

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


@pytest.mark.parametrize("np_", [1, 3])
def test_dimension_ids_follow_definition_order_after_append(tmp_path, np_):
    """pio_dims defines lon, an unused dimension, lat, then the unlimited time, and uses them
    as temp(time, lat, lon): the file numbers them in definition order, keeps the unused one,
    and an append (a frame written after reopening) keeps all of it; the program checks the
    ids itself on reopen."""
    path = tmp_path / "dims.nc"
    out = mpirun(np_, BUILD / "tests" / "pio" / "pio_dims", path, timeout=60)
    assert "pio_dims OK" in out
    with netCDF4.Dataset(path) as ds:
        dims = [(name, len(d), d.isunlimited()) for name, d in ds.dimensions.items()]
        assert dims == [("lon", 4, False), ("unused", 3, False), ("lat", 2, False),
                        ("time", 2, True)]
        assert ds["temp"].dimensions == ("time", "lat", "lon")
        np.testing.assert_array_equal(ds["lon"][:], 90.0 * np.arange(4))
        cells = np.arange(8, dtype=np.float32).reshape(2, 4)
        for frame in range(2):
            np.testing.assert_array_equal(ds["temp"][frame], 10 * frame + cells)
    header = subprocess.run(["ncdump", "-h", path], capture_output=True, text=True,
                            check=True).stdout
    dims_section = header.split("dimensions:")[1].split("variables:")[0].split()
    assert dims_section == ["lon", "=", "4", ";", "unused", "=", "3", ";", "lat", "=", "2", ";",
                            "time", "=", "UNLIMITED", ";", "//", "(2", "currently)"]


NC_DECOMP = BUILD / "tests" / "pio" / "pio_nc_decomp"
PIO_PREFIX = (os.environ.get("PIO_HOME")
              or os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")),
                              "tapio", "pio-2.7.0")) + "/install"


def nc_decomp_contents(path):
    """A decomposition file's attributes (PIO's backtrace left out: it names the program's
    addresses), dimensions and variables."""
    with netCDF4.Dataset(path) as ds:
        atts = {a: ds.getncattr(a) for a in ds.ncattrs() if a != "backtrace"}
        atts = {a: v.rstrip("\x00") if isinstance(v, str) else v.tolist()
                for a, v in atts.items()}
        dims = [(name, len(d)) for name, d in ds.dimensions.items()]
        for v in ds.variables.values():
            v.set_auto_mask(False)
        variables = {name: (v.dimensions, v.dtype.str, v[:].tolist())
                     for name, v in ds.variables.items()}
    return atts, dims, variables


def test_nc_decomposition_file_in_pios_format(tmp_path):
    """PIOc_write_nc_decomp at 3 tasks: PIO's attributes, dimensions and variables, task 0's
    descending map sorted as PIO keeps it, task 1's hole as -1, rows padded with NC_FILL_INT;
    PIOc_read_nc_decomp gives the decomposition back (checked by the program)."""
    out = mpirun(3, NC_DECOMP, tmp_path / "decomp.nc", tmp_path / "data.nc", timeout=60)
    assert "pio_nc_decomp OK" in out
    atts, dims, variables = nc_decomp_contents(tmp_path / "decomp.nc")
    assert atts == {"PIO_library_version": "2.7.0", "max_maplen": 5,
                    "title": "decomp title", "history": "decomp history",
                    "source": "Decomposition file produced by PIO library.",
                    "array_order": "C"}
    assert dims == [("dims", 2), ("task", 3), ("map_element", 5)]
    fill = netCDF4.default_fillvals["i4"]
    assert variables == {
        "global_size": (("dims",), "<i4", [3, 4]),
        "maplen": (("task",), "<i4", [4, 5, 4]),
        "map": (("task", "map_element"), "<i4",
                [[0, 3, 6, 9, fill], [1, -1, 4, 7, 10], [2, 5, 8, 11, fill]]),
    }


def test_nc_decomposition_file_same_as_real_pio(tmp_path):
    """The same program built with the real PIO 2.7.0 writes the same file (an optional peer:
    scripts/install_pio.sh)."""
    program = real_pio_program("pio_nc_decomp", tmp_path)
    assert "pio_nc_decomp OK" in mpirun(3, program, tmp_path / "real.nc", tmp_path / "d1.nc",
                                        timeout=60)
    assert "pio_nc_decomp OK" in mpirun(3, NC_DECOMP, tmp_path / "ours.nc", tmp_path / "d2.nc",
                                        timeout=60)
    assert nc_decomp_contents(tmp_path / "ours.nc") == nc_decomp_contents(tmp_path / "real.nc")


@pytest.mark.parametrize("np_", [1, 2])
def test_strided_puts_and_gets(tmp_path, np_):
    """pio_strides writes every second row and column of `grid` and every second frame and
    column of `series` with put_vars (the first task's data, as in PIO), reads them back
    strided and whole, and gets PIO_ESTRIDE and PIO_EEDGE for the strides netCDF refuses;
    here netCDF4-python reads the file."""
    path = tmp_path / "strides.nc"
    assert "pio_strides OK" in mpirun(np_, BUILD / "tests" / "pio" / "pio_strides", path,
                                      timeout=60)
    fill = netCDF4.default_fillvals["i4"]
    y, x = np.meshgrid(np.arange(4), np.arange(6), indexing="ij")
    with netCDF4.Dataset(path) as ds:
        ds.set_auto_mask(False)
        want = np.where((y % 2 == 0) & (x % 2 == 1), 10 * y + x, fill)
        np.testing.assert_array_equal(ds["grid"][:], want)
        assert len(ds.dimensions["time"]) == 3
        f, x = np.meshgrid(np.arange(3), np.arange(6), indexing="ij")
        want = np.where((f % 2 == 0) & (x % 2 == 0), 10 * f + x, fill)
        np.testing.assert_array_equal(ds["series"][:], want)


def real_pio_program(source, tmp_path):
    """A C program of tests/pio built with the real PIO 2.7.0 (an optional peer:
    scripts/install_pio.sh)."""
    if not os.path.exists(f"{PIO_PREFIX}/lib/libpioc.a"):
        skip_optional_peer(f"the real PIO 2.7.0 (scripts/install_pio.sh) is not in {PIO_PREFIX}")
    program = tmp_path / f"{source}_real"
    cc = cmake_cache("MPI_C_COMPILER") or "mpicc.openmpi"
    subprocess.run([cc, "-o", program, ROOT / "tests" / "pio" / f"{source}.c",
                    f"-I{PIO_PREFIX}/include", f"{PIO_PREFIX}/lib/libpioc.a",
                    f"{PIO_PREFIX}/lib/libgptl.a", "-lpnetcdf", "-lnetcdf", "-lm"],
                   check=True, timeout=300)
    return program


def fill_file_values(path):
    with netCDF4.Dataset(path) as ds:
        ds.set_auto_mask(False)
        return {name: ds[name][:] for name in ("a", "b", "c")}


@pytest.mark.parametrize("fill", [0, 1])
def test_fill_modes(tmp_path, fill):
    """pio_fill at 3 tasks: decomposition holes (cells 3 and 8) read as the fill value in both
    modes, as PIO fills them; what nobody wrote (frame 1 of a, all of b, the end of c) is
    zeros with NC_NOFILL (left unwritten) and fill values with NC_FILL."""
    path = tmp_path / "fill.nc"
    assert "pio_fill OK" in mpirun(3, BUILD / "tests" / "pio" / "pio_fill", path, fill,
                                   timeout=60)
    got = fill_file_values(path)
    int_fill, double_fill = netCDF4.default_fillvals["i4"], netCDF4.default_fillvals["f8"]
    cells = np.arange(12).reshape(2, 6)
    holes = (cells == 3) | (cells == 8)
    for frame in (0, 2):
        np.testing.assert_array_equal(got["a"][frame], np.where(holes, int_fill, 100 * frame + cells))
    unwritten_int = int_fill if fill else 0
    np.testing.assert_array_equal(got["a"][1], np.full((2, 6), unwritten_int))
    np.testing.assert_array_equal(got["b"], np.full((2, 6), unwritten_int))
    np.testing.assert_array_equal(got["c"], [0.5, 1.5, 2.5] + [double_fill if fill else 0.0] * 3)


@pytest.mark.parametrize("fill", [0, 1])
def test_fill_modes_same_as_real_pio(tmp_path, fill):
    """The same program built with the real PIO writes the same values, but for the frame no
    task wrote with NC_FILL: PIO's PnetCDF iotype fills no record it skips (zeros), tapio
    fills it as netCDF does (docs/pio.md)."""
    program = real_pio_program("pio_fill", tmp_path)
    assert "pio_fill OK" in mpirun(3, program, tmp_path / "real.nc", fill, timeout=60)
    assert "pio_fill OK" in mpirun(3, BUILD / "tests" / "pio" / "pio_fill", tmp_path / "ours.nc",
                                   fill, timeout=60)
    real, ours = fill_file_values(tmp_path / "real.nc"), fill_file_values(tmp_path / "ours.nc")
    if fill:
        real["a"], ours["a"] = real["a"][[0, 2]], ours["a"][[0, 2]]
    for name in real:
        np.testing.assert_array_equal(ours[name], real[name], name)


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


def test_io_tasks_read_as_they_write(tmp_path):
    """PIO's I/O tasks do its reads too: pio_history at 4 ranks asks for 2 (stride 2), and the
    read-only file's reads come from 2 ranks, tapio's aggregators (64-byte stripes cut its small
    file into domains for both)."""
    profile = tmp_path / "profile.json"
    config = tmp_path / "tapio.toml"
    config.write_text(f'[[rule]]\nprofile = "{profile}"\nstripe_size = 64\n')
    out = mpirun(4, HISTORY, tmp_path / "history.nc", 5,
                 env=dict(MPI_ENV, TAPIO_CONFIG=str(config)), timeout=120)
    assert "pio_history OK" in out
    read = json.loads(profile.read_text())  # the last file closed: the read
    reads = read["per_rank"]["counters"]["POSIX_READS"]
    assert sum(1 for n in reads if n > 0) == 2, reads


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


@pytest.mark.parametrize("np_", [1, 3])
def test_a_freed_decomposition_and_its_successor_place_every_value(tmp_path, np_):
    """pio_freed_map writes a record and a fixed variable through one map, frees it while its
    darrays are held, and writes a frame through a new map before the flush: netCDF4 sees
    every value at its cell and the fill in every hole."""
    path = tmp_path / "freed.nc"
    out = mpirun(np_, BUILD / "tests" / "pio" / "pio_freed_map", path, timeout=60)
    assert "pio_freed_map OK" in out
    cells = np.arange(4 * np_)
    fill = netCDF4.default_fillvals["i4"]
    with netCDF4.Dataset(path) as ds:
        ds.set_auto_mask(False)
        rec, fixed = ds["rec"][:], ds["fixed"][:]
    for frame in range(3):
        mapped = cells % 2 == (0 if frame < 2 else 1)
        np.testing.assert_array_equal(rec[frame], np.where(mapped, 1000 * frame + cells, fill))
    for level in range(2):
        np.testing.assert_array_equal(fixed[level],
                                      np.where(cells % 2 == 0, -(1000 * level + cells), fill))
