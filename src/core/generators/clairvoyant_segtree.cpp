// clairvoyant_segtree — [PO] Listings 3–8: the fast Clairvoyant generator.
//
// * One bit per (process, segment) state: 1 = holds (A/P), 0 = sent (E) or
//   received this round (P', kept apart in `received`) (§5.3).
// * The set of processes of a round is merged from the previous round and
//   the queue of processes still to arrive, no priority queue (§5.2,
//   Listing 6); rounds with a single available process are skipped (§5.1).
// * A segment tree of 64-bit-word bitsets over the columns, rebuilt every
//   round over the round's processes only: leaf k is the k-th process in
//   round order (the root first when present — our "pseudo-root", §5.6).
//   [PO] §5.4.3 instead keeps 2P − 1 persistent leaves ordered by
//   fractional arrival time; with uniform arrivals a round holds a few
//   dozen of the P processes, so a persistent tree climbs log(2P) mostly
//   single-child levels per update, and the rebuild (O(|G|·N/64) per round,
//   no more than the round's transfers cost) is cheaper. A leaf holds the
//   process's bits while it may still send this round, else 0.
//   A peer search finds the first segment i may take that another leaf
//   holds, then its leftmost other holder (Listings 4, 5, 7). Instead of
//   always OR-ing all-except-one (Listing 3, O(N/64·log P)) it first walks
//   the candidate bits of the tree root and asks find-leftmost(-from)
//   (O(log P) each); all-except-one is the fallback after a few misses.
//   Same answer, faster. Updates stop climbing at an unchanged node; node
//   words are OR-ed two at a time (128-bit vectors).
// Cost: O(R·|G|·(N/64)·log |G|) time, O(P·N/64) words of memory.
// Source: [PO] §5, Listings 3–8; definition in clairvoyant.hpp.
#include <algorithm>
#include <bit>
#include <cstring>

#include "clairvoyant.hpp"

namespace patcoll::core {
namespace {

using Word = std::uint64_t;

// Nodes are 2^shift words apart (a power of two ≥ the row width, the
// padding stays 0); word loops run in blocks of B = min(8, 2^shift) words
// with a compile-time trip count so that the compiler unrolls and
// vectorises them.
template <int B>
class SegmentTree {
 public:
  SegmentTree(int max_leaves, int shift) : shift_(shift), stride_(1 << shift) {
    int leaves = 1;
    while (leaves < max_leaves) leaves <<= 1;
    nodes_.assign(static_cast<std::size_t>(2 * leaves) << shift_, 0);
  }
  Word *node(int n) { return nodes_.data() + (static_cast<std::size_t>(n) << shift_); }
  Word *leaf(int l) { return node(leaves_ + l); }

  // Leaf k = leaf_row(k) (stride words) for k < size, the others empty;
  // every inner node recomputed.
  template <class LeafRow>
  void build(int size, LeafRow leaf_row) {
    leaves_ = 1;
    while (leaves_ < size) leaves_ <<= 1;
    for (int k = 0; k < size; ++k) std::copy(leaf_row(k), leaf_row(k) + stride_, leaf(k));
    std::fill(leaf(size), leaf(leaves_), Word{0});
    // Level by level: the nodes above real leaves are OR-ed, the others
    // (above padding only) are zeroed.
    for (int first = leaves_ / 2, count = size; first >= 1; first /= 2) {
      count = (count + 1) / 2;
      for (int n = first; n < first + count; ++n) {
        Word *out = node(n);
        const Word *a = node(2 * n), *b = node(2 * n + 1);
        for (int base = 0; base < stride_; base += B) or_block(out + base, a + base, b + base);
      }
      std::fill(node(first + count), node(2 * first), Word{0});
    }
  }
  // Empties leaf l and updates its ancestors (stops at an unchanged node).
  void clear_leaf(int l) {
    std::fill(leaf(l), leaf(l) + stride_, Word{0});
    for (int n = (leaves_ + l) >> 1; n >= 1; n >>= 1)
      if (!combine(n)) break;
  }
  void update_bit(int l, int bit) {
    const Word *data = nodes_.data() + (bit >> 6);
    Word *out = nodes_.data() + (bit >> 6);
    for (int n = (leaves_ + l) >> 1; n >= 1; n >>= 1) {
      const Word value = data[static_cast<std::size_t>(2 * n) << shift_] | data[static_cast<std::size_t>(2 * n + 1) << shift_];
      Word &old = out[static_cast<std::size_t>(n) << shift_];
      if (value == old) break;
      old = value;
    }
  }
  // OR of every leaf except `l` (Listing 3).
  void all_except_one(int l, Word *out) {
    std::fill(out, out + stride_, 0);
    for (int n = leaves_ + l; n > 1; n >>= 1) {
      const Word *sibling = node(n ^ 1);
      for (int w = 0; w < stride_; ++w) out[w] |= sibling[w];
    }
  }
  // Leftmost leaf below node n with bit b set (Listing 4); -1 if none.
  int leftmost(int n, int b) {
    const Word *data = nodes_.data() + (b >> 6);
    const Word mask = Word{1} << (b & 63);
    if (!(data[static_cast<std::size_t>(n) << shift_] & mask)) return -1;
    while (n < leaves_) {
      n *= 2;
      if (!(data[static_cast<std::size_t>(n) << shift_] & mask)) ++n;
    }
    return n - leaves_;
  }
  // Leftmost leaf right of leaf l with bit b set (Listing 5); -1 if none.
  int leftmost_from(int l, int b) {
    const Word *data = nodes_.data() + (b >> 6);
    const Word mask = Word{1} << (b & 63);
    for (int n = leaves_ + l; n > 1; n >>= 1)
      if (!(n & 1) && (data[static_cast<std::size_t>(n + 1) << shift_] & mask)) return leftmost(n + 1, b);
    return -1;
  }

