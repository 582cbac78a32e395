// The shim's collectives with the call site passed in (the C entry points
// and the Fortran ones, fortran.cpp, take the caller's return address).
#pragma once

#include <mpi.h>

namespace patcoll::preload {

int shim_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm, const void *site);
int shim_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   const void *site);
int shim_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, const void *site);
int shim_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, const void *site);

}  // namespace patcoll::preload
