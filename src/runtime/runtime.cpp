// The PAT runtime ([PS] §3, Figs. 2-4; [PA] §3): one background thread per
// process, on its own duplicate of the runtime's communicator. The main
// thread reports PAT_ProcessingStart / PAT_Edge / PAT_ProcessingEnd; at an
// edge it predicts its arrival at the next collective (core/runtime/
// predictor.hpp) and queues the value; the background thread exchanges
// the values with MPI_Iallgather (polled, so it does not spin a core) and
// delivers the relative PAT vector to the communicator's ArrivalsMailbox
// (mpi/comm_cache.hpp), from which the next collective on that
// communicator takes it. docs/results/runtime.md describes the API and the model.
//
// The background collectives (PAT_Scatter_init, ...) are background.cpp's;
// runtime.hpp holds the state both share.
#include "runtime.hpp"

#include <mpi.h>

#include <optional>
#include <string>

#include "core/config.hpp"
#include "core/pat.hpp"
#include "mpi/error.hpp"
#include "mpi/finalize.hpp"
#include "mpi/handle.hpp"
#include "patcoll.h"

namespace patcoll::runtime {

std::mutex g_mutex;
Runtime *g_runtime = nullptr;

int not_initialised(const char *call) {
  return mpi::fail(MPI_ERR_OTHER, std::string(call) + ": the PAT runtime is not initialised (call PAT_Init first)");
}

namespace {

using core::runtime::Predictor;
using core::runtime::PredictorConfig;

std::optional<PredictorConfig> g_predictor;  // PAT_Set_predictor's choice (guarded by g_mutex)
bool g_finalize_hook = false;

// mpi::set_start_listener: a non-blocking or persistent collective started.
void wake_for_handles() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_runtime) return;
  { std::lock_guard<std::mutex> queue_lock(g_runtime->mutex); }  // the thread is waiting or will re-check
  g_runtime->cv.notify_all();
}

