// bcast/clairvoyant — a pipelined broadcast scheduled from the PATs.
//
// The schedule is generators/bcast_greedy.cpp's: segments flow from the
// root through every rank that holds them to ranks that have arrived,
// earliest transfer first, one send and one receive per rank at a time;
// a late rank receives its segments back to back from ranks that already
// hold them, so the early ranks never wait for it. The segment count is
// Params' when it fixes one; otherwise the candidate N ∈ {1, N₀/8, N₀/4,
// N₀/2, N₀, 2N₀} (N₀ = the Clairvoyant reduce's N_opt) whose schedule
// completes first under the cost model: fewer, larger segments when a late
// rank's own receive dominates, more when the pipeline's fill does.
// Executing the schedule is correct whatever the real arrivals are (the
// validator proves it with wrong PATs too); wrong PATs only cost time.
// Cost: balanced ≈ (N + ⌈log2 P⌉ − 1)(α + (m/N)β); one non-root rank
// late by D beyond the others' completion: D + N'α + mβ (N' its
// segments). Restrictions: none (pap_aware, schedule_based; no PATs = the
// balanced pipeline, identical on every rank).
#include <algorithm>
#include <set>

#include "../bcast.hpp"
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

Schedule schedule_for(const Params &params) { return bcast_greedy(input_for(params, bcast_clairvoyant_segments(params))); }

}  // namespace

std::int64_t bcast_clairvoyant_segments(const Params &params) {
  if (params.count <= 1) return 1;
  if (params.segment_count > 0 || params.segment_elements > 0) return schedule_segment_count(params);
  const std::int64_t base = optimal_segment_count(params.cost, params.procs, params.count, params.element_bytes);
  std::set<std::int64_t> candidates{1};
  for (std::int64_t n : {base / 8, base / 4, base / 2, base, 2 * base})
    candidates.insert(std::clamp<std::int64_t>(n, 1, std::min<std::int64_t>(params.count, 4096)));
  std::int64_t best = 1;
  double best_time = 0;
  for (std::int64_t n : candidates) {
    const double time = bcast_greedy(input_for(params, n)).completion_time;
    if (n == 1 || time < best_time * (1 - 1e-9)) best = n, best_time = time;
  }
  return best;
}

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
