// `auto` with an arrival pattern: choose the algorithm the model predicts
// fastest for this PAT vector ([PA] §7 names this as future work).
//
// Without a PAT vector `auto` keeps its size-and-P rule (docs/results/selection.md).
// With one, core::Selector puts three parts together:
//   select/ranking.hpp        the model's ranking: every candidate simulated
//                             on the vector and the cost model, `native`
//                             standing for the best classic one;
//   select/pattern_cache.hpp  the quantised vector, the cache of rankings
//                             per pattern (LRU), families of nearby vectors;
//   select/feedback.hpp       the measured feedback, a state machine per
//                             pattern and per call shape: native's probes,
//                             drops, the model error, the losing shape.
// The Selector itself applies the period (a new pattern is simulated at
// most once every `period` calls of its shape), the hysteresis (the current
// choice stays unless the best one's predicted time after the last arrival
// is `hysteresis` shorter; the first choice starts from `native`) and the
// feedback's restrictions to the ranking.
// Every rank must choose the same algorithm: the inputs (Params, the PAT
// vector, the cost model, the measurements, which the caller agrees across
// ranks before recording them at the same call everywhere) are the same on
// every rank and nothing here reads a clock, so the sequence of choices is
// identical everywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "algorithm.hpp"
#include "select/feedback.hpp"
#include "select/pattern_cache.hpp"
#include "select/ranking.hpp"

namespace patcoll::core {

struct SelectOptions {
  double hysteresis = 0.05;        // keep the current choice unless the best is this much faster
  double quantum_fraction = 0.05;  // PAT quantum, as a fraction of the balanced prediction
  std::size_t cache_entries = 64;  // quantised vectors remembered per selector
  // Below this many bytes per rank `auto` runs native, unmeasured: with
  // small messages the work left after the last arrival is a few latencies
  // for every algorithm, so nothing is won, and the measurement's exchange
  // would cost as much as the call (docs/results/selection.md has the numbers).
  std::int64_t min_bytes = 16 * 1024;
  // A pattern not in the cache is simulated at most once every `period`
  // calls of the same shape; in between the current choice is kept. A
  // stable pattern decides once; a pattern that changes every call (the
  // runtime's predictions of random delays) pays 1/period of a simulation
  // per call. Counted in calls, never in time, so every rank agrees.
  int period = 8;
  // Measured feedback (select/feedback.hpp has the state machine): per
  // pattern, the last `feedback_window` measured tails of each algorithm
  // are kept; a verdict needs `feedback_samples` of both the PAP-aware
  // choice and native, and native is probed on that many calls of a
  // pattern (every other call from the second) when the model chose a
  // PAP-aware algorithm for it.
  bool feedback = true;
  std::size_t feedback_window = 5;
  std::size_t feedback_samples = 3;
  // Jitter and drift (docs/results/adaptive.md, "Measured feedback"):
  //  - a new quantised vector within `family_quanta` quanta (or
  //    `family_fraction` of its imbalance, if more) of a cached pattern of
  //    the same shape (every rank, L-infinity) with the same set of late
  //    ranks is that pattern: it inherits its predictions, measurements
  //    and drops, and is measured under it;
  //  - a drop compares the candidate's kept tails only with native's
  //    tails measured since the oldest of them (confirming), and a pattern
  //    running a PAP-aware choice re-probes native once when native's last
  //    run there is `feedback_age` calls of the shape old (re_probe);
  //  - after a drop the shape is losing for `loss_calls` calls (doubled
  //    at each further drop);
  //  - a loss by more than `clear_loss` (a fraction) is judged on
  //    feedback_samples of each side; a smaller one, which noise can fake,
  //    on feedback_window of each.
  double clear_loss = 0.25;
  double family_quanta = 2;
  double family_fraction = 0.15;  // ... or within this fraction of the vector's imbalance, if more
  // Arrivals that cannot be predicted (docs/results/adaptive.md,
  // "Unpredictable arrivals"): when the median of a shape's last
  // `feedback_window` measured arrival errors (at least `feedback_samples`
  // of them) exceeds this fraction of its balanced best-classic prediction,
  // its measured (blocking) calls leave the PAT vector aside: the
  // collective's reactive algorithms and the shape's last predictive
  // choice are each measured on one pattern shared by all of the shape's
  // calls (`feedback_samples` calls each), the one measured fastest runs,
  // and any measured slower than native is dropped there.
  double unpredictable = 0.5;
  std::size_t feedback_age = 64;
  std::size_t loss_calls = 64;
};

struct Selection {
  std::string_view name;               // what `auto` runs: "native" or an algorithm
  std::vector<Prediction> predictions; // fastest first (empty when not simulated)
  std::vector<double> arrivals;        // the quantised PAT vector used
  bool simulated = false;              // false: no prediction decided (small message, feedback off when balanced)
  bool changed = false;                // differs from the previous selection
  bool cache_hit = false;
  bool family = false;                 // the hit is a nearby pattern's (its family), not this exact vector
  bool deferred = false;               // a new pattern, kept the current choice (period)
  // The pattern (shape and quantised vector) whose predictions decided:
  // the measurement of this call is recorded under it. "" when no
  // prediction decided (no vector, balanced, small, deferred).
  std::string pattern;
  bool probe = false;                  // native run to measure it under `pattern` (feedback)
  // The shape's arrivals are unpredictable (SelectOptions::unpredictable):
  // the choice ignores the vector; arrival_error is the measured median.
  bool unpredictable = false;
  double arrival_error = 0;
};

// One selector per (communicator, collective): holds the cache and the
// current choice for hysteresis. Not thread-safe (callers serialise).
class Selector {
 public:
  explicit Selector(SelectOptions options = {}) : options_(options) {}

