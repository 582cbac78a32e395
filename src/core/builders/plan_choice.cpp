// See plan_choice.hpp.
#include "plan_choice.hpp"

#include "../simulate.hpp"

namespace patcoll::core {

double simulated_run_time(const Params &params, const std::vector<Program> &programs, double *average_elapsed) {
  const SimulateResult result = simulate(params, programs);
  if (!result.error.empty()) return std::numeric_limits<double>::infinity();
  if (average_elapsed) *average_elapsed = result.average_elapsed;
  return result.run_time;
}

}  // namespace patcoll::core