void background(Runtime *rt) {
  for (;;) {
    EdgeItem item;
    {
      std::unique_lock<std::mutex> lock(rt->mutex);
      // Between exchanges the thread makes progress on the non-blocking and
      // persistent collectives in flight (mpi/handle.hpp), polling every
      // 50 µs while there are any; a start wakes it (wake_for_handles).
      while (!rt->stop && rt->queue.empty()) {
        if (mpi::any_active_handles()) {
          lock.unlock();
          mpi::progress_active_handles();
          lock.lock();
          if (rt->stop || !rt->queue.empty()) break;
          rt->cv.wait_for(lock, std::chrono::microseconds(50));
        } else {
          rt->cv.wait(lock);
        }
      }
      if (rt->queue.empty()) return;  // stop, and every announced exchange done
      item = std::move(rt->queue.front());
      rt->queue.pop_front();
    }
    double estimate = item.estimate;
    std::vector<double> all(static_cast<std::size_t>(rt->size), 0.0);
    MPI_Request request = MPI_REQUEST_NULL;
    int rc = MPI_Iallgather(&estimate, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, rt->comm, &request);
    int done = 0;
    while (rc == MPI_SUCCESS && !done) {
      rc = PMPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (rc == MPI_SUCCESS && !done) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    std::vector<double> relative;
    if (rc == MPI_SUCCESS) relative = core::relative_arrivals(std::move(all));
    {
      std::lock_guard<std::mutex> lock(rt->mutex);
      rt->last_vector = relative;
      if (rc != MPI_SUCCESS) rt->exchange_error = rc;
      ++rt->exchanged;
    }
    rt->cv.notify_all();
    rt->mailbox->deliver(relative);  // empty (balanced) after a failed exchange
    // The background parts of the armed collectives ([PS] Figs. 6, 8, 10, 12).
    for (auto &[h, run] : item.handles) {
      {
        std::lock_guard<std::mutex> lock(rt->mutex);
        h->arrivals = relative;
      }
      int handle_rc = MPI_SUCCESS;
      if (h->background_part) handle_rc = rc != MPI_SUCCESS ? rc : run_program(*h, run, relative, true);
      {
        std::lock_guard<std::mutex> lock(rt->mutex);
        h->background_done = h->background_part;
        h->background_rc = handle_rc;
        --h->pending;
      }
      rt->cv.notify_all();
    }
  }
}

// PAT_Set_predictor's choice, else PATCOLL_PREDICTOR (validated by PAT_Init).
PredictorConfig predictor_config() {
  if (g_predictor) return *g_predictor;
  PredictorConfig config;
  core::runtime::parse_predictor((*core::config::settings())[core::config::Var::predictor].text, config);
  return config;
}

// Stops the thread after the exchanges already announced, frees the
// communicator. g_mutex held by the caller.
int shutdown(Runtime *rt) {
  mpi::set_start_listener(nullptr);
  {
    std::lock_guard<std::mutex> lock(rt->mutex);
    rt->stop = true;
    // Exchanges still queued are finished (the other ranks take part in
    // them); background parts not yet begun are dropped (only reachable
    // from the MPI_Finalize hook: PAT_Finalize refuses live handles).
    for (EdgeItem &item : rt->queue) {
      for (auto &[h, run] : item.handles) --h->pending;
      item.handles.clear();
    }
  }
  rt->cv.notify_all();
  if (rt->thread.joinable()) rt->thread.join();
  int rc = MPI_SUCCESS;
  if (rt->comm != MPI_COMM_NULL) rc = MPI_Comm_free(&rt->comm);
  rt->mailbox->clear();  // collectives go on without PATs
  delete rt;
  return rc;
}

// At MPI_Finalize (mpi/finalize.hpp): a runtime the program did not
// finalise is stopped while MPI still works.
int finalize_hook(MPI_Comm, int, void *, void *) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_runtime) shutdown(g_runtime);
  g_runtime = nullptr;
  g_finalize_hook = false;
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace patcoll::runtime

using namespace patcoll::runtime;
namespace mpi = patcoll::mpi;
namespace core = patcoll::core;
using patcoll::core::runtime::Predictor;
using patcoll::core::runtime::PredictorConfig;

extern "C" {

int PAT_Init(MPI_Comm comm) {
  mpi::set_last_error({});
  if (!mpi::mpi_usable()) return mpi::fail(MPI_ERR_OTHER, "PAT_Init: MPI is not initialised or already finalised");
  if (comm == MPI_COMM_NULL) return mpi::fail(MPI_ERR_COMM, "PAT_Init: the communicator is MPI_COMM_NULL");
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_runtime) return mpi::fail(MPI_ERR_OTHER, "PAT_Init: the PAT runtime is already initialised");
  int inter = 0;
  PATCOLL_MPI_CHECK(MPI_Comm_test_inter(comm, &inter));
  if (inter) return mpi::fail(MPI_ERR_COMM, "PAT_Init: intercommunicators are not supported");
  int provided = MPI_THREAD_SINGLE;
  PATCOLL_MPI_CHECK(MPI_Query_thread(&provided));
  if (provided < MPI_THREAD_MULTIPLE)
    return mpi::fail(MPI_ERR_OTHER,
                     "PAT_Init: the PAT runtime needs MPI_THREAD_MULTIPLE (initialise MPI with MPI_Init_thread); "
                     "collectives keep working without PATs");
  if (const auto settings = core::config::settings(); !g_predictor) {
    const core::config::Value &predictor = (*settings)[core::config::Var::predictor];
    if (!predictor.valid)
      return mpi::fail(MPI_ERR_ARG, "PAT_Init: PATCOLL_PREDICTOR='" + predictor.given +
                                        "' is not one of edge, last, sma, sma:<k>");
  }
  mpi::CommState *state = nullptr;
  if (int rc = mpi::comm_state(comm, state); rc != MPI_SUCCESS) return rc;
  auto rt = std::make_unique<Runtime>();
  rt->state = state;
  rt->user = comm;
  rt->mailbox = state->mailbox;
  rt->predictor = Predictor(predictor_config());
  PATCOLL_MPI_CHECK(MPI_Comm_size(comm, &rt->size));
  PATCOLL_MPI_CHECK(MPI_Comm_rank(comm, &rt->rank));
  PATCOLL_MPI_CHECK(MPI_Comm_dup(comm, &rt->comm));
  MPI_Comm_set_errhandler(rt->comm, MPI_ERRORS_RETURN);
  if (!g_finalize_hook) {
    if (const int rc = mpi::at_finalize(finalize_hook); rc != MPI_SUCCESS) {
      MPI_Comm_free(&rt->comm);
      return mpi::mpi_failure(rc, "PAT_Init: registering the MPI_Finalize hook");
    }
    g_finalize_hook = true;
  }
  try {
    rt->thread = std::thread(background, rt.get());
  } catch (const std::exception &e) {
    MPI_Comm_free(&rt->comm);
    return mpi::fail(MPI_ERR_OTHER, std::string("PAT_Init: cannot start the background thread: ") + e.what());
  }
  g_runtime = rt.release();
  mpi::set_start_listener(wake_for_handles);
  return MPI_SUCCESS;
}

