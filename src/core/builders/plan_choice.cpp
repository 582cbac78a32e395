// See plan_choice.hpp.
#include "plan_choice.hpp"

#include "../simulate.hpp"

namespace patcoll::core {

const NamedBuilder &builder_named(std::span<const NamedBuilder> table, std::string_view name) {
  for (const NamedBuilder &entry : table)
    if (entry.name == name) return entry;
  return table.front();
}

std::vector<Program> every_rank(const Params &params, BuildRank build) {
  std::vector<Program> programs;
  for (int r = 0; r < params.procs; ++r) programs.push_back(build(params, r));
  return programs;
}

std::vector<Program> empty_programs(int procs) {
  std::vector<Program> programs;
  for (int r = 0; r < procs; ++r) programs.push_back(Program{r, procs, 0, {}});
  return programs;
}

double simulated_run_time(const Params &params, const std::vector<Program> &programs, double *average_elapsed) {
  const SimulateResult result = simulate(params, programs);
  if (!result.error.empty()) return std::numeric_limits<double>::infinity();
  if (average_elapsed) *average_elapsed = result.average_elapsed;
  return result.run_time;
}

}  // namespace patcoll::core
