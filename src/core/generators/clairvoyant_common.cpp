// Input checks and time quantisation shared by the three Clairvoyant
// generators (see clairvoyant.hpp for the definition they implement).
#include <algorithm>
#include <cmath>

#include "clairvoyant.hpp"

namespace patcoll::core {

std::string clairvoyant_input_error(const ClairvoyantInput &input) {
  if (input.procs < 1) return "procs must be at least 1";
  if (input.segments < 1) return "segments must be at least 1";
  if (input.root < 0 || input.root >= input.procs) return "root out of range";
  if (!(input.round_time > 0) || !std::isfinite(input.round_time)) return "round time must be positive";
  if (!input.arrivals.empty() && input.arrivals.size() != static_cast<std::size_t>(input.procs))
    return "expected " + std::to_string(input.procs) + " arrival times, got " + std::to_string(input.arrivals.size());
  for (double a : input.arrivals)
    if (!std::isfinite(a)) return "arrival times must be finite";
  if (!input.arrivals.empty()) {
    const auto [lo, hi] = std::minmax_element(input.arrivals.begin(), input.arrivals.end());
    if ((*hi - *lo) / input.round_time > kMaxArrivalSpreadRounds)
      return "arrival spread exceeds 2^30 round times";
  }
  return {};
}

namespace detail {

ClairvoyantTicks clairvoyant_ticks(const ClairvoyantInput &input) {
  ClairvoyantTicks ticks;
  ticks.arrival.assign(static_cast<std::size_t>(input.procs), 0);
  ticks.per_round = std::int64_t{1} << 20;
  if (input.arrivals.empty() || !(input.round_time > 0)) return ticks;
  const double first = *std::min_element(input.arrivals.begin(), input.arrivals.end());
  double spread = 0;  // in rounds
  for (double a : input.arrivals) spread = std::max(spread, (a - first) / input.round_time);
  // Keep spread·per_round (plus the rounds the schedule itself takes) far
  // below 2^63.
  while (ticks.per_round > 1 && spread * static_cast<double>(ticks.per_round) > 0x1p52) ticks.per_round >>= 1;
  for (int p = 0; p < input.procs; ++p)
    ticks.arrival[p] = std::llround((input.arrivals[p] - first) / input.round_time *
                                    static_cast<double>(ticks.per_round));
  // "Arrived by the round's start": availability on the round grid, rounded
  // up, so the strict rule below admits exactly the processes already there.
  if (input.join == ClairvoyantJoin::by_round_start)
    for (std::int64_t &a : ticks.arrival) a = (a + ticks.per_round - 1) / ticks.per_round * ticks.per_round;
  return ticks;
}

Schedule clairvoyant_empty(const ClairvoyantInput &input, const char *name) {
  Schedule schedule;
  schedule.algorithm = name;
  schedule.procs = input.procs;
  schedule.segments = input.segments;
  schedule.root = input.root;
  schedule.ranks.resize(static_cast<std::size_t>(std::max(0, input.procs)));
  return schedule;
}

void clairvoyant_finish(Schedule &schedule, double round_time) {
  int last = -1;
  for (RankSchedule &r : schedule.ranks) {
    for (Transfer &t : r.recv) last = std::max(last, t.round), t.time = t.round * round_time;
    for (Transfer &t : r.send) t.time = t.round * round_time;
  }
  schedule.rounds = last + 1;
  schedule.completion_time = schedule.rounds * round_time;
}

}  // namespace detail
}  // namespace patcoll::core
