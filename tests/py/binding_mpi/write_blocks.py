"""Writes the xarray tests' data on a 2 x 2 grid of ranks (run with mpiexec -n 4):
temp(time=2, y=32, x=32) float64, temp[s, j, i] = 1000 s + 32 j + i, as four 16 x 16 blocks
(2 KiB each) per step, plus the fixed coordinate x(x) = 0.5 i. One subfile dataset
(DIR/blocks) and one NetCDF file (DIR/blocks.nc), the same values.

    mpiexec -n 4 python write_blocks.py DIR
"""
import sys

import numpy as np
from mpi4py import MPI

import tapio

N, B, STEPS = 32, 16, 2


def values(step):
    return 1000.0 * step + np.arange(N * N, dtype=np.float64).reshape(N, N)


def write(path):
    comm = MPI.COMM_WORLD
    assert comm.size == 4, "run with 4 ranks"
    j0, i0 = B * (comm.rank // 2), B * (comm.rank % 2)
    with tapio.open(path, "w", comm=comm) as f:
        f.attrs["title"] = "blocks"
        f.define("temp", (N, N), np.float64, dims=("y", "x"), attrs={"units": "degC"})
        f.define("x", (N,), np.float64, dims=("x",), fixed=True)
        for s in range(STEPS):
            with f.step():
                f.put("temp", values(s)[j0:j0 + B, i0:i0 + B].copy(), start=(j0, i0))
                if comm.rank == 0 and s == 0:
                    f.put("x", 0.5 * np.arange(N))


if __name__ == "__main__":
    write(f"{sys.argv[1]}/blocks")
    write(f"{sys.argv[1]}/blocks.nc")
