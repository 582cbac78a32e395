#include "history.hpp"

#include <algorithm>
#include <cmath>

namespace patcoll::preload {

void ArrivalHistory::record(double offset) {
  if (!(offset > 0) || !std::isfinite(offset)) offset = 0;
  if (ring_.size() < static_cast<std::size_t>(window_)) {
    ring_.push_back(offset);
  } else {
    ring_[next_] = offset;
  }
  next_ = (next_ + 1) % static_cast<std::size_t>(window_);
  ++count_;
}

double ArrivalHistory::predict() const {
  if (ring_.empty()) return 0;
  double sum = 0;
  for (double v : ring_) sum += v;
  return sum / static_cast<double>(ring_.size());
}

std::vector<double> ArrivalHistory::recent() const {
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

std::vector<double> relative_pats(const std::vector<double> &predictions, double quantum) {
  std::vector<double> out(predictions.size(), 0.0);
  if (predictions.empty()) return out;
  double low = 0;
  bool first = true;
  for (double v : predictions) {
    const double x = std::isfinite(v) ? v : 0.0;
    if (first || x < low) low = x;
    first = false;
  }
  for (std::size_t i = 0; i < predictions.size(); ++i) {
    const double x = (std::isfinite(predictions[i]) ? predictions[i] : 0.0) - low;
    out[i] = quantum > 0 ? std::round(x / quantum) * quantum : x;
  }
  return out;
}

int latest_rank(const std::vector<double> &pats) {
  if (pats.empty()) return -1;
  const auto high = std::max_element(pats.begin(), pats.end());
  const auto low = std::min_element(pats.begin(), pats.end());
  if (*high == *low) return -1;
  return static_cast<int>(high - pats.begin());
}

}  // namespace patcoll::preload
