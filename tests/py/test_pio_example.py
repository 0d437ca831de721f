"""The same values as the real PIO (issue 25): the LICOM-like model written against `use pio`
(examples/pio/licom_pio.f90) and PIO's benchmark pioperformance, each built against tapio's
PIO layer and against the real PIO 2.7.0, write files that netCDF4-python finds equal, value
by value (holes included), in CDF-1, CDF-2 and CDF-5.

The model's files on tapio are also checked against the model's own values (computed here, as
examples/licom_grid.f90 does) at 1, 2 and 4 ranks, and once on the subfile engine (a
TAPIO_CONFIG rule; the datasets converted to NetCDF). The real PIO is an optional peer
(scripts/install_pio.sh, `make pio-real`): without it those comparisons skip. Dimensions are
compared by name: tapio numbers them in the order variables use them (issue 25, open)."""
import re
import subprocess

import netCDF4
import numpy as np
import pytest

from conftest import BUILD, MPI_ENV, ROOT, mpirun
from test_pio_fortran import (MODELS, Against, build_pioperformance,  # noqa: F401 (fixtures)
                              ours_on_tapio, pio_own_fortran, real_pio, same_values)

# licom_pio's grid and fill value; NFRAMES history frames, then the restarted run's one.
NLON, NLAT, NZ, NFRAMES, FILL = 36, 24, 10, 3, -1.0e34
NAMES = ("temp", "salt", "u", "v")
FORMATS = {"cdf1": ("netcdf", "box"), "cdf2": ("pnetcdf", "subset"), "cdf5": ("pnetcdf", "box")}


def kmt():
    """Ocean levels of each column, (lat, lon): licom_grid's kmt."""
    j, i = np.meshgrid(np.arange(1, NLAT + 1), np.arange(1, NLON + 1), indexing="ij")
    land = (((i >= 8) & (i <= 14) & (j >= 5) & (j <= 18)) |
            ((i >= 25) & (i <= 27) & (j >= 10) & (j <= 12)) | (j == NLAT))
    return np.where(land, 0, 1 + (3 * i + 5 * j) % NZ)


def fields(step):
    """{name: (expected values, land)} of step (0-based), in the file's (depth, lat, lon) order:
    licom_grid's value3 and ssh, summed in the same order so that they are the same doubles."""
    k, j, i = np.meshgrid(np.arange(1, NZ + 1), np.arange(1, NLAT + 1), np.arange(1, NLON + 1),
                          indexing="ij")
    land = k > kmt()
    out = {name: (1000.0 * v + 100.0 * step + i + 0.01 * j + 0.0001 * k, land)
           for v, name in enumerate(NAMES, 1)}
    out["ssh"] = (0.5 * step + 0.001 * i[0] - 0.002 * j[0], land[0])
    return out


def check_field(var, expected, land, frame=None):
    """A field (one frame of it in a history): the model's values, and _FillValue on land."""
    assert var._FillValue == FILL and var.dtype == np.float64
    var.set_auto_mask(False)
    got = var[:] if frame is None else var[frame]
    np.testing.assert_array_equal(got[~land], expected[~land], var.name)
    np.testing.assert_array_equal(got[land], FILL, var.name)


def check_licom_files(prefix, fmt):
    """The history's coordinates, kmt and frames (NFRAMES, then the restarted run's one), and
    the restart's state (the first run's last step)."""
    with netCDF4.Dataset(f"{prefix}.hist.nc") as ds:
        assert ds.data_model == MODELS[fmt]
        assert {n: len(d) for n, d in ds.dimensions.items()} == {
            "lon": NLON, "lat": NLAT, "depth": NZ, "time": NFRAMES + 1}
        assert ds.dimensions["time"].isunlimited()
        assert ds.title == "LICOM-like ocean history"
        np.testing.assert_array_equal(ds["lon"][:], 5.0 + 10.0 * np.arange(NLON))
        np.testing.assert_array_equal(ds["lat"][:], -57.5 + 5.0 * np.arange(NLAT))
        np.testing.assert_array_equal(ds["depth"][:], 10.0 * np.arange(1, NZ + 1) ** 2)
        np.testing.assert_array_equal(ds["time"][:], 30.0 * np.arange(1, NFRAMES + 2))
        assert ds["time"].units == "days since 0001-01-01 00:00:00"
        np.testing.assert_array_equal(ds["kmt"][:], kmt())
        assert ds["temp"].dimensions == ("time", "depth", "lat", "lon")
        assert ds["ssh"].dimensions == ("time", "lat", "lon")
        assert (ds["temp"].units, ds["salt"].long_name) == ("degC", "salinity")
        for step in range(NFRAMES + 1):
            for name, (expected, land) in fields(step).items():
                check_field(ds[name], expected, land, step)
    with netCDF4.Dataset(f"{prefix}.rest.nc") as ds:
        assert ds.data_model == MODELS[fmt] and ds.step == NFRAMES - 1
        assert "time" not in ds.dimensions and ds["temp"].dimensions == ("depth", "lat", "lon")
        for name, (expected, land) in fields(NFRAMES - 1).items():
            check_field(ds[name], expected, land)


