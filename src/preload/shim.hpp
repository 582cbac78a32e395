// The shim's one entry for a collective call, with the call site passed in
// (the C entry points of preload.cpp and the Fortran ones of fortran.cpp
// take the caller's return address).
#pragma once

#include <mpi.h>

#include <memory>

#include "mpi/handle.hpp"

namespace patcoll::preload {

int serve_call(const mpi::NativeCall &call, const void *site);

// MPI_I<coll> (persistent false) and MPI_<Coll>_init (true): patcoll's run
// behind a proxy request (requests.cpp), or the MPI library's own call.
int serve_start(const mpi::NativeCall &call, bool persistent, MPI_Info info, MPI_Request *request);

// requests.cpp: a started (non-blocking) or prepared (persistent) run
// handed to the program as a proxy request.
int adopt(std::unique_ptr<mpi::Handle> handle, int collective, MPI_Comm comm, bool persistent, MPI_Request *request);
// A persistent collective's start, as the shim starts it (restrictions
// the call does not meet: the MPI library's own, said once).
int start_handle(mpi::Handle &handle);
// An error of a call the shim served, raised on `comm`'s error handler
// after one line naming it (PAT_Last_error()).
int raise_error(int collective, MPI_Comm comm, int rc);

}  // namespace patcoll::preload
