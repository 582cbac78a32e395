#include "feedback.hpp"

#include <algorithm>
#include <cmath>

#include "ranking.hpp"

namespace patcoll::core {

double measured_tail(std::span<const double> tails) { return median(tails); }

bool measured_worse(std::span<const double> candidate, std::span<const double> native, std::size_t samples,
                    double margin) {
  samples = std::max<std::size_t>(1, samples);
  if (candidate.size() < samples || native.size() < samples) return false;
  return measured_tail(candidate) > measured_tail(native) * (1.0 + margin);
}

std::string_view to_string(PatternState state) {
  switch (state) {
    case PatternState::trusting_model: return "trusting_model";
    case PatternState::probing_native: return "probing_native";
    case PatternState::confirming: return "confirming";
    case PatternState::re_probe: return "re_probe";
    case PatternState::confirmed: return "confirmed";
    case PatternState::dropped: return "dropped";
  }
  return "?";
}

std::string_view to_string(ShapeState state) {
  switch (state) {
    case ShapeState::learning: return "learning";
    case ShapeState::trusting: return "trusting";
    case ShapeState::losing: return "losing";
  }
  return "?";
}

namespace {

std::vector<double> values_since(const std::deque<Sample> &samples, std::size_t since) {
  std::vector<double> out;
  for (const Sample &sample : samples)
    if (sample.stamp >= since) out.push_back(sample.value);
  return out;
}

void keep_last(std::deque<Sample> &samples, const Sample &sample, std::size_t window) {
  samples.push_back(sample);
  while (samples.size() > window) samples.pop_front();
}

std::size_t window_of(const FeedbackRules &rules) { return std::max<std::size_t>(1, rules.window); }
std::size_t samples_of(const FeedbackRules &rules) { return std::max<std::size_t>(1, rules.samples); }

ShapeState shape_state(const FeedbackRules &rules, const ShapeFeedback &shape) {
  if (shape.clock < shape.loss_until) return ShapeState::losing;
  if (shape.native_runs < rules.samples) return ShapeState::learning;
  return ShapeState::trusting;
}

// The state a pattern is in, from its record and its shape's (the clock
// moves with the shape's calls, so `re_probe` is reached by the period
// elapsing, seen at the pattern's next call).
PatternState pattern_state(const FeedbackRules &rules, const ShapeFeedback &shape, const PatternFeedback &pattern) {
  if (!rules.feedback) return PatternState::trusting_model;
  if (pattern.confirm_left > 0) return PatternState::confirming;
  if (shape.clock - pattern.last_native >= std::max<std::size_t>(1, rules.age)) return PatternState::re_probe;
  if (pattern.native_runs < rules.samples || shape.native_runs < rules.samples) return PatternState::probing_native;
  if (!pattern.choice.empty() && pattern.dropped.count(pattern.choice)) return PatternState::dropped;
  if (!pattern.choice.empty() && pattern.tails.count(pattern.choice)) return PatternState::confirmed;
  return PatternState::trusting_model;
}

// Whether the call that finds the pattern in its state runs native instead
// of a PAP-aware choice.
bool probes(const FeedbackRules &rules, const ShapeFeedback &shape, const PatternFeedback &pattern) {
  switch (pattern.state) {
    case PatternState::confirming:
    case PatternState::re_probe:
      return true;
    case PatternState::probing_native:  // the odd calls of the pattern, or of the shape, still learning native
      return (pattern.native_runs < rules.samples && pattern.calls % 2 == 1) ||
             (shape.native_runs < rules.samples && shape.calls % 2 == 1);
    case PatternState::trusting_model:
    case PatternState::confirmed:
    case PatternState::dropped:
      return false;
  }
  return false;
}

// A measured tail: kept, the model's error updated, and every candidate it
// may condemn judged against native's tails of the same minutes.
std::optional<Verdict> judge(const FeedbackRules &rules, ShapeFeedback *shape, PatternFeedback &pattern,
                             const FeedbackEvent &event) {
  const std::size_t clock = shape ? shape->clock : 0;
  const std::size_t window = window_of(rules), samples = samples_of(rules);
  keep_last(pattern.tails[std::string(event.algorithm)], {event.tail, clock}, window);
  // The model's error for this algorithm on this shape: measured minus
  // predicted time after the last arrival.
  if (event.predicted_after_last > 0 && shape)
    keep_last(shape->model_error[std::string(event.algorithm)], {event.tail - event.predicted_after_last, clock},
              window);
  auto native = pattern.tails.find(std::string(native_name));
  if (native == pattern.tails.end()) return std::nullopt;
  const std::vector<double> native_tails = values_since(native->second, 0);
  // A new native measurement may condemn any candidate measured so far; a
  // candidate's own measurement only itself. Candidates in name order, so
  // every rank drops the same one first.
  std::set<std::string, std::less<>> candidates;
  if (event.algorithm == native_name) {
    for (const auto &[name, kept] : pattern.tails)
      if (name != native_name) candidates.insert(name);
  } else {
    candidates.insert(std::string(event.algorithm));
  }
  for (const std::string &name : candidates) {
    if (pattern.dropped.count(name)) continue;
    const std::deque<Sample> &kept = pattern.tails[name];
    if (kept.empty()) continue;
    const std::vector<double> candidate_tails = values_since(kept, 0);
    // Judged against native's tails of the same minutes only (measured no
    // earlier than the candidate's oldest kept one): on a machine whose
    // speed drifts, an old native tail says nothing about a new one.
    const std::vector<double> same_minutes = values_since(native->second, kept.front().stamp);
    const bool worse = measured_worse(candidate_tails, same_minutes, samples, rules.hysteresis);
    // A small loss is judged on the full window of both sides: with 3
    // samples each, a loaded machine's noise fakes one.
    const bool clear = measured_worse(candidate_tails, same_minutes, samples, rules.clear_loss);
    const bool full = candidate_tails.size() >= window && same_minutes.size() >= window;
    if (worse && (clear || full)) {
      pattern.dropped.insert(name);
      pattern.confirm_left = 0;
      if (shape) {  // the shape loses: conservative for a while (doubled at each drop)
        shape->loss_calls = shape->loss_calls ? std::min<std::size_t>(2 * shape->loss_calls, 1u << 16)
                                              : std::max<std::size_t>(1, rules.loss_calls);
        shape->loss_until = clock + shape->loss_calls;
      }
      return Verdict{name, measured_tail(candidate_tails), measured_tail(same_minutes), candidate_tails.size(),
                     same_minutes.size()};
    }
    std::size_t wanted = 0;  // native tails of the same minutes needed before a verdict
    if (worse) wanted = window;
    else if (same_minutes.size() < samples && candidate_tails.size() >= samples &&
             measured_worse(candidate_tails, native_tails, 1, rules.hysteresis))
      wanted = samples;  // slower than native's older tails: measure native now
    pattern.confirm_left =
        wanted > same_minutes.size() ? std::max(pattern.confirm_left, wanted - same_minutes.size()) : 0;
  }
  return std::nullopt;
}

}  // namespace

double ShapeFeedback::error_of(std::string_view name, std::size_t samples) const {
  auto it = model_error.find(std::string(name));
  if (it == model_error.end() || it->second.size() < samples) return NAN;
  return measured_tail(values_since(it->second, 0));
}

FeedbackOutcome transition(const FeedbackRules &rules, ShapeFeedback *shape, PatternFeedback *pattern,
                           const FeedbackEvent &event) {
  FeedbackOutcome out;
  using Kind = FeedbackEvent::Kind;
  switch (event.kind) {
    case Kind::shape_call:
      ++shape->clock;
      break;
    case Kind::pattern_cached:
      pattern->last_native = shape->clock;  // native's age counts from the pattern's first call
      break;
    case Kind::call_selected: {
      // An unmeasured call (non-blocking, persistent) runs the choice and
      // counts for nothing: probes are for calls that measure.
      if (!event.measured) break;
      const bool pap_choice = event.algorithm != native_name;
      if (pap_choice) pattern->choice = std::string(event.algorithm);
      pattern->state = pattern_state(rules, *shape, *pattern);
      out.probe = pap_choice && probes(rules, *shape, *pattern);
      ++pattern->calls;
      ++shape->calls;
      if (out.probe || !pap_choice) transition(rules, shape, pattern, {.kind = Kind::native_ran});
      break;
    }
    case Kind::native_ran:
      ++pattern->native_runs;
      ++shape->native_runs;
      pattern->last_native = shape->clock;
      if (pattern->confirm_left > 0) --pattern->confirm_left;
      break;
    case Kind::measured_tail_recorded:
      if (!std::isfinite(event.tail)) return out;
      out.verdict = judge(rules, shape, *pattern, event);
      break;
  }
  if (shape) shape->state = shape_state(rules, *shape);
  if (pattern && shape) pattern->state = pattern_state(rules, *shape, *pattern);
  return out;
}

}  // namespace patcoll::core
