// Where patcoll-bench's PAP-aware algorithms (and `auto`) get their PAT
// vector from (BENCHMARKS.md):
//   oracle   the generated PAP itself, set before each iteration ([M]);
//   none     no vector: PAP-aware algorithms run as if balanced;
//   runtime  the PAT runtime: each call's emulated computation is bracketed
//            by PAT_ProcessingStart / PAT_Edge(f) / PAT_ProcessingEnd, the
//            background thread predicts and exchanges ([PS] §3, [PA] §3);
//   history  the shim's estimator: every rank's measured delay (barrier exit
//            to collective entry) of the previous iterations, a simple
//            moving average of the relative arrival vectors (window 5),
//            exchanged between iterations outside the timed region.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace patcoll::bench {

enum class PatSourceKind { oracle, none, runtime, history };

// false when `text` names no source.
bool parse_pat_source(const std::string &text, PatSourceKind &out);
const char *to_string(PatSourceKind);

class PatSource {
 public:
  PatSource(PatSourceKind kind, double edge_fraction, int window, MPI_Comm comm);
  PatSourceKind kind() const { return kind_; }
  bool needs_thread() const { return kind_ == PatSourceKind::runtime; }

  // Collective (runtime: PAT_Init on comm). "" or what went wrong.
  std::string start();
  std::string stop();

  // Before an iteration's calls: hand the iteration's vector to the library
  // (oracle: `pap`; history: the moving average so far; none/runtime: nothing).
  void before_iteration(const std::vector<double> &pap);
  // Emulates `seconds` of computation before a call (runtime: with its edge).
  void compute(double seconds, bool busy);
  // After an iteration, collective: this rank's measured delay (history).
  void after_iteration(double measured_delay);

  // The PAT vector handed over for the current iteration (empty: none).
  const std::vector<double> &current() const { return current_; }

 private:
  PatSourceKind kind_;
  double edge_fraction_;
  int window_;
  MPI_Comm comm_;
  int procs_ = 1;
  std::vector<std::vector<double>> measured_;  // last `window_` iterations, every rank's delay
  std::vector<double> current_;
};

}  // namespace patcoll::bench