  // Below `min_bytes` per rank (or one process): native. A balanced PAT
  // vector or none: native, or a classic algorithm the model predicts
  // faster while its measurements confirm it (feedback on). Otherwise the
  // model's choice among native and the PAP-aware candidates. `measured` false: a
  // call whose time will not be recorded (non-blocking, persistent): it
  // runs the decision the measured calls of its shape and pattern made
  // (drops, losses, model errors), takes no probe and is not counted.
  Selection select(const Params &params, bool measured = true);

  // The measured tail (seconds from the last arrival to the last exit,
  // the same value on every rank) of `algorithm` on a call selected for
  // `pattern` (Selection::pattern), and how far the arrivals were from the
  // PAT vector (the spread over ranks of actual minus predicted arrival,
  // seconds; NaN when the caller has no common clock to tell). Returns the
  // verdict when this measurement drops a choice for the pattern. A
  // pattern no longer cached is ignored.
  std::optional<Verdict> record(const std::string &pattern, std::string_view algorithm, double tail_seconds,
                                double arrival_error = std::numeric_limits<double>::quiet_NaN());
  // True when measurements dropped `algorithm` for `pattern`.
  bool dropped(const std::string &pattern, std::string_view algorithm) const;
  // The feedback state of `pattern` (trusting_model when not cached).
  PatternState pattern_state(const std::string &pattern) const;

  void set_feedback(bool on) { options_.feedback = on; }
  const SelectOptions &options() const { return options_; }
  std::size_t simulations() const { return cache_.simulations(); }  // cache misses so far

 private:
  // Per call shape: the current choice (hysteresis), the period, and the
  // shape's feedback record.
  struct Shape {
    std::string name;
    int calls_since_simulation = 0;
    bool simulated_once = false;
    ShapeFeedback feedback;
  };
  FeedbackRules rules() const;
  // The choice among the ranked predictions of a cached pattern: native
  // or a PAP-aware algorithm, or with `classic` (a balanced pattern)
  // native or a classic one.
  const Prediction *choose(const CachedPattern &slot, Shape &shape, std::vector<Prediction> &ranked,
                           bool classic = false) const;
  // A measured call of `slot` choosing `chosen`: the feedback's call_selected;
  // native instead when it probes.
  void run_or_probe(Shape &shape, CachedPattern &slot, std::string_view chosen, bool measured, Selection &selection);
  // A balanced vector or none (docs/results/selection.md, "Balanced").
  void select_balanced(const Params &params, const std::string &shape_name, bool measured, Selection &selection);
  // Selection::changed and the last choice, but for a probe (a
  // measurement, not a change of choice).
  Selection finished(Selection selection);
  // The median of the shape's recent arrival errors when it makes the
  // shape unpredictable (SelectOptions::unpredictable), else NaN.
  double unpredictable_error(const Shape &shape, double balanced) const;
  // A measured call of an unpredictable shape; false when there is no
  // candidate but native's own rule (the usual path decides).
  bool select_unpredictable(const Params &params, const std::string &shape_name, const Shape &shape,
                            Selection &selection);

  SelectOptions options_;
  std::string last_choice_;  // for Selection::changed
  std::unordered_map<std::string, Shape> shapes_;  // per shape key
  PatternCache cache_;
};

}  // namespace patcoll::core
