// MPI_Alltoall (and, over Params::counts, MPI_Alltoallv): the builders and
// the one exchange engine they share.
//
// Every pair (s, d) moves pair_count(s, d) elements from s's send buffer
// (send_offset(s, d)) to d's receive buffer (recv_offset(s, d)),
// core/layout.hpp. The builders stay correct when MPI_IN_PLACE makes the
// send and the receive buffer one: nothing is received straight into the
// receive buffer while a send may still read it. The exchange engine
// receives each message into a staging block of scratch and copies it into
// place at the start of the next step, after the step that sent from there
// has completed; the engine's own block is one local copy.
#pragma once

#include <vector>

#include "../algorithm.hpp"

namespace patcoll::core {

// One step of an exchange sequence: send the rank's pair for `to`, receive
// the pair from `from` (−1: nothing that way). A pair of no elements is
// neither sent nor received (both sides see its count).
struct Exchange {
  int to = -1;
  int from = -1;
};

// The exchange engine: the rank's own pair copied, then one step per entry
// of `sequence` (round = its index + 1), each received pair staged in
// scratch and copied into place at the next step. Cost per step
// α + max(c_out, c_in)·β; with every pair m/P bytes: (P−1)(α + mβ/P).
Program alltoall_exchanges(const Params &, int rank, const std::vector<Exchange> &sequence);

// The pairwise sequence ([MPICH] alltoall_intra_pairwise): P−1 steps;
// partner rank XOR k when P is a power of two, else send to (r + k) mod P,
// receive from (r − k) mod P, k = 1 … P−1.
std::vector<Exchange> pairwise_sequence(int procs, int rank);

// A symmetric pairwise order (a one-factorisation of the complete graph):
// the round in 1 … R, R = P − 1 for even P and P for odd P, in which ranks
// a ≠ b exchange; every rank meets every other once and at most one per
// round. XOR for powers of two; else the circle method (odd P: a + b mod P,
// rank a idle in round 2a mod P; even P: the same over P − 1 ranks with
// rank P − 1 taking each round's idle one).
int symmetric_round(int procs, int a, int b);
int symmetric_rounds(int procs);

Program alltoall_pairwise(const Params &, int rank);
Program alltoall_linear(const Params &, int rank);
Program alltoall_bruck(const Params &, int rank);

// clairvoyant: the exchanges planned by a greedy list schedule on the
// predicted arrivals (alltoall/clairvoyant.cpp): the rank that is free
// first meets the partner it can start with soonest. Every rank runs its
// exchanges in the order the plan made them, a subsequence of one order of
// all exchanges, so the schedule is deadlock-free whatever the real
// arrivals. Without PATs (or with equal ones): the symmetric pairwise
// order, identical on every rank.
struct AlltoallClairvoyantPlan {
  std::vector<std::vector<int>> partners;  // per rank, in the order it meets them
  double planned_run_time = 0;             // the plan's run time in the α-β model, s
};
AlltoallClairvoyantPlan plan_alltoall_clairvoyant(const Params &);
Program build_alltoall_clairvoyant(const Params &, int rank, const AlltoallClairvoyantPlan &);
Program alltoall_clairvoyant(const Params &, int rank);
std::vector<Program> alltoall_clairvoyant_all(const Params &);


}  // namespace patcoll::core
