// MPI_Bcast's builders (one file each under builders/bcast/). A broadcast
// has one logical buffer, recv, at every rank: the root's holds the data,
// every other rank's receives it (core/traits.cpp).
#pragma once

#include <vector>

#include "../algorithm.hpp"
#include "../flat.hpp"

namespace patcoll::core {

// Classic
Program bcast_linear(const Params &, int rank);
Program bcast_binomial(const Params &, int rank);
Program bcast_chain(const Params &, int rank);
Program bcast_binary(const Params &, int rank);
Program bcast_scatter_allgather(const Params &, int rank);

// PAP-aware
Program bcast_sorted_binomial(const Params &, int rank);
std::vector<Program> bcast_sorted_binomial_all(const Params &);  // one plan for every rank
std::vector<Program> bcast_clairvoyant(const Params &);          // generators/bcast_greedy.cpp
// The segment count bcast_clairvoyant uses: Params' when it fixes one, else
// the candidate whose greedy schedule completes first.
std::int64_t bcast_clairvoyant_segments(const Params &);
Program bcast_clairvoyant_rank(const Params &, int rank);

}  // namespace patcoll::core
