// PAP-aware allreduce ([PA]) and the scatter/gather families ([PS]).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "../algorithm.hpp"
#include "../flat.hpp"

namespace patcoll::core {

// Every rank sorted by predicted arrival, earliest first; ties are broken by
// rank ([PO] §4.4), so equal or missing PATs give rank order.
std::vector<int> arrival_order(const Params &);

// Appends `positional` — steps built over positions 0…n−1 of a group, e.g.
// a ring over the arrival order — to `program`, with every peer position p
// addressed to rank_at[p] and rounds offset by `first_round`; the scratch
// need is the larger of the two.
void append_over_positions(Program &program, const Program &positional, const std::vector<int> &rank_at,
                           int first_round = 0);

// MPI_Allreduce, PAP-aware ([PA] §4)
Program allreduce_slt(const Params &, int rank);
std::vector<Program> allreduce_slt_all(const Params &);  // one plan for every rank
FlatPrograms allreduce_slt_flat(const Params &);         // the same, flattened rank by rank
// allreduce/owner_trees (owner_trees.cpp): one step per rank with tags and
// dependencies; the call reserves owner_trees_tags(params) tags.
Program allreduce_owner_trees(const Params &, int rank);
std::vector<Program> allreduce_owner_trees_all(const Params &);
int owner_trees_tags(const Params &);
Program allreduce_prr(const Params &, int rank);
// prr's regime: true when the latest process is late enough for the
// prereduced form (presteps among the others, then P−1 exchanges with it).
bool prr_uses_presteps(const Params &);

// MPI_Allreduce, Clairvoyant (beyond the papers; docs/results/clairvoyant-allreduce.md).
// The plan: the last `folded` ranks in arrival order are folded into the
// group of the earlier ones one by one (0: the classic `group_shape` over
// all ranks in rank order); the group first runs `group_shape` among
// itself; each fold streams in `segments` segments (0: the default).
// kGroupReduce: the group only reduces (two-tree reduce to the trees'
// roots) before the first late rank arrives, and that rank's fold spreads
// the final segments from the roots.
inline constexpr std::string_view kGroupReduce = "two_tree_reduce";
struct ClairvoyantAllreducePlan {
  int folded = 0;
  std::string_view group_shape = "ring";  // ring, rabenseifner, recursive_doubling, two_tree_reduce
  std::int64_t segments = 0;
  double predicted_run_time = 0;          // simulated (or estimated) run time, s
};
inline constexpr int kSimulatedProcs = 64;   // above: the plan comes from formulas (simulating
                                             // 9 candidates costs seconds at P = 128)
inline constexpr int kMaxFolded = 3;         // late ranks folded one by one, at most
ClairvoyantAllreducePlan plan_clairvoyant_allreduce(const Params &);
std::vector<Program> build_clairvoyant_allreduce(const Params &, const ClairvoyantAllreducePlan &);
std::vector<Program> allreduce_clairvoyant(const Params &);  // = build(plan(params))
// One rank's Program of a plan: its steps plus the shared round schedules
// (the two trees', O(n·N)), never the other ranks' steps.
Program build_clairvoyant_allreduce_rank(const Params &, const ClairvoyantAllreducePlan &, int rank);
Program allreduce_clairvoyant_rank(const Params &, int rank);  // = build_rank(plan(params), rank)
// Rounds a fold into a group of `group_size` = n ranks takes beyond its N
// segments at most (the two trees' pipeline fill, a test checks it for
// n ≤ 127): F = 2⌈log2(n + 1)⌉ − 1.
int clairvoyant_fold_fill_rounds(int group_size);
// Default segments of a fold: N = sqrt(F·m(β+γ)/α), which minimises
// (N + F)(α + (m/N)(β+γ)), clamped to [1, count] and to segments of at
// least 64 KiB (smaller sends are eager: see clairvoyant.cpp).
std::int64_t clairvoyant_fold_segments(const Params &, int group_size);

// MPI_Scatter ([PS] §2.1, §4.1). Each has a per-rank builder and an _all
// builder that computes the plan (order, slot tree) once (plan.hpp).
Program scatter_linear(const Params &, int rank);
std::vector<Program> scatter_linear_all(const Params &);  // one plan for every rank
Program scatter_binomial(const Params &, int rank);
std::vector<Program> scatter_binomial_all(const Params &);  // one plan for every rank
Program scatter_slin(const Params &, int rank);
std::vector<Program> scatter_slin_all(const Params &);  // one plan for every rank
Program scatter_sbn(const Params &, int rank);
std::vector<Program> scatter_sbn_all(const Params &);  // one plan for every rank

// MPI_Gather ([PS] §2.1, §4.2)
Program gather_linear(const Params &, int rank);
std::vector<Program> gather_linear_all(const Params &);  // one plan for every rank
Program gather_linear_sync(const Params &, int rank);
std::vector<Program> gather_linear_sync_all(const Params &);  // one plan for every rank
Program gather_binomial(const Params &, int rank);
std::vector<Program> gather_binomial_all(const Params &);  // one plan for every rank
Program gather_sls(const Params &, int rank);
std::vector<Program> gather_sls_all(const Params &);  // one plan for every rank
Program gather_sbn(const Params &, int rank);
std::vector<Program> gather_sbn_all(const Params &);  // one plan for every rank

}  // namespace patcoll::core
