// The one path of every patcoll collective call (call.cpp): the C API's
// blocking, non-blocking and persistent calls and the preload shim's
// MPI_<Coll> all come here.
#pragma once

#include <mpi.h>

#include <string>
#include <string_view>

#include "handle.hpp"

namespace patcoll::mpi {

enum class Caller { api, shim };

// What served a blocking call (for the shim's PATCOLL_VERBOSE lines).
struct CallOutcome {
  CommState *state = nullptr;   // nullptr: an intercommunicator, or MPI not usable
  std::string_view served;      // "native" or the algorithm's name
  std::string declined;         // shim: why the MPI library serves a call patcoll was asked to
  bool configuration = false;   // the error is a malformed configuration (the same on every rank)
};

// A blocking collective call, start to end: the history PATs of its
// collective and call site (`site`: the caller's return address;
// PATCOLL_PATS=history), the checks, the selection (`algorithm` first when
// not null/empty), the run and `auto`'s measurement. From the shim,
// `algorithm` nullptr means the MPI library's own (the call is still
// recorded in the history), and an algorithm whose restrictions the call
// does not meet declines to the MPI library on every rank alike; from the
// C API it is an error. Any other error is returned, never retried.
int blocking_call(const NativeCall &call, const char *algorithm, const void *site, Caller caller,
                  CallOutcome *outcome = nullptr);

// The call of `collective` in which every rank passes `count` elements of
// `type` (per rank for a scatter or gather) from `send` to `recv`, with
// `op` and `root` where the collective takes them: a benchmark's or a
// test's call of any collective (buffer sizes: core::traits(c).elements).
// A persistent collective's preparation (PAT_<Coll>_init, the shim's
// MPI_<Coll>_init): checked, selected and built now, like a first call
// (init is collective: every rank takes a tag). The first start runs what
// init prepared; each later one reuses its Program with a new tag, or
// prepares again when the algorithm follows the PAT vector.
int persistent_preparation(const NativeCall &call, const std::string &algorithm, Handle::Prepare &prepare);

NativeCall uniform_call(core::Collective collective, const void *send, void *recv, int count, MPI_Datatype type,
                        MPI_Op op, int root, MPI_Comm comm);

// A non-blocking or persistent start: the checks, the selection and the
// Program of the call into `run`, which the handle runs (not measured for
// `auto`'s feedback, no history entry).
int prepare_call(const NativeCall &call, const char *algorithm, Run &run);

}  // namespace patcoll::mpi
