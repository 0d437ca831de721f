"""bands in Python (tapio with numpy and mpi4py): the program of bands.c — write a file, or
read one that the C, C++, Fortran or Python version wrote and check every value.

    mpiexec -n N python bands.py write|read PATH [ENGINE]
"""
import sys

import numpy as np
from mpi4py import MPI

import tapio

NY, NX, NCELL, STEPS = 8, 6, 12, 3
comm = MPI.COMM_WORLD
rank, size = comm.rank, comm.size


def band(total):
    """This rank's part [first, first + n) of total."""
    first = total * rank // size
    return first, total * (rank + 1) // size - first


def write(path, engine):
    r0, nr = band(NY)
    cells = np.arange(NCELL)[rank::size][::-1].copy()  # an irregular map, in any order
    with tapio.open(path, "w", comm=comm, engine=engine) as f:
        f.attrs["title"] = "tapio bands"
        f.define("t", (NY, NX), np.float64, dims=("y", "x"), attrs={"units": "K"})
        f.define("cells", (NCELL,), np.int32, dims=("cell",))
        for s in range(STEPS):
            rows = 1000.0 * s + np.arange(r0 * NX, (r0 + nr) * NX).reshape(nr, NX)
            with f.step():
                f.put("t", rows, start=(r0, 0))  # zero-copy: rows stays alive until the step ends
                f.put("cells", (100 * s + cells).astype(np.int32), offsets=cells)
    return 0


def read(path, engine):
    c0, nc = band(NX)
    cells = np.arange(NCELL)[rank::size]
    bad = 0
    with tapio.open(path, "r", comm=comm, engine=engine) as f:
        bad += f.attrs["title"] != "tapio bands"
        bad += f["t"].attrs["units"] != "K"
        for s in f.steps():
            cols = f.get("t", start=(0, c0), count=(NY, nc))
            want = 1000.0 * s + np.arange(NY * NX).reshape(NY, NX)[:, c0:c0 + nc]
            bad += int(np.count_nonzero(cols != want))
            bad += int(np.count_nonzero(f.get("cells", offsets=cells) != 100 * s + cells))
        bad += f.nsteps != STEPS
    return bad


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("write", "read"):
        print("usage: bands.py write|read PATH [ENGINE]", file=sys.stderr)
        return 2
    mode, path = sys.argv[1], sys.argv[2]
    engine = sys.argv[3] if len(sys.argv) > 3 else None
    bad = comm.allreduce(write(path, engine) if mode == "write" else read(path, engine))
    if rank == 0:
        print(f"bands (Python): {mode} {path}: {'WRONG VALUES' if bad else 'ok'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
