// Which (predefined op, datatype) pairs a reduction accepts, decided before
// any data moves. MPI_Reduce_local with a pair MPI rejects does not return
// an error code under the default error handler: Open MPI and MPICH call
// MPI_ERRORS_ARE_FATAL and the job dies. The table follows MPI-3.1 §5.9.2
// (the groups "C integer", "Fortran integer", "Floating point", "Logical",
// "Complex", "Byte", "Multi-language types" and the MINLOC/MAXLOC pair
// types of §5.9.4), so it answers the same under every MPI library.
#pragma once

#include <mpi.h>

#include <string>

namespace patcoll::mpi {

// MPI_SUCCESS, or MPI_ERR_OP with a message saying which pair was refused.
// User-defined ops accept every datatype (the user function decides).
// Predefined ops accept only the predefined datatypes of their groups (and
// the Fortran 90 parameterised types); a derived datatype with a predefined
// op is refused, as MPI-3.1 §5.9.2 says ("predefined operators work only
// with the MPI types listed") and as Open MPI enforces at run time.
int check_op_datatype(MPI_Op op, MPI_Datatype datatype);

}  // namespace patcoll::mpi
