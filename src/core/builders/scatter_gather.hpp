// Shared engines of the scatter/gather families ([PS] §2.1, §4): every
// scatter and gather builder is one of these engines plus an order.
//
//   linear        the root talks to every other rank, one at a time, in a
//                 given order (lin: rank order; slin/sls: arrival order)
//   synchronized  gather only: per leaf an empty sync message from the root,
//                 then the leaf's block in two segments; the root overlaps
//                 the second segment of one leaf with the first of the next
//   binomial      a binomial tree over 2^⌈log2 P⌉ slots; a slot holds a rank
//                 or is empty. Slot s's parent is s − lowbit(s), its subtree
//                 is [s, s + lowbit(s)), so every subtree's blocks are
//                 contiguous in slot order ("compact" order skips the empty
//                 slots). The classic tree puts rank (root + s) mod P at slot
//                 s; the sorted trees of [PS] Figs. 7/11 put the j-th process
//                 of their order at slot bitrev(j), which is exactly the
//                 bit-reversal data shuffle of the paper.
//
//         slot:  0   1   2   3   4   5   6   7        scatter: 0→4, 0→2, 4→6,
//                └───┴───┴───┴───┴───┴───┴───┘                  0→1, 2→3, 4→5, 6→7
//                 0 ─► 4 ─► 6 ─► 7                gather: the same edges reversed,
//                 │    └──► 5                      children drained smallest first
//                 ├──► 2 ─► 3
//                 └──► 1
//
// An empty slot always has an empty subtree in both layouts (proved in the
// comment of sorted_slot_tree), so a parent never has to route data through
// a slot nobody owns.
#pragma once

#include <vector>

#include "../algorithm.hpp"

namespace patcoll::core {

// Scatter: the root sends rank order[i]'s block to it, i = 0, 1, …
// (`order` lists every rank once; the root's entry is its local copy).
Program scatter_linear_in_order(const Params &, int rank, const std::vector<int> &order);

// Gather: the root receives rank order[i]'s block, i = 0, 1, …
Program gather_linear_in_order(const Params &, int rank, const std::vector<int> &order);

// Gather, linear synchronized ([PS] Fig. 9): per leaf, in `order`, the root
// sends an empty sync message and receives the leaf's block as two segments.
Program gather_synchronized_in_order(const Params &, int rank, const std::vector<int> &order);

struct SlotTree {
  int slots = 1;                 // 2^⌈log2 P⌉
  std::vector<int> rank_at_slot; // −1: empty
  std::vector<int> slot_of_rank;
  std::vector<int> before;       // before[s]: occupied slots in [0, s), s = 0…slots
  bool rank_order = false;       // compact index c holds rank c (no shuffle needed)

  bool occupied(int slot) const { return slot < slots && rank_at_slot[slot] >= 0; }
  // Blocks in the subtree of `slot` whose span is `width` slots.
  int blocks(int slot, int width) const { return before[slot + width] - before[slot]; }
};

// The classic binomial tree of MPICH/Open MPI: slot = (rank − root) mod P.
SlotTree classic_slot_tree(int procs, int root);

// [PS] Figs. 7/11: order[0] must be the root; order[j] goes to slot bitrev(j).
SlotTree sorted_slot_tree(const std::vector<int> &order);

Program scatter_over_tree(const Params &, int rank, const SlotTree &);
Program gather_over_tree(const Params &, int rank, const SlotTree &);

}  // namespace patcoll::core
