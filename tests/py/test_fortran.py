"""The Fortran module: the LICOM-like model (examples/licom_like.f90) writes with the
engine its config file names and a second run, on another process grid, reads it back; its
NetCDF file has the dimension order and values netCDF-Fortran gives the same arrays
(tests/fortran/nf_licom.f90), read by ncdump and netCDF4-python; bad input gives a status and
a message."""
import subprocess

import netCDF4
import numpy as np
import pytest

from conftest import BUILD, MPI_ENV, mpirun

STEPS = 2
VARIABLES = ["lon", "lat", "depth", "temp", "salt", "u", "v", "ssh"]


def exe(name, directory="examples"):
    path = BUILD / directory / name
    if not path.exists():
        pytest.fail(f"{path} was not built: install gfortran (and libnetcdff-dev), then "
                    "`make build`")
    return path


def licom(tmp_path, engine, path):
    """Write on 4 ranks (2 x 2) with the engine a config rule names; read on 2 (2 x 1)."""
    config = tmp_path / f"{engine}.toml"
    config.write_text(f'[[rule]]\nio = "licom_history"\nengine = "{engine}"\n')
    env = dict(MPI_ENV, TAPIO_CONFIG=str(config))
    out = mpirun(4, exe("licom_like"), "write", path, STEPS, env=env)
    assert "write ok on 2 x 2 ranks" in out, out
    out = mpirun(2, exe("licom_like"), "read", path, STEPS, env=env)
    assert "read ok on 2 x 1 ranks" in out and "WRONG" not in out, out


def test_licom_like_subfile_dataset(tmp_path):
    path = tmp_path / "licom"
    licom(tmp_path, "subfile", path)
    assert (path / "tapio.idx").exists()


@pytest.fixture(scope="module")
def licom_files(tmp_path_factory):
    """The model's NetCDF file (collective engine) and netCDF-Fortran's of the same arrays."""
    tmp = tmp_path_factory.mktemp("licom")
    ours, theirs = tmp / "licom.nc", tmp / "nf_licom.nc"
    licom(tmp, "collective", ours)
    subprocess.run([exe("nf_licom", "tests"), theirs, str(STEPS)], check=True, timeout=120)
    return ours, theirs


def test_ncdump_shows_the_netcdf_fortran_dimension_order(licom_files):
    ours, theirs = licom_files
    header = subprocess.run(["ncdump", "-h", ours], capture_output=True, text=True,
                            check=True).stdout
    for name in ("temp", "salt", "u", "v"):
        assert f"double {name}(time, depth, lat, lon) ;" in header
    assert "double ssh(time, lat, lon) ;" in header
    assert "lon = 36 ;" in header and "lat = 24 ;" in header and "depth = 10 ;" in header
    values = subprocess.run(["ncdump", "-v", "depth", ours], capture_output=True, text=True,
                            check=True).stdout
    assert "depth = 10, 40, 90, 160, 250, 360, 490, 640, 810, 1000 ;" in values


def test_netcdf4_reads_what_netcdf_fortran_writes(licom_files):
    ours, theirs = licom_files
    with netCDF4.Dataset(ours) as a, netCDF4.Dataset(theirs) as b:
        for name in VARIABLES:
            va, vb = a[name], b[name]
            assert va.dimensions == vb.dimensions, name
            assert va.shape == vb.shape, name
            x, y = va[:], vb[:]
            np.testing.assert_array_equal(np.ma.getmaskarray(x), np.ma.getmaskarray(y), name)
            np.testing.assert_array_equal(x.filled(0), y.filled(0), name)
        # A spot check of the order itself: temp(i=3, j=2, k=1) of step 1, 1-based Fortran.
        assert a["temp"][1, 0, 1, 2] == 1000 + 100 + 3 + 0.02 + 0.0001
        assert a["temp"][:].mask.sum() > 0  # land and the seabed are never written


@pytest.mark.parametrize("np", [1, 2, 4])
def test_bad_input_gives_a_status_and_a_message(tmp_path, np):
    out = mpirun(np, exe("errors_f", "tests"), tmp_path)
    assert "out of range: value out of range: tapio_put: file" in out, out
    assert "variable 'x', rank 0: element 2 (float64 10000000000) is out of the range of " \
           "int32" in out, out
    assert "shape mismatch: shape or selection error: tapio_put: shape mismatch: the array " \
           "has 8 elements, the selection 4" in out, out
    assert "strided section: invalid argument: tapio_put: the array is not contiguous" in out
    assert "end_step after a failed put: value out of range: tapio_end_step:" in out
    assert "closed file: invalid argument: tapio_begin_step: not a valid engine handle" in out
    assert "negative count: invalid argument: tapio_var_set_joined_count:" in out, out
    assert "joined count -2 is negative" in out, out
    assert "joined mismatch: shape or selection error: tapio_put: shape mismatch: the array " \
           "has 8 elements, the selection 6" in out, out
    assert "close particles: ok" in out, out
    # the last rank's box outside the shape fails the step on both ranks; the next commits
    assert "end after a box outside: shape or selection error: tapio_end_step:" in out, out
    assert f"step 0 is not committed: a put failed on rank {np - 1}:" in out, out
    assert "end boxes: ok" in out and "get box: ok" in out, out


