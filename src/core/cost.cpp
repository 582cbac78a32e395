#include "cost.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

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

std::string parse_cost_model(const std::string &text, CostModel &model) {
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    for (char &c : line)
      if (c == '=' || c == '\t' || c == ':') c = ' ';
    std::istringstream fields(line);
    std::string key, extra;
    double value = 0;
    if (!(fields >> key)) continue;
    // Positive and finite: a zero or infinite α/β/γ makes the round time
    // and the segment count degenerate, and schedules built from it wrong.
    if (!(fields >> value) || (fields >> extra) || !(value > 0) || !std::isfinite(value))
      return "line " + std::to_string(number) + ": expected '<alpha|beta|gamma> <positive finite number>'";
    if (key == "alpha") model.alpha = value;
    else if (key == "beta") model.beta = value;
    else if (key == "gamma") model.gamma = value;
    else return "line " + std::to_string(number) + ": unknown key '" + key + "' (alpha, beta, gamma)";
  }
  return {};
}

std::string check_cost_model(const CostModel &model) {
  const std::pair<const char *, double> values[] = {{"alpha", model.alpha}, {"beta", model.beta}, {"gamma", model.gamma}};
  for (const auto &[name, value] : values)
    if (!(value > 0) || !std::isfinite(value))
      return std::string(name) + " = " + std::to_string(value) + " is not a positive finite number";
  return {};
}

std::string format_cost_model(const CostModel &model) {
  char text[256];
  std::snprintf(text, sizeof text,
                "# patcoll cost model (Hockney): seconds per message, per byte sent, per byte combined\n"
                "alpha %.6e\nbeta %.6e\ngamma %.6e\n",
                model.alpha, model.beta, model.gamma);
  return text;
}

}  // namespace patcoll::core
