// The PAT runtime's shared state (internal): the runtime of PAT_Init
// (runtime.cpp: background thread, prediction, exchange) and the
// background collectives it runs at an edge (background.cpp: PAT_*_init,
// PAT_Start, PAT_Run, PAT_Handle_free). docs/results/runtime.md describes both.
#pragma once

#include <mpi.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "core/cost.hpp"
#include "core/runtime/predictor.hpp"
#include "mpi/comm_cache.hpp"
#include "mpi/registry.hpp"

namespace patcoll::runtime {

using Clock = std::chrono::steady_clock;

// A registered background collective (PAT_Scatter_init / PAT_Gather_init):
// the same Program as its foreground twin (slin, sbn, sls), with the part
// of the ranks that [PS] moves to the background thread (scatter: every
// non-root; gather: the root) run by the background thread right after the
// exchange at the edge, on the handle's own communicator.
struct Handle {
  core::Collective collective = core::Collective::scatter;
  const mpi::Entry *entry = nullptr;
  const void *send = nullptr;  // root (scatter) / own block (gather)
  void *recv = nullptr;        // own block (scatter) / root (gather)
  bool in_place = false;
  int root = 0, rank = 0, size = 1, tag_ub = 32767;
  long long block = 0;  // bytes per rank
  MPI_Comm comm = MPI_COMM_NULL;
  bool background_part = false;
  std::vector<char> stand_in;  // gather root: its own block while in the background
  // The cost model of the runtime's communicator, taken by the main thread
  // (PAT_*_init, PAT_Start); the Programs built for this handle (used by
  // one thread at a time: PAT_Run waits for the background part).
  core::CostModel cost;
  mpi::ProgramCache programs{mpi::schedule_cache_capacity()};
  // Guarded by Runtime::mutex.
  bool started = false;                    // PAT_Start'ed, PAT_Run not yet called
  std::uint64_t runs = 0;                  // completed PAT_Run calls
  std::uint64_t armed_for = ~std::uint64_t{0};  // `runs` when an edge last armed it
  int pending = 0;                         // armed edges not yet processed
  bool background_done = false;
  int background_rc = MPI_SUCCESS;
  std::vector<double> arrivals;  // of the last exchange (same on every rank)
};

struct EdgeItem {
  double estimate = 0;
  std::vector<std::pair<Handle *, std::uint64_t>> handles;  // and the run (tag) each is armed for
};

struct Runtime {
  MPI_Comm comm = MPI_COMM_NULL;  // the runtime's own duplicate
  MPI_Comm user = MPI_COMM_NULL;  // the communicator whose collectives get the PATs
  int size = 1, rank = 0;
  mpi::CommState *state = nullptr;  // the user's communicator (algorithm choices, cost model)
  std::shared_ptr<mpi::ArrivalsMailbox> mailbox;
  std::thread thread;

  // Shared with the background thread (guarded by mutex).
  std::mutex mutex;
  std::condition_variable cv;
  bool stop = false;
  std::deque<EdgeItem> queue;  // predictions waiting to be exchanged
  std::set<Handle *> handles;
  std::uint64_t requested = 0, exchanged = 0;
  std::vector<double> last_vector;
  int exchange_error = MPI_SUCCESS;

  // Main thread only.
  bool processing = false, edge_seen = false;
  Clock::time_point start;
  core::runtime::Predictor predictor;
  double last_prediction = NAN, last_length = NAN;
};

extern std::mutex g_mutex;  // guards g_runtime
extern Runtime *g_runtime;

// Runs `h`'s Program for run number `run` (its tag) with the exchanged
// `arrivals`; `background`: the background thread's part (background.cpp).
int run_program(Handle &h, std::uint64_t run, const std::vector<double> &arrivals, bool background);

// MPI_ERR_OTHER: "<call>: the PAT runtime is not initialised".
int not_initialised(const char *call);

}  // namespace patcoll::runtime
