"""The xarray backend: a dataset and a NetCDF file written by 4 ranks (binding_mpi/
write_blocks.py), then binding_serial/serial_xarray.py in a serial pytest of its own (a process
that starts MPI as a singleton, apart from this one, which launches mpiexec)."""
import subprocess
import sys
from pathlib import Path

from conftest import MPI_ENV, ROOT, mpirun

HERE = Path(__file__).parent


def test_xarray_backend(tmp_path, python_binding):
    mpirun(4, sys.executable, HERE / "binding_mpi" / "write_blocks.py", tmp_path)
    cmd = [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", "--rootdir",
           str(HERE / "binding_serial"), str(HERE / "binding_serial" / "serial_xarray.py")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=240, cwd=ROOT,
                          env=dict(MPI_ENV, TAPIO_XR_DATA=str(tmp_path)))
    assert proc.returncode == 0, f"{proc.stdout[-6000:]}\n{proc.stderr[-3000:]}"
    print(proc.stdout)
