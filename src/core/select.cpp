#include "select.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "cost.hpp"
#include "pat.hpp"

namespace patcoll::core {

FeedbackRules Selector::rules() const {
  return FeedbackRules{.feedback = options_.feedback,
                       .hysteresis = options_.hysteresis,
                       .clear_loss = options_.clear_loss,
                       .window = options_.feedback_window,
                       .samples = options_.feedback_samples,
                       .age = options_.feedback_age,
                       .loss_calls = options_.loss_calls};
}

namespace {

// The records of a shape's balanced pattern and of its unpredictable
// calls are kept under the shape's key with these suffixes.
constexpr std::string_view kBalancedSuffix = " =", kUnpredictableSuffix = " ?";

std::string_view base_shape(std::string_view shape) {
  for (std::string_view suffix : {kBalancedSuffix, kUnpredictableSuffix})
    if (shape.size() >= suffix.size() && shape.substr(shape.size() - suffix.size()) == suffix)
      return shape.substr(0, shape.size() - suffix.size());
  return shape;
}

}  // namespace

std::optional<Verdict> Selector::record(const std::string &pattern, std::string_view algorithm, double tail_seconds,
                                        double arrival_error) {
  CachedPattern *slot = cache_.at(pattern);
  if (!slot) return std::nullopt;
  // The arrival error belongs to the shape's imbalanced calls (a balanced
  // pattern's vector is flat by choice, not by prediction).
  if (std::isfinite(arrival_error) && !slot->shape.ends_with(kBalancedSuffix)) {
    auto base = shapes_.find(std::string(base_shape(slot->shape)));
    if (base != shapes_.end()) {
      std::deque<double> &errors = base->second.feedback.arrival_error;
      errors.push_back(std::max(0.0, arrival_error));
      while (errors.size() > std::max<std::size_t>(1, options_.feedback_window)) errors.pop_front();
    }
  }
  auto shape = shapes_.find(slot->shape);
  const Prediction *predicted = find_prediction(slot->predictions, algorithm);
  FeedbackEvent event{.kind = FeedbackEvent::Kind::measured_tail_recorded,
                      .algorithm = algorithm,
                      .tail = tail_seconds,
                      .predicted_after_last = predicted ? predicted->seconds - slot->imbalance : NAN};
  return transition(rules(), shape != shapes_.end() ? &shape->second.feedback : nullptr, &slot->feedback, event)
      .verdict;
}

bool Selector::dropped(const std::string &pattern, std::string_view algorithm) const {
  const CachedPattern *slot = cache_.at(pattern);
  return slot && slot->feedback.dropped.count(algorithm) > 0;
}

PatternState Selector::pattern_state(const std::string &pattern) const {
  const CachedPattern *slot = cache_.at(pattern);
  return slot ? slot->feedback.state : PatternState::trusting_model;
}

const Prediction *Selector::choose(const CachedPattern &slot, Shape &shape, std::vector<Prediction> &ranked,
                                   bool classic) const {
  // The model's error of an algorithm on this shape (NaN: fewer than
  // feedback_samples measured).
  auto error_of = [&](std::string_view name) { return shape.feedback.error_of(name, options_.feedback_samples); };
  // While the shape is losing, a candidate whose error was never measured
  // is not tried: the last one tried lost. Nor are the ones this pattern's
  // measurements dropped.
  const bool conservative = options_.feedback && shape.feedback.losing();
  // What may run instead of native: every algorithm on a balanced pattern
  // (predict_balanced); with a pattern, the PAP-aware algorithms, and with
  // the measured feedback the classic ones too. Native's prediction is
  // the best classic one's, but the MPI library's real algorithm may be
  // several times slower under imbalance (its tree does not know who is
  // late), while that classic algorithm is one patcoll can run and
  // measure. Without feedback nothing would check it: native stands for
  // the classic algorithms.
  auto candidate = [&](const Prediction &p) {
    return classic || options_.feedback ? p.name != native_name : p.pap_aware;
  };
  auto usable = [&](const Prediction &p) {
    if (slot.feedback.dropped.count(p.name)) return false;
    if (p.name == native_name) return true;
    return candidate(p) && !(conservative && std::isnan(error_of(p.name)));
  };
  // With feedback, each prediction is corrected by the model's measured
  // error for that algorithm on this shape (once native's is measured).
  const double imbalance_seconds = slot.imbalance;
  ranked = slot.predictions;
  if (options_.feedback && shape.feedback.model_error.count(std::string(native_name)))
    ranked = corrected_ranking(slot.predictions, imbalance_seconds, error_of);
  // Hysteresis from the current choice (native at first). A dropped
  // incumbent hands over to native: the next PAP-aware candidate must beat
  // native by the hysteresis to be tried. Compared on the time left after
  // the last arrival (run time minus the imbalance): what an algorithm can
  // change. With a rank late by far more than the collective, 5 % of the
  // whole run time would never be met.
  const Prediction *incumbent = find_prediction(ranked, shape.name);
  if (incumbent && !usable(*incumbent)) incumbent = find_prediction(ranked, native_name);
  const Prediction *best = nullptr;
  for (const Prediction &p : ranked)
    if (usable(p)) {
      best = &p;
      break;
    }
  auto after_last = [&](const Prediction *p) { return std::max(0.0, p->seconds - imbalance_seconds); };
  // A PAP-aware incumbent already measured on this pattern is judged by
  // its own measurements against native's (the feedback), not by the
  // shape's corrected predictions: those are for patterns not measured.
  const bool judged_here = options_.feedback && incumbent && candidate(*incumbent) && usable(*incumbent) &&
                           slot.feedback.tails.count(std::string(incumbent->name)) > 0;
  const Prediction *chosen = incumbent;
  if (!incumbent || (!judged_here && best && after_last(best) < after_last(incumbent) * (1.0 - options_.hysteresis)))
    chosen = best;
  if (!chosen) chosen = &ranked.front();
  // Native's prediction is the best of the classic rule's candidates
  // (what the MPI library may run), not a measurement of the MPI library:
  // the model cannot rank a candidate predicted as fast against it, and
  // native's real algorithm may be far slower (under imbalance above all:
  // its tree does not know who is late). So the best candidate predicted
  // no slower than native runs, and the measurements decide: native's
  // probes, and the drop where native is faster. Without feedback nothing
  // would check it: the hysteresis alone rules.
  if (chosen->name == native_name && options_.feedback)
    for (const Prediction &p : ranked)
      if (p.name != native_name && usable(p)) {
        if (after_last(&p) <= after_last(chosen)) chosen = &p;
        break;
      }
  return chosen;
}

void Selector::run_or_probe(Shape &shape, CachedPattern &slot, std::string_view chosen, bool measured,
                            Selection &selection) {
  const FeedbackOutcome outcome =
      transition(rules(), &shape.feedback, &slot.feedback,
                 {.kind = FeedbackEvent::Kind::call_selected, .algorithm = chosen, .measured = measured});
  if (outcome.probe) {
    selection.name = native_name;
    selection.probe = true;
  }
}

void Selector::select_balanced(const Params &params, const std::string &shape_name, bool measured,
                               Selection &selection) {
  selection.name = native_name;
  // The model alone does not rank balanced algorithms against the MPI
  // library's, tuned on the machine: a classic one runs only while
  // measurements confirm it.
  if (!options_.feedback) return;
  // The balanced pattern of a shape has its own record (clock, model
  // error, losses): native's error with equal arrivals says nothing about
  // its error under imbalance.
  const std::string balanced_shape = shape_name + std::string(kBalancedSuffix);
  Shape &shape = shapes_[balanced_shape];
  if (shape.name.empty()) shape.name = std::string(native_name);
  const FeedbackRules rules = this->rules();
  if (measured) transition(rules, &shape.feedback, nullptr, {.kind = FeedbackEvent::Kind::shape_call});
  Params flat = params;
  flat.arrivals.clear();
  std::string key;
  CachedPattern *slot = cache_.find(balanced_shape, flat.arrivals, 0, false, {}, key);
  selection.cache_hit = slot != nullptr;
  if (!slot) {
    slot = &cache_.insert(key, balanced_shape, flat, options_.cache_entries, true);
    transition(rules, &shape.feedback, &slot->feedback, {.kind = FeedbackEvent::Kind::pattern_cached});
  }
  selection.simulated = true;
  selection.predictions = slot->predictions;
  if (slot->predictions.empty()) return;
  std::vector<Prediction> ranked;
  const Prediction *chosen = choose(*slot, shape, ranked, true);
  shape.name = std::string(chosen->name);
  selection.name = chosen->name;
  // Native chosen on its own is neither counted nor measured (no
  // exchange); a classic choice is, with native's probes, until dropped.
  if (chosen->name == native_name) return;
  run_or_probe(shape, *slot, chosen->name, measured, selection);
  selection.pattern = key;
}

double Selector::unpredictable_error(const Shape &shape, double balanced) const {
  const std::deque<double> &errors = shape.feedback.arrival_error;
  if (!options_.feedback || errors.size() < std::max<std::size_t>(1, options_.feedback_samples) || !(balanced > 0))
    return NAN;
  const std::vector<double> recent(errors.begin(), errors.end());
  const double error = median(recent);
  return error > options_.unpredictable * balanced ? error : NAN;
}

bool Selector::select_unpredictable(const Params &params, const std::string &shape_name, const Shape &shape,
                                    Selection &selection) {
  // The candidates, in order: the collective's reactive algorithms (they
  // need no prediction), then the shape's last predictive choice (a
  // PAP-aware schedule can still win on a wrong vector: its run time, not
  // its plan, is what is measured here).
  std::vector<std::string_view> candidates;
  for (const Algorithm &algorithm : algorithms())
    if (algorithm.collective == params.collective && (algorithm.capabilities & reactive) &&
        unsupported_reason(algorithm, params).empty())
      candidates.push_back(algorithm.name);
  if (shape.name != native_name) candidates.push_back(shape.name);
  if (candidates.empty()) return false;
  // One pattern for all of the shape's unpredictable calls: a vector drawn
  // anew every call is never seen twice, so its measurements are pooled.
  const std::string unpredictable_shape = shape_name + std::string(kUnpredictableSuffix);
  Shape &pooled = shapes_[unpredictable_shape];
  if (pooled.name.empty()) pooled.name = std::string(native_name);
  const FeedbackRules rules = this->rules();
  transition(rules, &pooled.feedback, nullptr, {.kind = FeedbackEvent::Kind::shape_call});
  Params flat = params;
  flat.arrivals.clear();
  std::string key;
  CachedPattern *slot = cache_.find(unpredictable_shape, flat.arrivals, 0, false, {}, key);
  if (!slot) {
    slot = &cache_.insert(key, unpredictable_shape, flat, options_.cache_entries, true);
    transition(rules, &pooled.feedback, &slot->feedback, {.kind = FeedbackEvent::Kind::pattern_cached});
  }
  // Each candidate not dropped runs until `feedback_samples` of its tails
  // are measured; then the one measured fastest runs (native's probes and
  // drops as for any choice).
  std::string_view chosen = native_name;
  double fastest = INFINITY;
  const std::size_t samples = std::max<std::size_t>(1, options_.feedback_samples);
  for (std::string_view name : candidates) {
    if (slot->feedback.dropped.count(name)) continue;
    auto kept = slot->feedback.tails.find(std::string(name));
    if (kept == slot->feedback.tails.end() || kept->second.size() < samples) {
      chosen = name;  // not measured enough yet: its turn
      break;
    }
    std::vector<double> tails;
    for (const Sample &sample : kept->second) tails.push_back(sample.value);
    if (const double tail = measured_tail(tails); tail < fastest) {
      fastest = tail;
      chosen = name;
    }
  }
  pooled.name = std::string(chosen);
  selection.name = chosen;
  selection.pattern = key;
  selection.cache_hit = true;
  run_or_probe(pooled, *slot, chosen, true, selection);
  return true;
}

Selection Selector::select(const Params &params, bool measured) {
  Selection selection;
  const bool has_pattern = !params.arrivals.empty();
  if (params.count * params.element_bytes < options_.min_bytes || params.procs < 2) {
    // Small messages: native, unmeasured (SelectOptions::min_bytes).
    selection.name = native_name;
  } else if (!has_pattern) {
    select_balanced(params, shape_key(params), measured, selection);
  } else {
    const std::string shape_name = shape_key(params);
    // The quantum: a fraction of the balanced best-classic prediction.
    bool forgot_shapes = false;
    const double balanced = cache_.balanced_time(shape_name, params, 4 * options_.cache_entries, forgot_shapes);
    if (forgot_shapes) shapes_.clear();
    Params quantised = params;
    const double quantum = options_.quantum_fraction * balanced;
    quantised.arrivals = quantise_arrivals(params.arrivals, quantum);
    const bool flat = std::all_of(quantised.arrivals.begin(), quantised.arrivals.end(), [](double a) { return a == 0; });
    if (flat) quantised.arrivals.clear();  // balanced: the same cache entry for every flat vector
    selection.arrivals = quantised.arrivals.empty() ? std::vector<double>(params.procs, 0.0) : quantised.arrivals;
    Shape &shape = shapes_[shape_name];
    if (shape.name.empty()) shape.name = std::string(native_name);
    const FeedbackRules rules = this->rules();
    if (flat) {
      // No imbalance to exploit: the balanced pattern's rule (native, or a
      // classic algorithm while measurements confirm it).
      shape.name = std::string(native_name);
      select_balanced(params, shape_name, measured, selection);
    } else {
      if (measured) transition(rules, &shape.feedback, nullptr, {.kind = FeedbackEvent::Kind::shape_call});
      // Arrivals the vectors keep getting wrong: a measured call runs what
      // reacts, or what measures best, instead of trusting the vector.
      const double arrival_error = measured ? unpredictable_error(shape, balanced) : NAN;
      if (!std::isnan(arrival_error) && select_unpredictable(params, shape_name, shape, selection)) {
        selection.unpredictable = true;
        selection.arrival_error = arrival_error;
        return finished(std::move(selection));
      }
      const bool may_simulate = !shape.simulated_once || ++shape.calls_since_simulation >= options_.period;
      CachedPattern *slot = cache_.find(shape_name, quantised.arrivals, quantum, options_.feedback,
                                        FamilyReach{options_.family_quanta, options_.family_fraction},
                                        selection.pattern);
      selection.cache_hit = slot != nullptr;
      selection.family = slot && slot->arrivals != quantised.arrivals;
      if (!slot && may_simulate) {
        slot = &cache_.insert(selection.pattern, shape_name, quantised, options_.cache_entries);
        shape.calls_since_simulation = 0;
        shape.simulated_once = true;
        transition(rules, &shape.feedback, &slot->feedback, {.kind = FeedbackEvent::Kind::pattern_cached});
      }
      if (!slot) {
        selection.deferred = true;
        selection.pattern.clear();
        const Algorithm *kept = find_algorithm(params.collective, shape.name);
        selection.name = kept ? kept->name : native_name;
        // A shape that lost recently runs native on a pattern nobody judged.
        if (options_.feedback && shape.feedback.losing() && kept && (kept->capabilities & pap_aware))
          selection.name = native_name;
      } else if (slot->predictions.empty()) {
        selection.simulated = true;
        selection.pattern.clear();
        const Algorithm *classic = classic_choice(params);
        selection.name = classic ? classic->name : native_name;
      } else {
        selection.simulated = true;
        selection.predictions = slot->predictions;
        std::vector<Prediction> ranked;
        const Prediction *chosen = choose(*slot, shape, ranked);
        shape.name = std::string(chosen->name);
        selection.name = chosen->name;
        // The feedback decides whether native runs instead, to be measured
        // (the choice itself, shape.name, is unchanged).
        run_or_probe(shape, *slot, chosen->name, measured, selection);
      }
    }
  }
  return finished(std::move(selection));
}

Selection Selector::finished(Selection selection) {
  if (selection.probe) return selection;  // a measurement, not a change of choice
  selection.changed = last_choice_ != selection.name;
  last_choice_ = std::string(selection.name);
  return selection;
}

}  // namespace patcoll::core
