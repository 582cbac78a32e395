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
// allreduce/reactive — the reactive reduce to the coordinator
//   (reactive_coordinator: the rank predicted to arrive first), then a
//   broadcast of the result from it (every rank has arrived by then): a binomial
//   tree below 64 KiB, else a segmented chain (pipeline).
//   Restrictions: commutative.
//
// allreduce/reactive_owners — the first K = P − ⌈P/4⌉ ranks in the
//   order the coordinator hands out (itself first, then the others as
//   their hellos come, as alltoall/reactive) own one block each of the vector
//   (block_span over K); the later ranks own none.
//   Owners: as soon as all K are known (the coordinator sends them the first K of
//   the order once the K-th has said hello), they reduce-scatter their
//   own data directly (each sends block o to owner o, all at once, and
//   combines the K − 1 blocks it receives into its own). Then, once the
//   whole order is known (the coordinator sends it after the last hello), S
//   stages: stage s receives part s of the own block from every later
//   rank and combines it, and sends the finished part s − 1 to every
//   other rank while it receives the other owners' part s − 1.
//   Later ranks: they know every owner from their answer; in stage s they
//   send part s of every block to its owner and receive part s − 1 of
//   the result from every owner.
//   A late rank is a leaf: it sends m and receives m, at once, while the
//   owners already hold the sum of everyone before it; the owners' ports
//   carry (P − 1)/K of the message each after it arrives. What the
//   chain forms (allreduce/reactive, prr's ring) cannot avoid is a late
//   rank receiving the others' partial sum and then the result: 2m
//   through its port after it arrives.
//   S = the Params::segment_* count, else one part of about 8 KiB per
//   message, at most 16 (block_span of a block).
//   The coordinator's own arrival gates the order: while it is away no
//   rank knows its place (reactive_coordinator: the rank predicted
//   earliest).
//   Modelled Programs (validator, simulator): the order from
//   Params::arrivals (the coordinator first); the control messages as
//   zero-element messages: a rank's hello and answer first; the
//   coordinator's message "the owners are known" to each owner after the
//   owners' hellos, and "the order is known" with its first stage; the
//   coordinator answers the later ranks' hellos during its exchange.
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
//
// alltoall/reactive (and alltoallv over Params::counts) — pairs in
//   arrival order: the coordinator (reactive_coordinator) takes position
//   0; every other rank says hello to it when it arrives, and it answers
//   the hellos in the order they come with the ranks answered before
//   (order[0..k) for the k-th: the rank's position k and its earlier
//   ranks). A rank at position k exchanges with its k earlier ranks at
//   once (every receive into scratch, every send, posted together, as
//   alltoall/linear; then the copy into place) and tells each earlier
//   rank but the coordinator it is there ("notice"; the coordinator learns the later ranks
//   from their hellos). It exchanges with each of its P − 1 − k later
//   ranks as soon as its notice comes: the later ranks come in groups
//   (those whose notices came together), each group an exchange of its
//   own (alltoall_reactive_group), started at once, alongside the ones
//   still in flight. A group does not wait for the groups before it: were it a
//   step after them, a rank could serve its later ranks only once every
//   earlier rank had served it, and the groups would follow one another
//   down the line (on SMPI tryton48, P = 48, 4 MiB per rank, that
//   sequential form measures 22.7× linear balanced). The own pair is
//   copied with the first group. Each group receives into its own scratch
//   and copies into place after its sends: the groups touch disjoint
//   pairs, so MPI_IN_PLACE stays correct.
//   Deadlock-free: for a pair (a, b), a earlier, b's side is in b's first
//   exchange, posted as soon as b has its answer (which needs the coordinator
//   only, and it answers while it exchanges); a's side is posted as
//   soon as b's notice (or hello, at the coordinator) comes, which b sends before
//   its first exchange; a rank waits for notices with all its exchanges
//   posted, and completes them once every later rank's is. Every posted
//   side is matched by one posted without waiting on anything but control
//   messages that are sent at once, so every exchange completes. No rank waits for a late rank's pair while
//   others are ready: a late rank's pairs are posted last, when it is
//   there.
//   Count 0 (alltoall): no control messages. alltoallv: the control
//   messages always (a rank knows only its own row and column of the
//   counts; a pair of zero elements has no data op).
//   Modelled Programs (validator, simulator): the order from
//   Params::arrivals; every exchange posted at once after the hello and
//   its answer, the notices (the coordinator: the hellos and answers) as the first
//   ops of that step: the mechanism's timing when the notices come as
//   soon as the data could flow (a Program's steps are sequential, so the
//   groups' overlap is modelled as one exchange). The groups themselves,
//   one after the other, are proved for any grouping
//   (alltoall_reactive_groups).
//   Restrictions: none.
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

