"""PIO's Fortran interface (`use pio`, fortran/pio): programs written for PIO build against it
unchanged and write what PIO writes.

tests/pio_fortran/pio_frames_f.f90 writes a 3-D and a 2-D field over frames with holes, a mask,
coordinates, text and attributes, and reads them back on every rank; here netCDF4-python checks
the file. It runs on tapio's PIO layer (the program CMake builds over tapio_pio), and, when the
real PIO 2.7.0 is installed (scripts/install_pio.sh), on its C library libpioc, where the file is
compared value by value with the same program built with PIO's own Fortran library. PIO's
benchmark tests/performance/pioperformance.F90, from the tarball and unmodified, is built
against the module (with the timing stub tests/pio_suite/perf_mod_stub.F90) and must read back
what it wrote."""
import os
import re
import subprocess
import tarfile

import netCDF4
import numpy as np
import pytest

from conftest import (BUILD, MPI_ENV, ROOT, SHARED, cmake_cache, mpirun, sanitizer_flags,
                      skip_optional_peer)
from test_pio import nc_decomp_contents

NX, NY, NZ, NFRAMES = 7, 5, 3, 3
TEMP_FILL = -1.0e30
MODELS = {"cdf1": "NETCDF3_CLASSIC", "cdf2": "NETCDF3_64BIT_OFFSET", "cdf5": "NETCDF3_64BIT_DATA"}
PIO_PREFIX = (os.environ.get("PIO_HOME")
              or os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")),
                              "tapio", "pio-2.7.0")) + "/install"
MPIFC = cmake_cache("MPI_Fortran_COMPILER") or "mpif90.openmpi"
TARBALL = SHARED / "third_party" / "ParallelIO-2.7.0.tar.gz"


def module_sources():
    """The module's sources in build order, as fortran/pio/CMakeLists.txt lists them."""
    text = (ROOT / "fortran" / "pio" / "CMakeLists.txt").read_text()
    names = re.search(r"add_library\(tapio_pio_fortran SHARED([^)]*)\)", text).group(1).split()
    return [ROOT / "fortran" / "pio" / name for name in names]


def compile_fortran(out, sources, flags, libs):
    """Build the program out from sources with MPI's Fortran compiler."""
    cmd = [MPIFC, "-o", str(out), *flags, *map(str, sources), *libs]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{cmd}:\n{proc.stdout}\n{proc.stderr}"
    return out


class Against:
    """How a `use pio` program is built: flags before its sources, libraries after."""

    def __init__(self, name, flags, objects, libs):
        self.name, self.flags, self.objects, self.libs = name, flags, objects, libs

    def build(self, out, *sources, flags=()):
        return compile_fortran(out, [*sources, *self.objects], [*self.flags, *flags], self.libs)


@pytest.fixture(scope="module")
def real_pio():
    """The real PIO's libraries, an optional peer."""
    if not os.path.exists(f"{PIO_PREFIX}/lib/libpioc.a"):
        skip_optional_peer(f"the real PIO 2.7.0 (scripts/install_pio.sh) is not in {PIO_PREFIX}")
    return [f"{PIO_PREFIX}/lib/libpioc.a", f"{PIO_PREFIX}/lib/libgptl.a", "-lpnetcdf",
            "-lnetcdf"]


