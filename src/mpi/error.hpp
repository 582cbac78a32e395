// One helper turns MPI failure into the returned error code, and keeps a
// thread-local description for PAT_Last_error().
#pragma once

#include <mpi.h>

#include <string>

namespace patcoll::mpi {

void set_last_error(std::string message);
const std::string &last_error();

// Returns `code` after recording `message` (for argument errors).
int fail(int code, std::string message);

// Evaluates an MPI call; on failure records where and returns the code
// from the enclosing function.
#define PATCOLL_MPI_CHECK(call)                                                  \
  do {                                                                           \
    const int patcoll_rc_ = (call);                                              \
    if (patcoll_rc_ != MPI_SUCCESS) return ::patcoll::mpi::mpi_failure(patcoll_rc_, #call); \
  } while (0)

int mpi_failure(int code, const char *what);

// MPI is initialised and not yet finalised.
bool mpi_usable();

}  // namespace patcoll::mpi
