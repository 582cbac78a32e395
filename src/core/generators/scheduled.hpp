// Schedule-based reduce algorithms: Clairvoyant ([M], [PO]) and the
// Lowery–Langou greedy reductions ([LL]). The generators themselves are
// declared in their own headers in this folder.
#pragma once

#include <vector>

#include "../algorithm.hpp"

namespace patcoll::core {

struct ClairvoyantInput;
// The Clairvoyant generator input the catalogue entry uses for `params`.
ClairvoyantInput clairvoyant_input(const Params &);

std::vector<Program> reduce_clairvoyant(const Params &);  // clairvoyant_segtree
std::vector<Program> reduce_uni_greedy(const Params &);   // [LL] Algorithm 1
std::vector<Program> reduce_bi_greedy(const Params &);    // [LL] Algorithm 2
// The same schedules, converted for one rank only (the MPI path).
Program reduce_clairvoyant_rank(const Params &, int rank);
Program reduce_uni_greedy_rank(const Params &, int rank);
Program reduce_bi_greedy_rank(const Params &, int rank);

}  // namespace patcoll::core