int PAT_Finalize(void) {
  mpi::set_last_error({});
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_runtime) return not_initialised("PAT_Finalize");
  if (!mpi::mpi_usable()) return mpi::fail(MPI_ERR_OTHER, "PAT_Finalize: MPI is already finalised");
  Runtime *rt = g_runtime;
  {
    std::lock_guard<std::mutex> handles_lock(rt->mutex);
    if (!rt->handles.empty())
      return mpi::fail(MPI_ERR_OTHER, "PAT_Finalize: free the background collectives first (PAT_Handle_free)");
  }
  g_runtime = nullptr;
  const int rc = shutdown(rt);
  if (rc != MPI_SUCCESS) return mpi::mpi_failure(rc, "PAT_Finalize: MPI_Comm_free");
  return MPI_SUCCESS;
}

int PAT_Initialized(int *flag) {
  if (!flag) return mpi::fail(MPI_ERR_ARG, "PAT_Initialized: flag is NULL");
  std::lock_guard<std::mutex> lock(g_mutex);
  *flag = g_runtime != nullptr;
  return MPI_SUCCESS;
}

int PAT_UseAlg(const char *collective, const char *name) {
  MPI_Comm target = MPI_COMM_NULL;  // before PAT_Init: the process-wide choice
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_runtime) target = g_runtime->user;
  }
  return PAT_Set_algorithm(target, collective, name);
}

int PAT_Set_predictor(const char *name) {
  mpi::set_last_error({});
  PredictorConfig config;
  if (!name || !patcoll::core::runtime::parse_predictor(name, config))
    return mpi::fail(MPI_ERR_ARG, std::string("PAT_Set_predictor: '") + (name ? name : "(null)") +
                                      "' is not one of edge, last, sma, sma:<k>");
  std::lock_guard<std::mutex> lock(g_mutex);
  g_predictor = config;
  if (g_runtime) g_runtime->predictor = Predictor(config);
  return MPI_SUCCESS;
}

int PAT_ProcessingStart(void) {
  mpi::set_last_error({});
  std::lock_guard<std::mutex> lock(g_mutex);
  Runtime *rt = g_runtime;
  if (!rt) return not_initialised("PAT_ProcessingStart");
  if (rt->processing)
    return mpi::fail(MPI_ERR_OTHER, "PAT_ProcessingStart: the previous phase was not ended (PAT_ProcessingEnd)");
  rt->processing = true;
  rt->edge_seen = false;
  rt->start = Clock::now();
  return MPI_SUCCESS;
}

