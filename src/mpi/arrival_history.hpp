// The `history` PAT source of the preload shim, the part that needs no MPI:
// a rank's recent measurements at one communicator (its entry times on a
// common clock, or its offsets: seconds from its exit of the previous
// collective there to its entry into this one) with a simple moving
// average, and the turning of every rank's measurements into the PAT
// vector handed to PAT_Set_arrivals (relative to the earliest rank,
// quantised so that a steady pattern gives the same vector call after call
// and the schedule cache keeps hitting). The estimation itself is core's
// PAT module (core/pat.hpp), shared with the PAT runtime; the exchange
// that shares the predictions lives in preload.cpp; docs/results/preload.md
// explains the design.
#pragma once

#include <cstddef>
#include <vector>

#include "core/pat.hpp"

namespace patcoll::mpi {

class ArrivalHistory {
 public:
  explicit ArrivalHistory(int window = 5) : average_(window) {}

  // One measured offset (seconds); negative values (clock oddities) count as 0.
  void record(double offset);
  // Mean of the last `window` offsets; 0 before the first one.
  double predict() const { return average_.mean(); }
  std::size_t samples() const { return average_.samples(); }
  // The last min(window, samples) values, oldest first.
  std::vector<double> recent() const { return average_.recent(); }
  int window() const { return average_.window(); }

 private:
  core::MovingAverage average_;
};

// Every rank's predicted offset -> PAT vector: minimum subtracted, each
// value rounded to a multiple of `quantum` seconds (quantum <= 0: exact).
// Non-finite inputs count as 0.
std::vector<double> relative_pats(const std::vector<double> &predictions, double quantum);

using core::latest_rank;
using core::mean_relative_arrivals;

}  // namespace patcoll::mpi
