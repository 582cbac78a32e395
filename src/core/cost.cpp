#include "cost.hpp"

#include <algorithm>
#include <cmath>

namespace patcoll::core {

int ceil_log2(std::int64_t value) {
  int bits = 0;
  while ((std::int64_t{1} << bits) < value) ++bits;
  return bits;
}

std::int64_t optimal_segment_count(const CostModel &model, int procs, std::int64_t count,
                                   std::int64_t element_bytes) {
  if (count <= 1 || procs <= 1 || model.alpha <= 0) return 1;
  const double n = ceil_log2(procs);
  const double bytes = static_cast<double>(count) * static_cast<double>(element_bytes);
  const double n_opt = std::sqrt((n - 1.0) * bytes * (model.beta + model.gamma) / model.alpha);
  const auto rounded = static_cast<std::int64_t>(std::llround(n_opt));
  return std::clamp<std::int64_t>(rounded, 1, count);
}

}  // namespace patcoll::core
