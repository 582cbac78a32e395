// The generator inputs of the schedule-based reduces (scheduled.hpp).
#include "scheduled.hpp"

#include <algorithm>

#include "../pat.hpp"

namespace patcoll::core {
namespace {

std::vector<double> arrivals_for(const Params &params) {
  if (params.arrivals.size() == static_cast<std::size_t>(params.procs)) return params.arrivals;
  return {};
}

}  // namespace

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

}  // namespace patcoll::core