int PAT_Edge(double fraction) {
  mpi::set_last_error({});
  const Clock::time_point now = Clock::now();
  std::lock_guard<std::mutex> lock(g_mutex);
  Runtime *rt = g_runtime;
  if (!rt) return not_initialised("PAT_Edge");
  if (!(fraction > 0.0 && fraction <= 1.0))
    return mpi::fail(MPI_ERR_ARG, "PAT_Edge: fraction must be in (0, 1], got " + std::to_string(fraction));
  if (!rt->processing) return mpi::fail(MPI_ERR_OTHER, "PAT_Edge: called outside a phase (PAT_ProcessingStart first)");
  if (rt->edge_seen) return mpi::fail(MPI_ERR_OTHER, "PAT_Edge: only one edge per phase");
  {
    std::lock_guard<std::mutex> handles_lock(rt->mutex);
    for (Handle *h : rt->handles)
      if (h->started && h->armed_for == h->runs)  // its background part ran (or runs) at an earlier edge
        return mpi::fail(MPI_ERR_OTHER, "PAT_Edge: a started background collective was not PAT_Run since the last edge");
  }
  rt->edge_seen = true;
  const double elapsed = std::chrono::duration<double>(now - rt->start).count();
  rt->last_prediction = rt->predictor.predict(elapsed, fraction);
  rt->mailbox->expect();  // the next collective waits for this exchange
  {
    std::lock_guard<std::mutex> queue_lock(rt->mutex);
    EdgeItem item;
    item.estimate = rt->last_prediction;
    for (Handle *h : rt->handles) {
      if (!h->started) continue;  // not PAT_Start'ed: nothing to do in the background
      h->armed_for = h->runs;
      ++h->pending;
      item.handles.emplace_back(h, h->runs);
    }
    rt->queue.push_back(std::move(item));
    ++rt->requested;
  }
  rt->cv.notify_all();
  return MPI_SUCCESS;
}

int PAT_ProcessingEnd(void) {
  mpi::set_last_error({});
  const Clock::time_point now = Clock::now();
  std::lock_guard<std::mutex> lock(g_mutex);
  Runtime *rt = g_runtime;
  if (!rt) return not_initialised("PAT_ProcessingEnd");
  if (!rt->processing) return mpi::fail(MPI_ERR_OTHER, "PAT_ProcessingEnd: no phase was started");
  rt->processing = false;
  rt->last_length = std::chrono::duration<double>(now - rt->start).count();
  rt->predictor.record(rt->last_length);
  return MPI_SUCCESS;
}

int PAT_Get_arrivals(double *arrivals) {
  mpi::set_last_error({});
  if (!arrivals) return mpi::fail(MPI_ERR_ARG, "PAT_Get_arrivals: arrivals is NULL");
  std::lock_guard<std::mutex> lock(g_mutex);
  Runtime *rt = g_runtime;
  if (!rt) return not_initialised("PAT_Get_arrivals");
  std::unique_lock<std::mutex> wait_lock(rt->mutex);
  rt->cv.wait(wait_lock, [&] { return rt->exchanged >= rt->requested; });
  if (rt->exchange_error != MPI_SUCCESS) return mpi::mpi_failure(rt->exchange_error, "PAT runtime: MPI_Iallgather");
  for (int i = 0; i < rt->size; ++i)
    arrivals[i] = rt->last_vector.empty() ? 0.0 : rt->last_vector[static_cast<std::size_t>(i)];
  return MPI_SUCCESS;
}

int PAT_Get_prediction(double *predicted, double *measured) {
  mpi::set_last_error({});
  std::lock_guard<std::mutex> lock(g_mutex);
  Runtime *rt = g_runtime;
  if (!rt) return not_initialised("PAT_Get_prediction");
  if (predicted) *predicted = rt->last_prediction;
  if (measured) *measured = rt->last_length;
  return MPI_SUCCESS;
}

}  // extern "C"
