// The MPI signature kinds of core/collectives.def: for each kind, its
// argument list (PATCOLL_PARAMS_<kind>, with the names the MPI standard
// gives them), how those arguments make a NativeCall (PATCOLL_CALL_<kind>)
// and how a NativeCall gives them back to the MPI library
// (PATCOLL_PMPI_ARGS_<kind>). A new kind (all-to-all, the
// v-forms) is three macros here and its fields in NativeCall.
#pragma once

#include <mpi.h>

#include "handle.hpp"

// PATCOLL_UNIFORM_<kind>(c): the call of collective c where every rank
// passes `count` elements of `type` (per rank for a movement) from `send`
// to `recv`, with `op` and `root` where the kind has them (the benchmark's
// and the tests' generic call: mpi::uniform_call).

// MPI_Reduce's.
#define PATCOLL_PARAMS_rooted_reduction \
  const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm
#define PATCOLL_CALL_rooted_reduction(c)                                                              \
  ::patcoll::mpi::NativeCall {                                                                        \
    c, sendbuf, recvbuf, count, 0, datatype, MPI_DATATYPE_NULL, op, root, comm                        \
  }
#define PATCOLL_UNIFORM_rooted_reduction(c) \
  ::patcoll::mpi::NativeCall { c, send, recv, count, 0, type, MPI_DATATYPE_NULL, op, root, comm }
#define PATCOLL_PMPI_ARGS_rooted_reduction(n) n.sendbuf, n.recvbuf, n.sendcount, n.sendtype, n.op, n.root, n.comm

// MPI_Allreduce's.
#define PATCOLL_PARAMS_reduction \
  const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm
#define PATCOLL_CALL_reduction(c)                                                                     \
  ::patcoll::mpi::NativeCall {                                                                        \
    c, sendbuf, recvbuf, count, 0, datatype, MPI_DATATYPE_NULL, op, 0, comm                           \
  }
#define PATCOLL_UNIFORM_reduction(c) \
  ::patcoll::mpi::NativeCall { c, send, recv, count, 0, type, MPI_DATATYPE_NULL, op, 0, comm }
#define PATCOLL_PMPI_ARGS_reduction(n) n.sendbuf, n.recvbuf, n.sendcount, n.sendtype, n.op, n.comm

// MPI_Scatter's and MPI_Gather's.
#define PATCOLL_PARAMS_rooted_movement                                                                \
  const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,            \
      MPI_Datatype recvtype, int root, MPI_Comm comm
#define PATCOLL_CALL_rooted_movement(c)                                                               \
  ::patcoll::mpi::NativeCall {                                                                        \
    c, sendbuf, recvbuf, sendcount, recvcount, sendtype, recvtype, MPI_OP_NULL, root, comm            \
  }
#define PATCOLL_UNIFORM_rooted_movement(c) \
  ::patcoll::mpi::NativeCall { c, send, recv, count, count, type, type, MPI_OP_NULL, root, comm }
#define PATCOLL_PMPI_ARGS_rooted_movement(n) \
  n.sendbuf, n.sendcount, n.sendtype, n.recvbuf, n.recvcount, n.recvtype, n.root, n.comm

// MPI_Allgather's.
#define PATCOLL_PARAMS_all_gather                                                                     \
  const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,            \
      MPI_Datatype recvtype, MPI_Comm comm
#define PATCOLL_CALL_all_gather(c)                                                                    \
  ::patcoll::mpi::NativeCall {                                                                        \
    c, sendbuf, recvbuf, sendcount, recvcount, sendtype, recvtype, MPI_OP_NULL, 0, comm               \
  }
#define PATCOLL_UNIFORM_all_gather(c) \
  ::patcoll::mpi::NativeCall { c, send, recv, count, count, type, type, MPI_OP_NULL, 0, comm }
#define PATCOLL_PMPI_ARGS_all_gather(n) \
  n.sendbuf, n.sendcount, n.sendtype, n.recvbuf, n.recvcount, n.recvtype, n.comm

// MPI_Allgatherv's: recvcounts and displs (NativeCall's recvcounts, rdispls).
// The uniform call's arrays (every count `count`, packed displacements)
// live in thread-local storage (uniform_v_counts, call.cpp) until the next
// uniform call on the thread.
#define PATCOLL_PARAMS_all_gather_v                                                                   \
  const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],   \
      const int displs[], MPI_Datatype recvtype, MPI_Comm comm
