"""`cmake --install` gives a usable package: find_package(tapio) and pkg-config both build a
program against the installed library (find_package brings the MPI tapio was built with), and
find_package(tapio COMPONENTS Fortran) a Fortran program using the installed module; and
the installed `tapio` command starts from a clean environment (it finds libtapio through its
RPATH, not LD_LIBRARY_PATH)."""
import os
import subprocess

import pytest

from conftest import BUILD, MPI_ENV, cmake_cache

CONSUMER_C = """#include <stdio.h>
#include "tapio/tapio.h"
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  tapio_context* ctx;
  int rc = tapio_init(MPI_COMM_WORLD, NULL, &ctx);
  printf("tapio %s %d\\n", tapio_version(), rc);
  tapio_finalize(ctx);
  MPI_Finalize();
  return rc;
}
"""


CONSUMER_F90 = """program consumer
  use mpi
  use tapio
  implicit none
  type(tapio_context) :: ctx
  type(tapio_io) :: io
  type(tapio_var) :: x
  type(tapio_file) :: f
  real(8), target :: a(3, 2)
  integer :: ierr, status
  call MPI_Init(ierr)
  status = tapio_init(MPI_COMM_WORLD, ctx=ctx)
  status = tapio_declare_io(ctx, "consumer", io)
  status = tapio_def_var(io, "a", TAPIO_DOUBLE, [3, 2], ["x", "y"], x)
  status = tapio_open(io, "a.nc", TAPIO_WRITE, f)
  a = 7
  status = tapio_begin_step(f)
  status = tapio_put(f, x, a)
  status = tapio_end_step(f)
  status = tapio_close(f)
  print '(a, i0)', "fortran consumer ", status
  status = tapio_finalize(ctx)
  call MPI_Finalize(ierr)
end program
"""


def run(cmd, **kw):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kw)
    assert proc.returncode == 0, f"{cmd}:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def install(tmp_path):
    prefix = tmp_path / "prefix"
    run(["cmake", "--install", str(BUILD), "--prefix", str(prefix)])
    return prefix


def cmake_consumer(tmp_path, prefix, source, text, languages, find, link):
    """Configure and build a CMake project of one source file against the installed package;
    the path of its program."""
    src = tmp_path / "consumer"
    src.mkdir()
    (src / source).write_text(text)
    (src / "CMakeLists.txt").write_text(
        f"cmake_minimum_required(VERSION 3.20)\nproject(consumer {languages})\n{find}\n"
        f"add_executable(consumer {source})\ntarget_link_libraries(consumer {link})\n")
    san = " ".join(sanitizer_flags())
    run(["cmake", "-S", str(src), "-B", str(src / "build"), f"-DCMAKE_PREFIX_PATH={prefix}",
         f"-DCMAKE_C_FLAGS={san}", f"-DCMAKE_Fortran_FLAGS={san}"])
    run(["cmake", "--build", str(src / "build")])
    return src / "build" / "consumer"


def sanitizer_flags():
    """A sanitized libtapio (make test-asan) needs its sanitizer's runtime in the program too."""
    sanitize = cmake_cache("TAPIO_SANITIZE")
    return [f"-fsanitize={sanitize}"] if sanitize else []


def test_installed_cli_runs_with_a_clean_environment(build, tmp_path):
    prefix = install(tmp_path)
    cli = str(prefix / "bin" / "tapio")
    assert run(["env", "-i", cli, "--version"]).startswith("tapio ")
    # A NetCDF file the tool reads without MPI: the library is loaded and used, not just found.
    cdl = tmp_path / "t.cdl"
    cdl.write_text("netcdf t {\ndimensions:\n  n = 3 ;\nvariables:\n  int v(n) ;\n"
                   "data:\n  v = 1, 2, 3 ;\n}\n")
    run(["ncgen", "-k", "5", "-o", str(tmp_path / "t.nc"), str(cdl)])
    assert "int32    v  [n=3]" in run(["env", "-i", cli, "ls", str(tmp_path / "t.nc")])
    assert run(["env", "-i", cli, "dump", str(tmp_path / "t.nc"), "v"]) == "v(0-2) = 1, 2, 3\n"


def test_find_package_and_pkg_config(build, tmp_path):
    prefix = install(tmp_path)
    consumer = cmake_consumer(tmp_path, prefix, "main.c", CONSUMER_C, "C",
                              "find_package(tapio 0.1 REQUIRED)", "tapio::tapio")
    env = dict(MPI_ENV, LD_LIBRARY_PATH=str(prefix / "lib"))
    assert "tapio 0.1.0 0" in run([str(consumer)], env=env)

    pc = dict(os.environ, PKG_CONFIG_PATH=str(prefix / "lib" / "pkgconfig"))
    flags = run(["pkg-config", "--cflags", "--libs", "tapio"], env=pc).split()
    includes = [os.path.realpath(f[2:]) for f in flags if f.startswith("-I")]
    assert os.path.realpath(prefix / "include") in includes, flags
    exe = tmp_path / "pc_consumer"
    mpicc = cmake_cache("MPI_C_COMPILER") or "mpicc.openmpi"  # the MPI libtapio links
    run([mpicc, str(consumer.parents[1] / "main.c"), "-o", str(exe), *flags, *sanitizer_flags()])
    assert "tapio 0.1.0 0" in run([str(exe)], env=env)


def test_find_package_fortran_component(build, tmp_path):
    if not (BUILD / "fortran" / "mod" / "tapio.mod").exists():
        pytest.fail("the Fortran module was not built: install gfortran, then `make build`")
    prefix = install(tmp_path)
    # C too: the package finds the MPI C library libtapio links.
    consumer = cmake_consumer(tmp_path, prefix, "main.f90", CONSUMER_F90, "C Fortran",
                              "find_package(tapio 0.1 REQUIRED COMPONENTS Fortran)\n"
                              "find_package(MPI REQUIRED COMPONENTS Fortran)",
                              "tapio::tapio_fortran MPI::MPI_Fortran")
    env = dict(MPI_ENV, LD_LIBRARY_PATH=str(prefix / "lib"))
    assert "fortran consumer 0" in run([str(consumer)], env=env, cwd=tmp_path)
    assert (prefix / "include" / "tapio" / "fortran" / "tapio.mod").exists()
