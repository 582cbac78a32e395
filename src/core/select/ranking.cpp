#include "ranking.hpp"

#include <algorithm>
#include <cmath>

#include "core/simulate.hpp"
#include "core/traits.hpp"

namespace patcoll::core {

// The collective's traits row holds the rule (core/traits.cpp).
std::vector<std::string_view> classic_candidates(const Params &params) {
  const std::int64_t bytes = params.count * params.element_bytes;
  const bool small = bytes < 16 * 1024 || params.count < params.procs;
  const CollectiveTraits &t = traits(params.collective);
  const std::span<const std::string_view> list = small ? t.classic_small : t.classic_large;
  return {list.begin(), list.end()};
}

const Algorithm *classic_choice(const Params &params) {
  for (std::string_view name : classic_candidates(params)) {
    const Algorithm *algorithm = find_algorithm(params.collective, name);
    if (algorithm && unsupported_reason(*algorithm, params).empty()) return algorithm;
  }
  return nullptr;
}

namespace {

void fastest_first(std::vector<Prediction> &predictions) {
  std::stable_sort(predictions.begin(), predictions.end(),
                   [](const Prediction &a, const Prediction &b) { return a.seconds < b.seconds; });
}

}  // namespace

std::vector<Prediction> predict_candidates(const Params &params) {
  std::vector<Prediction> out;
  double best_classic = INFINITY;
  auto consider = [&](const Algorithm &algorithm, bool pap) {
    if (!unsupported_reason(algorithm, params).empty()) return;
    const SimulateResult result = simulate(algorithm, params);
    if (!result.error.empty() || !std::isfinite(result.run_time)) return;
    out.push_back({algorithm.name, result.run_time, pap});
    if (!pap) best_classic = std::min(best_classic, result.run_time);
  };
  for (std::string_view name : classic_candidates(params))
    if (const Algorithm *algorithm = find_algorithm(params.collective, name)) consider(*algorithm, false);
  if (std::isfinite(best_classic)) out.insert(out.begin(), Prediction{native_name, best_classic, false});
  for (const Algorithm &algorithm : algorithms())
    if (algorithm.collective == params.collective && (algorithm.capabilities & pap_aware) &&
        !(algorithm.capabilities & background) &&  // a background row is its base in the foreground
        !(algorithm.capabilities & by_name_only))
      consider(algorithm, true);
  fastest_first(out);
  return out;
}

std::vector<Prediction> predict_balanced(const Params &params) {
  Params flat = params;
  flat.arrivals.clear();
  std::vector<Prediction> out;
  const std::vector<std::string_view> size_rule = classic_candidates(flat);
  double native = INFINITY;
  for (const Algorithm &algorithm : algorithms()) {
    // Every foreground row: with equal arrivals a PAP-aware schedule is one
    // more algorithm, and some are the fastest of all (Lowery–Langou's
    // greedy reductions, the pipelined clairvoyant broadcast). A
    // background row needs the PAT runtime's thread; a reactive one serves
    // blocking calls only.
    if (algorithm.collective != flat.collective || (algorithm.capabilities & background) ||
        (algorithm.capabilities & reactive) || (algorithm.capabilities & by_name_only))
      continue;
    if (!unsupported_reason(algorithm, flat).empty()) continue;
    const SimulateResult result = simulate(algorithm, flat);
    if (!result.error.empty() || !std::isfinite(result.run_time)) continue;
    out.push_back({algorithm.name, result.run_time, (algorithm.capabilities & pap_aware) != 0});
    if (std::find(size_rule.begin(), size_rule.end(), algorithm.name) != size_rule.end())
      native = std::min(native, result.run_time);
  }
  if (!std::isfinite(native)) return {};
  out.insert(out.begin(), Prediction{native_name, native, false});
  fastest_first(out);
  return out;
}

double balanced_prediction(const Params &params) {
  Params flat = params;
  flat.arrivals.clear();
  double best = INFINITY;
  for (const Prediction &p : predict_candidates(flat))
    if (!p.pap_aware) best = std::min(best, p.seconds);
  return best;
}

const Prediction *find_prediction(const std::vector<Prediction> &predictions, std::string_view name) {
  for (const Prediction &p : predictions)
    if (p.name == name) return &p;
  return nullptr;
}

double median(std::span<const double> values) {
  if (values.empty()) return NAN;
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  return n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

std::vector<Prediction> corrected_ranking(const std::vector<Prediction> &predictions, double imbalance,
                                          const std::function<double(std::string_view)> &error_of) {
  std::vector<Prediction> ranked = predictions;
  const double native_error = error_of(native_name);
  // An unmeasured PAP-aware candidate is assumed no better than its
  // measured kind: on a machine where pipelined many-round schedules run
  // slower than modelled, they all do.
  std::vector<double> pap_errors;
  for (const Prediction &p : ranked)
    if (p.pap_aware && !std::isnan(error_of(p.name))) pap_errors.push_back(error_of(p.name));
  const double pap_prior = pap_errors.empty() ? native_error : std::max(native_error, median(pap_errors));
  if (!std::isnan(native_error))
    for (Prediction &p : ranked) {
      double error = error_of(p.name);
      if (std::isnan(error)) error = p.pap_aware ? pap_prior : native_error;
      p.seconds = imbalance + std::max(0.0, p.seconds - imbalance + error);
    }
  fastest_first(ranked);
  return ranked;
}

}  // namespace patcoll::core