def run_licom(program, np_, prefix, fmt, env=MPI_ENV):
    iotype, rearr = FORMATS[fmt]
    out = mpirun(np_, program, prefix, fmt, iotype, rearr, timeout=120, env=env)
    assert f"licom_pio ok on {np_} ranks" in out, out
    return prefix


def licom_on_tapio():
    program = BUILD / "examples" / "pio" / "licom_pio"
    if not program.exists():
        pytest.fail(f"{program} was not built (no tapio_pio_fortran in this tree?): `make build`")
    return program


@pytest.mark.parametrize("np_,fmt", [(1, "cdf1"), (2, "cdf2"), (4, "cdf5")])
def test_licom_pio_on_tapio(tmp_path, np_, fmt):
    check_licom_files(run_licom(licom_on_tapio(), np_, tmp_path / "licom", fmt), fmt)


def test_licom_pio_on_tapio_subfile_engine(tmp_path):
    """A TAPIO_CONFIG rule sends the model's files to the subfile engine; its restart is read
    back from the dataset, and both datasets, converted to NetCDF, hold the model's values."""
    config = tmp_path / "subfile.toml"
    config.write_text('[[rule]]\npath = "*.nc"\nengine = "subfile"\n')
    prefix = run_licom(licom_on_tapio(), 4, tmp_path / "licom", "cdf5",
                       env=dict(MPI_ENV, TAPIO_CONFIG=str(config)))
    for kind in ("hist", "rest"):
        assert (tmp_path / f"licom.{kind}.nc" / "tapio.idx").exists()
        mpirun(1, BUILD / "tools" / "tapio", "convert", f"{prefix}.{kind}.nc",
               tmp_path / f"converted.{kind}.nc")
    check_licom_files(tmp_path / "converted", "cdf5")


@pytest.fixture(scope="module")
def licom_on_real_pio(tmp_path_factory, pio_own_fortran):
    tmp = tmp_path_factory.mktemp("licom_real")
    return pio_own_fortran.build(tmp / "licom_pio", ROOT / "examples" / "licom_grid.f90",
                                 ROOT / "examples" / "pio" / "licom_pio.f90",
                                 flags=["-J", str(tmp)])


@pytest.mark.parametrize("fmt", ["cdf1", "cdf2", "cdf5"])
def test_licom_pio_same_values_as_real_pio(tmp_path, licom_on_real_pio, fmt):
    ours = run_licom(licom_on_tapio(), 4, tmp_path / "tapio", fmt)
    theirs = run_licom(licom_on_real_pio, 4, tmp_path / "pio", fmt)
    check_licom_files(ours, fmt)
    for kind in ("hist", "rest"):
        same_values(f"{ours}.{kind}.nc", f"{theirs}.{kind}.nc")


# pioperformance on a small 2-D decomposition of 4 tasks in PIO's text format, with holes: task
# t maps the 1-based offsets g = t + 1 (mod 4) of 10 x 6, but passes 0 for every g divisible
# by 7, which no task writes (the file's _FillValue there).
PIOPERF_DECOMP = "pioperf_holes.dat"
PIOPERF_NL = f"""&pioperf
decompfile = '{PIOPERF_DECOMP}'
pio_typenames = {{types}}
rearrangers = 1, 2
nframes = 2
nvars = 2
niotasks = 2
/
"""
# The format pioperformance asks for: CDF-5 with PnetCDF, CDF-1 with netCDF. CDF-2 comes from
# the same unmodified source preprocessed with PIO_64BIT_DATA standing for PIO_64BIT_OFFSET.
PIOPERF_FORMATS = {"cdf5": ("pnetcdf", 1, ()), "cdf1": ("netcdf", 2, ()),
                   "cdf2": ("pnetcdf", 1, ("-DPIO_64BIT_DATA=PIO_64BIT_OFFSET",))}


