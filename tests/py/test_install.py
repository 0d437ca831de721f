"""`cmake --install` gives a usable package: find_package(tapio) and pkg-config both build a
program against the installed library (find_package brings the MPI tapio was built with), and
the installed `tapio` command starts from a clean environment (it finds libtapio through its
RPATH, not LD_LIBRARY_PATH)."""
import os
import subprocess

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


def run(cmd, **kw):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kw)
    assert proc.returncode == 0, f"{cmd}:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def install(tmp_path):
    prefix = tmp_path / "prefix"
    run(["cmake", "--install", str(BUILD), "--prefix", str(prefix)])
    return prefix


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
    assert run(["env", "-i", cli, "dump", str(tmp_path / "t.nc"), "v"]).split() == ["1,", "2,", "3"]


def test_find_package_and_pkg_config(build, tmp_path):
    prefix = install(tmp_path)
    # A sanitized libtapio (make test-asan) needs its sanitizer's runtime in the program too.
    sanitize = cmake_cache("TAPIO_SANITIZE")
    san = [f"-fsanitize={sanitize}"] if sanitize else []
    src = tmp_path / "consumer"
    src.mkdir()
    (src / "main.c").write_text(CONSUMER_C)
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.20)\nproject(consumer C)\n"
        "find_package(tapio 0.1 REQUIRED)\nadd_executable(consumer main.c)\n"
        "target_link_libraries(consumer tapio::tapio)\n")
    run(["cmake", "-S", str(src), "-B", str(src / "build"), f"-DCMAKE_PREFIX_PATH={prefix}",
         f"-DCMAKE_C_FLAGS={' '.join(san)}"])
    run(["cmake", "--build", str(src / "build")])
    env = dict(MPI_ENV, LD_LIBRARY_PATH=str(prefix / "lib"))
    assert "tapio 0.1.0 0" in run([str(src / "build" / "consumer")], env=env)

    pc = dict(os.environ, PKG_CONFIG_PATH=str(prefix / "lib" / "pkgconfig"))
    flags = run(["pkg-config", "--cflags", "--libs", "tapio"], env=pc).split()
    includes = [os.path.realpath(f[2:]) for f in flags if f.startswith("-I")]
    assert os.path.realpath(prefix / "include") in includes, flags
    exe = tmp_path / "pc_consumer"
    mpicc = cmake_cache("MPI_C_COMPILER") or "mpicc.openmpi"  # the MPI libtapio links
    run([mpicc, str(src / "main.c"), "-o", str(exe), *flags, *san])
    assert "tapio 0.1.0 0" in run([str(exe)], env=env)