 private:
  // node = left | right; false when that changed nothing.
  bool combine(int n) {
    Word *out = node(n);
    const Word *a = node(2 * n), *b = node(2 * n + 1);
    bool changed = false;
    for (int base = 0; base < stride_; base += B) changed |= or_block(out + base, a + base, b + base);
    return changed;
  }
  // out = a | b over B words; true when out changed. Blocks of two words
  // as one 128-bit vector (GCC/Clang vector extension).
  static bool or_block(Word *out, const Word *a, const Word *b) {
    if constexpr (B == 1) {
      const Word value = *a | *b, changed = value ^ *out;
      *out = value;
      return changed != 0;
    } else {
      using Pair = Word __attribute__((vector_size(16)));
      Pair changed{0, 0};
      _Pragma("GCC unroll 8") for (int w = 0; w < B; w += 2) {
        Pair x, y, old;
        std::memcpy(&x, a + w, sizeof x);
        std::memcpy(&y, b + w, sizeof y);
        std::memcpy(&old, out + w, sizeof old);
        const Pair value = x | y;
        changed |= value ^ old;
        std::memcpy(out + w, &value, sizeof value);
      }
      return (changed[0] | changed[1]) != 0;
    }
  }
  int shift_, stride_, leaves_ = 1;
  std::vector<Word> nodes_;
};

template <int B>
void generate(const ClairvoyantInput &input, int shift, Schedule &schedule) {
  // Transfers are logged here and appended to the ranks' lists at the end
  // (detail::append_transfers: the lists' cache misses prefetched there).
  std::vector<detail::FoundTransfer> found;
  const int procs = input.procs, segments = input.segments, root = input.root;
  const int words = (segments + 63) / 64, stride = 1 << shift;
  const detail::ClairvoyantTicks ticks = detail::clairvoyant_ticks(input);
  const std::int64_t d = ticks.per_round;

  // Bit rows, one per process: the segments it holds.
  std::vector<Word> state(static_cast<std::size_t>(procs) * stride, 0);
  for (int p = 0; p < procs; ++p) {
    Word *row = state.data() + static_cast<std::size_t>(p) * stride;
    std::fill(row, row + segments / 64, ~Word{0});
    if (segments % 64) row[segments / 64] = (Word{1} << (segments % 64)) - 1;
  }
  auto row = [&](int p) { return state.data() + static_cast<std::size_t>(p) * stride; };
  std::vector<int> held(procs, segments), received(procs, -1);
  std::vector<std::int64_t> avail(ticks.arrival);
  SegmentTree<B> tree(procs, shift);

  // The awaiting queue A (Listing 6): by (arrival, rank).
  std::vector<int> awaiting(procs);
  for (int p = 0; p < procs; ++p) awaiting[p] = p;
  std::sort(awaiting.begin(), awaiting.end(),
            [&](int a, int b) { return std::pair(avail[a], a) < std::pair(avail[b], b); });
  std::size_t next_awaiting = 0;

  std::vector<int> group, merged, order;
  std::vector<Word> column(static_cast<std::size_t>(stride));
  auto earlier = [&](int a, int b) { return std::pair(avail[a], a) < std::pair(avail[b], b); };
  int unfinished = procs;
  long long round = 0;
  int last_round = -1;
  while (unfinished > 1) {
    // merge-and-clean: the previous group (already advanced by d, still
    // sorted) merged with the arrivals, finished processes dropped.
    merged.clear();
    std::size_t g = 0;
    std::int64_t window_end = 0;
    while (true) {
      while (g < group.size() && held[group[g]] == 0) ++g;
      const bool group_left = g < group.size(), queue_left = next_awaiting < awaiting.size();
      if (!group_left && !queue_left) break;
      const bool take_group = group_left && (!queue_left || earlier(group[g], awaiting[next_awaiting]));
      const int c = take_group ? group[g] : awaiting[next_awaiting];
      if (!merged.empty() && avail[c] >= window_end) break;
      if (take_group) ++g;
      else ++next_awaiting;
      if (merged.empty()) window_end = avail[c] + d;
      merged.push_back(c);
    }
    // (Members of the previous group never fall out of the window.)
    if (merged.size() == 1) {  // skip idle rounds (§5.1)
      if (next_awaiting == awaiting.size()) break;
      const int only = merged[0];
      const std::int64_t skip = (avail[awaiting[next_awaiting]] - avail[only]) / d;
      avail[only] += skip * d;
      round += skip;
      group.assign(1, only);
      continue;
    }
    group.swap(merged);

    // Round order: the root first when present, then (availability, rank);
    // leaf k of the tree is order[k].
    order.clear();
    for (int p : group)
      if (p == root) order.push_back(root);
    for (int p : group)
      if (p != root) order.push_back(p);
    const int size = static_cast<int>(order.size());
    tree.build(size, [&](int k) { return row(order[k]); });
    const int sink = order[0];
    const double time = static_cast<double>(static_cast<int>(round)) * input.round_time;
    for (int li = 0; li < size; ++li) {
      const int i = order[li];
      // FIND-PEER-SEGMENT (Listing 7): the smallest segment i may take
      // (non-sink: one it holds; sink: any but the one it received) that a
      // leaf other than i's holds. Fast path: walk the candidate bits of the
      // tree root and ask find-leftmost(-from) for another holder; after a
      // few misses (i itself the only holder) use all-except-one.
      const Word *mine = row(i);
      const Word *top = tree.node(1);
      int segment = -1, peer_leaf = -1, misses = 0;
      for (int w = 0; w < words && segment < 0 && misses <= 4; ++w) {
        Word candidates = top[w] & (i != sink ? mine[w] : ~Word{0});
        if (i == sink && received[i] >= 0 && (received[i] >> 6) == w) candidates &= ~(Word{1} << (received[i] & 63));
        while (candidates && misses <= 4) {
          const int s = w * 64 + std::countr_zero(candidates);
          int l = tree.leftmost(1, s);
          if (l == li) l = tree.leftmost_from(li, s);
          if (l >= 0) {
            segment = s, peer_leaf = l;
            break;
          }
          ++misses;
          candidates &= candidates - 1;
        }
      }
      if (segment < 0 && misses > 4) {
        tree.all_except_one(li, column.data());
        if (i != sink) {
          for (int w = 0; w < words; ++w) column[w] &= mine[w];
        } else if (received[i] >= 0) {
          column[received[i] >> 6] &= ~(Word{1} << (received[i] & 63));
        }
        for (int w = 0; w < words; ++w)
          if (column[w]) {
            segment = w * 64 + std::countr_zero(column[w]);
            break;
          }
        if (segment >= 0) {
          peer_leaf = tree.leftmost(1, segment);
          if (peer_leaf == li) peer_leaf = tree.leftmost_from(li, segment);
        }
      }
      if (segment < 0) continue;
      const int z = order[peer_leaf];
      last_round = static_cast<int>(round);
      found.push_back({z, i, last_round, segment, time});
      const Word bit = Word{1} << (segment & 63);
      row(z)[segment >> 6] &= ~bit;
      --held[z];
      Word &own = row(i)[segment >> 6];
      if (!(own & bit)) ++held[i];
      own &= ~bit;  // P' until the round ends
      received[i] = segment;
      // z has sent: its leaf goes dark for the rest of the round.
      tree.clear_leaf(peer_leaf);
      Word &leaf_word = tree.leaf(li)[segment >> 6];
      if (leaf_word & bit) {
        leaf_word &= ~bit;
        tree.update_bit(li, segment);
      }
    }
    for (int p : group) {
      if (received[p] >= 0) {
        row(p)[received[p] >> 6] |= Word{1} << (received[p] & 63);
        received[p] = -1;
      }
      avail[p] += d;
      if (held[p] == 0) --unfinished;
    }
    ++round;
  }
  detail::append_transfers(schedule, found.size(), [&](std::size_t k) { return found[k]; });
  // What detail::clairvoyant_finish computes (times were set above).
  schedule.rounds = last_round + 1;
  schedule.completion_time = schedule.rounds * input.round_time;
}

}  // namespace

Schedule clairvoyant_segtree(const ClairvoyantInput &input) {
  Schedule schedule = detail::clairvoyant_empty(input, "clairvoyant_segtree");
  if (!clairvoyant_input_error(input).empty() || input.procs == 1) return schedule;
  int shift = 0;
  while ((1 << shift) < (input.segments + 63) / 64) ++shift;
  switch (shift) {
    case 0: generate<1>(input, shift, schedule); break;
    case 1: generate<2>(input, shift, schedule); break;
    case 2: generate<4>(input, shift, schedule); break;
    default: generate<8>(input, shift, schedule); break;
  }
  return schedule;
}

}  // namespace patcoll::core