@pytest.fixture(scope="module")
def ours_on_libpioc(tmp_path_factory, real_pio):
    """tapio's module compiled here and linked with the real PIO's C library."""
    tmp = tmp_path_factory.mktemp("pio_module")
    objects = []
    for source in module_sources():
        obj = tmp / (source.stem + ".o")
        cmd = [MPIFC, "-std=f2018", "-c", "-J", str(tmp), "-o", str(obj), str(source)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, f"{cmd}:\n{proc.stdout}\n{proc.stderr}"
        objects.append(obj)
    return Against("libpioc", ["-I", str(tmp)], objects, real_pio)


@pytest.fixture(scope="module")
def pio_own_fortran(real_pio):
    """The real PIO's own Fortran library (libpiof), the reference."""
    return Against("libpiof", ["-I", f"{PIO_PREFIX}/include"], [],
                   [f"{PIO_PREFIX}/lib/libpiof.a", *real_pio])


@pytest.fixture(scope="module")
def ours_on_tapio():
    """tapio's module and PIO layer as CMake built them."""
    lib = BUILD / "fortran" / "pio"
    if not (lib / "libtapio_pio_fortran.so").exists():
        pytest.fail(f"{lib}/libtapio_pio_fortran.so was not built: the Fortran pio module is "
                    "built only in a tree with the PIO C layer (tapio_pio); `make build`")
    pio_c = BUILD / "src" / "pio"
    return Against("tapio", ["-I", str(lib / "mod")], [],
                   [f"-L{lib}", "-ltapio_pio_fortran", f"-L{pio_c}", "-ltapio_pio",
                    f"-Wl,-rpath,{lib}:{pio_c}:{BUILD / 'src' / 'api'}", *sanitizer_flags()])


def program_of(name, against, tmp_path):
    """A program of tests/pio_fortran: CMake's build over tapio_pio, or one built here."""
    if against == "tapio":
        program = BUILD / "tests" / "pio_fortran" / name
        if not program.exists():
            pytest.fail(f"{program} was not built (no tapio_pio in this tree?): `make build`")
        return program
    return against.build(tmp_path / f"{name}_{against.name}",
                         ROOT / "tests" / "pio_fortran" / f"{name}.f90")


def frames_program(against, tmp_path):
    return program_of("pio_frames_f", against, tmp_path)


def run_frames(program, np_, path, fmt="cdf5", iotype="pnetcdf", rearr="subset"):
    out = mpirun(np_, program, path, fmt, iotype, rearr, timeout=180)
    assert f"pio_frames_f ok on {np_} ranks" in out and "WRONG" not in out, out
    return path


def land(i, j):
    """As in pio_frames_f, 1-based: the columns no rank maps."""
    return (3 * i + j) % 7 == 0


def check_frames_file(path, fmt):
    """Every mapped point holds frame * 1000 + its 1-based global offset; land is fill."""
    with netCDF4.Dataset(path) as ds:
        assert ds.data_model == MODELS[fmt]
        temp, sst, mask = ds["temp"], ds["sst"], ds["mask"]
        assert temp.dimensions == ("time", "z", "y", "x") and temp.shape == (NFRAMES, NZ, NY, NX)
        assert sst.dimensions == ("time", "y", "x") and mask.dimensions == ("y", "x")
        assert ds.dimensions["time"].isunlimited()
        assert temp._FillValue == TEMP_FILL and temp.units == "degC"
        assert list(ds.levels) == [10, 20, 30] and ds.source == "pio_frames_f"
        assert list(ds["depth"][:]) == [5.0, 15.0, 30.0]
        assert netCDF4.chartostring(ds["title"][:]) == "ocean model"
        t, s, m = temp[:], sst[:], mask[:]
        raw = ds["temp"]
        raw.set_auto_mask(False)
        t_raw = raw[:]
    i, j, k = np.meshgrid(np.arange(1, NX + 1), np.arange(1, NY + 1), np.arange(1, NZ + 1),
                          indexing="ij")
    offset = (i + NX * (j - 1) + NX * NY * (k - 1)).transpose(2, 1, 0)  # (z, y, x)
    holes = land(i, j).transpose(2, 1, 0)
    for f in range(NFRAMES):
        expected = (f + 1) * 1000 + offset
        assert (t.mask[f] == holes).all(), f"frame {f + 1}: holes"
        np.testing.assert_array_equal(t[f].filled(0), np.where(holes, 0, expected))
        np.testing.assert_array_equal(t_raw[f][holes], TEMP_FILL)
        assert (s.mask[f] == holes[0]).all()
        np.testing.assert_array_equal(s[f].filled(0), np.where(holes[0], 0, expected[0]))
    assert (m.mask == holes[0]).all()
    np.testing.assert_array_equal(m.filled(0), np.where(holes[0], 0, offset[0]))


def same_values(a, b, values_differ=()):
    """Two netCDF files with the same dimensions, variables, attributes and values (but for the
    values of the variables values_differ names), all found by name."""
    with netCDF4.Dataset(a) as x, netCDF4.Dataset(b) as y:
        assert x.data_model == y.data_model
        assert {n: len(d) for n, d in x.dimensions.items()} == \
               {n: len(d) for n, d in y.dimensions.items()}
        assert x.ncattrs() == y.ncattrs()
        for name in x.ncattrs():
            np.testing.assert_array_equal(x.getncattr(name), y.getncattr(name))
        assert x.variables.keys() == y.variables.keys()
        for name, v in x.variables.items():
            w = y[name]
            assert v.dimensions == w.dimensions and v.dtype == w.dtype, name
            assert v.ncattrs() == w.ncattrs(), name
            for att in v.ncattrs():
                np.testing.assert_array_equal(v.getncattr(att), w.getncattr(att), name)
            if name in values_differ:
                continue
            v.set_auto_mask(False)
            w.set_auto_mask(False)
            np.testing.assert_array_equal(v[:], w[:], name)


@pytest.mark.parametrize("np_", [1, 2, 4])
def test_frames_with_holes_on_tapio(ours_on_tapio, tmp_path, np_):
    path = run_frames(frames_program("tapio", tmp_path), np_, tmp_path / "frames.nc")
    check_frames_file(path, "cdf5")


@pytest.mark.parametrize("np_", [1, 2, 4])
def test_frames_with_holes_on_real_libpioc(ours_on_libpioc, tmp_path, np_):
    path = run_frames(frames_program(ours_on_libpioc, tmp_path), np_, tmp_path / "frames.nc")
    check_frames_file(path, "cdf5")


@pytest.mark.parametrize("fmt,iotype,rearr", [("cdf1", "netcdf", "box"),
                                              ("cdf2", "pnetcdf", "subset"),
                                              ("cdf5", "pnetcdf", "box")])
def test_same_file_as_pio_own_fortran(ours_on_libpioc, pio_own_fortran, tmp_path, fmt, iotype,
                                      rearr):
    """The same program through PIO's own Fortran library and through ours, over libpioc."""
    ours = run_frames(frames_program(ours_on_libpioc, tmp_path), 4, tmp_path / "ours.nc", fmt,
                      iotype, rearr)
    theirs = run_frames(frames_program(pio_own_fortran, tmp_path), 4, tmp_path / "theirs.nc",
                        fmt, iotype, rearr)
    check_frames_file(ours, fmt)
    same_values(ours, theirs)


def test_installed_module_builds_pio_programs_on_tapio(ours_on_tapio, tmp_path):
    """After `cmake --install`, pkg-config tapio_pio_fortran gives what a model's build needs;
    the program runs from a clean environment (no LD_LIBRARY_PATH)."""
    prefix = tmp_path / "prefix"
    subprocess.run(["cmake", "--install", str(BUILD), "--prefix", str(prefix)], check=True,
                   capture_output=True, timeout=300)
    assert (prefix / "include" / "tapio_pio" / "fortran" / "pio.mod").exists()
    env = dict(os.environ, PKG_CONFIG_PATH=str(prefix / "lib" / "pkgconfig"))
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "tapio_pio_fortran"], env=env,
                           check=True, capture_output=True, text=True).stdout.split()
    program = compile_fortran(tmp_path / "pio_strict_f",
                              [ROOT / "tests" / "pio_fortran" / "pio_strict_f.f90"],
                              [], [*flags, f"-Wl,-rpath,{prefix / 'lib'}", *sanitizer_flags()])
    clean = {k: v for k, v in MPI_ENV.items()
             if k in ("PATH", "HOME") or k.startswith("OMPI_") or k.endswith("SAN_OPTIONS")}
    out = mpirun(2, program, tmp_path / "strict.nc", env=clean, timeout=180)
    assert "pio_strict_f ok" in out, out
    check_strict_file(tmp_path / "strict.nc")


