#include "pat.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "generators/schedule.hpp"

namespace patcoll::core {

std::vector<double> relative_arrivals(std::vector<double> arrivals) {
  if (arrivals.empty()) return arrivals;
  const double earliest = *std::min_element(arrivals.begin(), arrivals.end());
  for (double &a : arrivals) a -= earliest;
  return arrivals;
}

std::vector<double> quantise_arrivals(const std::vector<double> &arrivals, double quantum) {
  std::vector<double> out = relative_arrivals(arrivals);
  if (quantum > 0)
    for (double &a : out) a = std::round(a / quantum) * quantum;
  return out;
}

std::vector<int> arrival_order(const std::vector<double> &arrivals) {
  std::vector<int> order(arrivals.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return arrivals[a] < arrivals[b]; });
  return order;
}

void MovingAverage::record(double value) {
  if (ring_.size() < static_cast<std::size_t>(window_)) ring_.push_back(value);
  else ring_[next_] = value;
  next_ = (next_ + 1) % static_cast<std::size_t>(window_);
  ++count_;
}

double MovingAverage::mean() const {
  if (ring_.empty()) return 0;
  return std::accumulate(ring_.begin(), ring_.end(), 0.0) / static_cast<double>(ring_.size());
}

std::vector<double> MovingAverage::recent() const {
  std::vector<double> out;
  out.reserve(ring_.size());
  // ring_ is full once count_ >= window_; the oldest value is then at next_.
  const std::size_t n = ring_.size();
  const std::size_t first = n < static_cast<std::size_t>(window_) ? 0 : next_;
  for (std::size_t i = 0; i < n; ++i) out.push_back(ring_[(first + i) % n]);
  return out;
}

std::vector<double> mean_relative_arrivals(const std::vector<double> &samples, int procs, int width) {
  std::vector<double> sum(static_cast<std::size_t>(std::max(procs, 0)), 0.0);
  if (procs <= 0 || width <= 0 || samples.size() < static_cast<std::size_t>(procs) * static_cast<std::size_t>(width))
    return sum;
  int used = 0;
  for (int call = 0; call < width; ++call) {
    double low = 0;
    bool complete = true;
    for (int r = 0; r < procs && complete; ++r) {
      const double v = samples[static_cast<std::size_t>(r) * width + call];
      if (!std::isfinite(v)) complete = false;
      else if (r == 0 || v < low) low = v;
    }
    if (!complete) continue;
    for (int r = 0; r < procs; ++r) sum[static_cast<std::size_t>(r)] += samples[static_cast<std::size_t>(r) * width + call] - low;
    ++used;
  }
  if (used > 0)
    for (double &v : sum) v /= used;
  return sum;
}

int latest_rank(const std::vector<double> &pats) {
  if (pats.empty()) return -1;
  const auto high = std::max_element(pats.begin(), pats.end());
  const auto low = std::min_element(pats.begin(), pats.end());
  if (*high == *low) return -1;
  return static_cast<int>(high - pats.begin());
}

double round_time(const Params &params) {
  return params.cost.round_time(schedule_segment_bytes(params, schedule_segment_count(params)));
}

double pat_quantum(const Params &params) { return round_time(params) / 4; }

Params builder_params(const Algorithm &algorithm, Params params) {
  if (!(algorithm.capabilities & pap_aware) || params.arrivals.empty()) {
    params.arrivals.clear();
    return params;
  }
  params.arrivals = quantise_arrivals(params.arrivals, pat_quantum(params));
  return params;
}

}  // namespace patcoll::core
