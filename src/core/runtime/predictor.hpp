// Arrival prediction for the PAT runtime (src/runtime/): the MPI-free part.
//
// A process reports the start of its computation phase, an "edge" after a
// known fraction f of it, and its end ([PS] Fig. 2-4, [PA] §3). At the edge
// it predicts the length D of the current phase, i.e. its arrival at the
// next collective relative to its own phase start. Predictors:
//   edge  — extrapolation of this phase: D = elapsed_at_edge / f ([PA] §3);
//   last  — the measured length of the previous phase;
//   sma   — the simple moving average of the last k measured lengths
//           ([M] §4; default k = 5).
// last and sma fall back to edge extrapolation while no phase has been
// measured yet. The predicted lengths of all ranks form the PAT vector
// (relative times: no global clock; phase starts are assumed to coincide,
// as after a collective; core/pat.hpp makes them relative).
#pragma once

#include <cstddef>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace patcoll::core::runtime {

enum class PredictorKind { edge, last_value, moving_average };

struct PredictorConfig {
  PredictorKind kind = PredictorKind::edge;
  int window = 5;  // k of the moving average
};

// "edge", "last", "sma" or "sma:<k>" (k >= 1). False (out untouched) for
// anything else.
bool parse_predictor(std::string_view text, PredictorConfig &out);
std::string to_string(const PredictorConfig &config);

// elapsed / fraction; fraction must be in (0, 1].
double extrapolate(double elapsed, double fraction);

class Predictor {
 public:
  explicit Predictor(PredictorConfig config = {}) : config_(config) {}
  const PredictorConfig &config() const { return config_; }
  // The predicted phase length at an edge reached `elapsed` seconds after
  // the phase start, `fraction` of the way through the phase.
  double predict(double elapsed, double fraction) const;
  // A measured phase length (ProcessingEnd - ProcessingStart).
  void record(double length);
  std::size_t recorded() const { return history_.size(); }

 private:
  PredictorConfig config_;
  std::deque<double> history_;  // newest last, at most max(window, 1)
};

}  // namespace patcoll::core::runtime
