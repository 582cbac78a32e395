// Non-blocking and persistent collectives (PAT_I*, PAT_*_init, PAT_Start,
// PAT_Wait, PAT_Test, PAT_Handle_free): the object behind a PAT_Handle.
//
// A start runs exactly what the blocking call runs — the same argument
// checks, selection and cached Program (src/api) — but returns once the
// Program's first steps are posted; the Execution (executor.hpp) keeps its
// position, requests and Workspace in the handle until it completes.
// Progress happens inside PAT_Test / PAT_Wait and, when the PAT runtime is
// initialised (MPI_THREAD_MULTIPLE), in its background thread
// (progress_active_handles). `native` starts the MPI library's own
// non-blocking collective (MPI-3 MPI_Ireduce & co.; persistent: one per
// start).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "comm_cache.hpp"
#include "core/algorithm.hpp"
#include "executor.hpp"


namespace patcoll::mpi {

// The arguments of a collective handed to the MPI library (`native`,
// intercommunicators): MPI_Reduce's (send, recv, count, datatype, op, root)
// or MPI_Scatter's / MPI_Gather's.
struct NativeCall {
  core::Collective collective = core::Collective::reduce;
  const void *sendbuf = nullptr;
  void *recvbuf = nullptr;
  int sendcount = 0, recvcount = 0;  // reductions: count in sendcount
  MPI_Datatype sendtype = MPI_DATATYPE_NULL, recvtype = MPI_DATATYPE_NULL;  // reductions: sendtype
  MPI_Op op = MPI_OP_NULL;
  int root = 0;
  MPI_Comm comm = MPI_COMM_NULL;
  // The v-forms' arrays (allgatherv: recvcounts, rdispls = displs;
  // alltoallv: all four; reduce_scatter: recvcounts), as the caller passed them.
  const int *sendcounts = nullptr, *sdispls = nullptr, *recvcounts = nullptr, *rdispls = nullptr;
};
int native_blocking(const NativeCall &);                 // PMPI_Reduce & co.
int native_start(const NativeCall &, MPI_Request *);    // PMPI_Ireduce & co.
// PMPI_Reduce_init & co. (MPI-4); MPI_ERR_UNSUPPORTED_OPERATION before MPI-4.
int native_init(const NativeCall &, MPI_Info, MPI_Request *);

// What one start of a collective runs.
struct Run {
  enum class Kind { nothing, native, program, reactive };
  Kind kind = Kind::nothing;
  NativeCall native;                               // native
  std::shared_ptr<CachedProgram> program;          // program
  const core::Algorithm *reactive = nullptr;        // reactive (blocking only, mpi/reactive.hpp)
  core::Params params;                              // reactive
  ExecutionBuffers buffers;
  ExecutionContext context;
  std::function<int()> finish;                     // after completion (unpacking); may be empty
  std::vector<char> own_pack, whole_pack;          // packed copies of non-contiguous buffers
  // A persistent collective may start this run again with only a new tag
  // (same Program, buffers used in place): true unless the algorithm
  // follows the PAT vector or buffers are packed.
  bool reusable = false;
  CommState *state = nullptr;  // program: the communicator's state (its tags)
  // A blocking run of this call measures itself for `auto`'s feedback
  // (dispatch.hpp: measure_blocking_call); nullptr: not measured.
  CommState *measured = nullptr;
};

// What a handle's run has done, read without progressing it (the test that
// the PAT runtime's thread alone progresses a collective).
struct HandleProgress {
  bool active = false;             // started and not yet completed by PAT_Test / PAT_Wait
  bool schedule_complete = false;  // executor runs: the Program's last step is done
  std::size_t step = 0;            // executor runs: the step the Execution is in
  std::uint64_t thread_advances = 0;  // progress() calls (the runtime's thread) that moved this run
};

class Handle {
 public:
  // Prepares a run: argument checks, selection, Program, tag. Called at
  // every start of a persistent collective (the Program comes from the
  // cache; PAP-aware ones follow the newest PAT vector).
  using Prepare = std::function<int(Run &)>;
  Handle(bool persistent, Prepare prepare) : persistent_(persistent), prepare_(std::move(prepare)) {}
  ~Handle();

  bool persistent() const { return persistent_; }
  bool active();
  int start();                    // prepares and starts a run
  int test(bool &complete);       // progress without blocking
  int wait();                     // blocks until the run is complete
  void progress();                // from the PAT runtime's thread: never blocks, errors kept for test/wait
  HandleProgress peek();          // no MPI call, no progress

 private:
  int complete_run();  // after completion: finish, release, the run's code
  int test_locked(bool &complete);

  const bool persistent_;
  Prepare prepare_;
  std::mutex mutex_;
  Run run_;
  std::unique_ptr<Workspace> workspace_;
  Execution execution_;
  MPI_Request request_ = MPI_REQUEST_NULL;
  bool active_ = false;
  int rc_ = MPI_SUCCESS;  // first error of the active run
  std::uint64_t thread_advances_ = 0;
};

// A blocking call: runs `run` to completion on the calling thread.
int run_blocking(Run &run);

// Handles with a run in progress (for the PAT runtime's thread), and the
// function called when one starts (the runtime wakes its thread; null:
// none).
bool any_active_handles();
void progress_active_handles();
void set_start_listener(void (*listener)());

}  // namespace patcoll::mpi
