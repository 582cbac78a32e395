// reduce/bi_greedy — Lowery–Langou greedy pipelined reduction, bidirectional ports.
//
// Thin over the generator (bi_greedy, generators/; [LL] Algorithm 2): its schedule
// for the collective parameters (generators/scheduled.hpp), converted to
// Programs. Restrictions: commutative (segments combine in schedule order).
#include "../../generators/scheduled.hpp"
#include "../scheduled.hpp"

namespace patcoll::core {

using BiGreedy = ScheduledBuilder<bi_greedy, greedy_input>;
std::vector<Program> reduce_bi_greedy(const Params &params) { return BiGreedy::all(params); }
FlatPrograms reduce_bi_greedy_flat(const Params &params) { return BiGreedy::flat(params); }
Program reduce_bi_greedy_rank(const Params &params, int rank) { return BiGreedy::rank(params, rank); }

}  // namespace patcoll::core
