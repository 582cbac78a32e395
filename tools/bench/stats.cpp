#include "stats.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace patcoll::bench {

namespace {

// Median of v[0..n) (reorders it).
double median_in_place(double *v, std::size_t n) {
  if (n == 0) return 0;
  double *mid = v + n / 2;
  std::nth_element(v, mid, v + n);
  if (n % 2) return *mid;
  const double upper = *mid;
  const double lower = *std::max_element(v, mid);
  return 0.5 * (lower + upper);
}

}  // namespace

double median(std::vector<double> sample) { return median_in_place(sample.data(), sample.size()); }

double quantile(std::vector<double> sample, double q) {
  if (sample.empty()) return 0;
  std::sort(sample.begin(), sample.end());
  q = std::clamp(q, 0.0, 1.0);
  const double h = q * static_cast<double>(sample.size() - 1);
  const auto low = static_cast<std::size_t>(std::floor(h));
  const std::size_t high = std::min(low + 1, sample.size() - 1);
  return sample[low] + (h - static_cast<double>(low)) * (sample[high] - sample[low]);
}

Interval bootstrap_median_ci(const std::vector<double> &sample, double level, int resamples, std::uint64_t seed) {
  if (sample.empty()) return {};
  if (sample.size() == 1 || resamples < 1) {
    const double m = median(sample);
    return {m, m};
  }
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> pick(0, sample.size() - 1);
  std::vector<double> medians(static_cast<std::size_t>(resamples));
  std::vector<double> resample(sample.size());
  for (double &m : medians) {
    for (double &x : resample) x = sample[pick(rng)];
    m = median_in_place(resample.data(), resample.size());
  }
  const double tail = (1.0 - level) / 2.0;
  return {quantile(medians, tail), quantile(std::move(medians), 1.0 - tail)};
}

double permutation_test_median_ratio(const std::vector<double> &a, const std::vector<double> &b, int permutations,
                                     std::uint64_t seed) {
  if (a.empty() || b.empty() || permutations < 1) return 1.0;
  const double ma = median(a), mb = median(b);
  if (!(ma > 0) || !(mb > 0)) return 1.0;
  const double observed = std::fabs(std::log(ma / mb));
  std::vector<double> pooled(a);
  pooled.insert(pooled.end(), b.begin(), b.end());
  std::mt19937_64 rng(seed);
  // Relative slack so that permutations reproducing the observed split
  // exactly count as "at least as extreme" despite rounding.
  const double threshold = observed * (1 - 1e-12);
  long long extreme = 0;
  for (int k = 0; k < permutations; ++k) {
    std::shuffle(pooled.begin(), pooled.end(), rng);
    const double pa = median_in_place(pooled.data(), a.size());
    const double pb = median_in_place(pooled.data() + a.size(), b.size());
    if (!(pa > 0) || !(pb > 0)) continue;
    if (std::fabs(std::log(pa / pb)) >= threshold) ++extreme;
  }
  return static_cast<double>(extreme + 1) / static_cast<double>(permutations + 1);
}

}  // namespace patcoll::bench
