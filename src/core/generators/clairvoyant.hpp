// Clairvoyant schedule generators ([M] Alg. 1 with the fixes of [PO] §4).
//
// Three implementations of one definition; they produce identical
// schedules (tests compare them on thousands of instances):
//   clairvoyant_linear   [PO] Listing 2 + P' state (§4.2) + round numbers
//                        (§4.3) + ties broken by rank (§4.4);
//   clairvoyant_pairing  the same with one boost::heap::pairing_heap of
//                        available processes per segment ([PO] §4.1, §5.7);
//   clairvoyant_segtree  [PO] Listings 3–8: idle-round skipping, merge-and-
//                        clean, one bit per state, a bitset segment tree over
//                        the columns ordered by fractional arrival time.
//
// The definition (the parts the listings leave open, fixed here):
//   * Times are integer ticks, 2^20 per round time d (fewer if the arrival
//     spread is huge), so "a < t + d" is exact; ties order by rank.
//   * A round that starts at t (the earliest availability among unfinished
//     processes) takes the processes with availability < t + d (strict, [PO]
//     Listing 6 line 3; [M] Fig. 8 needs it). With ClairvoyantJoin::
//     by_round_start every arrival is first rounded up to the grid
//     t0 + k·d (t0 the earliest arrival): then "< t + d" means "arrived by
//     the round's start", in all three generators alike. They are ordered by
//     (availability, rank); when the root is among them it goes first.
//   * The sink is the root when it is in the round, else the first process.
//     Processes are visited in that order; each one receives at most one
//     segment: the smallest segment s it holds (the sink: any segment except
//     the one it received this round) that some other process of the round
//     holds and can still send (has not sent this round); the sender is the
//     first such process in round order. A received segment is P' until the
//     round ends (it cannot be forwarded in the same round).
//   * A process leaves when it holds no segment; rounds in which only one
//     process is available are skipped (they count, numbering is unchanged).
//   * The schedule ends when at most one process holds segments (the root).
#pragma once

#include <string>
#include <vector>

#include "schedule.hpp"

namespace patcoll::core {

struct ClairvoyantInput {
  int procs = 1;
  int segments = 1;
  std::vector<double> arrivals;  // seconds, empty = balanced
  double round_time = 1;         // d, seconds, > 0
  int root = 0;
  ClairvoyantJoin join = ClairvoyantJoin::before_round_end;
};

// Rounds are ints: the arrival spread may not exceed 2^30 round times.
inline constexpr double kMaxArrivalSpreadRounds = 1073741824.0;

// "" when the input is valid, else a one-line reason.
std::string clairvoyant_input_error(const ClairvoyantInput &);

Schedule clairvoyant_linear(const ClairvoyantInput &);
Schedule clairvoyant_pairing(const ClairvoyantInput &);
Schedule clairvoyant_segtree(const ClairvoyantInput &);

namespace detail {
// Arrival times in integer ticks relative to the earliest arrival, and the
// number of ticks per round.
struct ClairvoyantTicks {
  std::int64_t per_round = 1;
  std::vector<std::int64_t> arrival;
};
ClairvoyantTicks clairvoyant_ticks(const ClairvoyantInput &);
// Empty schedule with the header fields filled in.
Schedule clairvoyant_empty(const ClairvoyantInput &, const char *name);
void clairvoyant_finish(Schedule &, double round_time);
}  // namespace detail

}  // namespace patcoll::core
