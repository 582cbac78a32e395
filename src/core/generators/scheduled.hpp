// The generator inputs of the schedule-based reduces of the catalogue
// (builders/reduce/clairvoyant.cpp, uni_greedy.cpp, bi_greedy.cpp): the
// collective parameters turned into what the Clairvoyant ([M], [PO]) and
// Lowery–Langou ([LL]) generators take. The generators themselves are
// declared in clairvoyant.hpp and greedy.hpp in this folder.
#pragma once

#include <vector>

#include "../algorithm.hpp"
#include "../flat.hpp"
#include "clairvoyant.hpp"
#include "greedy.hpp"
#include "schedule.hpp"

namespace patcoll::core {

// Clairvoyant: N segments (schedule_segment_count), d = α + B(β + γ) for
// the largest segment of B bytes ([M] §5.2), PATs from Params::arrivals.
ClairvoyantInput clairvoyant_input(const Params &);
// uni_greedy / bi_greedy: t_comm = α + βs, t_comp = γs, same N and PATs;
// Params::segment_sizes gives each segment its own s.
GreedyInput greedy_input(const Params &);

// The three forms of a catalogue row over generator `generate` fed by
// `input`: every rank's Programs, the simulator's flat form (the same
// steps), and one rank's Program (the generator still schedules every
// rank: that is what it decides; only this rank's transfers are kept).
template <auto generate, auto input>
struct ScheduledBuilder {
  static std::vector<Program> all(const Params &params) { return schedule_to_programs(generate(input(params)), params); }
  static FlatPrograms flat(const Params &params) { return schedule_to_flat(generate(input(params)), params); }
  static Program rank(const Params &params, int rank) {
    return schedule_to_program(generate(input(params)), params, rank);
  }
};

}  // namespace patcoll::core
