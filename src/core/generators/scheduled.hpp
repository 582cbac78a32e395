// Schedule-based reduce algorithms: Clairvoyant ([M], [PO]) and the
// Lowery–Langou greedy reductions ([LL]). The generators themselves are
// declared in their own headers in this folder.
#pragma once

#include <vector>

#include "../algorithm.hpp"
#include "../flat.hpp"

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
// The same steps, every rank, in the simulator's form (Algorithm::build_flat).
FlatPrograms reduce_clairvoyant_flat(const Params &);
FlatPrograms reduce_uni_greedy_flat(const Params &);
FlatPrograms reduce_bi_greedy_flat(const Params &);

}  // namespace patcoll::core
