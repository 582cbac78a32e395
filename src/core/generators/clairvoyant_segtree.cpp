// clairvoyant_segtree — [PO] Listings 3–8: the fast Clairvoyant generator.
//
// * One bit per (process, segment) state: 1 = holds (A/P), 0 = sent (E) or
//   received this round (P', kept apart in `received`) (§5.3).
// * The set of processes of a round is merged from the previous round and
//   the queue of processes still to arrive, no priority queue (§5.2,
//   Listing 6); rounds with a single available process are skipped (§5.1).
// * A segment tree of 64-bit-word bitsets over the columns: leaf 0 is the
//   root (it always comes first in a round — our "pseudo-root", §5.6), then
//   the other processes ordered by fractional arrival time, twice (§5.4.3),
//   so that leaf order is round order for any head of the round. A leaf
//   holds the process's bits while it may still send this round, else 0.
//   A peer search finds the first segment i may take that another leaf
//   holds, then its leftmost other holder (Listings 4, 5, 7). Instead of
//   always OR-ing all-except-one (Listing 3, O(N/64·log P)) it first walks
//   the candidate bits of the tree root and asks find-leftmost(-from)
//   (O(log P) each); all-except-one is the fallback after a few misses.
//   Same answer, faster. Leaves stay in place across rounds when the head
//   does not move them, and updates stop climbing at an unchanged node.
// Cost: O(R·|G|·(N/64)·log P) time, O(P·N/64) words of memory.
// Source: [PO] §5, Listings 3–8; definition in clairvoyant.hpp.
#include <algorithm>
#include <bit>

#include "clairvoyant.hpp"

namespace patcoll::core {
namespace {

using Word = std::uint64_t;

class SegmentTree {
 public:
  SegmentTree(int leaves, int words) : words_(words) {
    leaves_ = 1;
    while (leaves_ < leaves) leaves_ <<= 1;
    nodes_.assign(static_cast<std::size_t>(2 * leaves_) * words_, 0);
    mark_.assign(static_cast<std::size_t>(2 * leaves_), 0);
  }
  Word *node(int n) { return nodes_.data() + static_cast<std::size_t>(n) * words_; }
  Word *leaf(int l) { return node(leaves_ + l); }
  int leaf_count() const { return leaves_; }

  // Recomputes every ancestor of the given leaves, each once, level by
  // level; a node whose value does not change stops the climb.
  void update(std::vector<int> &leaf_list) {
    cur_.clear();
    for (int l : leaf_list) cur_.push_back(leaves_ + l);
    while (!cur_.empty() && cur_[0] > 1) {
      next_.clear();
      for (int n : cur_) {
        const int parent = n >> 1;
        if (!mark_[parent]) mark_[parent] = 1, next_.push_back(parent);
      }
      std::size_t kept = 0;
      for (int parent : next_) {
        mark_[parent] = 0;
        if (combine(parent)) next_[kept++] = parent;
      }
      next_.resize(kept);
      cur_.swap(next_);
    }
  }
  void update_path(int l) {
    for (int n = (leaves_ + l) >> 1; n >= 1; n >>= 1)
      if (!combine(n)) break;
  }
  void update_bit(int l, int bit) {
    const int w = bit >> 6;
    for (int n = (leaves_ + l) >> 1; n >= 1; n >>= 1) {
      const Word value = node(2 * n)[w] | node(2 * n + 1)[w];
      if (value == node(n)[w]) break;
      node(n)[w] = value;
    }
  }
  // OR of every leaf except `l` (Listing 3).
  void all_except_one(int l, Word *out) {
    std::fill(out, out + words_, 0);
    for (int n = leaves_ + l; n > 1; n >>= 1) {
      const Word *sibling = node(n ^ 1);
      for (int w = 0; w < words_; ++w) out[w] |= sibling[w];
    }
  }
  bool bit(int n, int b) { return (node(n)[b >> 6] >> (b & 63)) & 1; }
  // Leftmost leaf below node n with bit b set (Listing 4); -1 if none.
  int leftmost(int n, int b) {
    if (!bit(n, b)) return -1;
    while (n < leaves_) n = bit(2 * n, b) ? 2 * n : 2 * n + 1;
    return n - leaves_;
  }
  // Leftmost leaf right of leaf l with bit b set (Listing 5); -1 if none.
  int leftmost_from(int l, int b) {
    for (int n = leaves_ + l; n > 1; n >>= 1)
      if (!(n & 1) && bit(n + 1, b)) return leftmost(n + 1, b);
    return -1;
  }

