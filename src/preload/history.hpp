// The `history` PAT source of the preload shim, the part that needs no MPI:
// a rank's recent measurements at one communicator (its entry times on a
// common clock, or its offsets: seconds from its exit of the previous
// collective there to its entry into this one) with a simple moving
// average, and the turning of every rank's measurements into the PAT
// vector handed to PAT_Set_arrivals (relative to the earliest rank,
// quantised so that a steady pattern gives the same vector call after call
// and the schedule cache keeps hitting). The exchange that shares the
// predictions lives in preload.cpp; docs/preload.md explains the design.
#pragma once

#include <cstddef>
#include <vector>

namespace patcoll::preload {

class ArrivalHistory {
 public:
  explicit ArrivalHistory(int window = 5) : window_(window < 1 ? 1 : window) {}

  // One measured offset (seconds); negative values (clock oddities) count as 0.
  void record(double offset);
  // Mean of the last `window` offsets; 0 before the first one.
  double predict() const;
  std::size_t samples() const { return count_; }
  // The last min(window, samples) values, oldest first.
  std::vector<double> recent() const;
  int window() const { return window_; }

 private:
  int window_;
  std::vector<double> ring_;
  std::size_t next_ = 0, count_ = 0;
};

// Every rank's predicted offset -> PAT vector: minimum subtracted, each
// value rounded to a multiple of `quantum` seconds (quantum <= 0: exact).
// Non-finite inputs count as 0.
std::vector<double> relative_pats(const std::vector<double> &predictions, double quantum);

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

}  // namespace patcoll::preload