def test_frames_formats_on_tapio(ours_on_tapio, tmp_path):
    for fmt, iotype, rearr in [("cdf1", "netcdf", "box"), ("cdf2", "pnetcdf", "subset")]:
        path = run_frames(frames_program("tapio", tmp_path), 2, tmp_path / f"{fmt}.nc", fmt,
                          iotype, rearr)
        check_frames_file(path, fmt)


def check_strict_file(path):
    """pio_strict_f's file (2 ranks): depth, the NUL-padded title, and a and b written by one
    darray call, each rank's 3 cells."""
    with netCDF4.Dataset(path) as ds:
        assert list(ds["depth"][:]) == [1.0, 2.0, 3.0]
        assert netCDF4.chartostring(ds["title"][:]) == "abc"
        assert list(ds["a"][:]) == [101.0 + i for i in range(6)]
        assert list(ds["b"][:]) == [201.0 + i for i in range(6)]


def test_short_arrays_and_two_variable_darrays_on_real_libpioc(ours_on_libpioc, tmp_path):
    """PIO hands C the caller's array unchecked; ours returns PIO_EINVAL or PIO_ESTS."""
    program = program_of("pio_strict_f", ours_on_libpioc, tmp_path)
    assert "pio_strict_f ok" in mpirun(2, program, tmp_path / "strict.nc", timeout=120)
    check_strict_file(tmp_path / "strict.nc")


