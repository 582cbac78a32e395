// `auto` with an arrival pattern: choose the algorithm the model predicts
// fastest for this PAT vector ([PA] §7 names this as future work).
//
// Without a PAT vector `auto` keeps its size-and-P rule (docs/selection.md).
// With one, every eligible candidate is simulated (simulate.hpp) on the
// communicator's cost model and the vector, and the fastest wins:
//   - candidates: the classic algorithms of the size rule (their best
//     prediction stands for `native`, the MPI library's own, which is what
//     `auto` runs when nothing PAP-aware is predicted to beat it) and every
//     PAP-aware algorithm that can serve the call;
//   - the PAT vector is made relative to the earliest rank and quantised to
//     `quantum_fraction` of the predicted balanced time, so a pattern that
//     jitters by less than that decides once (predictions are cached per
//     quantised vector, LRU);
//   - hysteresis: the current choice stays while its predicted time after
//     the last arrival (run time minus the imbalance: what an algorithm can
//     change) is within `hysteresis` of the best one's, so a noisy pattern
//     does not flap; the first choice starts from `native`.
//   - measured feedback (docs/adaptive.md): the caller files each call's
//     measured time after the last arrival under the pattern it was chosen
//     for (record); a PAP-aware choice whose median measured tail exceeds
//     native's by more than `hysteresis` is dropped for that pattern, and
//     native is run on a few agreed calls of a pattern to measure it.
//     Across patterns of the same shape (patterns that never repeat), each
//     algorithm's predicted time after the last arrival is corrected by
//     its measured-minus-predicted difference (median of the last few)
//     before comparing. A difference, not a ratio: what stale PATs add to a
//     measurement is a wait common to every algorithm, which a ratio would
//     multiply by the smallest predicted tails (docs/adaptive.md).
// Every rank must choose the same algorithm: the inputs (Params, the PAT
// vector, the cost model, the measurements, which the caller agrees across
// ranks before recording them at the same call everywhere) are the same on
// every rank and nothing here reads a clock, so the sequence of choices is
// identical everywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <list>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "algorithm.hpp"

namespace patcoll::core {

inline constexpr std::string_view native_name = "native";

struct Prediction {
  std::string_view name;  // "native" or a catalogue algorithm
  double seconds = 0;     // predicted run time max(f) - min(a)
  bool pap_aware = false;
};

struct SelectOptions {
  double hysteresis = 0.05;        // keep the current choice unless the best is this much faster
  double quantum_fraction = 0.05;  // PAT quantum, as a fraction of the balanced prediction
  std::size_t cache_entries = 64;  // quantised vectors remembered per selector
  // Below this many bytes per rank the pattern is not simulated: with small
  // messages the work left after the last arrival is a few latencies for
  // every algorithm, so nothing is won (docs/selection.md has the numbers).
  std::int64_t min_bytes = 16 * 1024;
  // A pattern not in the cache is simulated at most once every `period`
  // calls of the same shape; in between the current choice is kept. A
  // stable pattern decides once; a pattern that changes every call (the
  // runtime's predictions of random delays) pays 1/period of a simulation
  // per call. Counted in calls, never in time, so every rank agrees.
  int period = 8;
  // Measured feedback: the model's choice is checked against what the
  // calls measure. Per pattern, the last `feedback_window` measured tails
  // of each algorithm are kept; a verdict needs `feedback_samples` of both
  // the PAP-aware choice and native, and native is probed on that many
  // calls of a pattern (every other call from the second) when the model
  // chose a PAP-aware algorithm for it.
  bool feedback = true;
  std::size_t feedback_window = 5;
  std::size_t feedback_samples = 3;
  // Jitter and drift (docs/adaptive.md, "Measured feedback"):
  //  - a new quantised vector within `family_quanta` quanta (or
  //    `family_fraction` of its imbalance, if more) of a cached pattern of
  //    the same shape (every rank, L-infinity) with the same set of late
  //    ranks is that pattern: it inherits its predictions, measurements
  //    and drops, and is measured under it;
  //  - a drop compares the candidate's kept tails only with native's
  //    tails measured since the oldest of them (when the candidate measures
  //    slower than older native tails, native is probed on the next calls
  //    to have them), and a pattern running a PAP-aware choice re-probes
  //    native once when native's last run there is `feedback_age` calls of
  //    the shape old, so a drift of the machine is seen;
  //  - after a drop the shape is "losing" for `loss_calls` calls (doubled
  //    at each further drop): meanwhile a PAP-aware candidate whose model
  //    error was never measured on the shape is not tried, and a new
  //    pattern whose simulation the period defers runs native.
  //  - a loss by more than `clear_loss` (a fraction) is judged on
  //    feedback_samples of each side; a smaller one, which noise can fake,
  //    on feedback_window of each.
  double clear_loss = 0.25;
  double family_quanta = 2;
  double family_fraction = 0.15;  // ... or within this fraction of the vector's imbalance, if more
  std::size_t feedback_age = 64;
  std::size_t loss_calls = 64;
};

// The classic algorithms of the size-and-P rule for `params`, in preference
// order (the first supported one is today's `auto` choice).
std::vector<std::string_view> classic_candidates(const Params &);
// The first classic candidate that can serve `params`; nullptr when none.
const Algorithm *classic_choice(const Params &);

// Predicted run times on `params` (its arrivals and cost model) of every
// candidate that can serve the call, fastest first, with "native" standing
// for the best classic one. Ties keep candidate order (classic first).
std::vector<Prediction> predict_candidates(const Params &);

// The measured tail of an algorithm under a pattern: the median of its
// kept measurements (one preempted call does not move it); NaN when empty.
double measured_tail(std::span<const double> tails);
// The feedback rule: a PAP-aware candidate is worse than native under a
// pattern when both have at least `samples` measurements and the
// candidate's measured tail exceeds native's by more than `margin`
// (a fraction: 0.05 = 5 %).
bool measured_worse(std::span<const double> candidate, std::span<const double> native, std::size_t samples,
                    double margin);

// A PAP-aware choice dropped for one pattern by its measurements.
struct Verdict {
  std::string name;                  // the dropped algorithm
  double tail = 0, native_tail = 0;  // measured tails (medians), seconds
  std::size_t samples = 0, native_samples = 0;
};

struct Selection {
  std::string_view name;               // what `auto` runs: "native" or an algorithm
  std::vector<Prediction> predictions; // fastest first (empty when not simulated)
  std::vector<double> arrivals;        // the quantised PAT vector used
  bool simulated = false;              // false: the size-and-P rule decided
  bool changed = false;                // differs from the previous selection
  bool cache_hit = false;
  bool family = false;                 // the hit is a nearby pattern's (its family), not this exact vector
  bool deferred = false;               // a new pattern, kept the current choice (period)
  // The pattern (shape and quantised vector) whose predictions decided:
  // the measurement of this call is recorded under it. "" when no
  // prediction decided (no vector, balanced, small, deferred).
  std::string pattern;
  bool probe = false;                  // native run to measure it under `pattern` (feedback)
};

// One selector per (communicator, collective): holds the cache and the
// current choice for hysteresis. Not thread-safe (callers serialise).
class Selector {
 public:
  explicit Selector(SelectOptions options = {}) : options_(options) {}

