"""The README's shortest program in each language (C, C++, Fortran, Python) compiles against
this build, runs on 2 ranks, and writes x = [0, 1], as netCDF4-python reads it."""
import subprocess
import sys

import netCDF4
import numpy as np
import pytest

from conftest import BUILD, ROOT, cmake_cache, mpirun, readme_programs, sanitizer_flags

FENCES = {"c": "hello.c", "c++": "hello.cpp", "fortran": "hello.f90", "python": "hello.py"}


def compile_command(language, src, exe):
    include, api = ROOT / "include", BUILD / "src" / "api"
    link = [f"-L{api}", "-ltapio", f"-Wl,-rpath,{api}", *sanitizer_flags()]
    if language == "fortran":
        fortran = BUILD / "fortran"
        if not (fortran / "mod" / "tapio.mod").exists():
            pytest.fail("the Fortran module was not built: install gfortran, then `make build`")
        compiler = cmake_cache("MPI_Fortran_COMPILER") or "mpif90.openmpi"
        return [compiler, f"-I{fortran / 'mod'}", src, "-o", exe, f"-L{fortran}",
                "-ltapio_fortran", f"-Wl,-rpath,{fortran}", *link]
    compiler = cmake_cache("MPI_C_COMPILER" if language == "c" else "MPI_CXX_COMPILER")
    compiler = compiler or ("mpicc.openmpi" if language == "c" else "mpicxx.openmpi")
    std = ["-std=c++17"] if language == "c++" else []
    return [compiler, *std, f"-I{include}", src, "-o", exe, *link]


@pytest.mark.parametrize("language", list(FENCES))
def test_readme_program(language, tmp_path, python_binding):
    programs = readme_programs()
    assert set(programs) == set(FENCES), f"README's Using it has {sorted(programs)}"
    src = tmp_path / FENCES[language]
    src.write_text(programs[language])
    if language == "python":
        command = [sys.executable, src]
    else:
        exe = tmp_path / "hello"
        proc = subprocess.run(compile_command(language, src, exe), capture_output=True,
                              text=True, timeout=180)
        assert proc.returncode == 0, proc.stderr
        command = [exe]
    mpirun(2, *command, cwd=tmp_path)  # the programs write hello.nc where they run
    with netCDF4.Dataset(tmp_path / "hello.nc") as ds:
        np.testing.assert_array_equal(ds["x"][0], [0.0, 1.0])
