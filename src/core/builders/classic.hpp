// Classic reduce and allreduce builders (one file each under
// builders/reduce/ and builders/allreduce/).
#pragma once

#include "../algorithm.hpp"

namespace patcoll::core {

// MPI_Reduce
Program reduce_linear(const Params &, int rank);

// MPI_Allreduce

}  // namespace patcoll::core
