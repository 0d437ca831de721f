"""Bad input raises a tapio.Error subclass with a clear message on the rank that made it; no
crash, no hang: the ranks go on (the next collective call still meets every rank)."""
import numpy as np
import pytest

import tapio
from fixtures import comm, engine, shared_dir  # noqa: F401 (pytest fixtures)


def test_wrong_dtype_fails_the_put_and_its_step_on_every_rank(shared_dir, comm, engine):
    path = f"{shared_dir}/dtype.nc"
    with tapio.open(path, "w", comm=comm, engine=engine) as f:
        f.define("x", (comm.size,), np.float64)
        with pytest.raises(tapio.TypeMismatchError) as step_error:
            with f.step():
                with pytest.raises(tapio.TypeMismatchError, match="variable 'x'.*float64.*"
                                   "char: text and numbers do not convert"):
                    f.put("x", np.zeros(1, "S1"), start=(comm.rank,))
        assert "is not committed" in str(step_error.value)
        with f.step():  # the file goes on: the next step is written
            f.put("x", np.full(1, comm.rank, np.float64), start=(comm.rank,))
    with tapio.open(path, "r", comm=comm, engine=engine) as f:
        assert f.nsteps == 1
        np.testing.assert_array_equal(f.get("x", step=0), np.arange(comm.size))


def test_shape_mismatch(shared_dir, comm):
    with tapio.open(f"{shared_dir}/shape.nc", "w", comm=comm) as f:
        f.define("x", (4, 5), np.float64)
        with f.step():
            with pytest.raises(tapio.ShapeError, match=r"shape mismatch.*\(3, 5\).*\(4, 5\)"):
                f.put("x", np.zeros((3, 5)))
            with pytest.raises(tapio.ShapeError, match="1-d array for a 2-d variable"):
                f.put("x", np.zeros(5), start=(0, 0))
            with pytest.raises(tapio.ShapeError, match="exceeds the length"):
                f.put("x", np.zeros((2, 5)), start=(3, 0))  # checked by the C library
            with pytest.raises(tapio.ShapeError, match="offsets 3"):
                f.put("x", np.zeros(2), offsets=[0, 1, 2])


def test_closed_file(shared_dir, comm):
    f = tapio.open(f"{shared_dir}/closed.nc", "w", comm=comm)
    f.define("x", (2,), np.float64)
    f.close()
    f.close()  # harmless
    with pytest.raises(tapio.ClosedError, match="is closed"):
        f.define("y", (2,), np.float64)
    with pytest.raises(tapio.ClosedError):
        with f.step():
            pass
    with pytest.raises(tapio.ClosedError):
        f.nsteps


def test_a_communicator_that_is_not_mpi4py(shared_dir):
    for comm in (0, "MPI_COMM_WORLD", object()):
        with pytest.raises(tapio.CommError, match="mpi4py communicator"):
            tapio.open(f"{shared_dir}/nocomm.nc", "w", comm=comm)


def test_misuse_of_modes_and_names(shared_dir, comm):
    with pytest.raises(tapio.ArgumentError, match="mode"):
        tapio.open(f"{shared_dir}/m.nc", "x", comm=comm)
    with pytest.raises(tapio.NotFoundError, match="missing.nc"):
        tapio.open(f"{shared_dir}/missing.nc", "r", comm=comm)
    with pytest.raises(tapio.ConfigError, match="did you mean"):
        tapio.open(f"{shared_dir}/m.nc", "w", comm=comm, parameters={"bufer_size": "1MiB"})
    with tapio.open(f"{shared_dir}/m.nc", "w", comm=comm) as f:
        with pytest.raises(tapio.TypeMismatchError, match="no element type for dtype complex"):
            f.define("z", (2,), np.complex128)
        f.define("x", (2,), np.float64)
        with pytest.raises(tapio.StateError, match="inside `with f.step\\(\\):`"):
            f.put("x", np.zeros(2))
        with pytest.raises(tapio.NotFoundError, match="nope"):
            with f.step():
                f.put("nope", np.zeros(2))
        with pytest.raises(tapio.StateError, match="before the first step"):
            f.define("late", (2,), np.float64)
    with tapio.open(f"{shared_dir}/m.nc", "r", comm=comm) as f:
        with pytest.raises(tapio.StateError, match="needs mode 'r'|open for reading"):
            with f.step():
                pass
        with pytest.raises(tapio.NotFoundError):
            f["nope"]