// MPI_Allreduce: the same links (the root is reactive_coordinator, the
// point the reduce ends at), then the broadcast.
Program allreduce_reactive_links(const Params &, int rank, const ArrivalLinks &, bool control);
Program allreduce_reactive(const Params &, int rank);

// MPI_Allreduce, reactive_owners: `order` is the coordinator, then the
// others in arrival order (alltoall_reactive_order); entries the rank does not know
// yet are kUnknownPeer. The first reactive_owners_count(P) positions own
// one block each; the stages split every block in
// reactive_owners_stages(params, K) parts.
int reactive_owners_count(int procs);
std::int64_t reactive_owners_stages(const Params &, int owners);
Program allreduce_reactive_owners_order(const Params &, int rank, const std::vector<int> &order, bool control);
Program allreduce_reactive_owners(const Params &, int rank);

// MPI_Bcast: the links of `rank` in `chain` (the non-roots in arrival
// order), `held` estimated from Params::arrivals (see above).
ArrivalLinks bcast_reactive_links_of(const Params &, const std::vector<int> &chain, int rank);
// The segment count S (0 for count 0).
std::int64_t bcast_reactive_segments(const Params &);
Program bcast_reactive_links(const Params &, int rank, const ArrivalLinks &, bool control,
                             const std::vector<int> &chain);
Program bcast_reactive_links(const Params &, int rank, const ArrivalLinks &, bool control);
Program bcast_reactive(const Params &, int rank);

// MPI_Alltoall(v): a rank's place in the arrival order. earlier: the
// ranks before it (order[0..k), the coordinator first; empty at the
// coordinator); later:
// the later ranks, in groups, in the order the groups became known.
struct AlltoallLinks {
  std::vector<int> earlier;
  std::vector<std::vector<int>> later;
  friend bool operator==(const AlltoallLinks &, const AlltoallLinks &) = default;
};
// The rank that hands out the arrival order (alltoall/reactive,
// allreduce/reactive_owners): the one whose Params::arrivals entry is the
// smallest (the lowest such rank), rank 0 without a vector. Every rank
// computes it from the same vector (the PAT sources give every rank the
// same one), so every rank knows it before anyone arrives. Its own arrival
// gates everyone's place in the order; a rank predicted to arrive late -
// rank 0 writing output each iteration, say - never hands it out.
int reactive_coordinator(const Params &);
// The coordinator, then the other ranks in the order of Params::arrivals
// (ties by rank; rank order without a vector).
std::vector<int> alltoall_reactive_order(const Params &);
// `rank`'s links in `order`, every later rank its own group.
AlltoallLinks alltoall_reactive_links_of(const std::vector<int> &order, int rank);
// One exchange the mechanism runs as a unit: the pairs with `peers`
// posted at once (receives into the Program's own scratch, the peers'
// pairs back to back in the order of `peers`), then their copies into
// place; `own`: the rank's own pair copied in the first step. Two steps
// at most (rounds 1 and 2).
Program alltoall_reactive_group(const Params &, int rank, const std::vector<int> &peers, bool own);
// The mechanism's exchanges for `links`, one after the other (the earlier
// ranks with the own pair first), each group's scratch after the previous
// one's; no control messages. The validator proves them for any grouping.
Program alltoall_reactive_groups(const Params &, int rank, const AlltoallLinks &);
// The catalogue's builder (alltoall and alltoallv), the model of a run
// (validator, simulator): the order from Params::arrivals; a rank says
// hello to the coordinator and takes its answer, then one exchange with
// every other rank, posted at once, whose first ops are the control
// messages (zero elements): the notices to the earlier ranks but the
// coordinator and from the later ranks; at the coordinator the hellos and
// the answers.
Program alltoall_reactive(const Params &, int rank);

// The number of leading steps that name no kUnknownPeer.
std::size_t known_steps(const Program &);

}  // namespace patcoll::core
