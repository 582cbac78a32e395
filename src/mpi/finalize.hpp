// One MPI_Finalize hook for the library, the PAT runtime and the preload
// shim. MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI is
// still fully usable (MPI-3.1 §8.7.1): an attribute set there with
// `callback` as its delete function runs `callback` at that point. Header
// only, so the shim (a separate library) uses the same code.
#pragma once

#include <mpi.h>

namespace patcoll::mpi {

// Registers `callback` (MPI_Comm_delete_attr_function signature) to run at
// MPI_Finalize; the key is freed at once (the attribute keeps it alive).
inline int at_finalize(MPI_Comm_delete_attr_function *callback) {
  int keyval = MPI_KEYVAL_INVALID;
  int rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, callback, &keyval, nullptr);
  if (rc == MPI_SUCCESS) rc = PMPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr);
  if (keyval != MPI_KEYVAL_INVALID) PMPI_Comm_free_keyval(&keyval);
  return rc;
}

}  // namespace patcoll::mpi
