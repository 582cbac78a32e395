// MPI_Reduce_scatter_block and MPI_Reduce_scatter: the builders (one file
// each under builders/reduce_scatter/). Every builder works on the
// collective's per-rank layout (core/layout.hpp): rank r's block of the
// whole vector has block_count(p, r) elements at block_offset(p, r) —
// Params::count each for reduce_scatter_block, Params::counts[r] for
// reduce_scatter — so one builder serves both. Every rank's send buffer
// holds the whole vector (total(p) elements); its result, the reduction of
// its block over every rank, goes to the start of its receive buffer.
// MPI_IN_PLACE: the whole vector is in the receive buffer; builders read
// it before they write the result (validated in both modes).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "../algorithm.hpp"

namespace patcoll::core {

// MPI_Reduce_scatter(_block), classic.
Program reduce_scatter_ring(const Params &, int rank);
Program reduce_scatter_recursive_halving(const Params &, int rank);
Program reduce_scatter_pairwise(const Params &, int rank);

// MPI_Reduce_scatter(_block), PAP-aware (reduce_scatter/clairvoyant.cpp;
// docs/results/reduce-scatter.md). The plan: the last `folded` ranks in
// arrival order are folded in one by one (0: the classic `group_shape`
// over all ranks in rank order); the others (the group, n ranks) first run
// a ring reduce-scatter among themselves in arrival order, over their own
// blocks and the late ranks' (each late rank's block cut into n pieces,
// piece q kept by the member at position q). The fold of late rank L, as
// it arrives: L sends every other rank's part of its vector to that rank
// (a later late rank's pieces to their members) and receives its block's
// partial sums, piece by piece, from the members: (P − 1)/P of its vector
// out, one block in.
struct ClairvoyantReduceScatterPlan {
  int folded = 0;
  std::string_view group_shape = "ring";  // folded = 0: ring, recursive_halving or pairwise; else ring
  double predicted_run_time = 0;          // simulated (or estimated) run time, s
};
inline constexpr int kReduceScatterSimulatedProcs = 64;  // above: the plan comes from formulas
inline constexpr int kReduceScatterMaxFolded = 3;        // late ranks folded one by one, at most
ClairvoyantReduceScatterPlan plan_clairvoyant_reduce_scatter(const Params &);
std::vector<Program> build_clairvoyant_reduce_scatter(const Params &, const ClairvoyantReduceScatterPlan &);
std::vector<Program> reduce_scatter_clairvoyant(const Params &);  // = build(plan(params))
Program reduce_scatter_clairvoyant_rank(const Params &, int rank);

}  // namespace patcoll::core