 private:
  // node = left | right; false when that changed nothing.
  bool combine(int n) {
    Word *out = node(n);
    const Word *a = node(2 * n), *b = node(2 * n + 1);
    Word changed = 0;
    for (int w = 0; w < words_; ++w) {
      const Word value = a[w] | b[w];
      changed |= value ^ out[w];
      out[w] = value;
    }
    return changed != 0;
  }
  int words_, leaves_;
  std::vector<Word> nodes_;
  std::vector<char> mark_;
  std::vector<int> cur_, next_;
};

}  // namespace

Schedule clairvoyant_segtree(const ClairvoyantInput &input) {
  Schedule schedule = detail::clairvoyant_empty(input, "clairvoyant_segtree");
  if (!clairvoyant_input_error(input).empty() || input.procs == 1) return schedule;
  for (RankSchedule &r : schedule.ranks) r.send.reserve(input.segments), r.recv.reserve(input.segments);
  const int procs = input.procs, segments = input.segments, root = input.root;
  const int words = (segments + 63) / 64;
  const detail::ClairvoyantTicks ticks = detail::clairvoyant_ticks(input);
  const std::int64_t d = ticks.per_round;

  // Bit rows, one per process: the segments it holds.
  std::vector<Word> state(static_cast<std::size_t>(procs) * words, 0);
  for (int p = 0; p < procs; ++p) {
    Word *row = state.data() + static_cast<std::size_t>(p) * words;
    for (int s = 0; s < segments; ++s) row[s >> 6] |= Word{1} << (s & 63);
  }
  auto row = [&](int p) { return state.data() + static_cast<std::size_t>(p) * words; };
  std::vector<int> held(procs, segments), received(procs, -1);
  // Per round bookkeeping for the incremental tree update: sent this round,
  // the segment whose P' state was just reverted, the leaf for next round.
  std::vector<char> sent(procs, 0);
  std::vector<int> restored(procs, -1), next_leaf(procs, -1);
  std::vector<std::int64_t> avail(ticks.arrival);

  // Fractional order of the non-root processes: leaf 1 + position, or
  // 1 + position + (P−1) when the process comes after the head's wrap.
  auto fraction = [&](int p) { return ticks.arrival[p] % d; };
  std::vector<int> by_fraction;
  for (int p = 0; p < procs; ++p)
    if (p != root) by_fraction.push_back(p);
  std::sort(by_fraction.begin(), by_fraction.end(), [&](int a, int b) {
    return std::pair(fraction(a), a) < std::pair(fraction(b), b);
  });
  std::vector<int> position(procs, 0);
  for (int i = 0; i < procs - 1; ++i) position[by_fraction[i]] = i;
  SegmentTree tree(1 + 2 * (procs - 1), words);
  std::vector<int> owner(static_cast<std::size_t>(tree.leaf_count()), -1), leaf_of(procs, -1);

  // The awaiting queue A (Listing 6): by (arrival, rank).
  std::vector<int> awaiting(procs);
  for (int p = 0; p < procs; ++p) awaiting[p] = p;
  std::sort(awaiting.begin(), awaiting.end(),
            [&](int a, int b) { return std::pair(avail[a], a) < std::pair(avail[b], b); });
  std::size_t next_awaiting = 0;

  std::vector<int> group, merged, dirty, order;
  std::vector<Word> column(static_cast<std::size_t>(words));
  auto earlier = [&](int a, int b) { return std::pair(avail[a], a) < std::pair(avail[b], b); };
  // Empties the leaves of the previous group (the tree is updated later).
  auto clear_leaves = [&] {
    for (int p : group)
      if (leaf_of[p] >= 0) {
        std::fill(tree.leaf(leaf_of[p]), tree.leaf(leaf_of[p]) + words, 0);
        dirty.push_back(leaf_of[p]);
        owner[leaf_of[p]] = -1;
        leaf_of[p] = -1;
      }
  };
  int unfinished = procs;
  long long round = 0;
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
      clear_leaves();
      group.assign(1, only);
      continue;
    }
    // Place the round's processes in the tree. A process that keeps its
    // leaf only needs what changed last round: its whole column back if it
    // sent (the leaf went dark), else the bit of the segment it received.
    const int head = merged[0];
    const auto head_key = std::pair(fraction(head), head);
    bool root_in = false;
    for (int p : merged) {
      if (p == root) {
        next_leaf[p] = 0, root_in = true;
      } else {
        next_leaf[p] = 1 + position[p] + (std::pair(fraction(p), p) < head_key ? procs - 1 : 0);
      }
    }
    for (int p : group)  // movers and leavers give their old leaf up
      if (leaf_of[p] >= 0 && leaf_of[p] != next_leaf[p]) {
        std::fill(tree.leaf(leaf_of[p]), tree.leaf(leaf_of[p]) + words, 0);
        dirty.push_back(leaf_of[p]);
        owner[leaf_of[p]] = -1;
        leaf_of[p] = -1;
      }
    for (int p : merged) {
      const int l = next_leaf[p];
      if (leaf_of[p] == l && !sent[p]) {
        if (restored[p] >= 0) {
          tree.leaf(l)[restored[p] >> 6] |= Word{1} << (restored[p] & 63);
          tree.update_bit(l, restored[p]);
        }
      } else {
        leaf_of[p] = l;
        owner[l] = p;
        std::copy(row(p), row(p) + words, tree.leaf(l));
        dirty.push_back(l);
      }
      sent[p] = 0, restored[p] = -1;
    }
    for (int p : group) next_leaf[p] = -1;
    for (int p : merged) next_leaf[p] = -1;
    tree.update(dirty);
    dirty.clear();
    group.swap(merged);

