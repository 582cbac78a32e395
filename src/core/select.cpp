#include "select.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "cost.hpp"
#include "pat.hpp"
#include "simulate.hpp"
#include "traits.hpp"

namespace patcoll::core {

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
  // A background row is its base in the foreground: predicted once, as the base.
  for (const Algorithm &algorithm : algorithms())
    if (algorithm.collective == params.collective && (algorithm.capabilities & pap_aware) &&
        !(algorithm.capabilities & background))
      consider(algorithm, true);
  std::stable_sort(out.begin(), out.end(),
                   [](const Prediction &a, const Prediction &b) { return a.seconds < b.seconds; });
  return out;
}

namespace {

// Everything of the call but the PAT vector: the decision's "shape".
std::string shape_key(const Params &p) {
  std::ostringstream os;
  os.precision(17);
  os << static_cast<int>(p.collective) << ' ' << p.procs << ' ' << p.root << ' ' << p.count << ' ' << p.element_bytes
     << ' ' << p.commutative << ' ' << p.segment_count << ' ' << p.segment_elements << ' ' << p.cost.alpha << ' '
     << p.cost.beta << ' ' << p.cost.gamma << " r";
  for (int k : p.radix) os << ' ' << k;
  os << " s";
  for (std::int64_t size : p.segment_sizes) os << ' ' << size;
  return os.str();
}

const Prediction *find(const std::vector<Prediction> &predictions, std::string_view name) {
  for (const Prediction &p : predictions)
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace

namespace {

// Late ranks of a quantised vector: arrival above half its imbalance.
std::vector<bool> late_ranks(const std::vector<double> &arrivals) {
  const double half = 0.5 * imbalance(arrivals);
  std::vector<bool> late(arrivals.size());
  for (std::size_t i = 0; i < arrivals.size(); ++i) late[i] = arrivals[i] > half;
  return late;
}

}  // namespace

Selector::Cached *Selector::family_of(const std::string &shape, const std::vector<double> &arrivals, double quantum,
                                      std::string &key) {
  // The family exists to share measurements: the model alone
  // (feedback off) judges every quantised vector on its own.
  if (!options_.feedback || options_.family_quanta <= 0 || quantum <= 0) return nullptr;
  // Within a few quanta, or a fraction of the imbalance when the quantum
  // is small against the jitter (a model calibrated on a quiet machine).
  const double reach =
      (1 + 1e-9) * std::max(options_.family_quanta * quantum, options_.family_fraction * imbalance(arrivals));
  const std::vector<bool> late = late_ranks(arrivals);
  Cached *nearest = nullptr;
  double nearest_distance = INFINITY;
  const std::string *nearest_key = nullptr;
  // The nearest; among equally near ones the least key, so every rank
  // picks the same whatever the map's order.
  for (auto &[candidate, slot] : cache_) {
    if (slot.late != late || slot.arrivals.size() != arrivals.size() || slot.shape != shape) continue;
    double distance = 0;
    for (std::size_t i = 0; i < arrivals.size() && distance <= reach; ++i)
      distance = std::max(distance, std::abs(arrivals[i] - slot.arrivals[i]));
    if (distance > reach || distance > nearest_distance) continue;
    if (distance == nearest_distance && candidate > *nearest_key) continue;
    nearest = &slot;
    nearest_distance = distance;
    nearest_key = &candidate;
  }
  if (nearest) key = *nearest_key;
  return nearest;
}

Selector::Cached *Selector::predictions_for(const std::string &shape, const Params &quantised, double quantum,
                                            bool may_simulate, bool &hit, std::string &key) {
  std::ostringstream os;
  os.precision(17);
  os << shape << " a";
  for (double a : quantised.arrivals) os << ' ' << a;
  key = os.str();
  Cached *slot = nullptr;
  if (auto it = cache_.find(key); it != cache_.end()) slot = &it->second;
  else slot = family_of(shape, quantised.arrivals, quantum, key);
  if (slot) {
    hit = true;
    lru_.splice(lru_.begin(), lru_, slot->position);
    return slot;
  }
  hit = false;
  if (!may_simulate) return nullptr;
  ++simulations_;
  while (!lru_.empty() && cache_.size() >= std::max<std::size_t>(1, options_.cache_entries)) {
    cache_.erase(lru_.back());
    lru_.pop_back();
  }
  lru_.push_front(key);
  Cached &fresh = cache_[key];
  fresh.position = lru_.begin();
  fresh.predictions = predict_candidates(quantised);
  fresh.shape = shape;
  fresh.imbalance = imbalance(quantised.arrivals);
  fresh.arrivals = quantised.arrivals;
  fresh.late = late_ranks(quantised.arrivals);
  return &fresh;
}

double measured_tail(std::span<const double> tails) {
  if (tails.empty()) return NAN;
  std::vector<double> sorted(tails.begin(), tails.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  return n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

bool measured_worse(std::span<const double> candidate, std::span<const double> native, std::size_t samples,
                    double margin) {
  samples = std::max<std::size_t>(1, samples);
  if (candidate.size() < samples || native.size() < samples) return false;
  return measured_tail(candidate) > measured_tail(native) * (1.0 + margin);
}

namespace {

template <class Samples>
std::vector<double> values_since(const Samples &samples, std::size_t since) {
  std::vector<double> out;
  for (const auto &sample : samples)
    if (sample.stamp >= since) out.push_back(sample.value);
  return out;
}

}  // namespace

std::optional<Verdict> Selector::record(const std::string &pattern, std::string_view algorithm, double tail_seconds) {
  auto it = cache_.find(pattern);
  if (it == cache_.end() || !std::isfinite(tail_seconds)) return std::nullopt;
  Cached &slot = it->second;
  auto shape = current_.find(slot.shape);
  const std::size_t clock = shape != current_.end() ? shape->second.clock : 0;
  const std::size_t window = std::max<std::size_t>(1, options_.feedback_window);
  const std::size_t samples = std::max<std::size_t>(1, options_.feedback_samples);
  std::deque<Sample> &tails = slot.tails[std::string(algorithm)];
  tails.push_back({tail_seconds, clock});
  while (tails.size() > window) tails.pop_front();
  // The model's error for this algorithm on this shape: measured minus
  // predicted time after the last arrival.
  if (const Prediction *predicted = find(slot.predictions, algorithm))
    if (const double after_last = predicted->seconds - slot.imbalance; after_last > 0 && shape != current_.end()) {
      std::deque<Sample> &errors = shape->second.model_error[std::string(algorithm)];
      errors.push_back({tail_seconds - after_last, clock});
      while (errors.size() > window) errors.pop_front();
    }
  auto native = slot.tails.find(std::string(native_name));
  if (native == slot.tails.end()) return std::nullopt;
  const std::vector<double> native_tails = values_since(native->second, 0);
  // A new native measurement may condemn any candidate measured so far; a
  // candidate's own measurement only itself. Candidates in name order, so
  // every rank drops the same one first.
  std::set<std::string, std::less<>> candidates;
  if (algorithm == native_name) {
    for (const auto &[name, kept] : slot.tails)
      if (name != native_name) candidates.insert(name);
  } else {
    candidates.insert(std::string(algorithm));
  }
  for (const std::string &name : candidates) {
    if (slot.dropped.count(name)) continue;
    const std::deque<Sample> &kept = slot.tails[name];
    if (kept.empty()) continue;
    const std::vector<double> candidate_tails = values_since(kept, 0);
    // Judged against native's tails of the same minutes only (measured no
    // earlier than the candidate's oldest kept one): on a machine whose
    // speed drifts, an old native tail says nothing about a new one.
    const std::vector<double> same_minutes = values_since(native->second, kept.front().stamp);
    const bool worse = measured_worse(candidate_tails, same_minutes, samples, options_.hysteresis);
    // A small loss is judged on the full window of both sides: with 3
    // samples each, a loaded machine's noise fakes one.
    const bool clear = measured_worse(candidate_tails, same_minutes, samples, options_.clear_loss);
    const bool full = candidate_tails.size() >= window && same_minutes.size() >= window;
    if (worse && (clear || full)) {
      slot.dropped.insert(name);
      slot.confirm_left = 0;
      if (shape != current_.end()) {  // the shape loses: conservative for a while (doubled at each drop)
        Current &losing = shape->second;
        losing.loss_calls = losing.loss_calls ? std::min<std::size_t>(2 * losing.loss_calls, 1u << 16)
                                              : std::max<std::size_t>(1, options_.loss_calls);
        losing.loss_until = clock + losing.loss_calls;
      }
      return Verdict{name, measured_tail(candidate_tails), measured_tail(same_minutes), candidate_tails.size(),
                     same_minutes.size()};
    }
    std::size_t wanted = 0;  // native tails of the same minutes needed before a verdict
    if (worse) wanted = window;
    else if (same_minutes.size() < samples && candidate_tails.size() >= samples &&
             measured_worse(candidate_tails, native_tails, 1, options_.hysteresis))
      wanted = samples;  // slower than native's older tails: measure native now
    slot.confirm_left = wanted > same_minutes.size() ? std::max(slot.confirm_left, wanted - same_minutes.size()) : 0;
  }
  return std::nullopt;
}

bool Selector::dropped(const std::string &pattern, std::string_view algorithm) const {
  auto it = cache_.find(pattern);
  return it != cache_.end() && it->second.dropped.count(algorithm) > 0;
}

Selection Selector::select(const Params &params, bool measured) {
  Selection selection;
  const bool has_pattern = !params.arrivals.empty();
  if (!has_pattern || params.count * params.element_bytes < options_.min_bytes || params.procs < 2) {
    const Algorithm *classic = classic_choice(params);
    selection.name = classic ? classic->name : native_name;
  } else {
    const std::string shape = shape_key(params);
    // The quantum: a fraction of the balanced best-classic prediction.
    auto balanced = balanced_.find(shape);
    if (balanced == balanced_.end()) {
      Params flat = params;
      flat.arrivals.clear();
      double best = INFINITY;
      for (const Prediction &p : predict_candidates(flat))
        if (!p.pap_aware) best = std::min(best, p.seconds);
      if (balanced_.size() > 4 * options_.cache_entries) {
        balanced_.clear();
        current_.clear();
      }
      balanced = balanced_.emplace(shape, std::isfinite(best) ? best : 0.0).first;
    }
    Params quantised = params;
    const double quantum = options_.quantum_fraction * balanced->second;
    quantised.arrivals = quantise_arrivals(params.arrivals, quantum);
    const bool flat = std::all_of(quantised.arrivals.begin(), quantised.arrivals.end(), [](double a) { return a == 0; });
    if (flat) quantised.arrivals.clear();  // balanced: the same cache entry for every flat vector
    selection.arrivals = quantised.arrivals.empty() ? std::vector<double>(params.procs, 0.0) : quantised.arrivals;
    Current &current = current_[shape];
    if (current.name.empty()) current.name = std::string(native_name);
    if (flat) {
      // No imbalance to exploit: the MPI library's own tuning is trusted
      // over the model's ranking of balanced algorithms; nothing to simulate.
      current.name = std::string(native_name);
      selection.name = native_name;
    } else {
      if (measured) ++current.clock;
      const bool may_simulate = !current.simulated_once || ++current.calls_since_simulation >= options_.period;
      Cached *slot = predictions_for(shape, quantised, quantum, may_simulate, selection.cache_hit, selection.pattern);
      selection.family = slot && selection.cache_hit && slot->arrivals != quantised.arrivals;
      if (!selection.cache_hit && slot) {
        current.calls_since_simulation = 0;
        current.simulated_once = true;
        slot->last_native = current.clock;  // native's age counts from the pattern's first call
      }
      if (!slot) {
        selection.deferred = true;
        selection.pattern.clear();
        const Algorithm *kept = find_algorithm(params.collective, current.name);
        selection.name = kept ? kept->name : native_name;
        // A shape that lost recently runs native on a pattern nobody judged.
        if (options_.feedback && current.losing() && kept && (kept->capabilities & pap_aware))
          selection.name = native_name;
      } else if (slot->predictions.empty()) {
        selection.simulated = true;
        selection.pattern.clear();
        const Algorithm *classic = classic_choice(params);
        selection.name = classic ? classic->name : native_name;
      } else {
        selection.simulated = true;
        selection.predictions = slot->predictions;
        // Hysteresis from the current choice (native at first); classic
        // algorithms other than native are never chosen here: native
        // stands for them; neither are the ones this pattern's
        // measurements dropped.
        // The model's error of an algorithm on this shape: the median of
        // its last measured-minus-predicted differences; NaN with fewer than
        // feedback_samples of them.
        auto error_of = [&](std::string_view name) -> double {
          auto it = current.model_error.find(std::string(name));
          if (it == current.model_error.end() || it->second.size() < options_.feedback_samples) return NAN;
          return measured_tail(values_since(it->second, 0));
        };
        // While the shape is losing, a PAP-aware candidate whose error was
        // never measured is not tried: the last one tried lost.
        const bool conservative = options_.feedback && current.losing();
        auto usable = [&](const Prediction &p) {
          if (slot->dropped.count(p.name)) return false;
          if (p.name == native_name) return true;
          return p.pap_aware && !(conservative && std::isnan(error_of(p.name)));
        };
        // A dropped incumbent hands over to native: the next PAP-aware
        // candidate must beat native by the hysteresis to be tried.
        // Compared on the time left after the last arrival (run time minus
        // the imbalance): what an algorithm can change. With a rank late by
        // far more than the collective, 5 % of the whole run time would
        // never be met. With feedback, each prediction is corrected by the
        // model's measured error for that algorithm on this shape (once
        // native's is known).
        const double imbalance_seconds = slot->imbalance;
        std::vector<Prediction> ranked = selection.predictions;
        if (options_.feedback && current.model_error.count(std::string(native_name))) {
          const double native_error = error_of(native_name);
          // Until native's error is known, none is applied: correcting one
          // side only would rank on the model's error alone.
          // An unmeasured PAP-aware candidate is assumed no better than its
          // measured kind (the median error of the measured PAP-aware ones,
          // at least native's): on a machine where pipelined many-round
          // schedules run slower than modelled, they all do.
          std::vector<double> pap_errors;
          for (const Prediction &p : ranked)
            if (p.pap_aware && !std::isnan(error_of(p.name))) pap_errors.push_back(error_of(p.name));
          const double pap_prior =
              pap_errors.empty() ? native_error : std::max(native_error, measured_tail(pap_errors));
          if (!std::isnan(native_error))
            for (Prediction &p : ranked) {
              double error = error_of(p.name);
              if (std::isnan(error)) error = p.pap_aware ? pap_prior : native_error;
              p.seconds = imbalance_seconds + std::max(0.0, p.seconds - imbalance_seconds + error);
            }
          std::stable_sort(ranked.begin(), ranked.end(),
                           [](const Prediction &a, const Prediction &b) { return a.seconds < b.seconds; });
        }
        const Prediction *incumbent = find(ranked, current.name);
        if (incumbent && !usable(*incumbent)) incumbent = find(ranked, native_name);
        const Prediction *best = nullptr;
        for (const Prediction &p : ranked)
          if (usable(p)) {
            best = &p;
            break;
          }
        auto after_last = [&](const Prediction *p) { return std::max(0.0, p->seconds - imbalance_seconds); };
        // A PAP-aware incumbent already measured on this pattern is judged
        // by its own measurements against native's (record), not by the
        // shape's corrected predictions: those are for patterns not measured.
        const bool judged_here = options_.feedback && incumbent && incumbent->pap_aware &&
                                 usable(*incumbent) && slot->tails.count(std::string(incumbent->name)) > 0;
        const Prediction *chosen = incumbent;
        if (!incumbent ||
            (!judged_here && best && after_last(best) < after_last(incumbent) * (1.0 - options_.hysteresis)))
          chosen = best;
        if (!chosen) chosen = &ranked.front();
        current.name = std::string(chosen->name);
        selection.name = chosen->name;
        // Feedback: while native has fewer than `feedback_samples` runs
        // under this pattern, or under this shape, every other call of it
        // (from the second) runs native to measure it; the choice itself
        // (current) is unchanged.
        // Native is also probed on the next calls when the choice measured
        // slower than native's older tails (confirm: compare the same
        // minutes), and once when native's last run here is feedback_age
        // calls old (so a drift of the machine is seen).
        const std::size_t samples = options_.feedback_samples;
        // An unmeasured call (non-blocking, persistent) runs the choice
        // and counts for nothing: probes are for calls that measure.
        if (measured && options_.feedback && chosen->name != native_name &&
            ((slot->native_runs < samples && slot->calls % 2 == 1) ||
             (current.native_runs < samples && current.calls % 2 == 1) ||
             slot->confirm_left > 0 ||
             current.clock - slot->last_native >= std::max<std::size_t>(1, options_.feedback_age))) {
          selection.name = native_name;
          selection.probe = true;
        }
        if (measured) {
          ++slot->calls;
          ++current.calls;
        }
        if (measured && selection.name == native_name) {
          ++slot->native_runs;
          ++current.native_runs;
          slot->last_native = current.clock;
          if (slot->confirm_left > 0) --slot->confirm_left;
        }
      }
    }
  }
  if (selection.probe) return selection;  // a measurement, not a change of choice
  selection.changed = last_choice_ != selection.name;
  last_choice_ = std::string(selection.name);
  return selection;
}

}  // namespace patcoll::core
