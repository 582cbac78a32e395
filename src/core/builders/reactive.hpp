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
// carry the order as zero-element messages (latency only).
//
// reduce/reactive — a segmented chain in arrival order:
//   the non-root ranks line up in the order in which they arrive (each
//   says hello to the root, which answers in the order the hellos come
//   with the predecessor; mpi/reactive.hpp); each one tells its
//   predecessor it is there (a control message), receives the predecessor's partial sum segment by segment,
//   adds its own and sends the result on to its successor; the last one
//   in line sends to the root, which adds its own.
//   A late rank joins at the end of the line: after it arrives, the data
//   ahead of it are one pipelined transfer away (its predecessor holds the
//   sum of everyone before it), and it sends the total on once.
//   Segments: Params::segment_count / segment_elements, default ~32 KiB.
//   Restrictions: commutative (the chain's order is the arrival order).
//
// allreduce/reactive — the reactive reduce to rank 0, then a broadcast of
//   the result from rank 0 (every rank has arrived by then): a binomial
//   tree below 64 KiB, else a segmented chain (pipeline).
//   Restrictions: commutative.
//
// bcast/reactive — a segmented chain from the root in arrival order (the
//   idea of Patarasuk and Yuan's arrival-pattern-aware broadcast, with no
//   prediction): every non-root rank says hello to the root when it
//   arrives; the root answers in hello order with the predecessor (itself
//   for the first in line) and whether the rank is the last; each rank
//   but the first tells its predecessor it is there. The data flow root →
//   1st arrived → 2nd → … segment by segment. A rank whose successor is
//   not known yet only receives (one segment per step); once the
//   successor is there (ArrivalLinks::held segments received), it sends
//   the segments it holds in one step and pipelines the rest. A late rank
//   joins the end of the line: its predecessor already holds the whole
//   message, one pipelined transfer after its round trip (about D + α +
//   mβ). The root serves the hellos while it sends (mpi/reactive.hpp).
//   Segments: Params::segment_count / segment_elements, default ~32 KiB.
//   Restrictions: none.
//   Modelled Programs (validator, simulator): `held` is estimated from
//   Params::arrivals under Params::cost (what the mechanism would
//   observe); the root's answers to every rank but the first, which the
//   real root serves while it sends, come after its data and each such
//   rank's hello and answer at its end (a sequential Program cannot serve
//   a message whenever it comes without waiting for a late one): the
//   same round trip, at the end instead of the start.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
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
// bcast: previous is the rank the data come from (the root for the first
// in line, -1 at the root), next the one they go to (-1 for the last);
// held is the number of segments the rank had received when it learned
// its next (at least 1; the Program's first `held` steps receive only).
struct ArrivalLinks {
  int previous = -1;
  int next = -1;
  std::int64_t held = 1;
  friend bool operator==(const ArrivalLinks &, const ArrivalLinks &) = default;
};

// The non-root ranks in the order of Params::arrivals (earliest first,
// ties by rank; rank order without a vector): the order the simulator and
// the validator assume, and what the mechanism observes at run time.
std::vector<int> reactive_chain(const Params &);
// `rank`'s links in `chain` (the non-roots in arrival order).
ArrivalLinks reactive_links(const Params &, const std::vector<int> &chain, int rank);

// One rank's Program for its links; `control` adds the control messages
// that the executor leaves to the mechanism (zero-element sends and
// receives: hello to the root and its answer, the root's in the order of
// `chain`; to the predecessor; from the successor).
Program reduce_reactive_links(const Params &, int rank, const ArrivalLinks &, bool control,
                              const std::vector<int> &chain);
// The same with chain = reactive_chain(params).
Program reduce_reactive_links(const Params &, int rank, const ArrivalLinks &, bool control);
// The catalogue's builder: links from reactive_chain, control messages
// included (validator, simulator, patcoll-sched).
Program reduce_reactive(const Params &, int rank);

// MPI_Allreduce: the same links (Params::root is rank 0, the point the
// reduce ends at), then the broadcast.
Program allreduce_reactive_links(const Params &, int rank, const ArrivalLinks &, bool control);
Program allreduce_reactive(const Params &, int rank);

// MPI_Bcast: the links of `rank` in `chain` (the non-roots in arrival
// order), `held` estimated from Params::arrivals (see above).
ArrivalLinks bcast_reactive_links_of(const Params &, const std::vector<int> &chain, int rank);
// The segment count S (0 for count 0).
std::int64_t bcast_reactive_segments(const Params &);
Program bcast_reactive_links(const Params &, int rank, const ArrivalLinks &, bool control,
                             const std::vector<int> &chain);
Program bcast_reactive_links(const Params &, int rank, const ArrivalLinks &, bool control);
Program bcast_reactive(const Params &, int rank);

// The number of leading steps that name no kUnknownPeer.
std::size_t known_steps(const Program &);

}  // namespace patcoll::core
