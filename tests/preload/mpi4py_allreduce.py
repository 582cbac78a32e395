"""An mpi4py program run under libpatcoll-preload.so (run_tests.sh python).

Buffer-based Allreduce and Reduce (mpi4py's upper-case methods call
MPI_Allreduce / MPI_Reduce; the lower-case ones pickle objects and use
other MPI calls). array.array buffers: no numpy needed. Results are exact
(sums of small integers in doubles, integer max). Prints one line per rank:
"mpi4py rank R: N passed, F failed".
"""
from array import array

from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
passed = failed = 0


def check(ok):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1


total = size * (size + 1) // 2
for count in (1, 7, 1000, 1 << 16):
    send = array("d", [float((rank + 1) * (i % 97 + 1)) for i in range(count)])
    recv = array("d", [0.0]) * count
    comm.Allreduce([send, MPI.DOUBLE], [recv, MPI.DOUBLE], op=MPI.SUM)
    check(all(recv[i] == total * (i % 97 + 1) for i in range(count)))

    isend = array("i", [rank * 1000 + i for i in range(count)])
    irecv = array("i", [0]) * count
    comm.Allreduce([isend, MPI.INT], [irecv, MPI.INT], op=MPI.MAX)
    check(all(irecv[i] == (size - 1) * 1000 + i for i in range(count)))

    root = count % size
    rrecv = array("d", [0.0]) * count
    comm.Reduce([send, MPI.DOUBLE], [rrecv, MPI.DOUBLE] if rank == root else None, op=MPI.SUM, root=root)
    if rank == root:
        check(all(rrecv[i] == total * (i % 97 + 1) for i in range(count)))

# In place, as numpy codes often call it.
inplace = array("d", [float(rank + 1)] * 10)
comm.Allreduce(MPI.IN_PLACE, [inplace, MPI.DOUBLE], op=MPI.SUM)
check(all(v == total for v in inplace))

print("mpi4py rank %d: %d passed, %d failed" % (rank, passed, failed), flush=True)
