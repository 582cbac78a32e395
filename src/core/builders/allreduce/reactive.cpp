// allreduce/reactive — the reactive reduce to the coordinator, then a
// broadcast from it (builders/reactive.hpp).
#include "../reactive.hpp"

#include <algorithm>

#include "../bcast.hpp"

namespace patcoll::core {

Program allreduce_reactive_links(const Params &params, int rank, const ArrivalLinks &links, bool control) {
  Params reduce = params;
  reduce.collective = Collective::reduce;
  reduce.root = reactive_coordinator(params);
  Program program = reduce_reactive_links(reduce, rank, links, control);
  Params bcast = params;
  bcast.collective = Collective::bcast;
  bcast.root = reduce.root;
  bcast.arrivals.clear();
  const bool small = params.count * params.element_bytes < 64 * 1024;
  Program spread = small ? bcast_binomial(bcast, rank) : bcast_chain(bcast, rank);
  program.scratch_count = std::max(program.scratch_count, spread.scratch_count);
  for (Step &step : spread.steps) program.steps.push_back(std::move(step));
  return program;
}

Program allreduce_reactive(const Params &params, int rank) {
  Params reduce = params;
  reduce.root = reactive_coordinator(params);
  const std::vector<int> chain = reactive_chain(reduce);
  return allreduce_reactive_links(params, rank, reactive_links(reduce, chain, rank), true);
}

}  // namespace patcoll::core
