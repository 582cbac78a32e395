// Segmented tree reduce over an arbitrary parent/children topology — the one
// engine behind reduce/chain, reduce/binary and reduce/binomial (Open MPI's
// coll_base_reduce.c "generic" reduce, with the shapes of coll_base_topo.c).
//
// A topology is described per rank (O(log P) to compute, never the whole
// tree): its parent and its children in the order it combines them. Each
// child carries the side its subtree lies on relative to the accumulator:
//   Combine::left   the child's subtree holds lower ranks  (in ∘ acc)
//   Combine::right  the child's subtree holds higher ranks (acc ∘ in)
// A tree is "in rank order" when every subtree is a contiguous rank range
// and children are listed nearest-first on each side; then the reduction is
// correct for non-commutative ops. Rotated trees (root-relative ranks, as
// MPICH and Open MPI build them for commutative ops) are not in rank order.
//
//   chain (in order, root 3 of 7)      binomial (rotated, root 0 of 8)
//     0 → 1 → 2 → 3 ← 4 ← 5 ← 6            0 ← 1
//                                          0 ← 2 ← 3
//                                          0 ← 4 ← 5,  4 ← 6 ← 7
#pragma once

#include <cstdint>
#include <vector>

#include "../algorithm.hpp"

namespace patcoll::core {

struct TreeChild {
  int rank = -1;
  Combine side = Combine::left;
  friend bool operator==(const TreeChild &, const TreeChild &) = default;
};

struct TreeNode {
  int parent = -1;                  // -1 at the root of the tree
  std::vector<TreeChild> children;  // in combine (and receive) order
  friend bool operator==(const TreeNode &, const TreeNode &) = default;
};

// Chain toward `root`. In rank order: 0 → … → root ← … ← P−1 (two chains
// meeting at the root, so the root receives two messages per segment).
// Rotated (commutative ops): one chain root−1 → root−2 → … → root+1 → root
// (mod P): virtual rank v = rank − root (mod P) sends to v − 1.
TreeNode chain_tree(int procs, int root, int rank, bool in_rank_order);

// In-order binary tree rooted at `root`: the root's left subtree covers
// ranks [0, root), its right subtree (root, P); every subtree's root is the
// middle rank of its range. Always in rank order.
TreeNode binary_tree(int procs, int root, int rank);

// Binomial tree rooted at `root`. Rotated (commutative ops): the classic
// tree over v = rank − root (mod P), children v + 2^j, smallest first.
// In rank order: the larger side of the root, root included, is a binomial
// tree growing away from the root; the other side is a binomial tree rooted
// next to the root that joins it as one more child. Root 0 or P−1 gives the
// classic tree.
TreeNode binomial_tree(int procs, int root, int rank, bool in_rank_order);

// One rank's Program of a tree reduce of Params::count elements in
// `segments` segments: per segment, receive every child in order and
// combine, then send to the parent (the send of segment k−1 travels in the
// step receiving segment k from the first child, so the tree pipelines).
// The root accumulates in its recv buffer, other inner nodes in scratch,
// leaves send straight from the send buffer. Nothing for count 0.
Program tree_reduce(const Params &, int rank, const TreeNode &, std::int64_t segments);

// One rank's Program of a tree broadcast of Params::count elements in
// `segments` segments, in the receive buffer at every rank (the root's
// holds the data): per segment, receive it from the parent, then send it
// to every child, one send per step so they leave in order, the children
// in reverse order of `node.children` (the reduce's receive order is
// smallest subtree first, so the broadcast feeds the largest subtree
// first). The receive of segment k+1 travels in the step sending segment
// k to the first child, so the tree pipelines (Open MPI's coll_base_bcast.c
// generic bcast). A leaf posts all its receives in one step. Nothing for
// count 0.
Program tree_bcast(const Params &, int rank, const TreeNode &, std::int64_t segments);

// Chain allreduce ([PA] §4.1 "linear tree"): a segmented chain reduce
// toward the last rank of the chain, whose results flow straight back down
// the chain, both directions pipelined. The chain order is the caller's
// (rank order for allreduce/linear_tree, sorted by arrival for slt): a rank
// only needs its position and its neighbours. Partial results travel
// forward, so the incoming data is combined on the left: rank order, and
// hence non-commutative ops, only when the chain is in rank order.
// Rounds (L = P−1, segment k): position i < L sends segment k forward in
// round k+i; the last position receives it in round k+L−1 and sends the
// result back in round k+L; position i < L receives the result in round
// k+2L−1−i and forwards it in round k+2L−i. 2(P−1) + S − 1 rounds in all;
// inner positions send two segments in most rounds, so the single-port
// time is about 2(P−1) + 2(S−1) segment times (allreduce/linear_tree.cpp).
struct ChainLink {
  int position = 0;   // 0 … P−1
  int previous = -1;  // rank at position−1, -1 for the first
  int next = -1;      // rank at position+1, -1 for the last
};
// The chain as a plan (plan.hpp): the order and every rank's position in
// it, so that one rank's link is O(1).
struct ChainOrder {
  std::vector<int> order;     // rank at each position
  std::vector<int> position;  // position of each rank
};
ChainOrder chain_order(std::vector<int> order);           // O(P)
ChainLink chain_link(const ChainOrder &, int rank);       // O(1)
ChainLink chain_link(const std::vector<int> &order, int rank);  // O(P)
Program chain_allreduce(const Params &, int rank, const ChainLink &, std::int64_t segments);

// Default segment count: segments of about `segment_bytes` bytes of
// Params::element_bytes-sized elements, unless Params fixes the segment
// count or size (segment_count_for).
std::int64_t segments_for_bytes(const Params &, std::int64_t segment_bytes);
inline constexpr std::int64_t kDefaultSegmentBytes = 32 * 1024;

}  // namespace patcoll::core
