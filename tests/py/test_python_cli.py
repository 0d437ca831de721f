"""`python -m tapio ls/dump` prints what the `tapio` command prints, for a NetCDF file and a
subfile dataset (written by the C bands example on 2 ranks)."""
import subprocess
import sys

import pytest

from conftest import BUILD, MPI_ENV, mpirun

COMMANDS = [
    ["ls", "{path}"],
    ["dump", "{path}", "t"],
    ["dump", "{path}", "t", "--step", "1", "--start", "1,2", "--count", "2,3"],
    ["dump", "{path}", "cells", "--json"],
    ["dump", "{path}", "t", "--step", "2", "--start", "3,0", "--json"],
]


def run(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=MPI_ENV)
    return proc.returncode, proc.stdout


@pytest.fixture(scope="module", params=["bands.nc", "bands"])
def path(request, tmp_path_factory, python_binding):
    path = tmp_path_factory.mktemp("cli") / request.param
    engine = "collective" if request.param.endswith(".nc") else "subfile"
    mpirun(2, BUILD / "examples" / "bands", "write", path, engine)
    return path


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a[:1] + a[2:]))
def test_python_m_tapio_prints_what_the_command_prints(path, args):
    args = [a.format(path=path) for a in args]
    code, ours = run([sys.executable, "-m", "tapio", *args])
    assert code == 0
    assert (0, ours) == run([BUILD / "tools" / "tapio", *args])


# A dataset only: a NetCDF file's JSON adds header details (offsets, size) the API has not.
@pytest.mark.parametrize("path", ["bands"], indirect=True)
def test_ls_json_of_a_dataset(path):
    code, ours = run([sys.executable, "-m", "tapio", "ls", path, "--json"])
    assert code == 0 and (0, ours) == run([BUILD / "tools" / "tapio", "ls", path, "--json"])


def test_errors_exit_1_with_a_message(path):
    proc = subprocess.run([sys.executable, "-m", "tapio", "dump", path, "nope"],
                          capture_output=True, text=True, timeout=120, env=MPI_ENV)
    assert proc.returncode == 1 and "variable 'nope' not found" in proc.stderr