def test_short_arrays_and_two_variable_darrays_on_tapio(ours_on_tapio, tmp_path):
    program = program_of("pio_strict_f", "tapio", tmp_path)
    assert "pio_strict_f ok" in mpirun(2, program, tmp_path / "strict.nc", timeout=120)
    check_strict_file(tmp_path / "strict.nc")


def run_nc_dof(against, tmp_path):
    """pio_nc_dof_f at 3 ranks: its decomposition file's contents and its data file's v."""
    program = program_of("pio_nc_dof_f", against, tmp_path)
    decomp, data = tmp_path / f"decomp_{program.name}.nc", tmp_path / f"data_{program.name}.nc"
    out = mpirun(3, program, decomp, data, timeout=120)
    assert "pio_nc_dof_f ok on 3 ranks" in out and "WRONG" not in out, out
    with netCDF4.Dataset(data) as ds:
        ds.set_auto_mask(False)
        values = ds["v"][:].tolist()
    return nc_decomp_contents(decomp), values


def test_nc_decomposition_file_written_and_read_from_fortran(ours_on_tapio, tmp_path):
    """The file holds the decomposition in PIO's format: C-order global size, each task's
    0-based map (rank 1's hole as -1), the array order the program asked for."""
    (atts, dims, variables), values = run_nc_dof("tapio", tmp_path)
    assert atts == {"PIO_library_version": "2.7.0", "max_maplen": 4, "title": "decomp title",
                    "history": "decomp history",
                    "source": "Decomposition file produced by PIO library.",
                    "array_order": "Fortran"}
    assert dims == [("dims", 2), ("task", 3), ("map_element", 4)]
    assert variables == {
        "global_size": (("dims",), "<i4", [3, 4]),
        "maplen": (("task",), "<i4", [4, 4, 4]),
        "map": (("task", "map_element"), "<i4", [[0, 3, 6, 9], [1, -1, 7, 10], [2, 5, 8, 11]]),
    }
    fill = netCDF4.default_fillvals["f8"]
    assert values == [[10.0 * (4 * y + x + 1) if 4 * y + x != 4 else fill for x in range(4)]
                      for y in range(3)]


