"""Writes the LICOM-like fields (licom_fields.py) to a subfile dataset on every rank of a 2-D
process grid over (lat, lon), with the `operator` parameter given; STEPS steps.

    mpiexec -n N python operators_write.py PATH OPERATOR [ENGINE]

A tapio error is printed by every rank that gets it ("rank R: ...") and exits 1."""
import sys

import numpy as np
from mpi4py import MPI

import tapio
from licom_fields import NX, NY, NZ, STEPS, VARIABLES, field


def main(path, operator, engine):
    comm = MPI.COMM_WORLD
    py, px = MPI.Compute_dims(comm.size, 2)
    r, c = divmod(comm.rank, px)
    j0, j1 = NY * r // py, NY * (r + 1) // py
    i0, i1 = NX * c // px, NX * (c + 1) // px
    try:
        with tapio.open(path, "w", comm=comm, engine=engine,
                        parameters={"operator": operator}) as f:
            for name, (dims, dtype) in VARIABLES.items():
                shape = (NZ, NY, NX)[3 - len(dims):]
                f.define(name, shape, dtype, dims=dims)
            for s in range(STEPS):
                with f.step():
                    for name, (dims, _) in VARIABLES.items():
                        box = np.ascontiguousarray(field(name, s)[..., j0:j1, i0:i1])
                        start = (0, j0, i0)[3 - len(dims):]
                        f.put(name, box, start=start)
    except tapio.Error as e:
        print(f"rank {comm.rank}: {e}", flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "subfile"))
