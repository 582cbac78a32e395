// Butterfly exchanges with a radix vector — the one engine behind
// reduce/rabenseifner, reduce/radix_k, allreduce/rabenseifner and
// allreduce/recursive_doubling ([M] §5.5.3–5.5.4; Rabenseifner, ICCS 2004;
// Thakur, Rabenseifner & Gropp, IJHPCA 2005).
//
// Members. Q = k_1·…·k_r ranks take part; the P − Q others ("extras") fold
// first: pair i = ranks (2i, 2i+1), i < P − Q, keeps one rank (the odd one,
// or the one that must stay — the reduce root) which combines its partner's
// vector into its own; the kept ranks and the ranks ≥ 2(P − Q) are the
// members, numbered in rank order ("member index" x).
//
// Rounds. x is written in mixed radix, digit_i(x) = (x / (k_1…k_{i−1})) mod k_i;
// in round i the k_i members that differ only in digit i form a group —
// nearest neighbours in round 1, then k_1 apart, then k_1·k_2, … ([M] §5.5.4).
// The slice a member is responsible for starts as the whole vector; in round
// i it is cut into k_i nearly equal pieces and member digit_i keeps piece
// digit_i.
//   reduce-scatter  each member sends the other pieces of its slice to their
//                   keepers and combines the k_i − 1 pieces it receives;
//   allgather       the reverse: each member sends its piece to the group;
//   gather          the reverse toward one member: within each group a
//                   binomial tree over the piece numbers gathers the slice
//                   at the member whose digit equals the root's, ⌈log2 k_i⌉
//                   steps per group, Σ⌈log2 k_i⌉ in all (= log2 Q, [M]
//                   Table 3's n, when every k_i is a power of two);
//   exchange        (recursive doubling) the whole vector goes to the group
//                   and every member combines all of it.
//   block allgather (allgather/recursive_doubling) the collective's per-rank
//                   blocks (core/layout.hpp) instead of pieces of a vector:
//                   an extra hands its block to its partner, after round i
//                   a member holds the blocks of the members that agree with
//                   it on digits ≥ i (a contiguous range of ranks), and in
//                   round i it sends that range to its group and receives
//                   theirs; the kept ranks send the whole result back.
//   block scatter   (reduce_scatter/recursive_halving) after the fold and
//                   the reduce-scatter of the whole vector, member x holds
//                   the reduced slice(x); every rank r then receives the
//                   parts of its block (core/layout.hpp) from the members
//                   whose slices they fall in, one round, stores only.
// Rank order: a member's data after round i covers a contiguous range of
// member indices, the group members' ranges are adjacent and in digit order,
// and the fold pairs adjacent ranks, so combining the group nearest-first
// (left for lower digits, right for higher) keeps the reduction in rank
// order: non-commutative ops are correct.
#pragma once

#include <cstdint>
#include <vector>

#include "../algorithm.hpp"

namespace patcoll::core {

struct Butterfly {
  int procs = 1;
  int rank = 0;
  std::vector<int> radix;  // k_1 … k_r
  int members = 1;         // Q = Π k_i
  int extras = 0;          // P − Q
  int keep = -1;           // a rank that must not fold away (-1: none)
  int target = -1;         // member index of `keep` (-1: none)

  // `keep` (the reduce root, or -1) stays a member, and pieces are rotated
  // so that it owns piece 0 of every group (see piece_for_digit).
  Butterfly(int procs, int rank, std::vector<int> radix, int keep);

  bool folds_away(int r) const;          // r is an extra
  int fold_partner(int r) const;         // the other rank of r's pair, -1 if none
  int member_index(int r) const;         // -1 for extras
  int member_rank(int index) const;      // inverse of member_index
  int stride(int round) const;           // k_1 … k_{round−1} (round 0-based: Π k_j, j < round)
  int digit(int index, int round) const;
  // The piece the member with digit `digit` keeps in round `round`:
  // (digit − target's digit) mod k, so the target's side of every group
  // keeps piece 0 and a binomial gather toward it moves contiguous pieces.
  int piece_for_digit(int digit, int round) const;
  // The slice member `index` is responsible for after `rounds` rounds.
  Span slice(int index, int rounds, std::int64_t count) const;
};

// Radix vectors. power_of_two_radix(P): [2, …, 2] over the largest power of
// two ≤ P (Rabenseifner). default_radix(P): over the largest Q ≤ P whose
// prime factors are all ≤ 7 (Q ≥ P/2 always, so the fold is possible): the
// power-of-two part of Q in 4s and 8s as [M] §6 used ({4,4,8} for 128; a
// lone 2 only for Q's factor 2), then the factors 3, 5, 7 ascending.
// 8 → [8], 16 → [4,4], 64 → [8,8], 128 → [4,4,8], 12 → [4,3], 7 → [7],
// 11 → [2,5] (one pair folds). radix_for(params): Params::radix when every
// k ≥ 2 and P/2 ≤ Π k ≤ P, otherwise default_radix(P).
std::vector<int> power_of_two_radix(int procs);
std::vector<int> default_radix(int procs);
std::vector<int> radix_for(const Params &);

// reduce: fold, reduce-scatter, gather to the root (keeping the root).
Program butterfly_reduce(const Params &, int rank, std::vector<int> radix);
// allreduce: fold, reduce-scatter, allgather, unfold.
Program butterfly_allreduce(const Params &, int rank, std::vector<int> radix);
// allreduce: fold, whole-vector exchange in every round, unfold.
Program exchange_allreduce(const Params &, int rank, std::vector<int> radix);
// allgather(v): fold (blocks), block-range exchanges, unfold (the whole result).
Program butterfly_allgather(const Params &, int rank, std::vector<int> radix);
// reduce_scatter(_block): fold, reduce-scatter of the whole vector in
// scratch, block scatter to every rank's block (result at recv's start).
Program butterfly_reduce_scatter(const Params &, int rank, std::vector<int> radix);

}  // namespace patcoll::core