#define PATCOLL_CALL_all_gather_v(c)                                                                  \
  ::patcoll::mpi::NativeCall {                                                                        \
    c, sendbuf, recvbuf, sendcount, 0, sendtype, recvtype, MPI_OP_NULL, 0, comm, nullptr, nullptr,    \
        recvcounts, displs                                                                            \
  }
#define PATCOLL_UNIFORM_all_gather_v(c)                                                               \
  ::patcoll::mpi::uniform_v_call(                                                                     \
      ::patcoll::mpi::NativeCall { c, send, recv, count, count, type, type, MPI_OP_NULL, 0, comm })
#define PATCOLL_PMPI_ARGS_all_gather_v(n) \
  n.sendbuf, n.sendcount, n.sendtype, n.recvbuf, n.recvcounts, n.rdispls, n.recvtype, n.comm

namespace patcoll::mpi {
// A uniform call of a v-form: `call` with its count arrays set to every
// rank `call.recvcount`, packed (thread-local storage, call.cpp).
NativeCall uniform_v_call(NativeCall call);
}  // namespace patcoll::mpi

// MPI_Bcast's: one buffer, the root's sent and every other rank's
// received; the NativeCall carries it as both sendbuf and recvbuf, the
// count and datatype as both the send and the receive ones.
#define PATCOLL_PARAMS_broadcast void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm
#define PATCOLL_CALL_broadcast(c)                                                                     \
  ::patcoll::mpi::NativeCall {                                                                        \
    c, buffer, buffer, count, count, datatype, datatype, MPI_OP_NULL, root, comm                      \
  }
#define PATCOLL_UNIFORM_broadcast(c) \
  ::patcoll::mpi::NativeCall { c, recv, recv, count, count, type, type, MPI_OP_NULL, root, comm }
#define PATCOLL_PMPI_ARGS_broadcast(n) n.recvbuf, n.recvcount, n.recvtype, n.root, n.comm

// MPI_Alltoall's: MPI_Allgather's argument list.
#define PATCOLL_PARAMS_all_to_all PATCOLL_PARAMS_all_gather
#define PATCOLL_CALL_all_to_all(c) PATCOLL_CALL_all_gather(c)
#define PATCOLL_UNIFORM_all_to_all(c) PATCOLL_UNIFORM_all_gather(c)
#define PATCOLL_PMPI_ARGS_all_to_all(n) PATCOLL_PMPI_ARGS_all_gather(n)

// MPI_Alltoallv's. The uniform call passes every rank `count` elements at
// packed displacements (arrays of the calling thread, uniform_counts).
#define PATCOLL_PARAMS_all_to_all_v                                                                   \
  const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,            \
      void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm
#define PATCOLL_CALL_all_to_all_v(c)                                                                  \
  ::patcoll::mpi::NativeCall {                                                                        \
    c, sendbuf, recvbuf, 0, 0, sendtype, recvtype, MPI_OP_NULL, 0, comm, sendcounts, sdispls,         \
        recvcounts, rdispls                                                                           \
  }
#define PATCOLL_UNIFORM_all_to_all_v(c)                                                               \
  ::patcoll::mpi::NativeCall {                                                                        \
    c, send, recv, 0, 0, type, type, MPI_OP_NULL, 0, comm, ::patcoll::mpi::uniform_counts(comm, count), \
        ::patcoll::mpi::uniform_displacements(comm, count), ::patcoll::mpi::uniform_counts(comm, count), \
        ::patcoll::mpi::uniform_displacements(comm, count)                                            \
  }
#define PATCOLL_PMPI_ARGS_all_to_all_v(n)                                                             \
  n.sendbuf, n.sendcounts, n.sdispls, n.sendtype, n.recvbuf, n.recvcounts, n.rdispls, n.recvtype, n.comm

namespace patcoll::mpi {
// `count` for every rank of comm, and the packed displacements 0, count,
// 2·count, …: arrays of the calling thread, valid until its next call.
const int *uniform_counts(MPI_Comm comm, int count);
const int *uniform_displacements(MPI_Comm comm, int count);
}  // namespace patcoll::mpi
