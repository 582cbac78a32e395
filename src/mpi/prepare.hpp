// The start of a call, one function per signature kind of
// core/collectives.def (prepare_<kind>): the kind's argument checks with
// the MPI standard's error classes, the selection and the Program, into a
// Run (handle.hpp) that the blocking call runs at once and a non-blocking
// or persistent one keeps. call.cpp dispatches to them; a new kind adds
// its function here and defines it in its own file (prepare_<kind>.cpp) or
// in call.cpp, with the helpers below.
#pragma once

#include <mpi.h>

#include <vector>

#include "mpi/comm_cache.hpp"
#include "mpi/datatype.hpp"
#include "mpi/handle.hpp"

namespace patcoll::mpi {

int prepare_rooted_reduction(const NativeCall &, const char *algorithm, Run &);  // MPI_Reduce
int prepare_reduction(const NativeCall &, const char *algorithm, Run &);         // MPI_Allreduce
int prepare_rooted_movement(const NativeCall &, const char *algorithm, Run &);   // MPI_Scatter, MPI_Gather
// MPI_Allgather, MPI_Allgatherv (prepare_all_gather.cpp).
int prepare_all_gather(const NativeCall &, const char *algorithm, Run &);
int prepare_all_gather_v(const NativeCall &, const char *algorithm, Run &);
int prepare_broadcast(const NativeCall &, const char *algorithm, Run &);         // MPI_Bcast (prepare_broadcast.cpp)
int prepare_all_to_all(const NativeCall &, const char *algorithm, Run &);        // MPI_Alltoall
int prepare_all_to_all_v(const NativeCall &, const char *algorithm, Run &);      // MPI_Alltoallv
// MPI_Reduce_scatter_block, MPI_Reduce_scatter (prepare_scatter_reduction.cpp).
int prepare_scatter_reduction(const NativeCall &, const char *algorithm, Run &);
int prepare_scatter_reduction_v(const NativeCall &, const char *algorithm, Run &);

// The start of every prepare_<kind>: clears the last error, keeps the
// call in `run.native` and checks what every collective needs (MPI usable,
// a valid communicator). On MPI_SUCCESS, `state` is the communicator's
// state, or null for an intercommunicator: then `run` is already the MPI
// library's own call, and the prepare function returns at once.
int begin_call(const NativeCall &call, Run &run, CommState *&state);

// The selection of the call (dispatch.hpp's select: explicit name,
// configuration, `auto`) into `run`: `entry` is the algorithm to run, or
// null when the MPI library's own serves the call (run.kind = native);
// a call `auto` measures keeps its state in run.measured.
int select_run(CommState &state, core::Collective collective, const char *algorithm, const core::Params &params,
               Run &run, const Entry *&entry);

// The end of every movement's prepare_<kind>: `run` executes `entry`'s
// Program over bytes (one IR element = one byte, MPI_BYTE on the wire)
// with run.buffers already set; it is reusable (persistent) where the
// algorithm does not depend on the arrivals and nothing is packed.
// A reactive entry serves blocking calls only: through a non-blocking or
// persistent call the shim declines it (`declined`, the run native, the
// reason noted for its verbose line), anything else is MPI_ERR_ARG.
int check_reactive_blocking(core::Collective, const Entry &, Run &, bool &declined);
// The MPI tags of one call: `count` consecutive ones from `first`
// (core::Algorithm::tags; the Program's Op::tag < count).
struct CallTags {
  int first = 0;
  int count = 1;
};
// Every prepare_<kind> reserves its call's tags here, after the selection
// and before any early return, so every rank's tag sequence advances alike:
// 1 for the MPI library's own, core::tags_of for an algorithm;
// MPI_ERR_ARG (naming the algorithm and both numbers) when the
// communicator's MPI_TAG_UB leaves fewer.
int reserve_tags(CommState &state, const Entry &entry, const core::Params &params, CallTags &tags);
// A reactive entry gets a reactive run (Run::Kind::reactive, over bytes).
int run_byte_program(CommState &state, const Entry &entry, const core::Params &params, CallTags tags, Run &run);

// Movements run in bytes: one IR element is one byte of a rank's block, so
// the send and receive datatypes may differ (matching signatures). A
// buffer whose datatype is not dense is packed before and unpacked after
// the run: `packed` holds its bytes (kept in the Run while it is active;
// its heap storage does not move with the Run); `bytes_out` is where the
// Program's buffer starts.
int pack_view(const void *buffer, int count, const TypeInfo &type, std::vector<char> &packed, void *&bytes_out,
              bool copy_in);

}  // namespace patcoll::mpi
