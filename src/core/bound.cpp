#include "bound.hpp"

#include <algorithm>

namespace patcoll::core {

BoundCost BoundCost::model(const CostModel &cost) {
  return {[cost](double bytes) { return cost.transfer_time(bytes); },
          [cost](double bytes) { return cost.gamma * bytes; }};
}

BoundCost BoundCost::measured(double transfer_seconds, double combine_seconds, double probe_bytes) {
  auto scaled = [probe_bytes](double seconds) {
    return [seconds, probe_bytes](double bytes) {
      return probe_bytes > 0 && bytes < probe_bytes ? seconds * (bytes / probe_bytes) : seconds;
    };
  };
  return {scaled(transfer_seconds), scaled(combine_seconds)};
}

namespace {

std::vector<double> arrivals_of(const Params &params) {
  if (!params.arrivals.empty()) return params.arrivals;
  return std::vector<double>(static_cast<std::size_t>(std::max(params.procs, 1)), 0.0);
}

double message_bytes(const Params &params) {
  return static_cast<double>(params.count) * static_cast<double>(params.element_bytes);
}

// Every rank exits no earlier than the latest arrival plus `after`.
BoundTimes after_latest_arrival(const std::vector<double> &pat, double after) {
  BoundTimes times;
  if (pat.empty()) return times;
  const double first = *std::min_element(pat.begin(), pat.end());
  const double last = *std::max_element(pat.begin(), pat.end());
  double waiting = 0;
  for (double a : pat) {
    waiting += last - a;
    times.elapsed.push_back(last - a + after);
  }
  times.run_time = last - first + after;
  times.average_elapsed = waiting / static_cast<double>(pat.size()) + after;
  return times;
}

}  // namespace

// Reduce: once the last rank has arrived its m bytes must still leave it
// (or, at the root, another rank's data must reach it) and be combined:
// one transfer of m bytes and one reduction of m bytes (the "physical
// limit"). Every rank's exit is bounded by the run's end here, since the
// bound states when the collective as a whole can be complete.
BoundTimes reduce_bound(const Params &params, const BoundCost &cost) {
  const double m = message_bytes(params);
  return after_latest_arrival(arrivals_of(params), cost.transfer(m) + cost.combine(m));
}

// Allreduce: the same argument: the last rank's data must leave it and the
// result, which depends on it, must reach it.
BoundTimes allreduce_bound(const Params &params, const BoundCost &cost) {
  const double m = message_bytes(params);
  return after_latest_arrival(arrivals_of(params), cost.transfer(m) + cost.combine(m));
}

namespace {

using BoundFunction = BoundTimes (*)(const Params &, const BoundCost &);

BoundFunction bound_function(Collective collective) {
  switch (collective) {
    case Collective::reduce: return reduce_bound;
    case Collective::allreduce: return allreduce_bound;
    default: return nullptr;
  }
}

}  // namespace

bool has_bound(Collective collective) { return bound_function(collective) != nullptr; }

std::optional<BoundTimes> bound(const Params &params, const BoundCost &cost) {
  const BoundFunction function = bound_function(params.collective);
  if (!function) return std::nullopt;
  return function(params, cost);
}

}  // namespace patcoll::core
