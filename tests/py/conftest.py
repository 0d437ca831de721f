"""Shared fixtures: where the build is, and how to run MPI programs with a timeout."""
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("TAPIO_BUILD_DIR", ROOT / "build"))
SHARED = ROOT.parent / "shared"
MPI_ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def mpirun(np, *args, timeout=300):
    """Run a program under Open MPI with np ranks; fail the test on a non-zero exit."""
    cmd = ["mpiexec.openmpi", "--oversubscribe", "-n", str(np), *map(str, args)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=MPI_ENV)
    assert proc.returncode == 0, f"{cmd} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


@pytest.fixture
def build():
    if not (BUILD / "examples" / "licom_demo").exists():
        pytest.fail(f"no build at {BUILD}: run `make build` first or set TAPIO_BUILD_DIR")
    return BUILD
