// The helpers of mpi_test.hpp that change the library's configuration
// (core/config.hpp's registry, read once per process): only for drivers
// linked with the library's own copy of core (patcoll_internal). A driver
// of the public libpatcoll.so (tests/runtime) does not compile this file,
// so it cannot reload a second, unused copy of the registry by mistake.
#include <cstdlib>

#include "core/config.hpp"
#include "mpi_test.hpp"

namespace patcoll::test {

void sweep_communicators(const std::function<void(MPI_Comm, bool)> &matrix) {
  int world_rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm split;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_rank, &split);
  for (MPI_Comm comm : {MPI_COMM_WORLD, split}) matrix(comm, false);
  set_configuration("PATCOLL_SEGMENT_BYTES", "64");
  matrix(MPI_COMM_WORLD, true);
  set_configuration("PATCOLL_SEGMENT_BYTES", nullptr);
  MPI_Comm_free(&split);
}

void set_configuration(const char *name, const char *value) {
  if (value) setenv(name, value, 1);
  else unsetenv(name);
  patcoll::core::config::reload();
}

}  // namespace patcoll::test