def test_short_and_character_variables(tmp_path):
    """integer(2) and character arrays: written as netCDF-Fortran would (a CHAR variable's
    first Fortran dimension is the string length), read back by the module and netCDF4."""
    path = tmp_path / "kinds.nc"
    out = mpirun(2, exe("kinds_f", "tests"), path)
    assert "kinds ok" in out and "WRONG" not in out, out
    with netCDF4.Dataset(path) as nc:
        depth = nc["depth"]
        assert depth.dtype == np.int16 and depth.dimensions == ("time", "z")
        np.testing.assert_array_equal(
            depth[0], [-32000 + 1000 * r + i for r in range(2) for i in (1, 2, 3)])
        names = nc["names"]
        assert names.dtype == "S1" and names.dimensions == ("label", "nchar")
        rows = [b"".join(row).decode() for row in names[:].data]
        assert rows == ["a0   ", "bb0  ", "a1   ", "bb1  "]  # blank-padded, as Fortran keeps them


@pytest.mark.parametrize("name", ["dims.nc", "dims"])
def test_declared_dimensions_in_netcdf_fortran_order(tmp_path, name):
    """tapio_def_dim in a NetCDF file and a subfile dataset: read back by the module in
    declaration order (1-based ids); netCDF4-python sees the NetCDF file's header so."""
    path = tmp_path / name
    out = mpirun(2, exe("dims_f", "tests"), path)
    assert "dims ok" in out and "WRONG" not in out, out
    if name.endswith(".nc"):
        with netCDF4.Dataset(path) as nc:
            assert [(d.name, len(d), d.isunlimited()) for d in nc.dimensions.values()] == [
                ("x", 4, False), ("unused", 3, False), ("y", 2, False), ("t", 1, True)]
            assert nc["temp"].dimensions == ("t", "y", "x")


def test_other_kinds_convert_as_in_netcdf_fortran(tmp_path):
    """real(4) to a double variable, real(8) to an integer one; a value out of range fails the
    put, the step (on every rank) and a get; netCDF4-python reads the converted values."""
    out = mpirun(2, exe("convert_f", "tests"), tmp_path)
    assert "convert ok" in out and "WRONG" not in out, out
    assert "end 2 after a value out of range: value out of range: tapio_end_step: rank 1: " \
           "step 1 is not committed: a put failed on rank 1" in out, out
    assert "a stored value out of range: value out of range: tapio_perform_gets: rank 0: " in out
    assert "element 3 (float64 3000000000) is out of the range of int32" in out, out
    with netCDF4.Dataset(tmp_path / "convert.nc") as nc:
        assert nc["t"].dtype == np.float64 and nc["k"].dtype == np.int32
        assert nc["t"].shape == (1, 8)  # the failed step left nothing
        single = np.array([0.1, -2.5, 3.75, 3.0e9], np.float32)
        want = np.concatenate([single + np.float32(r) for r in range(2)]).astype(np.float64)
        np.testing.assert_array_equal(nc["t"][0], want)
        np.testing.assert_array_equal(nc["k"][0], [1, -1, 2147483647, -2147483648] * 2)


@pytest.mark.parametrize("np_", [1, 3])
def test_decomposition_made_once(tmp_path, np_):
    """A compdof made a decomposition once (tapio_init_decomp) and given to two variables
    (tapio_set_decomp, then freed): the module reads every value back, and netCDF4 sees each
    element at its compdof index (Fortran a(j, i) of a(7, 5) is the file's [i-1, j-1])."""
    path = tmp_path / "decomp.nc"
    out = mpirun(np_, exe("decomp_f", "tests"), path)
    assert "decomp ok" in out and "WRONG" not in out, out
    assert "set_decomp wide: shape or selection error" in out, out
    with netCDF4.Dataset(path) as nc:
        index = 1 + np.arange(35).reshape(5, 7)
        for s in range(2):
            np.testing.assert_array_equal(nc["u"][s], index + 100 * (s + 1))
            np.testing.assert_array_equal(nc["v"][s], -(index + 100 * (s + 1)))
