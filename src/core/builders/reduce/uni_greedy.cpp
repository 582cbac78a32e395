// reduce/uni_greedy — Lowery–Langou greedy pipelined reduction, unidirectional ports.
//
// Thin over the generator (uni_greedy, generators/; [LL] Algorithm 1): its schedule
// for the collective parameters (generators/scheduled.hpp), converted to
// Programs. Restrictions: commutative (segments combine in schedule order).
#include "../../generators/scheduled.hpp"
#include "../scheduled.hpp"

namespace patcoll::core {

using UniGreedy = ScheduledBuilder<uni_greedy, greedy_input>;
std::vector<Program> reduce_uni_greedy(const Params &params) { return UniGreedy::all(params); }
FlatPrograms reduce_uni_greedy_flat(const Params &params) { return UniGreedy::flat(params); }
Program reduce_uni_greedy_rank(const Params &params, int rank) { return UniGreedy::rank(params, rank); }

}  // namespace patcoll::core
