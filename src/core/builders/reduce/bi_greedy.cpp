// reduce/bi_greedy — Lowery–Langou greedy pipelined reduction, bidirectional ports ([LL] Alg. 2).
//
// Builds every rank's Program from the generator's schedule (bi_greedy,
// generators/); one rank's Program is that rank's transfers of the same
// schedule (the generator still schedules every rank: that is what it
// decides). Restrictions: commutative (segments combine in schedule order).
#include "../../generators/scheduled.hpp"
#include "../scheduled.hpp"

namespace patcoll::core {

std::vector<Program> reduce_bi_greedy(const Params &params) { return schedule_to_programs(bi_greedy(greedy_input(params)), params); }
FlatPrograms reduce_bi_greedy_flat(const Params &params) { return schedule_to_flat(bi_greedy(greedy_input(params)), params); }
Program reduce_bi_greedy_rank(const Params &params, int rank) {
  return schedule_to_program(bi_greedy(greedy_input(params)), params, rank);
}

}  // namespace patcoll::core
