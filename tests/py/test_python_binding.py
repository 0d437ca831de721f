"""The Python binding under MPI: tests/py/binding_mpi/mpi_*.py run by pytest on every rank at
1, 2 and 4 ranks (each test makes the same collective calls on every rank)."""
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import MPI_ENV, ROOT, mpiexec

HERE = Path(__file__).parent / "binding_mpi"


@pytest.mark.parametrize("np", [1, 2, 4])
def test_binding_under_mpiexec(np, python_binding):
    files = sorted(str(p) for p in HERE.glob("mpi_*.py"))
    cmd = mpiexec(np, sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                  "--rootdir", str(HERE), *files)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=MPI_ENV,
                          cwd=ROOT)
    assert proc.returncode == 0, f"{cmd}:\n{proc.stdout[-6000:]}\n{proc.stderr[-3000:]}"
    assert " passed" in proc.stdout and "failed" not in proc.stdout
