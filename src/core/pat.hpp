// Process arrival times (PATs): the one vocabulary of the library, the PAT
// runtime and the preload shim. A PAT vector holds one arrival time per
// rank in seconds; only differences matter, so it is published relative
// to the earliest arrival. MPI-free.
//
//   relative_arrivals   earliest arrival -> 0
//   quantise_arrivals   relative, rounded to a multiple of a quantum
//   arrival_order       ranks sorted by arrival, ties by rank ([PO] §4.4)
//   MovingAverage       the simple moving average of the last k values
//                       ([M] §4, k = 5): the runtime's sma predictor and
//                       the shim's history
//   round_time / pat_quantum / builder_params
//                       what a builder sees: PATs only for PAP-aware
//                       algorithms, quantised to a quarter of the round
//                       time d, so a stable but jittering pattern reuses
//                       its cached Program and every rank builds from the
//                       same input
#pragma once

#include <cstddef>
#include <vector>

#include "algorithm.hpp"

namespace patcoll::core {

// Shifts `arrivals` so the earliest is 0.
std::vector<double> relative_arrivals(std::vector<double> arrivals);

// Relative to the earliest arrival, rounded to a multiple of `quantum`
// seconds (quantum <= 0: only relative).
std::vector<double> quantise_arrivals(const std::vector<double> &arrivals, double quantum);

// Ranks ordered by arrival, earliest first; ties (and equal or missing
// PATs) by rank.
std::vector<int> arrival_order(const std::vector<double> &arrivals);

// The simple moving average of the last `window` values (window < 1 acts
// as 1); 0 before the first value.
class MovingAverage {
 public:
  explicit MovingAverage(int window = 5) : window_(window < 1 ? 1 : window) {}
  void record(double value);
  double mean() const;
  std::size_t samples() const { return count_; }
  // The last min(window, samples) values, oldest first.
  std::vector<double> recent() const;
  int window() const { return window_; }

 private:
  int window_;
  std::vector<double> ring_;
  std::size_t next_ = 0, count_ = 0;
};

// PATs from several calls' measured arrivals: `samples` holds `width`
// values per rank (rank-major: samples[rank * width + call]), e.g. each
// rank's entry times of the same `width` calls on a common clock; NaN marks
// a missing value. Each call's arrivals are made relative to that call's
// earliest rank, then every rank's relative arrivals are averaged over the
// calls every rank has a value for (a simple moving average of PAPs).
// All zeros when no call is complete.
std::vector<double> mean_relative_arrivals(const std::vector<double> &samples, int procs, int width);

// The index of the latest rank of a PAT vector (-1 when empty or all equal).
int latest_rank(const std::vector<double> &pats);

// The round time d of `params`: α + B(β + γ) for the largest of the N
// segments the segmenting algorithms use (N = Params' segmentation, else
// N_opt of [M] §5.2) — the d of the Clairvoyant schedule.
double round_time(const Params &);

// The quantum PATs are rounded to before building: d / 4.
double pat_quantum(const Params &);

// What `algorithm`'s builder is given for `params`: the PAT vector only for
// PAP-aware algorithms (so a changing pattern does not evict the classic
// Programs from a cache), quantised by pat_quantum.
Params builder_params(const Algorithm &algorithm, Params params);

}  // namespace patcoll::core
