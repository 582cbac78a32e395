// The plan code the clairvoyant builders share (allreduce, allgather,
// reduce-scatter): the classic algorithms a plan may run, by name, and
// choosing a plan among candidates by their simulated run time — a
// candidate replaces the best so far when it is faster by more than
// rounding noise, or as fast and its ranks leave sooner on average; of
// equal candidates the first considered stays.
#pragma once

#include <cmath>
#include <limits>
#include <span>
#include <string_view>
#include <vector>

#include "../algorithm.hpp"

namespace patcoll::core {

// A classic algorithm a plan may run: the group's shape, or the whole
// plan when no rank is folded.
struct NamedBuilder {
  std::string_view name;
  BuildRank build;
};
// The entry of `table` named `name` (the first when none is).
const NamedBuilder &builder_named(std::span<const NamedBuilder> table, std::string_view name);
// Every rank's Program of `build` over all ranks in rank order (a plan
// that folds no rank).
std::vector<Program> every_rank(const Params &, BuildRank build);
// P Programs without steps.
std::vector<Program> empty_programs(int procs);

// The simulated run time of `programs` under params' cost model and PATs
// (infinity when the simulation fails); `average_elapsed` gets the ranks'
// mean time in the collective.
double simulated_run_time(const Params &, const std::vector<Program> &, double *average_elapsed = nullptr);

template <class Plan>
class PlanChoice {
 public:
  // `plan` with its predicted_run_time set by the simulation.
  void consider(Plan plan, const Params &params, const std::vector<Program> &programs) {
    double elapsed = 0;
    plan.predicted_run_time = simulated_run_time(params, programs, &elapsed);
    const bool have = std::isfinite(best_.predicted_run_time);
    const double margin = have ? 1e-9 * best_.predicted_run_time : 0.0;
    if (!have || plan.predicted_run_time < best_.predicted_run_time - margin ||
        (plan.predicted_run_time <= best_.predicted_run_time + margin && elapsed < best_elapsed_ - margin)) {
      best_ = plan;
      best_elapsed_ = elapsed;
    }
  }
  // The best so far; predicted_run_time is infinity before any candidate.
  Plan &best() { return best_; }

 private:
  Plan best_{.predicted_run_time = std::numeric_limits<double>::infinity()};
  double best_elapsed_ = std::numeric_limits<double>::infinity();
};

}  // namespace patcoll::core
