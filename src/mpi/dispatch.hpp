// The one dispatch path of every patcoll collective: the C API
// (src/api/patcoll.cpp), the PAT runtime's background collectives
// (src/runtime/background.cpp) and, through the C API, the preload shim;
// blocking, non-blocking and persistent calls alike (mpi/handle.hpp).
//
//   call's arguments, checked by the caller
//     -> call_params       Params: P, root, count, element size, op, the
//                          communicator's PATs, its cost model, the
//                          segmentation of the configuration (registry:
//                          core/config.hpp), checked and agreed
//     -> select            explicit name > communicator > process >
//                          environment (PATCOLL_<COLL>) > auto; restrictions
//     -> choose_auto       `auto`: the size rule, or the communicator's
//                          core::Selector on its PAT vector, fed with the
//                          measured times of earlier calls (feedback)
//     -> program           the builder's view of the Params (core: which
//                          algorithms see PATs, and their quantum), the cache
//                          key, the Program cache
//     -> executor          (mpi/executor.hpp)
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "comm_cache.hpp"
#include "core/algorithm.hpp"
#include "core/cost.hpp"
#include "executor.hpp"
#include "registry.hpp"

namespace patcoll::mpi {

// The cost model of `state`'s communicator: PAT_Set_cost_model(comm) >
// PAT_Set_cost_model(MPI_COMM_NULL) > the PATCOLL_MODEL file > built-in.
core::CostModel cost_model(const CommState &state);

// What a collective call contributes to its Params (the rest comes from the
// communicator's state and the configuration).
struct CallShape {
  core::Collective collective = core::Collective::reduce;
  int root = 0;
  std::int64_t count = 0;          // elements (scatter/gather: bytes of one rank's block)
  std::int64_t element_bytes = 1;
  bool commutative = true;
};
// The Params of a call on `state`'s communicator: its PATs, its cost model
// and the configuration's segmentation and Clairvoyant join rule. A
// malformed PATCOLL_SEGMENTS, PATCOLL_SEGMENT_BYTES or
// PATCOLL_CLAIRVOYANT_JOIN is MPI_ERR_ARG (check_schedule_configuration);
// at the first call on a communicator these process-wide inputs are checked
// to be the same on every rank (one allreduce, docs/results/agreement.md).
int call_params(CommState &state, const CallShape &call, core::Params &out);
// The same from parts (the runtime's background collectives, whose PATs
// come from the exchange and whose cost model is taken in the main thread;
// the configuration was checked when the collective was set up).
core::Params call_params(const CallShape &call, int procs, std::vector<double> arrivals, const core::CostModel &cost);

// MPI_ERR_ARG (with PAT_Last_error naming the variable) when a variable
// that shapes schedules does not parse; MPI_SUCCESS otherwise.
int check_schedule_configuration();

// The algorithm serving a call: `explicit_name` (the _with functions;
// nullptr or "" = none), else the communicator's, else the process's, else
// PATCOLL_<COLL>, else auto. An unknown name is MPI_ERR_ARG; a forced
// algorithm whose restrictions fail is MPI_ERR_OP (non-commutative op) or
// MPI_ERR_ARG, or with PATCOLL_FALLBACK=1 the auto choice with one line on
// stderr. `out` is never nullptr on success (native is an entry); the
// choice is recorded in state.last_algorithm (PAT_Get_last_algorithm).
int select(CommState &state, core::Collective, const char *explicit_name, const core::Params &params,
           const Entry *&out);

// `auto` for a call: without a PAT vector the size-and-P rule
// (core::classic_choice); with one, the communicator's core::Selector
// (prediction on the PAT vector, cache, hysteresis; docs/results/selection.md,
// docs/results/adaptive.md). PATCOLL_VERBOSE=1: rank 0 says every change.
const Entry *choose_auto(CommState &state, const core::Params &params);

// `auto`'s measured feedback (PATCOLL_AUTO_FEEDBACK, docs/results/adaptive.md).
// A blocking call that `auto` chose on a PAT vector measures itself: on
// the communicator's common clock (mpi/clock.hpp: aligned once, at the
// first such call, or the history's), the last exit (a reduce: the root's)
// minus the last actual arrival, and how far the arrivals were from the
// vector (the spread over ranks of actual minus predicted arrival); without
// a clock (a balanced pattern's calls), this rank's elapsed time minus how
// much later than it the latest rank's PAT says the last rank arrived. A non-blocking PMPI_Iallreduce(MAX) on
// the private duplicate, started here, gives every rank the same tail (the
// last exit after the last arrival) and the same name of what ran; it is
// completed `kFeedbackLag` auto calls later, at the same call on every
// rank, and recorded in the communicator's Selector there (so every rank
// drops the same choice at the same call). Nothing synchronises the
// collective itself. `entry_time` is MPI_Wtime() at the call's entry.
inline constexpr std::uint64_t kFeedbackLag = 2;
void measure_blocking_call(CommState &state, double entry_time);
// Test hook: replaces this rank's measured tail (seconds) before the
// exchange, to inject a measurement (a value other than the one it is
// given replaces the common clock's measurement too: every rank of a test
// injects alike); nullptr restores the clock's.
using FeedbackHook = double (*)(core::Collective, std::string_view algorithm, int rank, double tail);
void set_feedback_hook(FeedbackHook hook);
// Non-blocking and persistent calls are not measured (their exit is not
// the collective's end). While one is prepared (this scope, per thread),
// `auto` runs what the measured blocking calls of its shape and pattern
// decided and takes no native probe from them (core::Selector::select).
// True while an UnmeasuredCall scope is open on this thread (a
// non-blocking or persistent call is being prepared).
bool unmeasured_call_open();
class UnmeasuredCall {
 public:
  UnmeasuredCall();
  ~UnmeasuredCall();
  UnmeasuredCall(const UnmeasuredCall &) = delete;
  UnmeasuredCall &operator=(const UnmeasuredCall &) = delete;
};

// The blocking call being served on this thread (call.cpp sets it for the
// call's duration): the PAT vector its collective and call site learned
// (PATCOLL_PATS=history; used when the communicator has no vector of its
// own from PAT_Set_arrivals or the PAT runtime), and whether it came
// through the shim, where an algorithm whose restrictions the call does not
// meet declines to the MPI library (`declined` says why) instead of failing.
struct CallContext {
  bool shim = false;
  const std::vector<double> *history_arrivals = nullptr;
  std::string declined;
  bool configuration_error = false;  // the call failed on a malformed configuration
};
CallContext *current_call();
class CallScope {
 public:
  explicit CallScope(CallContext &context);
  ~CallScope();
  CallScope(const CallScope &) = delete;
  CallScope &operator=(const CallScope &) = delete;

