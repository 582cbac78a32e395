#include "core/runtime/predictor.hpp"

#include <algorithm>
#include <charconv>
#include <numeric>

namespace patcoll::core::runtime {

bool parse_predictor(std::string_view text, PredictorConfig &out) {
  if (text == "edge") {
    out = {PredictorKind::edge, out.window};
    return true;
  }
  if (text == "last") {
    out = {PredictorKind::last_value, out.window};
    return true;
  }
  if (text == "sma") {
    out = {PredictorKind::moving_average, 5};
    return true;
  }
  if (text.substr(0, 4) == "sma:") {
    const std::string_view digits = text.substr(4);
    int k = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), k);
    if (ec != std::errc() || end != digits.data() + digits.size() || k < 1) return false;
    out = {PredictorKind::moving_average, k};
    return true;
  }
  return false;
}

std::string to_string(const PredictorConfig &config) {
  switch (config.kind) {
    case PredictorKind::edge: return "edge";
    case PredictorKind::last_value: return "last";
    case PredictorKind::moving_average: return "sma:" + std::to_string(config.window);
  }
  return "edge";
}

double extrapolate(double elapsed, double fraction) { return elapsed / fraction; }

double Predictor::predict(double elapsed, double fraction) const {
  if (config_.kind == PredictorKind::edge || history_.empty()) return extrapolate(elapsed, fraction);
  if (config_.kind == PredictorKind::last_value) return history_.back();
  const std::size_t k = std::min<std::size_t>(history_.size(), static_cast<std::size_t>(std::max(1, config_.window)));
  return std::accumulate(history_.end() - static_cast<std::ptrdiff_t>(k), history_.end(), 0.0) /
         static_cast<double>(k);
}

void Predictor::record(double length) {
  history_.push_back(length);
  const std::size_t keep = static_cast<std::size_t>(std::max(1, config_.window));
  while (history_.size() > keep) history_.pop_front();
}

}  // namespace patcoll::core::runtime
