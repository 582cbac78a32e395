#include "arrival_history.hpp"

#include <cmath>

namespace patcoll::mpi {

void ArrivalHistory::record(double offset) {
  average_.record(offset > 0 && std::isfinite(offset) ? offset : 0.0);
}

std::vector<double> relative_pats(const std::vector<double> &predictions, double quantum) {
  std::vector<double> finite(predictions);
  for (double &v : finite)
    if (!std::isfinite(v)) v = 0;
  return core::quantise_arrivals(finite, quantum);
}

}  // namespace patcoll::mpi
