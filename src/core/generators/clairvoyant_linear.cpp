// clairvoyant_linear — [PO] Listing 2: the fixed pseudocode of [M] Alg. 1.
//
// Priority queue Q of (availability, rank); each round pops the processes
// available before head + d into G, puts the root first, and for every
// process of G searches segments in order and G linearly for a sender.
// With the P' state of [PO] §4.2, round numbers (§4.3) and rank tie
// breaking (§4.4). Idle rounds (one available process) are skipped in one
// jump; the numbering is what Listing 2 would produce.
// Cost: O(R·|G|²·N) per schedule in the worst case; the reference the other
// two generators are checked against. Source: [PO] §4, Listing 2.
#include <functional>
#include <queue>

#include "clairvoyant.hpp"

namespace patcoll::core {

Schedule clairvoyant_linear(const ClairvoyantInput &input) {
  Schedule schedule = detail::clairvoyant_empty(input, "clairvoyant_linear");
  if (!clairvoyant_input_error(input).empty() || input.procs == 1) return schedule;
  const int procs = input.procs, segments = input.segments, root = input.root;
  const detail::ClairvoyantTicks ticks = detail::clairvoyant_ticks(input);
  const std::int64_t d = ticks.per_round;

  // holds[p·N + s]: p holds segment s (state A or P); P' is kept apart.
  std::vector<char> holds(static_cast<std::size_t>(procs) * segments, 1);
  std::vector<int> held(procs, segments), received(procs, -1);
  std::vector<char> sent(procs, 0);
  using Entry = std::pair<std::int64_t, int>;  // (availability, rank)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  for (int p = 0; p < procs; ++p) queue.push({ticks.arrival[p], p});

  std::vector<Entry> group;
  std::vector<int> order;
  long long round = 0;
  while (queue.size() > 1) {
    const std::int64_t head = queue.top().first;
    group.clear();
    while (!queue.empty() && queue.top().first < head + d) group.push_back(queue.top()), queue.pop();
    if (group.size() == 1) {  // idle: jump to the round the next process joins
      const std::int64_t skip = (queue.top().first - head) / d;
      queue.push({head + skip * d, group[0].second});
      round += skip;
      continue;
    }
    order.clear();
    bool root_in = false;
    for (const Entry &e : group) root_in |= e.second == root;
    if (root_in) order.push_back(root);
    for (const Entry &e : group)
      if (e.second != root) order.push_back(e.second);
    for (int p : order) sent[p] = 0;
    const int sink = order[0];
    for (int i : order) {
      for (int s = 0; s < segments; ++s) {
        if (i != sink ? !holds[static_cast<std::size_t>(i) * segments + s] : received[i] == s) continue;
        int z = -1;
        for (int candidate : order)
          if (candidate != i && !sent[candidate] && holds[static_cast<std::size_t>(candidate) * segments + s]) {
            z = candidate;
            break;
          }
        if (z < 0) continue;
        schedule.ranks[i].recv.push_back({.round = static_cast<int>(round), .peer = z, .segment = s});
        schedule.ranks[z].send.push_back({.round = static_cast<int>(round), .peer = i, .segment = s});
        sent[z] = 1;
        holds[static_cast<std::size_t>(z) * segments + s] = 0;
        --held[z];
        char &mine = holds[static_cast<std::size_t>(i) * segments + s];
        if (!mine) ++held[i];
        mine = 0;  // P' until the round ends
        received[i] = s;
        break;
      }
    }
    for (const Entry &e : group) {
      const int p = e.second;
      if (received[p] >= 0) holds[static_cast<std::size_t>(p) * segments + received[p]] = 1, received[p] = -1;
      if (held[p] > 0) queue.push({e.first + d, p});
    }
    ++round;
  }
  detail::clairvoyant_finish(schedule, input.round_time);
  return schedule;
}

}  // namespace patcoll::core
