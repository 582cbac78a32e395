// Lower bounds on a collective's run time given the arrival pattern: the
// `bound` and `tight_bound` rows of patcoll-bench (measured costs) and
// patcoll-sim (the α-β-γ model). Proofs: docs/results/bounds.md.
//
// One function per collective computes, from the PAT vector and a cost
// source, each rank's earliest possible exit, the earliest possible run
// time and the average elapsed time; has_bound() says which collectives
// have one. A new collective adds its function to bound.cpp's table and
// nothing in the tools.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "algorithm.hpp"
#include "cost.hpp"

namespace patcoll::core {

// Where a bound's costs come from. Both must be lower bounds on the
// real cost of the operation for every b the bounds ask for.
struct BoundCost {
  std::function<double(double bytes)> transfer;  // one point-to-point transfer of b bytes, s
  std::function<double(double bytes)> combine;   // one local reduction of b bytes, s

  // The α-β-γ model: transfer α + bβ, combine bγ.
  static BoundCost model(const CostModel &);
  // Measured probes of `probe_bytes` (a transfer of that size and one
  // reduction of it), scaled linearly to b: t·b/probe_bytes. A measured
  // t(m) = o + mβ' scaled to b ≤ m is o·b/m + bβ' ≤ o + bβ', so the scaled
  // value stays a lower bound for every b ≤ probe_bytes (the bounds ask for
  // nothing larger than the message); for b ≥ probe_bytes, and when
  // probe_bytes is 0, the probe itself.
  static BoundCost measured(double transfer_seconds, double combine_seconds, double probe_bytes);

  // The port model tight_bound() assumes: false, full duplex (a rank sends
  // and receives at the same time), under which the bound also holds for
  // one port; true, one port per rank (simulate.hpp's
  // PortModel::unidirectional), where a rank's sends and receives add up.
  // bound() ignores it.
  bool one_port = false;
};

struct BoundTimes {
  double run_time = 0;          // latest exit − earliest arrival
  double average_elapsed = 0;   // mean over the ranks of exit − arrival
  std::vector<double> elapsed;  // per rank: exit − arrival (the PAT's origin cancels)
};

// Whether `collective` has a bound and a tight bound (reduce, allreduce,
// bcast, allgather, allgatherv, alltoall, alltoallv,
// reduce_scatter, reduce_scatter_block).
bool has_bound(Collective);

// The bound of one call: params.arrivals is the PAT vector (empty:
// balanced, params.procs ranks arriving at 0), params.count ×
// params.element_bytes the message; nullopt when !has_bound(params.collective).
std::optional<BoundTimes> bound(const Params &, const BoundCost &);

// The tight bound of one call, from every group of late ranks at once: for
// each k, the k latest ranks (arriving at T_k or later) and the volume they
// force through the ports after T_k, e.g. for allreduce (P + k − 1)·m
// bytes (2(P − 1)·m for k = P, Patarasuk and Yuan's balanced bound), so
// some port carries (P + k − 1)/P·m of it. Unlike bound(), it counts no
// reduction of the whole message (a segmenting algorithm overlaps all but
// one segment's), so for reduce and allreduce it can lie below bound(),
// never by more than one reduction of the message: for every PAT
// tight.run_time ≥ bound.run_time − combine(m). For the other collectives
// it is never below bound() (bcast: equal). nullopt when
// !has_bound(params.collective).
std::optional<BoundTimes> tight_bound(const Params &, const BoundCost &);

// The elements of the one transfer a measured bound is probed with (the
// largest transfer its bound asks for, so BoundCost::measured scales down,
// never up): Params::count, for an all-to-all the (P − 1) pairs a rank
// sends, for a reduce-scatter the larger of what a rank sends and receives.
std::int64_t bound_probe_elements(const Params &);

// The per-collective bounds bound() dispatches to.
BoundTimes reduce_bound(const Params &, const BoundCost &);
BoundTimes allreduce_bound(const Params &, const BoundCost &);
BoundTimes allgather_bound(const Params &, const BoundCost &);  // allgather and allgatherv
BoundTimes bcast_bound(const Params &, const BoundCost &);
BoundTimes alltoall_bound(const Params &, const BoundCost &);  // alltoall and alltoallv
BoundTimes reduce_scatter_bound(const Params &, const BoundCost &);  // reduce_scatter(_block)

// The per-collective tight bounds tight_bound() dispatches to (bcast's is
// bcast_bound).
BoundTimes reduce_tight_bound(const Params &, const BoundCost &);
BoundTimes allreduce_tight_bound(const Params &, const BoundCost &);
BoundTimes allgather_tight_bound(const Params &, const BoundCost &);  // allgather and allgatherv
BoundTimes alltoall_tight_bound(const Params &, const BoundCost &);   // alltoall and alltoallv

}  // namespace patcoll::core
