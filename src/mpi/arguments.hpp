// Argument checks of the collectives with the MPI standard's error classes,
// shared by the C API's foreground collectives (patcoll.cpp) and the PAT
// runtime's background collectives (runtime/background.cpp). Every check
// runs before any buffer is touched or any message sent.
#pragma once

#include <mpi.h>

#include "core/ir.hpp"
#include "mpi/datatype.hpp"

namespace patcoll::mpi {

int check_type(MPI_Datatype type, const char *which);

// A null buffer is an error when it would be addressed (count > 0) and the
// datatype does not use absolute addresses (MPI_BOTTOM).
int check_buffer(const void *buffer, int count, const TypeInfo &type, const char *which);

// MPI_ERR_BUFFER when the memory of `a_count` elements at `a` and of
// `b_count` at `b` overlaps (send and receive buffers that alias without
// MPI_IN_PLACE).
int check_disjoint(const void *a, std::int64_t a_count, const TypeInfo &a_type, const void *b, std::int64_t b_count,
                   const TypeInfo &b_type);

// A scatter or gather call, checked: the side every rank has (scatter:
// recv; gather: send) and the root's whole-communicator side.
struct MovementArguments {
  bool scatter = true;
  bool is_root = false;
  bool in_place = false;       // MPI_IN_PLACE at the root
  const void *own_buffer = nullptr;
  int own_count = 0;
  TypeInfo own;                // described unless in_place
  const void *whole_buffer = nullptr;
  int whole_count = 0;         // per rank
  TypeInfo whole;              // described at the root
  long long block = 0;         // bytes per rank: the root's whole side, else the own side
};

// MPI_ERR_ROOT, MPI_ERR_BUFFER (MPI_IN_PLACE off the root, NULL buffers),
// MPI_ERR_COUNT, MPI_ERR_TYPE, MPI_ERR_TRUNCATE (root's two sides differ), overlapping
// buffers at the root.
int check_movement(core::Collective collective, int rank, int size, const void *sendbuf, int sendcount,
                   MPI_Datatype sendtype, const void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                   MovementArguments &out);

}  // namespace patcoll::mpi
