// arrival_order — the PAT sort every PAP-aware builder starts from.
#include <algorithm>
#include <numeric>

#include "pap.hpp"

namespace patcoll::core {

std::vector<int> arrival_order(const Params &params) {
  std::vector<int> order(static_cast<std::size_t>(params.procs));
  std::iota(order.begin(), order.end(), 0);
  if (params.arrivals.size() != order.size()) return order;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return params.arrivals[a] < params.arrivals[b]; });
  return order;
}

}  // namespace patcoll::core
