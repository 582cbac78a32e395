// Statistics of patcoll-bench, MPI-free: location (median, quantiles), a
// percentile-bootstrap confidence interval of the median, and the
// permutation test of a ratio of medians that [M] §6.2 uses to say whether
// one algorithm's runtime differs from another's by more than chance.
#pragma once

#include <cstdint>
#include <vector>

namespace patcoll::bench {

// Median of a sample (mean of the two middle values for even sizes);
// 0 for an empty sample.
double median(std::vector<double> sample);

// Linear-interpolation quantile (type 7, as numpy's default), q in [0, 1];
// 0 for an empty sample.
double quantile(std::vector<double> sample, double q);

struct Interval {
  double low = 0;
  double high = 0;
};

// Percentile bootstrap: `resamples` resamples with replacement of `sample`,
// the (1−level)/2 and (1+level)/2 quantiles of their medians. Deterministic
// for a given seed. A sample of size 0 or 1 gives [x, x].
Interval bootstrap_median_ci(const std::vector<double> &sample, double level = 0.95, int resamples = 2000,
                             std::uint64_t seed = 1);

// Two-sided permutation test of H0 "a and b come from one distribution"
// with statistic |log(median(a) / median(b))|: the pooled sample is
// shuffled `permutations` times and split into groups of the original
// sizes; p = (1 + #{permuted statistic ≥ observed}) / (1 + permutations),
// so p is never 0 and is uniform under H0. Values must be positive (run
// times); p = 1 when either sample is empty or a median is not positive.
double permutation_test_median_ratio(const std::vector<double> &a, const std::vector<double> &b,
                                     int permutations = 10000, std::uint64_t seed = 1);

}  // namespace patcoll::bench
