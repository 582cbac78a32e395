// Reactive algorithms: the Program follows the arrival order the ranks
// observe at run time instead of a predicted one.
//
// IR extension (the smallest one): a Program may name a peer that is not
// known yet, kUnknownPeer. The executor runs the steps before the first op
// naming it (known_steps), learns the peer from the arrival order (the MPI
// layer's mechanism, mpi/reactive.hpp), asks the same core builder for the
// Program with the peer filled in - whose earlier steps are the same - and
// runs the rest of it. Core decides every step; the mechanism only tells
// who arrived when. The validator and the simulator run the Programs of a
// known order (ArrivalLinks from an order), with the control messages that
// carry the order as zero-element messages.
//
// reduce/reactive — a segmented chain in arrival order:
//   the non-root ranks line up in the order in which they arrive (one
//   atomic on a window at the root gives each its place and its
//   predecessor); each one tells its predecessor it is there (a control
//   message), receives the predecessor's partial sum segment by segment,
//   adds its own and sends the result on to its successor; the last one
//   in line sends to the root (telling it first), which adds its own.
//   A late rank joins at the end of the line: after it arrives, the data
//   ahead of it are one pipelined transfer away (its predecessor holds the
//   sum of everyone before it), and it sends the total on once.
//   Segments: Params::segment_count / segment_elements, default ~32 KiB.
//   Restrictions: commutative (the chain's order is the arrival order).
#pragma once

#include <climits>
#include <cstddef>
#include <vector>

#include "../algorithm.hpp"

namespace patcoll::core {

// A peer the rank learns at run time (never executed: the executor runs a
// Program only up to its first op naming it).
inline constexpr int kUnknownPeer = INT_MAX;

// A rank's neighbours in the arrival chain. previous: the rank whose
// partial result it receives (-1: none, it is the first in line); next:
// the rank it sends to (the root for the last in line; -1 at the root).
// Either may be kUnknownPeer in a Program built before the rank knows it.
struct ArrivalLinks {
  int previous = -1;
  int next = -1;
  friend bool operator==(const ArrivalLinks &, const ArrivalLinks &) = default;
};

// The non-root ranks in the order of Params::arrivals (earliest first,
// ties by rank; rank order without a vector): the order the simulator and
// the validator assume, and what the mechanism observes at run time.
std::vector<int> reactive_chain(const Params &);
// `rank`'s links in `chain` (the non-roots in arrival order).
ArrivalLinks reactive_links(const Params &, const std::vector<int> &chain, int rank);

// One rank's Program for its links; `control` adds the control messages
// (zero-element sends and receives: to the predecessor, from the
// successor, and the last one's to the root) that the executor leaves to
// the mechanism.
Program reduce_reactive_links(const Params &, int rank, const ArrivalLinks &, bool control);
// The catalogue's builder: links from reactive_chain, control messages
// included (validator, simulator, patcoll-sched).
Program reduce_reactive(const Params &, int rank);

// The number of leading steps that name no kUnknownPeer.
std::size_t known_steps(const Program &);

}  // namespace patcoll::core
