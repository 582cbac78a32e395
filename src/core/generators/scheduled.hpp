// The generator inputs of the schedule-based reduces of the catalogue
// (builders/reduce/clairvoyant.cpp, uni_greedy.cpp, bi_greedy.cpp): the
// collective parameters turned into what the Clairvoyant ([M], [PO]) and
// Lowery–Langou ([LL]) generators take. The generators themselves are
// declared in clairvoyant.hpp and greedy.hpp in this folder.
#pragma once

#include "../algorithm.hpp"
#include "clairvoyant.hpp"
#include "greedy.hpp"

namespace patcoll::core {

// Clairvoyant: N segments (schedule_segment_count), d = α + B(β + γ) for
// the largest segment of B bytes ([M] §5.2), PATs from Params::arrivals.
ClairvoyantInput clairvoyant_input(const Params &);
// uni_greedy / bi_greedy: t_comm = α + βs, t_comp = γs, same N and PATs;
// Params::segment_sizes gives each segment its own s.
GreedyInput greedy_input(const Params &);

}  // namespace patcoll::core
