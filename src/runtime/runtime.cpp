// The PAT runtime ([PS] §3, Figs. 2-4; [PA] §3): one background thread per
// process, on its own duplicate of the runtime's communicator. The main
// thread reports PAT_ProcessingStart / PAT_Edge / PAT_ProcessingEnd; at an
// edge it predicts its arrival at the next collective (core/runtime/
// predictor.hpp) and queues the value; the background thread exchanges
// the values with MPI_Iallgather (polled, so it does not spin a core) and
// delivers the relative PAT vector to the communicator's ArrivalsMailbox
// (mpi/comm_cache.hpp), from which the next collective on that
// communicator takes it. docs/runtime.md describes the API and the model.
#include <mpi.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/runtime/predictor.hpp"
#include "mpi/comm_cache.hpp"
#include "mpi/error.hpp"
#include "patcoll.h"

namespace patcoll::runtime {
namespace {

using Clock = std::chrono::steady_clock;
using core::runtime::Predictor;
using core::runtime::PredictorConfig;


struct Runtime {
  MPI_Comm comm = MPI_COMM_NULL;  // the runtime's own duplicate
  MPI_Comm user = MPI_COMM_NULL;  // the communicator whose collectives get the PATs
  int size = 1, rank = 0;
  mpi::CommState *state = nullptr;  // the user's communicator (algorithm choices)
  std::shared_ptr<mpi::ArrivalsMailbox> mailbox;
  std::thread thread;

  // Shared with the background thread (guarded by mutex).
  std::mutex mutex;
  std::condition_variable cv;
  bool stop = false;
  std::deque<double> queue;  // predictions waiting to be exchanged
  std::uint64_t requested = 0, exchanged = 0;
  std::vector<double> last_vector;
  int exchange_error = MPI_SUCCESS;

  // Main thread only.
  bool processing = false, edge_seen = false;
  Clock::time_point start;
  Predictor predictor;
  double last_prediction = NAN, last_length = NAN;
};

std::mutex g_mutex;  // guards g_runtime and g_predictor
Runtime *g_runtime = nullptr;
std::optional<PredictorConfig> g_predictor;  // PAT_Set_predictor's choice
bool g_finalize_hook = false;

void background(Runtime *rt) {
  for (;;) {
    double estimate = 0;
    {
      std::unique_lock<std::mutex> lock(rt->mutex);
      rt->cv.wait(lock, [&] { return rt->stop || !rt->queue.empty(); });
      if (rt->queue.empty()) return;  // stop, and every announced exchange done
      estimate = rt->queue.front();
      rt->queue.pop_front();
    }
    std::vector<double> all(static_cast<std::size_t>(rt->size), 0.0);
    MPI_Request request = MPI_REQUEST_NULL;
    int rc = MPI_Iallgather(&estimate, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, rt->comm, &request);
    int done = 0;
    while (rc == MPI_SUCCESS && !done) {
      rc = MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (rc == MPI_SUCCESS && !done) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    std::vector<double> relative;
    if (rc == MPI_SUCCESS) relative = core::runtime::relative_arrivals(std::move(all));
    {
      std::lock_guard<std::mutex> lock(rt->mutex);
      rt->last_vector = relative;
      if (rc != MPI_SUCCESS) rt->exchange_error = rc;
      ++rt->exchanged;
    }
    rt->cv.notify_all();
    rt->mailbox->deliver(std::move(relative));  // empty (balanced) after a failed exchange
  }
}

PredictorConfig predictor_config() {
  if (g_predictor) return *g_predictor;
  PredictorConfig config;
  if (const char *env = std::getenv("PATCOLL_PREDICTOR"); env && *env) core::runtime::parse_predictor(env, config);
  return config;
}

// Stops the thread after the exchanges already announced, frees the
// communicator. g_mutex held by the caller.
int shutdown(Runtime *rt) {
  {
    std::lock_guard<std::mutex> lock(rt->mutex);
    rt->stop = true;
  }
  rt->cv.notify_all();
  if (rt->thread.joinable()) rt->thread.join();
  int rc = MPI_SUCCESS;
  if (rt->comm != MPI_COMM_NULL) rc = MPI_Comm_free(&rt->comm);
  rt->mailbox->deliver({});  // collectives go on without PATs
  delete rt;
  return rc;
}

// At MPI_Finalize (MPI_COMM_SELF's attributes are deleted first): a
// runtime the program did not finalise is stopped while MPI still works.
int finalize_hook(MPI_Comm, int, void *, void *) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_runtime) shutdown(g_runtime);
  g_runtime = nullptr;
  g_finalize_hook = false;
  return MPI_SUCCESS;
}

bool mpi_usable() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

int not_initialised(const char *call) {
  return mpi::fail(MPI_ERR_OTHER, std::string(call) + ": the PAT runtime is not initialised (call PAT_Init first)");
}

}  // namespace
}  // namespace patcoll::runtime

using namespace patcoll::runtime;
namespace mpi = patcoll::mpi;

extern "C" {

int PAT_Init(MPI_Comm comm) {
  mpi::set_last_error({});
  if (!mpi_usable()) return mpi::fail(MPI_ERR_OTHER, "PAT_Init: MPI is not initialised or already finalised");
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
  if (const char *env = std::getenv("PATCOLL_PREDICTOR"); env && *env && !g_predictor) {
    PredictorConfig check;
    if (!patcoll::core::runtime::parse_predictor(env, check))
      return mpi::fail(MPI_ERR_ARG, std::string("PAT_Init: PATCOLL_PREDICTOR='") + env +
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
    int keyval = MPI_KEYVAL_INVALID;
    int rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_hook, &keyval, nullptr);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr);
    if (keyval != MPI_KEYVAL_INVALID) MPI_Comm_free_keyval(&keyval);
    if (rc != MPI_SUCCESS) {
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
  return MPI_SUCCESS;
}

int PAT_Finalize(void) {
  mpi::set_last_error({});
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_runtime) return not_initialised("PAT_Finalize");
  if (!mpi_usable()) return mpi::fail(MPI_ERR_OTHER, "PAT_Finalize: MPI is already finalised");
  Runtime *rt = g_runtime;
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
  rt->edge_seen = true;
  const double elapsed = std::chrono::duration<double>(now - rt->start).count();
  rt->last_prediction = rt->predictor.predict(elapsed, fraction);
  rt->mailbox->expect();  // the next collective waits for this exchange
  {
    std::lock_guard<std::mutex> queue_lock(rt->mutex);
    rt->queue.push_back(rt->last_prediction);
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
