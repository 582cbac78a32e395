// `auto`'s selector, part 3 of 3: the measured feedback, as a state machine.
//
// The model can be wrong about a machine (docs/results/adaptive.md, "Measured
// feedback"). The caller files each measured call's tail (seconds from the
// last arrival to the last exit, the same on every rank) under the pattern
// it was chosen for; this machine decides, from those measurements alone,
// when native runs instead of the model's PAP-aware choice to measure it (a
// probe) and when the choice is dropped for the pattern. Nothing here reads
// a clock: the shape's clock counts its calls, so every rank fed the same
// events makes the same transitions.
//
// One machine per pattern (PatternState), one per call shape (ShapeState),
// one transition function (transition). The rules, with SelectOptions'
// defaults (samples 3, window 5, clear loss 25 %, age 64, loss 64 calls):
//
//   pattern states, in precedence order (the first that holds; feedback
//   off: always trusting_model)     a PAP-aware choice's measured call ...
//     confirming       the choice measured slower than native's older
//                      tails, or slower by less than the clear loss (judged
//                      on the full window): native on each next call until
//                      enough native tails of the same minutes are in
//     re_probe         the period elapsed (native's last run on the pattern
//                      is `age` calls of the shape old): one native call
//     probing_native   native has fewer than `samples` runs on the pattern
//                      or on the shape: every other call (the odd calls of
//                      the pattern, or of the shape) runs native
//     dropped          its last PAP-aware choice measured slower than native
//                      (by more than the hysteresis; on `samples` tails of
//                      each when by more than the clear loss, else on
//                      `window`): native runs; the drop stays while the
//                      pattern is cached
//     confirmed        measured, not slower: runs the choice
//     trusting_model   nothing measured yet: runs the choice
//   shape states, in precedence order
//     losing           a pattern of the shape dropped its choice within
//                      the last `loss_calls` calls (doubled at each further
//                      drop): a PAP-aware candidate whose model error was
//                      never measured on the shape is not tried, and a new
//                      pattern whose simulation the period defers runs native
//     learning         native has fewer than `samples` runs on the shape
//     trusting         otherwise
//
//   events
//     shape_call              a measured call of the shape with a pattern to
//                             judge, deferred ones too (the clock ticks)
//     pattern_cached          a pattern is simulated and cached (native's
//                             age counts from here)
//     call_selected           a measured call of the pattern is about to run
//                             `choice`: answers whether native runs instead
//     native_ran              native ran on the pattern (a probe or the choice)
//     measured_tail_recorded  an agreed tail of `algorithm` on the pattern:
//                             the model error, and perhaps a Verdict (a drop)
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace patcoll::core {

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

// The rules' parameters (from SelectOptions).
struct FeedbackRules {
  bool feedback = true;
  double hysteresis = 0.05;      // a loss beyond this drops
  double clear_loss = 0.25;      // a loss beyond this is judged on `samples`, a smaller one on `window`
  std::size_t window = 5;        // tails kept per algorithm
  std::size_t samples = 3;       // tails of each side a verdict needs; native's first probes
  std::size_t age = 64;          // native re-probed when its last run is this many calls old
  std::size_t loss_calls = 64;   // calls a drop makes the shape losing (doubled per drop)
};

// A measurement and the shape's clock when it was recorded.
struct Sample {
  double value = 0;
  std::size_t stamp = 0;
};

enum class PatternState { trusting_model, probing_native, confirming, re_probe, confirmed, dropped };
enum class ShapeState { learning, trusting, losing };
std::string_view to_string(PatternState);
std::string_view to_string(ShapeState);

// Per call shape (everything of the call but the PAT vector).
struct ShapeFeedback {
  ShapeState state = ShapeState::learning;
  // Per algorithm the last measured tails minus the model's prediction of
  // them (how far the model is off on this machine).
  std::unordered_map<std::string, std::deque<Sample>> model_error;
  std::size_t calls = 0, native_runs = 0;  // measured calls of the shape's patterns, of which native
  std::size_t clock = 0;                   // measured calls with a pattern to judge (deferred too)
  std::size_t loss_until = 0, loss_calls = 0;
  // How wrong the shape's PAT vectors were about the actual arrivals: per
  // measured call, the spread over ranks of actual minus predicted arrival
  // (seconds; 0 when every rank arrived as predicted, up to the delays
  // themselves when they are drawn anew every call), newest last.
  std::deque<double> arrival_error;
  bool losing() const { return state == ShapeState::losing; }
  // The model's error of `name` on the shape: the median of its last
  // measured-minus-predicted differences; NaN with fewer than `samples`.
  double error_of(std::string_view name, std::size_t samples) const;
};

// Per pattern (a cache entry of pattern_cache.hpp).
struct PatternFeedback {
  PatternState state = PatternState::trusting_model;
  std::string choice;  // the PAP-aware algorithm last selected here ("" none yet)
  std::unordered_map<std::string, std::deque<Sample>> tails;  // per algorithm, newest last
  std::set<std::string, std::less<>> dropped;
  std::size_t calls = 0, native_runs = 0;  // measured calls selected here, of which native
  std::size_t last_native = 0;             // the shape's clock at native's last run here
  std::size_t confirm_left = 0;            // native runs still wanted before a verdict (confirming)
};

struct FeedbackEvent {
  enum class Kind { shape_call, pattern_cached, call_selected, native_ran, measured_tail_recorded } kind;
  std::string_view algorithm = {};  // call_selected: the choice; measured_tail_recorded: what ran
  bool measured = true;             // call_selected: false for a call whose time is not recorded
  double tail = 0;                  // measured_tail_recorded: seconds
  double predicted_after_last = 0;  // measured_tail_recorded: the model's tail of `algorithm` (NaN: none)
};

struct FeedbackOutcome {
  bool probe = false;              // call_selected: native runs instead of the choice
  std::optional<Verdict> verdict;  // measured_tail_recorded: the choice dropped
};

// The one transition function. `pattern` is nullptr for the shape's own
// events (shape_call); `shape` is nullptr when the shape's record was
// cleared (a measurement then still counts for the pattern).
FeedbackOutcome transition(const FeedbackRules &, ShapeFeedback *shape, PatternFeedback *pattern,
                           const FeedbackEvent &);

}  // namespace patcoll::core
