// reduce/clairvoyant — PAT-driven Clairvoyant schedule of N segments ([M] §5, [PO] segment tree).
//
// Builds every rank's Program from the generator's schedule (clairvoyant_segtree,
// generators/); one rank's Program is that rank's transfers of the same
// schedule (the generator still schedules every rank: that is what it
// decides). Restrictions: commutative (segments combine in schedule order).
#include "../../generators/scheduled.hpp"
#include "../scheduled.hpp"

namespace patcoll::core {

std::vector<Program> reduce_clairvoyant(const Params &params) { return schedule_to_programs(clairvoyant_segtree(clairvoyant_input(params)), params); }
FlatPrograms reduce_clairvoyant_flat(const Params &params) { return schedule_to_flat(clairvoyant_segtree(clairvoyant_input(params)), params); }
Program reduce_clairvoyant_rank(const Params &params, int rank) {
  return schedule_to_program(clairvoyant_segtree(clairvoyant_input(params)), params, rank);
}

}  // namespace patcoll::core
