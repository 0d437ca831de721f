"""`cmake --install` gives a usable package: the README's C and Fortran programs, built against
the installed prefix the ways the docs give (CMake's find_package(tapio), which brings the MPI
tapio was built with, with COMPONENTS Fortran for the module; pkg-config `tapio` and
`tapio_fortran`; the plain Makefile of docs/api.md §11), run on 2 ranks from a clean environment
(no LD_LIBRARY_PATH) and write their data; the installed `tapio` command starts from a clean
environment too (it finds libtapio through its RPATH)."""
import os
import re
import subprocess

import netCDF4
import numpy as np
import pytest

from conftest import BUILD, MPI_ENV, ROOT, cmake_cache, mpirun, readme_programs, sanitizer_flags


def run(cmd, **kw):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kw)
    assert proc.returncode == 0, f"{cmd}:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    if not (BUILD / "examples" / "licom_demo").exists():
        pytest.fail(f"no build at {BUILD}: run `make build` first or set TAPIO_BUILD_DIR")
    prefix = tmp_path_factory.mktemp("install") / "prefix"
    run(["cmake", "--install", str(BUILD), "--prefix", str(prefix)])
    return prefix


def clean_env():
    """A user's environment that never set LD_LIBRARY_PATH: PATH and HOME, and only the
    settings of MPI (OMPI_*: running as root here) and of the sanitizers (make test-asan)."""
    return {k: v for k, v in MPI_ENV.items()
            if k in ("PATH", "HOME") or k.startswith("OMPI_") or k.endswith("SAN_OPTIONS")}


def runs_hello(program):
    """Run a README hello program on 2 ranks from a clean environment in its own directory;
    it must write x = [0, 1]."""
    mpirun(2, program, env=clean_env(), cwd=program.parent)
    with netCDF4.Dataset(program.parent / "hello.nc") as ds:
        np.testing.assert_array_equal(ds["x"][0], [0.0, 1.0])


def source(tmp_path, language, name):
    """The README's program in `language`, written to tmp_path/name/ (a directory per build)."""
    folder = tmp_path / name
    folder.mkdir()
    path = folder / {"c": "hello.c", "fortran": "hello.f90"}[language]
    path.write_text(readme_programs()[language])
    return path


def pkg_config(prefix, package):
    env = dict(os.environ, PKG_CONFIG_PATH=str(prefix / "lib" / "pkgconfig"))
    return run(["pkg-config", "--cflags", "--libs", package], env=env).split()


def needs_fortran():
    if not (BUILD / "fortran" / "mod" / "tapio.mod").exists():
        pytest.fail("the Fortran module was not built: install gfortran, then `make build`")


def cmake_consumer(prefix, src, languages, find, link):
    """Configure and build a CMake project of one source file against the installed package;
    the path of its program."""
    (src.parent / "CMakeLists.txt").write_text(
        f"cmake_minimum_required(VERSION 3.20)\nproject(consumer {languages})\n{find}\n"
        f"add_executable(consumer {src.name})\ntarget_link_libraries(consumer {link})\n")
    san = " ".join(sanitizer_flags())
    build = src.parent / "build"
    run(["cmake", "-S", str(src.parent), "-B", str(build), f"-DCMAKE_PREFIX_PATH={prefix}",
         f"-DCMAKE_C_FLAGS={san}", f"-DCMAKE_Fortran_FLAGS={san}"])
    run(["cmake", "--build", str(build)])
    return build / "consumer"


def test_installed_cli_runs_with_a_clean_environment(prefix, tmp_path):
    cli = str(prefix / "bin" / "tapio")
    assert run(["env", "-i", cli, "--version"]).startswith("tapio ")
    # A NetCDF file the tool reads without MPI: the library is loaded and used, not just found.
    cdl = tmp_path / "t.cdl"
    cdl.write_text("netcdf t {\ndimensions:\n  n = 3 ;\nvariables:\n  int v(n) ;\n"
                   "data:\n  v = 1, 2, 3 ;\n}\n")
    run(["ncgen", "-k", "5", "-o", str(tmp_path / "t.nc"), str(cdl)])
    assert "int32    v  [n=3]" in run(["env", "-i", cli, "ls", str(tmp_path / "t.nc")])
    assert run(["env", "-i", cli, "dump", str(tmp_path / "t.nc"), "v"]) == "v(0-2) = 1, 2, 3\n"


def test_c_program_from_find_package_and_pkg_config(prefix, tmp_path):
    src = source(tmp_path, "c", "cmake")
    runs_hello(cmake_consumer(prefix, src, "C", "find_package(tapio 0.1 REQUIRED)",
                              "tapio::tapio"))
    flags = pkg_config(prefix, "tapio")
    includes = [os.path.realpath(f[2:]) for f in flags if f.startswith("-I")]
    assert os.path.realpath(prefix / "include") in includes, flags
    src = source(tmp_path, "c", "pkg-config")
    mpicc = cmake_cache("MPI_C_COMPILER") or "mpicc.openmpi"  # the MPI libtapio links
    # The README's line: mpicc app.c -o app $(pkg-config --cflags --libs tapio) -Wl,-rpath,P/lib
    run([mpicc, str(src), "-o", str(src.parent / "hello"), *flags,
         f"-Wl,-rpath,{prefix / 'lib'}", *sanitizer_flags()])
    runs_hello(src.parent / "hello")


def test_fortran_program_from_find_package(prefix, tmp_path):
    needs_fortran()
    # C too: the package finds the MPI C library libtapio links.
    src = source(tmp_path, "fortran", "cmake")
    runs_hello(cmake_consumer(prefix, src, "C Fortran",
                              "find_package(tapio 0.1 REQUIRED COMPONENTS Fortran)\n"
                              "find_package(MPI REQUIRED COMPONENTS Fortran)",
                              "tapio::tapio_fortran MPI::MPI_Fortran"))
    assert (prefix / "include" / "tapio" / "fortran" / "tapio.mod").exists()


def documented_makefile():
    """The Makefile of docs/api.md §11 (Fortran), as a model would copy it."""
    text = (ROOT / "docs" / "api.md").read_text()
    section = text[text.index("## 11. Fortran"):]
    return re.search(r"```make\n(.*?)```", section, re.S).group(1)


def test_fortran_program_from_the_documented_makefile(prefix, tmp_path):
    """Built by the docs' Makefile, whose program records only an RPATH to the prefix (as
    RUNPATH, which the loader does not apply to libtapio_fortran's own dependencies)."""
    needs_fortran()
    src = source(tmp_path, "fortran", "make")
    src.rename(src.parent / "model.f90")
    (src.parent / "Makefile").write_text(documented_makefile())
    fc = cmake_cache("MPI_Fortran_COMPILER") or "mpif90.openmpi"  # the MPI libtapio links
    # As a model's own make would: not a sub-make of `make test` (no inherited MAKEFLAGS).
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    run(["make", "-C", str(src.parent), f"TAPIO={prefix}", f"FC={fc}",
         f"LDFLAGS={' '.join(sanitizer_flags())}"], env=env)
    runs_hello(src.parent / "model")
    # The installed library names libtapio and finds it beside itself.
    dynamic = run(["readelf", "-d", str(prefix / "lib" / "libtapio_fortran.so")])
    assert re.search(r"\(NEEDED\).*\[libtapio\.so\.0\]", dynamic), dynamic
    assert re.search(r"\((RUNPATH|RPATH)\).*\[\$ORIGIN[]:]", dynamic), dynamic
