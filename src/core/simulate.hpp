// Simulator: discrete-event execution of all ranks' Programs under the
// Hockney α-β-γ cost model, starting every rank at its PAT.
//
// The model, step by step (it follows the IR's step semantics, ir.hpp):
//   - rank i starts its first step at its arrival time a_i (Params::arrivals,
//     empty = all zero);
//   - phase 1, local ops in order: a combining local op costs γ·bytes, a copy
//     costs SimulateOptions::copy_seconds_per_byte·bytes (free by default —
//     the papers' models ignore copies);
//   - phase 2, every send and recv of the step is posted at the end of
//     phase 1. Messages match FIFO per ordered pair of ranks, like MPI
//     (ops that carry a tag, FlatOp::tag, pair with the op of the other
//     kind with the same tag: the numbered schedules, whose tags pair the
//     ops FIFO would pair);
//   - a message of B bytes (B = count·Params::element_bytes) starts once
//     BOTH sides have posted it (rendezvous) and the sender's send port and
//     the receiver's recv port are free; it then occupies both ports for
//     α + β·B. full_duplex: a rank's sends are serialised with each other,
//     its recvs with each other, a send and a recv may overlap ([M] Def. 3.1).
//     unidirectional: one port per rank, a send and a recv never overlap
//     ([LL] §III). When a port is busy the message waits and competes again
//     when the port frees up (earliest-ready first, then creation order);
//   - phase 3, wait for all of them;
//   - every combining recv is applied, γ·bytes each, at the receiver, after
//     its transfer: by default as soon as it is in (and the step's sends
//     and stores of the same region are done), the rank's CPU doing one
//     combine at a time while the step's other messages go on — what the
//     MPI executor does; with combine_on_arrival = false after the step's
//     wait (the IR's phase 4, the papers' model). A recv with `store` costs
//     nothing.
//   - a step whose ops wait for groups (core/ir.hpp): an op is posted when
//     its group is complete, every combining recv is applied as it comes
//     (whatever combine_on_arrival says: what waits for it needs it), and
//     messages match FIFO per pair and tag.
// So a round of "receive one segment of B bytes and combine it" costs
// exactly d = α + B(β + γ) ([M] §5.2), counted once per round at the
// receiver, and a schedule of R such rounds under balanced PATs runs R·d;
// the two settings differ only in steps with several combining recvs.
//
// Outputs use the definitions of BENCHMARKS.md: exit time f_i, run time
// r = max(f) − min(a), average elapsed ē = mean(f_i − a_i), and absorption
// A = t(balanced) − t(ψ) + I(ψ) ([M] Def. 3.6). Cost: O(ops · log ops).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "algorithm.hpp"
#include "flat.hpp"
#include "ir.hpp"

namespace patcoll::core {

enum class PortModel : std::uint8_t { full_duplex, unidirectional };
std::string_view to_string(PortModel);
// false when `text` names no port model ("full_duplex"/"full"/"bidirectional"
// or "unidirectional"/"uni").
bool parse_port_model(std::string_view text, PortModel &out);

struct SimulateOptions {
  PortModel ports = PortModel::full_duplex;
  double copy_seconds_per_byte = 0.0;  // local copies (and only copies); 0 = free
  // Overlap (the default, what the MPI executor does): apply each combining
  // recv as soon as its own message is in (one combine at a time per rank,
  // overlapping the step's other messages; see combines_on_arrival in
  // simulate.cpp for the exact rule). false: after the whole step's wait,
  // the IR's phase 4 — the papers' model, where a round "receive and
  // combine" costs exactly α + B(β + γ).
  bool combine_on_arrival = true;
  bool record_timeline = false;
};

enum class Activity : std::uint8_t { send, recv, combine, copy };
std::string_view to_string(Activity);

// One busy interval of one rank, for Gantt plots.
struct TimelineEntry {
  int rank = 0;
  int step = 0;
  Activity activity = Activity::send;
  int peer = -1;  // send/recv
  double start = 0;
  double end = 0;
  std::int64_t bytes = 0;
};

struct SimulateResult {
  std::string error;  // "" on success; else a deadlock or a mismatched message
  std::vector<double> arrival;  // a_i
  std::vector<double> exit;     // f_i
  double run_time = 0;          // max(f) − min(a)
  double average_elapsed = 0;   // mean(f_i − a_i)
  double max_elapsed = 0;       // max(f_i − a_i)
  std::int64_t messages = 0;
  std::int64_t bytes = 0;       // total bytes transferred
  std::vector<TimelineEntry> timeline;  // when SimulateOptions::record_timeline
};

// Executes `programs` (one per rank, programs[i].rank == i) with the cost
// model, element size and arrival times of `params`.
SimulateResult simulate(const Params &, const std::vector<Program> &, const SimulateOptions & = {});
// The same for Programs already flattened (flat.hpp: flatten() or
// build_flat()); the vector overload is this one after flatten().
SimulateResult simulate(const Params &, const FlatPrograms &, const SimulateOptions & = {});

// Builds every rank's Program with `algorithm` and simulates it; the error
// names the restriction when the algorithm cannot serve `params`.
SimulateResult simulate(const Algorithm &, const Params &, const SimulateOptions & = {});

// Absolute imbalance I = max(a) − min(a) ([M] Def. 3.5); 0 for an empty PAP.
double imbalance(const std::vector<double> &arrivals);

// Absorption A = t(balanced) − t(ψ) + I(ψ) ([M] Def. 3.6).
inline double absorption(double balanced_run_time, double run_time, double imbalance_of_pap) {
  return balanced_run_time - run_time + imbalance_of_pap;
}

}  // namespace patcoll::core