def test_nc_decomposition_file_from_fortran_same_as_real_pio(ours_on_libpioc, tmp_path):
    """Over the real PIO's C library, the same program writes the same files."""
    assert run_nc_dof(ours_on_libpioc, tmp_path) == run_nc_dof("tapio", tmp_path)


PIOPERF_NL = """&pioperf
decompfile = 'ROUNDROBIN', 'BLOCK'
pio_typenames = 'pnetcdf' 'netcdf'
rearrangers = 1, 2
nframes = 3
nvars = 4
niotasks = 2
varsize = 1000
/
"""


def build_pioperformance(against, tmp_path, flags=(), stub=True):
    """PIO's benchmark from the tarball, unmodified, with the read path (-DDOREAD), built in
    tmp_path. Its timing module perf_mod is the stub (tests/pio_suite/perf_mod_stub.F90), or
    with stub=False the one against brings (the real PIO's GPTL)."""
    with tarfile.open(TARBALL) as tar:
        member = tar.getmember("ParallelIO-2.7.0/tests/performance/pioperformance.F90")
        (tmp_path / "pioperformance.F90").write_bytes(tar.extractfile(member).read())
    (tmp_path / "config.h").write_text("")
    objects = []
    if stub:
        objects.append(compile_fortran(tmp_path / "perf_mod.o",
                                       [ROOT / "tests" / "pio_suite" / "perf_mod_stub.F90"],
                                       ["-c", "-J", str(tmp_path)], []))
    return against.build(tmp_path / "pioperf", tmp_path / "pioperformance.F90", *objects,
                         flags=["-DDOREAD", "-I", str(tmp_path),
                                # __FILE__ (a long temporary path) passes column 132.
                                "-ffree-line-length-none", *flags])


def pioperformance(against, tmp_path):
    """PIO's benchmark, built by build_pioperformance, run on ROUNDROBIN and BLOCK."""
    program = build_pioperformance(against, tmp_path)
    (tmp_path / "pioperf.nl").write_text(PIOPERF_NL)
    out = mpirun(4, program, timeout=300, cwd=tmp_path)
    assert "mismatch" not in out, out
    results = re.findall(r"RESULT: (write|read)\s+(BOX|SUBSET)\s+(\d+)", out)
    # Two decompositions, two iotypes, two rearrangers, a write and a read of each.
    assert len(results) == 16, out
    assert {(w, r, t) for w, r, t in results} == {
        (w, r, t) for w in ("write", "read") for r in ("BOX", "SUBSET") for t in ("1", "2")}
    return tmp_path


def check_pioperf_file(path):
    """The last file pioperformance writes with PnetCDF (BLOCK, SUBSET): CDF-5, its rundate
    text (put_var of a string) and its doubles, compmap / 1e6 in single precision as it
    computes them, in every frame."""
    with netCDF4.Dataset(path) as ds:
        assert ds.data_model == "NETCDF3_64BIT_DATA"
        assert re.fullmatch(r"\d{8} \d{4}", str(netCDF4.chartostring(ds["rundate"][:])))
        g = np.arange(1, 4 * 1000 + 1, dtype=np.float32)
        expected = (g / np.float32(1000000.0)).astype(np.float64)
        for name in ("vard0001", "vard0004"):
            data = ds[name][:]
            assert data.shape == (3, 4000)
            for frame in data:
                np.testing.assert_array_equal(frame, expected)


def test_pioperformance_unmodified_on_real_libpioc(ours_on_libpioc, tmp_path):
    check_pioperf_file(pioperformance(ours_on_libpioc, tmp_path) / "pioperf.2-000002-1.nc")


def test_pioperformance_unmodified_on_tapio(ours_on_tapio, tmp_path):
    check_pioperf_file(pioperformance(ours_on_tapio, tmp_path) / "pioperf.2-000002-1.nc")