  // `params.arrivals` empty: the size-and-P rule (name of a classic
  // algorithm, or "native" when none can serve). Otherwise the model's
  // choice among native and the PAP-aware candidates. `measured` false: a
  // call whose time will not be recorded (non-blocking, persistent): it
  // runs the decision the measured calls of its shape and pattern made
  // (drops, losses, model errors), takes no probe and is not counted.
  Selection select(const Params &params, bool measured = true);

  // The measured tail (seconds from the last arrival to the last exit,
  // the same value on every rank) of `algorithm` on a call selected for
  // `pattern` (Selection::pattern). Returns the verdict when this
  // measurement drops a PAP-aware choice for the pattern. A pattern no
  // longer cached is ignored.
  std::optional<Verdict> record(const std::string &pattern, std::string_view algorithm, double tail_seconds);
  // True when measurements dropped `algorithm` for `pattern`.
  bool dropped(const std::string &pattern, std::string_view algorithm) const;

  void set_feedback(bool on) { options_.feedback = on; }
  const SelectOptions &options() const { return options_; }
  std::size_t simulations() const { return simulations_; }  // cache misses so far

 private:
  struct Cached;
  // nullptr on a miss when `may_simulate` is false. `shape` is
  // shape_key(quantised), computed once per call; `key` is set to the
  // pattern's key.
  Cached *predictions_for(const std::string &shape, const Params &quantised, double quantum, bool may_simulate,
                          bool &hit, std::string &key);
  // The nearest cached pattern of `shape` whose family `arrivals` belongs
  // to (same late ranks, within family_quanta quanta or family_fraction
  // of its imbalance); nullptr when none.
  Cached *family_of(const std::string &shape, const std::vector<double> &arrivals, double quantum, std::string &key);

  // A measurement and the shape's clock when it was recorded.
  struct Sample {
    double value = 0;
    std::size_t stamp = 0;
  };
  SelectOptions options_;
  std::string last_choice_;  // for Selection::changed
  struct Current {
    std::string name;             // current choice (hysteresis)
    int calls_since_simulation = 0;
    bool simulated_once = false;
    // Feedback across the shape's patterns: per algorithm the last
    // measured tails minus the model's prediction of them (how far the
    // model is off on this machine), and the shape's predicted calls
    // (of which `native_runs` ran native).
    std::unordered_map<std::string, std::deque<Sample>> model_error;
    std::size_t calls = 0, native_runs = 0;
    // Every call of the shape with an imbalanced vector (deferred ones too):
    // the clock that stamps measurements (calls, never seconds).
    std::size_t clock = 0;
    std::size_t loss_until = 0, loss_calls = 0;  // losing while clock < loss_until
    bool losing() const { return clock < loss_until; }
  };
  std::unordered_map<std::string, Current> current_;  // per shape key
  std::size_t simulations_ = 0;
  std::list<std::string> lru_;
  struct Cached {
    std::vector<Prediction> predictions;
    std::list<std::string>::iterator position;
    std::string shape;       // shape_key of the pattern
    double imbalance = 0;    // of the quantised vector: run time minus this = time after the last arrival
    // Feedback: measured tails per algorithm (newest last), the drops, and
    // the calls selected for this pattern (of which `native_runs` ran native).
    std::unordered_map<std::string, std::deque<Sample>> tails;
    std::set<std::string, std::less<>> dropped;
    std::size_t calls = 0, native_runs = 0;
    // The quantised vector, its late ranks (arrival above half the
    // imbalance) and the quantum: what a family member is matched against.
    std::vector<double> arrivals;
    std::vector<bool> late;
    double quantum = 0;
    std::size_t last_native = 0;  // the shape's clock at native's last run here
    // Native runs still wanted before a verdict: the choice measured slower
    // than native's older tails (so the verdict compares measurements of
    // the same minutes), or slower by less than `clear_loss` (judged on the
    // full window). Native is probed on the next calls until none is left.
    std::size_t confirm_left = 0;
  };
  std::unordered_map<std::string, Cached> cache_;
  std::unordered_map<std::string, double> balanced_;  // shape key -> balanced best-classic time
};

}  // namespace patcoll::core
