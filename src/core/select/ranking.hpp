// `auto`'s selector, part 1 of 3: the model's ranking.
//
// Every candidate that can serve the call is built for all ranks and run
// through the simulator (simulate.hpp) on the PAT vector and the cost model;
// the prediction is the run time max(f) - min(a). Candidates: the classic
// algorithms of the size rule (their best prediction stands for `native`,
// the MPI library's own) and every PAP-aware algorithm. With measured
// feedback the ranking is corrected by each algorithm's measured model error
// (feedback.hpp) before the choice. The other parts: pattern_cache.hpp (the
// quantised vector, the cache, families), feedback.hpp (the state machine
// that checks the choice against measurements); select.hpp puts them
// together behind core::Selector. docs/results/selection.md.
#pragma once

#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "core/algorithm.hpp"

namespace patcoll::core {

inline constexpr std::string_view native_name = "native";

struct Prediction {
  std::string_view name;  // "native" or a catalogue algorithm
  double seconds = 0;     // predicted run time max(f) - min(a)
  bool pap_aware = false;
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
// Balanced (or no) arrivals: `native` and every algorithm of the
// collective that can serve the call (classic and PAP-aware, not the rows
// run by the PAT runtime's thread), predicted with equal arrivals, fastest
// first (ties: native, then catalogue order). Native's prediction is the
// best of the size rule's classic algorithms, as with a pattern: the MPI
// library's own are such, tuned on the machine; an algorithm predicted
// faster is worth measuring against it.
std::vector<Prediction> predict_balanced(const Params &);
// The best classic prediction with equal arrivals (INFINITY when none): the
// base of the quantum.
double balanced_prediction(const Params &);

// The prediction of `name`; nullptr when it is not a candidate.
const Prediction *find_prediction(const std::vector<Prediction> &, std::string_view name);

// The median (NaN when empty).
double median(std::span<const double> values);

// The ranking corrected by the measured model error: each prediction's
// time after the last arrival (seconds - imbalance) plus its algorithm's
// `error_of(name)` (NaN: not measured), fastest first. An unmeasured
// PAP-aware candidate takes the median error of the measured PAP-aware ones,
// at least native's; an unmeasured classic one native's. With native's
// error unknown (NaN) nothing is corrected: correcting one side only would
// rank on the model's error alone.
std::vector<Prediction> corrected_ranking(const std::vector<Prediction> &predictions, double imbalance,
                                          const std::function<double(std::string_view)> &error_of);

}  // namespace patcoll::core
