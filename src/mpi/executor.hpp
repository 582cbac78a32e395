// The one MPI executor: runs a core::Program with MPI_Isend/MPI_Irecv/
// MPI_Waitall and MPI_Reduce_local, following the step semantics of
// core/ir.hpp exactly (local ops; post in op order; wait; apply combining
// receives in op order). Scratch and staging memory are allocated once per
// call, never per step.
#pragma once

#include <mpi.h>

#include "core/ir.hpp"
#include "datatype.hpp"

namespace patcoll::mpi {

struct ExecutionBuffers {
  const void *send = nullptr;  // the user's send buffer (never written)
  void *recv = nullptr;        // the user's receive buffer
};

struct ExecutionContext {
  MPI_Comm comm = MPI_COMM_NULL;  // patcoll's private duplicate
  int tag = 0;                    // this call's tag
  MPI_Op op = MPI_OP_NULL;        // MPI_OP_NULL for scatter/gather
  TypeInfo type;
};

int execute(const core::Program &, const ExecutionBuffers &, const ExecutionContext &);

}  // namespace patcoll::mpi
