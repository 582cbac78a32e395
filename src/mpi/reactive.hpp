// The mechanism of the reactive algorithms (core/builders/reactive.hpp):
// how a rank learns its place in the arrival order at run time, and the
// run of its Program in the stages its knowledge allows, by the one
// executor.
//
// Place in line, by control messages on a second private duplicate of
// the communicator (the call's tag): every non-root rank, when it arrives,
// tells the root ("hello", zero bytes); the root takes the hellos as they
// come (MPI_ANY_SOURCE) and answers each with the rank that came before
// and whether it is the last (two ints). The root's receive order is the
// arrival order. A rank then tells its predecessor it is there (zero
// bytes); a rank that is not the last receives that message from its
// successor (MPI_ANY_SOURCE: exactly one comes). The late rank's cost is
// one round trip to the root. (One MPI_Compare_and_swap on a window at the
// root would do the same without the root's part, but Open MPI 4.1's
// one-sided atomics crash in shared memory where its single-copy transfer
// is not permitted, e.g. in containers: osc/rdma's emulated compare-and-
// swap over btl/vader.) The root's own arrival gates the line: a late root
// is waited for, as every reduce waits for its root.
//
// Run: the Program built with the peers the rank knows runs, one step at
// a time, up to its first step that needs one it does not
// (core::known_steps), while the rank tests for its successor's message;
// once it is there (ArrivalLinks::held: the steps done by then, at least
// one), the executor continues with the Program built for the full links,
// from that step, in the same workspace. The broadcast's root waits for
// the first hello only (its successor), then drives its Execution with
// test() and answers the hellos as they come, and after its Program the
// ones still to come. One engine; what differs per collective is data
// (the builder, the root, whether the root feeds the line or ends it).
//
// The all-to-all (alltoall/reactive) uses the same control messages with
// rank 0 as the coordinator: its answer to a hello is the list of ranks
// answered before (the rank's place and its earlier ranks); a rank tells
// each earlier rank but rank 0 it is there. Each exchange (the earlier
// ranks with the own pair, then each group of later ranks whose notices
// came together) is a Program of its own, started as soon as its ranks
// are known, in its own workspace; the rank posts one zero-byte receive
// per later rank at once, waits for the next notices in MPI_Waitsome (the
// exchanges' messages are all posted, MPI progresses them) and completes
// the exchanges once every later rank's has started.
//
// allreduce/reactive_owners uses the same hellos to rank 0 and answers
// (the ranks answered before). Rank 0 also sends the first K of the order
// to the other owners once the K-th has come, and the whole order once the
// last has. A later rank runs its whole Program at once (its answer names
// every owner); an owner runs its exchange among the owners as soon as it
// knows them, then the stages once it knows the whole order; rank 0
// answers the hellos that come during its exchange as they come.
//
// Blocking calls only: a non-blocking or persistent call that names a
// reactive algorithm is MPI_ERR_ARG (check_reactive_blocking).
#pragma once

#include <mpi.h>

#include "comm_cache.hpp"
#include "core/algorithm.hpp"
#include "executor.hpp"

namespace patcoll::mpi {

// Runs one blocking reactive reduce, allreduce, broadcast or all-to-all on
// `state`'s communicator.
int run_reactive(CommState &state, const core::Algorithm &algorithm, const core::Params &params,
                 const ExecutionBuffers &buffers, const ExecutionContext &context);

// Frees the communicator's window and control duplicate (collective; at
// the state's destruction).
void release_reactive(CommState &state);

}  // namespace patcoll::mpi
