// The schedule-based reduces of the catalogue: turn collective parameters
// into a generator input, generate, convert to Programs.
//   clairvoyant  N segments (schedule_segment_count), d = α + B(β + γ) for
//                the largest segment of B bytes ([M] §5.2), PATs from
//                Params::arrivals; the segment-tree generator.
//   uni_greedy / bi_greedy  t_comm = α + βs, t_comp = γs, same N and PATs;
//                Params::segment_sizes gives each segment its own s.
// Restrictions: commutative ops (segments combine in schedule order).
#include "scheduled.hpp"

#include <algorithm>

#include "clairvoyant.hpp"
#include "greedy.hpp"
#include "../pat.hpp"

namespace patcoll::core {
namespace {

std::vector<double> arrivals_for(const Params &params) {
  if (params.arrivals.size() == static_cast<std::size_t>(params.procs)) return params.arrivals;
  return {};
}

GreedyInput greedy_input(const Params &params) {
  GreedyInput input;
  input.procs = params.procs;
  input.segments = static_cast<int>(schedule_segment_count(params));
  input.arrivals = arrivals_for(params);
  input.alpha = params.cost.alpha;
  input.beta = params.cost.beta;
  input.gamma = params.cost.gamma;
  input.segment_bytes = schedule_segment_bytes(params, input.segments);
  if (params.segment_sizes.size() == static_cast<std::size_t>(input.segments))
    for (std::int64_t size : params.segment_sizes)
      input.segment_bytes_each.push_back(static_cast<double>(size) * static_cast<double>(params.element_bytes));
  input.root = params.root;
  return input;
}

}  // namespace

ClairvoyantInput clairvoyant_input(const Params &params) {
  ClairvoyantInput input;
  input.procs = params.procs;
  input.segments = static_cast<int>(schedule_segment_count(params));
  input.arrivals = arrivals_for(params);
  input.round_time = round_time(params);
  if (!(input.round_time > 0)) input.round_time = 1, input.arrivals.clear();  // no cost model: balanced
  if (!input.arrivals.empty()) {  // keep rounds in int range: coarser rounds for absurd spreads
    const auto [lo, hi] = std::minmax_element(input.arrivals.begin(), input.arrivals.end());
    input.round_time = std::max(input.round_time, (*hi - *lo) / (kMaxArrivalSpreadRounds / 2));
  }
  input.root = params.root;
  input.join = params.clairvoyant_join;
  return input;
}

std::vector<Program> reduce_clairvoyant(const Params &params) {
  return schedule_to_programs(clairvoyant_segtree(clairvoyant_input(params)), params);
}
std::vector<Program> reduce_uni_greedy(const Params &params) {
  return schedule_to_programs(uni_greedy(greedy_input(params)), params);
}
std::vector<Program> reduce_bi_greedy(const Params &params) {
  return schedule_to_programs(bi_greedy(greedy_input(params)), params);
}

// Straight into the simulator's form: the same steps as above.
FlatPrograms reduce_clairvoyant_flat(const Params &params) {
  return schedule_to_flat(clairvoyant_segtree(clairvoyant_input(params)), params);
}
FlatPrograms reduce_uni_greedy_flat(const Params &params) {
  return schedule_to_flat(uni_greedy(greedy_input(params)), params);
}
FlatPrograms reduce_bi_greedy_flat(const Params &params) {
  return schedule_to_flat(bi_greedy(greedy_input(params)), params);
}

// One rank: the generator still schedules every rank (that is what it
// decides), but only this rank's transfers become a Program.
Program reduce_clairvoyant_rank(const Params &params, int rank) {
  return schedule_to_program(clairvoyant_segtree(clairvoyant_input(params)), params, rank);
}
Program reduce_uni_greedy_rank(const Params &params, int rank) {
  return schedule_to_program(uni_greedy(greedy_input(params)), params, rank);
}
Program reduce_bi_greedy_rank(const Params &params, int rank) {
  return schedule_to_program(bi_greedy(greedy_input(params)), params, rank);
}

}  // namespace patcoll::core
