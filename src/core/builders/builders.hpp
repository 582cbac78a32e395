// Declarations of every builder and generator; the catalogue
// (catalog.cpp) lists them with their names and restrictions.
// Builders take (params, rank) and return that rank's Program; generators
// take params and return all ranks' Programs.
#pragma once

#include <vector>

#include "../algorithm.hpp"

namespace patcoll::core {

// MPI_Reduce
Program reduce_linear(const Params &, int rank);

}  // namespace patcoll::core
