// MPI_Allgather and MPI_Allgatherv: the builders (one file each under
// builders/allgather/) and the engines they share. Every builder works on
// the collective's per-rank layout (core/layout.hpp): block r has
// block_count(p, r) elements at block_offset(p, r) of the receive buffer —
// Params::count each for allgather, Params::counts[r] for allgatherv — so
// one builder serves both collectives. A rank's own block comes from its
// send buffer (MPI_IN_PLACE: it is already at its place in recv).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "../algorithm.hpp"

namespace patcoll::core {

// Engines (allgather_engines.cpp).
// Rank `rank`'s block of the receive buffer.
Region own_block(const Params &, int rank);
// The local op that puts the rank's send block at its place in recv (none
// for an empty block).
std::vector<Op> own_block_copy(const Params &, int rank);
// The blocks of `ranks` (any order, no duplicates) as regions of the
// receive buffer: runs of consecutive ranks merged, empty blocks left out,
// in rank order.
std::vector<Region> block_runs(const Params &, std::vector<int> ranks);
// Ring allgather over `members` (position → rank; the ranks' blocks of
// the layout): the own block copied, then n − 1 steps from `first_round`.
// Returns the round after the last.
int append_ring_allgather_over(Program &, const Params &, const std::vector<int> &members, int position,
                               int first_round);
// Bruck allgather over `members` (Bruck et al., IEEE TPDS 1997): in scratch
// the member at position q keeps the blocks of members q, q+1, … (mod n)
// back to back; in round k it sends its first min(2^k, n − 2^k) blocks to
// member q − 2^k and receives as many from q + 2^k after its first 2^k;
// ⌈log2 n⌉ rounds, one message each way per round; then the blocks are
// copied to their places in recv. Returns the round after the last.
int append_bruck_allgather_over(Program &, const Params &, const std::vector<int> &members, int position,
                                int first_round);

// MPI_Allgather(v), classic.
Program allgather_ring(const Params &, int rank);
Program allgather_recursive_doubling(const Params &, int rank);
Program allgather_bruck(const Params &, int rank);
Program allgather_neighbor_exchange(const Params &, int rank);

// MPI_Allgather(v), PAP-aware (allgather/clairvoyant.cpp;
// docs/results/allgather.md). The plan: the last `folded` ranks in arrival
// order are folded in one by one (0: the classic `group_shape` over all
// ranks in rank order); the others (the group) first run `group_shape`
// (ring or bruck) over themselves in arrival order.
struct ClairvoyantAllgatherPlan {
  int folded = 0;
  std::string_view group_shape = "ring";  // folded = 0: any classic allgather; else ring or bruck
  double predicted_run_time = 0;          // simulated (or estimated) run time, s
};
inline constexpr int kAllgatherSimulatedProcs = 64;  // above: the plan comes from formulas
inline constexpr int kAllgatherMaxFolded = 3;        // late ranks folded one by one, at most
ClairvoyantAllgatherPlan plan_clairvoyant_allgather(const Params &);
std::vector<Program> build_clairvoyant_allgather(const Params &, const ClairvoyantAllgatherPlan &);
std::vector<Program> allgather_clairvoyant(const Params &);  // = build(plan(params))
Program allgather_clairvoyant_rank(const Params &, int rank);
// Rounds of one fold into a group of n ranks: the spread of the late
// rank's block, one send from it, then a binomial broadcast over the n
// members: 1 + ⌈log2 n⌉.
int clairvoyant_allgather_spread_rounds(int group_size);

}  // namespace patcoll::core
