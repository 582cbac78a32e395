// arrival_order — the PAT sort every PAP-aware builder starts from
// (core/pat.hpp's arrival_order on the Params' PAT vector); rank_order, the
// order of the linear builders that do not sort; and the remapping of a
// Program built over positions of an order.
#include <algorithm>
#include <numeric>

#include "../pat.hpp"
#include "pap.hpp"
#include "plan.hpp"

namespace patcoll::core {

std::vector<int> rank_order(const Params &params) {
  std::vector<int> order(static_cast<std::size_t>(params.procs));
  std::iota(order.begin(), order.end(), 0);
  return order;
}

std::vector<int> arrival_order(const Params &params) {
  if (params.arrivals.size() == static_cast<std::size_t>(params.procs)) return arrival_order(params.arrivals);
  return rank_order(params);
}

void append_over_positions(Program &program, const Program &positional, const std::vector<int> &rank_at,
                           int first_round) {
  program.scratch_count = std::max(program.scratch_count, positional.scratch_count);
  for (Step step : positional.steps) {
    for (Op &op : step.ops)
      if (op.kind != OpKind::local) op.peer = rank_at[op.peer];
    if (step.round >= 0) step.round += first_round;
    program.steps.push_back(std::move(step));
  }
}

}  // namespace patcoll::core