    order.clear();
    if (root_in) order.push_back(root);
    for (int p : group)
      if (p != root) order.push_back(p);
    const int sink = order[0];
    for (int i : order) {
      const int li = leaf_of[i];
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
      const int z = owner[peer_leaf];
      schedule.ranks[i].recv.push_back({static_cast<int>(round), z, segment, 0});
      schedule.ranks[z].send.push_back({static_cast<int>(round), i, segment, 0});
      const Word bit = Word{1} << (segment & 63);
      row(z)[segment >> 6] &= ~bit;
      --held[z];
      Word &own = row(i)[segment >> 6];
      if (!(own & bit)) ++held[i];
      own &= ~bit;  // P' until the round ends
      received[i] = segment;
      // z has sent: its leaf goes dark for the rest of the round.
      sent[z] = 1;
      std::fill(tree.leaf(leaf_of[z]), tree.leaf(leaf_of[z]) + words, 0);
      tree.update_path(leaf_of[z]);
      Word &leaf_word = tree.leaf(li)[segment >> 6];
      if (leaf_word & bit) {
        leaf_word &= ~bit;
        tree.update_bit(li, segment);
      }
    }
    for (int p : group) {
      if (received[p] >= 0) {
        row(p)[received[p] >> 6] |= Word{1} << (received[p] & 63);
        restored[p] = received[p], received[p] = -1;
      }
      avail[p] += d;
      if (held[p] == 0) --unfinished;
    }
    ++round;
  }
  detail::clairvoyant_finish(schedule, input.round_time);
  return schedule;
}

}  // namespace patcoll::core
