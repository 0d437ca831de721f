"""Writes particles with the Python binding, on every rank of MPI_COMM_WORLD
(tests/py/test_joined.py runs it at 1 to 8 ranks): python joined_writer.py PATH STEPS [ENGINE
[JOINED_RESERVE [FIRST]]], a subfile dataset by default, a CF ragged-array NetCDF file with
ENGINE collective (JOINED_RESERVE: its parameter joined_reserve, small to make the file grow;
"" for the default). STEPS -1 writes until killed, rank 0 printing `committed S` after each step
(test_joined's crash test). FIRST appends steps FIRST to FIRST + STEPS - 1 to PATH. Two species: electrons (pos n x 3, weight n) and ions (pos n), with counts that vary per
rank and step, some zero."""
import itertools
import sys

import numpy as np
from mpi4py import MPI

import tapio


def count_of(species, rank, step):
    if (rank + step + species) % 4 == 0:
        return 0
    return 3 + 5 * rank + 7 * step + 2 * species


def values(species, rank, step, n, width):
    base = species * 1e7 + rank * 1e4 + step * 1e2
    return (base + np.arange(n * width, dtype=np.float64) / 8).reshape((n, width) if width > 1 else (n,))


def main(path, steps, engine="subfile", reserve=None, first=None):
    comm = MPI.COMM_WORLD
    parameters = {"joined_reserve": reserve} if reserve else None
    mode = "w" if first is None else "a"
    first = int(first or 0)
    with tapio.open(path, mode, comm=comm, engine=engine, parameters=parameters) as f:
        if mode == "w":  # appending, the file's definitions are taken
            f.attrs["title"] = "joined arrays"
            f.define("e_pos", (0, 3), np.float64, dims=("electron", "xyz"), joined=True,
                     attrs={"units": "m"})
            f.define("e_weight", (0,), np.float64, dims=("electron",), joined=True)
            f.define("ion_x", (0,), np.float64, dims=("ion",), joined=True)
            f.define("energy", (), np.float64)
        for s in range(first, first + steps) if steps >= 0 else itertools.count():
            with f.step():
                n = count_of(0, comm.rank, s)
                f.put("e_pos", values(0, comm.rank, s, n, 3))
                f.put("e_weight", values(1, comm.rank, s, n, 1))
                f.put("ion_x", values(2, comm.rank, s, count_of(2, comm.rank, s), 1))
                if comm.rank == 0:
                    f.put("energy", np.float64(s * 0.5))
            if steps < 0 and comm.rank == 0:
                print(f"committed {s}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), *sys.argv[3:])
