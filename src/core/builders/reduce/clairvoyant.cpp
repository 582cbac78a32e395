// reduce/clairvoyant — PAT-driven Clairvoyant schedule of N segments.
//
// Thin over the generator (clairvoyant_segtree, generators/; [M] §5, [PO] §4 (segment tree)): its schedule
// for the collective parameters (generators/scheduled.hpp), converted to
// Programs. Restrictions: commutative (segments combine in schedule order).
#include "../../generators/scheduled.hpp"
#include "../scheduled.hpp"

namespace patcoll::core {

using Clairvoyant = ScheduledBuilder<clairvoyant_segtree, clairvoyant_input>;
std::vector<Program> reduce_clairvoyant(const Params &params) { return Clairvoyant::all(params); }
FlatPrograms reduce_clairvoyant_flat(const Params &params) { return Clairvoyant::flat(params); }
Program reduce_clairvoyant_rank(const Params &params, int rank) { return Clairvoyant::rank(params, rank); }

}  // namespace patcoll::core
