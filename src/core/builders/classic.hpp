// Classic reduce and allreduce builders (one file each under
// builders/reduce/ and builders/allreduce/).
#pragma once

#include "../algorithm.hpp"

namespace patcoll::core {

// MPI_Reduce
Program reduce_linear(const Params &, int rank);
Program reduce_chain(const Params &, int rank);
Program reduce_binary(const Params &, int rank);
Program reduce_binomial(const Params &, int rank);
Program reduce_ring(const Params &, int rank);
Program reduce_rabenseifner(const Params &, int rank);
Program reduce_radix_k(const Params &, int rank);

// MPI_Allreduce
Program allreduce_ring(const Params &, int rank);
Program allreduce_rabenseifner(const Params &, int rank);
Program allreduce_recursive_doubling(const Params &, int rank);
Program allreduce_linear_tree(const Params &, int rank);

}  // namespace patcoll::core
