// clairvoyant_pairing — Clairvoyant with per-segment pairing heaps ([M] §5.3
// "pairing heaps", [PO] §4.1 and §5.7).
//
// Same loop as clairvoyant_linear (priority queue of arrivals, root first),
// but the sender search uses one boost::heap::pairing_heap per segment
// holding the round positions of the processes that hold the segment and
// have not sent yet this round. A process that sends is erased from every
// heap it is in; a process that receives segment s (state P') is erased
// from heap s; at the start of a round every process of the round is
// inserted into the heaps of the segments it holds ([PO] §5.7: remove and
// re-insert rather than filter on extraction). Cost: O(P·N²·log P) heap
// operations in the worst case ([PO] Lemma 1). Source: [M], [PO] §4.1.
#include <boost/heap/pairing_heap.hpp>
#include <functional>
#include <queue>

#include "clairvoyant.hpp"

namespace patcoll::core {

Schedule clairvoyant_pairing(const ClairvoyantInput &input) {
  Schedule schedule = detail::clairvoyant_empty(input, "clairvoyant_pairing");
  if (!clairvoyant_input_error(input).empty() || input.procs == 1) return schedule;
  const int procs = input.procs, segments = input.segments, root = input.root;
  const detail::ClairvoyantTicks ticks = detail::clairvoyant_ticks(input);
  const std::int64_t d = ticks.per_round;

  using Heap = boost::heap::pairing_heap<int, boost::heap::compare<std::greater<int>>>;  // min position
  std::vector<Heap> heaps(static_cast<std::size_t>(segments));
  std::vector<Heap::handle_type> handle(static_cast<std::size_t>(procs) * segments);
  std::vector<char> in_heap(static_cast<std::size_t>(procs) * segments, 0);
  auto cell = [&](int p, int s) { return static_cast<std::size_t>(p) * segments + s; };

  std::vector<char> holds(static_cast<std::size_t>(procs) * segments, 1);
  std::vector<int> held(procs, segments), received(procs, -1), position(procs, -1);
  using Entry = std::pair<std::int64_t, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  for (int p = 0; p < procs; ++p) queue.push({ticks.arrival[p], p});

  auto erase = [&](int p, int s) {
    if (!in_heap[cell(p, s)]) return;
    heaps[s].erase(handle[cell(p, s)]);
    in_heap[cell(p, s)] = 0;
  };

  std::vector<Entry> group;
  std::vector<int> order;
  long long round = 0;
  while (queue.size() > 1) {
    const std::int64_t head = queue.top().first;
    group.clear();
    while (!queue.empty() && queue.top().first < head + d) group.push_back(queue.top()), queue.pop();
    if (group.size() == 1) {
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
    for (int k = 0; k < static_cast<int>(order.size()); ++k) {
      const int p = order[k];
      position[p] = k;
      for (int s = 0; s < segments; ++s)
        if (holds[cell(p, s)]) handle[cell(p, s)] = heaps[s].push(k), in_heap[cell(p, s)] = 1;
    }
    const int sink = order[0];
    for (int i : order) {
      for (int s = 0; s < segments; ++s) {
        if (i != sink ? !holds[cell(i, s)] : received[i] == s) continue;
        Heap &heap = heaps[s];
        if (heap.empty()) continue;
        int top = order[heap.top()];
        bool reinsert = false;
        if (top == i) {  // i itself is first: look behind it
          erase(i, s);
          reinsert = true;
          top = heap.empty() ? -1 : order[heap.top()];
        }
        if (top < 0) {
          if (reinsert) handle[cell(i, s)] = heap.push(position[i]), in_heap[cell(i, s)] = 1;
          continue;
        }
        const int z = top;
        schedule.ranks[i].recv.push_back({.round = static_cast<int>(round), .peer = z, .segment = s});
        schedule.ranks[z].send.push_back({.round = static_cast<int>(round), .peer = i, .segment = s});
        for (int t = 0; t < segments; ++t) erase(z, t);  // z has sent this round
        holds[cell(z, s)] = 0;
        --held[z];
        if (!holds[cell(i, s)]) ++held[i];
        holds[cell(i, s)] = 0;  // P'
        erase(i, s);
        received[i] = s;
        break;
      }
    }
    for (const Entry &e : group) {
      const int p = e.second;
      for (int s = 0; s < segments; ++s) erase(p, s);
      if (received[p] >= 0) holds[cell(p, received[p])] = 1, received[p] = -1;
      if (held[p] > 0) queue.push({e.first + d, p});
    }
    ++round;
  }
  detail::clairvoyant_finish(schedule, input.round_time);
  return schedule;
}

}  // namespace patcoll::core
