// The schedule-based reduces of the catalogue: Clairvoyant ([M], [PO]) and
// the Lowery–Langou greedy reductions ([LL]), one file each under
// builders/reduce/, thin over the generators (generators/scheduled.hpp
// turns Params into their inputs).
#pragma once

#include <vector>

#include "../algorithm.hpp"
#include "../flat.hpp"

namespace patcoll::core {

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
