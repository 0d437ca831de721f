"""Fixtures of the Python binding's MPI tests (mpi_*.py, which import them), which every rank
runs under mpiexec (tests/py/test_python_binding.py starts them at 1, 2 and 4 ranks): each test
makes the same collective calls on every rank, so the ranks stay in step. Not a conftest.py:
pytest would load it as a second `conftest` module beside tests/py/conftest.py."""
import shutil
import tempfile

import pytest
from mpi4py import MPI


@pytest.fixture
def comm():
    return MPI.COMM_WORLD


@pytest.fixture
def shared_dir(comm):
    """A directory every rank writes into (rank 0 makes it and removes it)."""
    path = comm.bcast(tempfile.mkdtemp(prefix="tapio-py-") if comm.rank == 0 else None)
    yield path
    comm.Barrier()
    if comm.rank == 0:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(params=["collective", "subfile"])
def engine(request):
    return request.param
