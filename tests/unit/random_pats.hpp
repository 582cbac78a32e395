// Random arrival times for the unit tests: `procs` PATs uniform in
// [0, max_delay] seconds.
#pragma once

#include <random>
#include <vector>

inline std::vector<double> random_pats(int procs, std::mt19937_64 &rng, double max_delay = 1e-3) {
  std::uniform_real_distribution<double> delay(0.0, max_delay);
  std::vector<double> pats(static_cast<std::size_t>(procs));
  for (double &a : pats) a = delay(rng);
  return pats;
}
