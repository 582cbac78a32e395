// The builders' cost contract: one rank's Program costs O(its steps) plus a
// per-parameter plan (arrival order, slot tree, chain order) that does not
// depend on the rank. build_rank computes the plan for its one rank (the
// MPI path, where each process builds only its own Program); build_all
// computes it once and builds every rank from it, so the simulator and the
// validator pay O(plan + Σ steps) instead of P plans (P = 100 000: one
// slot tree instead of 10^5 of them).
//
// A planned builder is three lines in its algorithm file:
//   Plan plan(const Params &);                                   // once
//   Program x(const Params &p, int r) { return build(p, r, plan(p)); }
//   std::vector<Program> x_all(const Params &p) { return build_every_rank(p, plan(p), build); }
// and, where the simulator's memory at P = 10^5 matters, a fourth:
//   FlatPrograms x_flat(const Params &p) { return build_every_rank_flat(p, plan(p), build); }
#pragma once

#include <vector>

#include "../algorithm.hpp"
#include "../flat.hpp"

namespace patcoll::core {

template <class Plan>
std::vector<Program> build_every_rank(const Params &params, const Plan &plan,
                                      Program (*build)(const Params &, int rank, const Plan &)) {
  std::vector<Program> programs;
  programs.reserve(static_cast<std::size_t>(params.procs));
  for (int rank = 0; rank < params.procs; ++rank) programs.push_back(build(params, rank, plan));
  return programs;
}

// The same into the simulator's flat form (Algorithm::build_flat): one
// Program in memory at a time instead of all of them beside their flat ops.
template <class Plan>
FlatPrograms build_every_rank_flat(const Params &params, const Plan &plan,
                                   Program (*build)(const Params &, int rank, const Plan &)) {
  return flatten_each_rank(params.procs, [&](int rank) { return build(params, rank, plan); });
}

// 0, 1, …, P−1: the order of the linear builders that do not sort.
std::vector<int> rank_order(const Params &);

}  // namespace patcoll::core