 private:
  CallContext *previous_;
};

// Schedule inputs every rank must agree on (docs/results/agreement.md). Each rank
// hashes its value and one PMPI_Allreduce(MAX) over {hash, ~hash, invalid}
// on patcoll's private duplicate tells every rank the same verdict.
// `local_error` is this rank's own complaint ("" if its value is valid);
// MPI_SUCCESS only when every rank's value is valid and identical.
std::uint64_t hash_values(const double *values, std::size_t n);
int agree_across_ranks(const CommState &state, std::uint64_t hash, const std::string &local_error, const char *what);

// This rank's Program of `entry` for `params`, built through `cache` (key:
// everything the builder reads after core::builder_params, so a PAT vector
// that only jitters within the quantum hits).
std::shared_ptr<CachedProgram> program(ProgramCache &cache, int rank, const Entry &entry, const core::Params &params);

// Runs a cached Program with one of its kept workspaces (executor.hpp).
int run_cached(CachedProgram &cached, const ExecutionBuffers &buffers, const ExecutionContext &context);

// The key `program` files a Program under (exposed for the tests).
std::string cache_key(const Entry &entry, const core::Params &builder_params, int rank);

// Reports the configuration problems of the library's variables once per
// process, on rank 0 of MPI_COMM_WORLD (PATCOLL_SEGMENTS=abc, ...).
void report_configuration_once();

// A message on stderr once per process and text.
void warn_once(const std::string &message);

}  // namespace patcoll::mpi
