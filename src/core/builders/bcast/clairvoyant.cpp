// bcast/clairvoyant — a pipelined broadcast scheduled from the PATs.
//
// Two schedules of generators/bcast_greedy.cpp, each for a few segment
// counts, and the one that completes first under the cost model and the
// predicted arrivals (simulated up to P = 256, the generators' estimate
// above): the greedy (segments flow from the root through
// every rank that holds them to ranks that have arrived, earliest
// transfer first, one send and one receive per rank at a time) and the
// chain over the ranks sorted by predicted arrival (root first, latest
// last: nobody waits behind a late rank). Segment counts: Params' when it
// fixes one, else N ∈ {1, N₀/8, N₀/4, N₀/2, N₀, 2N₀, 4N₀} (N₀ = the
// Clairvoyant reduce's N_opt) and the chain's ~32 KiB segments. Transfers one holder makes to one rank back
// to back travel as one message (schedule.hpp), so a late rank fed by one
// holder pays one α. Executing the schedule is correct whatever the real
// arrivals are (the validator proves it with wrong PATs too); wrong PATs
// only cost time.
// Cost: balanced, the better of the greedy's and the chain's pipeline,
// (P − 2 + N)(α + (m/N)β) for the chain; one non-root rank late by D
// beyond the others' completion: D + α + mβ, the bound
// (docs/results/bcast.md). Restrictions: none (pap_aware, schedule_based;
// no PATs = the balanced schedules, identical on every rank).
#include <algorithm>
#include <set>

#include "../bcast.hpp"
#include "../pap.hpp"
#include "../tree.hpp"
#include "../../simulate.hpp"
#include "../../generators/scheduled.hpp"

namespace patcoll::core {
namespace {

GreedyInput input_for(const Params &params, std::int64_t segments) {
  GreedyInput input = greedy_input(params);
  input.segments = static_cast<int>(segments);
  input.segment_bytes = schedule_segment_bytes(params, segments);
  input.segment_bytes_each.clear();
  if (!(input.alpha + input.beta * input.segment_bytes > 0)) input.alpha = 1e-6;  // no cost model: rounds
  return input;
}

constexpr int kSimulatedBcastProcs = 256;

// The root first, then every other rank in predicted arrival order.
std::vector<int> sorted_chain(const Params &params) {
  std::vector<int> order{params.root};
  for (int r : arrival_order(params))
    if (r != params.root) order.push_back(r);
  return order;
}

struct Plan {
  bool chain = false;
  std::int64_t segments = 1;
};

Schedule generate(const Params &params, const Plan &plan) {
  const GreedyInput input = input_for(params, plan.segments);
  return plan.chain ? bcast_chain(input, sorted_chain(params)) : bcast_greedy(input);
}

// Params' segment count when it fixes one, else the candidates; the shape
// and count whose schedule completes first (ties: the greedy, fewer segments).
Plan plan_for(const Params &params) {
  std::set<std::int64_t> counts{1};
  if (params.count > 1 && (params.segment_count > 0 || params.segment_elements > 0)) {
    counts = {schedule_segment_count(params)};
  } else if (params.count > 1) {
    const std::int64_t base = optimal_segment_count(params.cost, params.procs, params.count, params.element_bytes);
    for (std::int64_t n : {base / 8, base / 4, base / 2, base, 2 * base, 4 * base,
                           segments_for_bytes(params, kDefaultSegmentBytes)})
      counts.insert(std::clamp<std::int64_t>(n, 1, std::min<std::int64_t>(params.count, 4096)));
  }
  Plan best;
  double best_time = 0;
  bool first = true;
  for (bool chain : {false, true})
    for (std::int64_t n : counts) {
      const Plan plan{chain, n};
      const Schedule schedule = generate(params, plan);
      // The simulator's time of the Programs (merged messages included);
      // the generator's own estimate where simulating every candidate
      // would cost more than the schedule.
      const double time = params.procs <= kSimulatedBcastProcs
                              ? simulate(params, broadcast_schedule_to_programs(schedule, params)).run_time
                              : schedule.completion_time;
      if (first || time < best_time * (1 - 1e-9)) best = plan, best_time = time, first = false;
    }
  return best;
}

Schedule schedule_for(const Params &params) { return generate(params, plan_for(params)); }

}  // namespace

std::int64_t bcast_clairvoyant_segments(const Params &params) { return plan_for(params).segments; }

std::vector<Program> bcast_clairvoyant(const Params &params) {
  if (params.count == 0) {
    std::vector<Program> programs;
    for (int rank = 0; rank < params.procs; ++rank) programs.push_back(Program{rank, params.procs, 0, {}});
    return programs;
  }
  return broadcast_schedule_to_programs(schedule_for(params), params);
}

Program bcast_clairvoyant_rank(const Params &params, int rank) {
  if (params.count == 0) return Program{rank, params.procs, 0, {}};
  return broadcast_schedule_to_program(schedule_for(params), params, rank);
}

}  // namespace patcoll::core
