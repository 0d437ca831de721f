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
        # Each refused put fails the step too (the first one names it).
        with pytest.raises(tapio.ShapeError, match=r"step 0 is not committed.*\(3, 5\)"):
            with f.step():
                with pytest.raises(tapio.ShapeError,
                                   match=r"shape mismatch.*\(3, 5\).*\(4, 5\)"):
                    f.put("x", np.zeros((3, 5)))
                with pytest.raises(tapio.ShapeError, match="1-d array for a 2-d variable"):
                    f.put("x", np.zeros(5), start=(0, 0))
                with pytest.raises(tapio.ShapeError, match="exceeds the length"):
                    f.put("x", np.zeros((2, 5)), start=(3, 0))  # checked by the C library
                with pytest.raises(tapio.ShapeError, match="offsets 3"):
                    f.put("x", np.zeros(2), offsets=[0, 1, 2])
        assert f.nsteps == 0


def test_a_put_outside_the_shape_on_one_rank_fails_the_step_everywhere(shared_dir, comm,
                                                                        engine):
    """The defect: the rank that put outside the shape raised, the others committed the step
    with fill values where its data belonged."""
    path = f"{shared_dir}/bounds.nc"
    last = comm.size - 1
    with tapio.open(path, "w", comm=comm, engine=engine) as f:
        f.define("x", (2 * comm.size,), np.float64)
        mine = np.full(2, comm.rank, np.float64)
        with f.step():
            f.put("x", mine, start=(2 * comm.rank,))
        with pytest.raises(tapio.ShapeError, match=f"step 1 is not committed: a put failed on "
                           f"rank {last}.*variable 'x'.*exceeds"):
            with f.step():
                start = 2 * comm.size - 1 if comm.rank == last else 2 * comm.rank
                if comm.rank == last:
                    with pytest.raises(tapio.ShapeError, match="exceeds"):
                        f.put("x", mine + 100, start=(start,))
                else:
                    f.put("x", mine + 100, start=(start,))
        with f.step():  # the next step reuses index 1 and commits
            f.put("x", mine + 10, start=(2 * comm.rank,))
    with tapio.open(path, "r", comm=comm, engine=engine) as f:
        assert f.nsteps == 2
        ranks = np.repeat(np.arange(comm.size, dtype=np.float64), 2)
        np.testing.assert_array_equal(f.get("x", step=0), ranks)
        np.testing.assert_array_equal(f.get("x", step=1), ranks + 10)


def test_a_block_that_raises_on_one_rank_fails_the_step_everywhere(shared_dir, comm, engine):
    path = f"{shared_dir}/raises.nc"
    last = comm.size - 1
    with tapio.open(path, "w", comm=comm, engine=engine) as f:
        f.define("x", (comm.size,), np.float64)
        raised = RuntimeError if comm.rank == last else tapio.Error
        with pytest.raises(raised) as failure:
            with f.step():
                f.put("x", np.full(1, comm.rank, np.float64), start=(comm.rank,))
                if comm.rank == last:
                    raise RuntimeError("NaN in the ocean")
        if comm.rank != last:
            assert (f"step 0 is not committed: rank {last} failed it" in str(failure.value)
                    and "RuntimeError: NaN in the ocean" in str(failure.value)), failure.value
        with f.step():
            f.put("x", np.full(1, comm.rank, np.float64), start=(comm.rank,))
    with tapio.open(path, "r", comm=comm, engine=engine) as f:
        assert f.nsteps == 1
        np.testing.assert_array_equal(f.get("x", step=0), np.arange(comm.size))


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
