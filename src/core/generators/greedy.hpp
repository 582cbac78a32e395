// Lowery–Langou greedy schedule generators ([LL] §V, §VI-B).
//
// t_comm = α + β·s, t_comp = γ·s for segments of s bytes. Every process
// starts available at its arrival time (balanced when empty; the PAT start
// is our extension, [LL] starts everyone at 0).
//   uni_greedy  [LL] Algorithm 1, unidirectional ports: segments in order;
//               for each segment repeatedly the two earliest-available
//               holders g1, g2 (ties by rank) pair up at t = x_g2, g1 sends
//               to g2 — the root never sends, it receives instead. The sender
//               is free at t + t_comm, the receiver at t + t_comm + t_comp.
//               Optimal among in-order reductions ([LL] Theorem 5).
//               With unequal segments (segment_bytes_each, [LL] §VIII)
//               each segment uses its own t_comm and t_comp.
//   bi_greedy   [LL] Algorithm 2, bidirectional ports (one send and one recv
//               at a time), see bi_greedy.cpp for the reading of the listing.
#pragma once

#include <string>
#include <vector>

#include "schedule.hpp"

namespace patcoll::core {

struct GreedyInput {
  int procs = 1;
  int segments = 1;
  std::vector<double> arrivals;  // seconds, empty = balanced
  double alpha = 0;
  double beta = 0;
  double gamma = 0;
  double segment_bytes = 0;               // every segment's size (the largest, for unequal ones)
  std::vector<double> segment_bytes_each;  // per-segment sizes (unequal segments); empty = segment_bytes
  int root = 0;
};

std::string greedy_input_error(const GreedyInput &);

Schedule uni_greedy(const GreedyInput &);
Schedule bi_greedy(const GreedyInput &);
// A pipelined broadcast from `root` (bcast_greedy.cpp): every rank that
// holds a segment forwards it to ranks that have arrived; the earliest
// possible transfer first. t_comm = α + βs; γ is not used.
Schedule bcast_greedy(const GreedyInput &);
// The same machinery restricted to a chain: order[0] must be the root,
// order[i] receives every segment from order[i−1], from its arrival on
// (a pipelined chain with release times).
Schedule bcast_chain(const GreedyInput &, const std::vector<int> &order);

namespace detail {
// A transfer at `time`: `sender` sends `segment` to `receiver`. Events must
// be given in a causal order (per process non-decreasing time).
struct GreedyEvent {
  double time;
  int sender;
  int receiver;
  int segment;
};
// Stable-sorts events by time and numbers them into rounds: events starting
// together share a round unless a port would be used twice or a segment
// would be forwarded in the round it arrives.
Schedule greedy_schedule(const GreedyInput &, const char *name, std::vector<GreedyEvent> events,
                         double completion_time);
}  // namespace detail

}  // namespace patcoll::core