def write_decomp(path, ntasks=4, dims=(10, 6)):
    size = dims[0] * dims[1]
    lines = [f"version 2001 npes {ntasks} ndims {len(dims)}", " ".join(map(str, dims))]
    for task in range(ntasks):
        offsets = [0 if g % 7 == 0 else g for g in range(task + 1, size + 1, ntasks)]
        lines += [f"{task} {len(offsets)}", " ".join(map(str, offsets))]
    path.write_text("\n".join(lines) + "\n")
    return size


@pytest.fixture(scope="module")
def pioperf_on_real_pio(tmp_path_factory, pio_own_fortran):
    """{fmt's flags: pioperf} built as `make bench-pio` builds it against the real PIO: PIO's own
    Fortran library, GPTL's perf_mod, and PIO_set_hint with terminated strings
    (tests/pio_suite/pio_set_hint_fix.c, linked in with --wrap)."""
    tmp = tmp_path_factory.mktemp("pioperf_real")
    fix = tmp / "pio_set_hint_fix.o"
    subprocess.run(["cc", "-c", "-o", fix, ROOT / "tests" / "pio_suite" / "pio_set_hint_fix.c"],
                   check=True, timeout=120)
    against = Against("pio", pio_own_fortran.flags, [fix],
                      ["-Wl,--wrap=__piolib_mod_MOD_pio_set_hint", *pio_own_fortran.libs])
    return pioperf_builds(against, tmp, stub=False)


@pytest.fixture(scope="module")
def pioperf_on_tapio(tmp_path_factory, ours_on_tapio):
    return pioperf_builds(ours_on_tapio, tmp_path_factory.mktemp("pioperf_tapio"), stub=True)


def pioperf_builds(against, tmp, stub):
    builds = {}
    for _, _, flags in PIOPERF_FORMATS.values():
        if flags not in builds:
            folder = tmp / str(len(builds))
            folder.mkdir()
            builds[flags] = build_pioperformance(against, folder, flags=flags, stub=stub)
    return builds


def run_pioperf(program, run_dir, fmt):
    """pioperformance at 4 tasks, both rearrangers: the file each wrote (BOX, SUBSET)."""
    typename, iotype, _ = PIOPERF_FORMATS[fmt]
    run_dir.mkdir()
    size = write_decomp(run_dir / PIOPERF_DECOMP)
    (run_dir / "pioperf.nl").write_text(PIOPERF_NL.format(types=f"'{typename}'"))
    out = mpirun(4, program, timeout=120, cwd=run_dir)
    assert "mismatch" not in out and len(re.findall(r"RESULT: (?:write|read)", out)) == 4, out
    return [run_dir / f"pioperf.{rearr}-000002-{iotype}.nc" for rearr in (1, 2)], size


def check_pioperf_file(path, fmt, size):
    """vard0001 and vard0002 over 10 x 6, both frames: offset / 1e6 (single precision, as
    pioperformance computes it), and _FillValue where no task writes (every 7th offset)."""
    with netCDF4.Dataset(path) as ds:
        assert ds.data_model == MODELS[fmt]
        assert {n: len(d) for n, d in ds.dimensions.items()} == {
            "strlen": 13, "dim000001": 10, "dim000002": 6, "time": 2}
        g = np.arange(1, size + 1)
        expected = np.where(g % 7 == 0, netCDF4.default_fillvals["f8"],
                            (g.astype(np.float32) / np.float32(1000000.0)).astype(np.float64))
        for name in ("vard0001", "vard0002"):
            var = ds[name]
            var.set_auto_mask(False)
            assert var.dimensions == ("time", "dim000002", "dim000001")
            for frame in var[:]:
                np.testing.assert_array_equal(frame.ravel(), expected, name)


@pytest.mark.parametrize("fmt", ["cdf1", "cdf2", "cdf5"])
def test_pioperformance_same_values_as_real_pio(tmp_path, pioperf_on_real_pio, pioperf_on_tapio,
                                                fmt):
    flags = PIOPERF_FORMATS[fmt][2]
    ours, size = run_pioperf(pioperf_on_tapio[flags], tmp_path / "tapio", fmt)
    theirs, _ = run_pioperf(pioperf_on_real_pio[flags], tmp_path / "pio", fmt)
    for mine, real in zip(ours, theirs):
        check_pioperf_file(mine, fmt, size)
        # rundate: the time of the run (minutes), absent from the first file written.
        same_values(mine, real, values_differ=("rundate",))
