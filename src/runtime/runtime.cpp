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
#include <cstring>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/algorithm.hpp"
#include "core/runtime/predictor.hpp"
#include "mpi/comm_cache.hpp"
#include "mpi/datatype.hpp"
#include "mpi/error.hpp"
#include "mpi/executor.hpp"
#include "mpi/handle.hpp"
#include "runtime/background.hpp"
#include "mpi/registry.hpp"
#include "patcoll.h"

namespace patcoll::runtime {
namespace {

using Clock = std::chrono::steady_clock;
using core::runtime::Predictor;
using core::runtime::PredictorConfig;


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

int run_program(Handle &h, std::uint64_t run, const std::vector<double> &arrivals, bool background);

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
  std::deque<EdgeItem> queue;  // predictions waiting to be exchanged
  std::set<Handle *> handles;
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

// mpi::set_start_listener: a non-blocking or persistent collective started.
void wake_for_handles() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_runtime) return;
  { std::lock_guard<std::mutex> queue_lock(g_runtime->mutex); }  // the thread is waiting or will re-check
  g_runtime->cv.notify_all();
}
std::optional<PredictorConfig> g_predictor;  // PAT_Set_predictor's choice
bool g_finalize_hook = false;

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

int run_program(Handle &h, std::uint64_t run, const std::vector<double> &arrivals, bool background) {
  core::Params params;
  params.collective = h.collective;
  params.procs = h.size;
  params.root = h.root;
  params.count = h.block;
  params.element_bytes = 1;
  if (static_cast<int>(arrivals.size()) == h.size) params.arrivals = arrivals;
  params.cost = mpi::process_defaults().cost.value_or(core::CostModel{});
  // The segmentation overrides of the foreground collectives (patcoll.h).
  if (const char *v = std::getenv("PATCOLL_SEGMENTS"); v && *v) params.segment_count = std::atoll(v);
  if (const char *v = std::getenv("PATCOLL_SEGMENT_BYTES"); v && *v && std::atoll(v) > 0)
    params.segment_elements = std::atoll(v);
  const core::Program program = core::build_rank(*h.entry->algorithm, params, h.rank);
  mpi::ExecutionBuffers buffers;
  const bool is_root = h.rank == h.root;
  if (h.collective == core::Collective::scatter) {
    buffers.send = is_root ? h.send : nullptr;
    buffers.recv = h.in_place ? static_cast<char *>(const_cast<void *>(h.send)) + h.block * h.root : h.recv;
  } else {
    // The gather root's own block may still be being computed: in the
    // background a stand-in is gathered, PAT_Run copies the real one.
    buffers.send = is_root && background ? h.stand_in.data() : h.send;
    buffers.recv = is_root ? h.recv : nullptr;
  }
  mpi::TypeInfo bytes;
  if (int rc = mpi::TypeInfo::describe(MPI_BYTE, bytes); rc != MPI_SUCCESS) return rc;
  mpi::ExecutionContext context{h.comm, static_cast<int>(run % static_cast<std::uint64_t>(h.tag_ub)), MPI_OP_NULL,
                                bytes};
  return mpi::execute(program, buffers, context);
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
namespace core = patcoll::core;

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
  mpi::set_start_listener(wake_for_handles);
  return MPI_SUCCESS;
}

int PAT_Finalize(void) {
  mpi::set_last_error({});
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_runtime) return not_initialised("PAT_Finalize");
  if (!mpi_usable()) return mpi::fail(MPI_ERR_OTHER, "PAT_Finalize: MPI is already finalised");
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

// ---- background collectives ---------------------------------------------

namespace {

int movement_init(core::Collective collective, const char *algorithm, const void *sendbuf, int sendcount,
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  void **handle) {
  const bool scatter = collective == core::Collective::scatter;
  const char *call = scatter ? "PAT_Scatter_init" : "PAT_Gather_init";
  mpi::set_last_error({});
  if (!handle) return mpi::fail(MPI_ERR_ARG, std::string(call) + ": handle is NULL");
  *handle = nullptr;
  const std::string name = algorithm ? algorithm : "";
  const char *base = nullptr;
  if (scatter && name == "bsln") base = "slin";
  if (scatter && name == "bsbn") base = "sbn";
  if (!scatter && name == "bsls") base = "sls";
  if (!scatter && name == "bsbn") base = "sbn";
  if (!base)
    return mpi::fail(MPI_ERR_ARG, std::string(call) + ": unknown background algorithm '" + name + "' (" +
                                      (scatter ? "bsln, bsbn" : "bsls, bsbn") + ")");
  std::lock_guard<std::mutex> lock(g_mutex);
  Runtime *rt = g_runtime;
  if (!rt) return not_initialised(call);
  if (rt->processing) return mpi::fail(MPI_ERR_OTHER, std::string(call) + ": call it outside a phase");
  if (comm == MPI_COMM_NULL) return mpi::fail(MPI_ERR_COMM, std::string(call) + ": the communicator is MPI_COMM_NULL");
  int same = MPI_UNEQUAL;
  PATCOLL_MPI_CHECK(MPI_Comm_compare(comm, rt->user, &same));
  if (same != MPI_IDENT && same != MPI_CONGRUENT)
    return mpi::fail(MPI_ERR_COMM, std::string(call) + ": comm must be the communicator given to PAT_Init");
  auto h = std::make_unique<Handle>();
  h->collective = collective;
  h->entry = mpi::find_entry(collective, base);
  if (!h->entry || h->entry->native()) return mpi::fail(MPI_ERR_INTERN, std::string(call) + ": " + base + " is not registered");
  h->size = rt->size;
  h->rank = rt->rank;
  if (root < 0 || root >= h->size)
    return mpi::fail(MPI_ERR_ROOT, std::string(call) + ": root " + std::to_string(root) + " is not a rank");
  h->root = root;
  const bool is_root = h->rank == root;
  h->in_place = is_root && (scatter ? recvbuf == MPI_IN_PLACE : sendbuf == MPI_IN_PLACE);
  if (h->in_place && !scatter)
    return mpi::fail(MPI_ERR_BUFFER, std::string(call) + ": MPI_IN_PLACE is not supported by the background gathers");
  if (!is_root && (scatter ? recvbuf == MPI_IN_PLACE : sendbuf == MPI_IN_PLACE))
    return mpi::fail(MPI_ERR_BUFFER, std::string(call) + ": MPI_IN_PLACE is only allowed at the root");
  // Own side (every rank) and the root's whole side; contiguous types only.
  auto describe = [&](MPI_Datatype type, int count, const char *which, long long &bytes, int &base_offset) -> int {
    if (count < 0) return mpi::fail(MPI_ERR_COUNT, std::string(call) + ": " + which + " count is negative");
    if (type == MPI_DATATYPE_NULL) return mpi::fail(MPI_ERR_TYPE, std::string(call) + ": " + which + " type is null");
    mpi::TypeInfo info;
    if (int rc = mpi::TypeInfo::describe(type, info); rc != MPI_SUCCESS) return rc;
    if (!info.dense)
      return mpi::fail(MPI_ERR_TYPE, std::string(call) + ": background collectives need contiguous datatypes");
    bytes = static_cast<long long>(count) * info.size;
    base_offset = static_cast<int>(info.true_lb);
    return MPI_SUCCESS;
  };
  long long own_bytes = 0, whole_bytes = 0;
  int own_lb = 0, whole_lb = 0;
  if (!h->in_place) {
    const int rc = scatter ? describe(recvtype, recvcount, "receive", own_bytes, own_lb)
                           : describe(sendtype, sendcount, "send", own_bytes, own_lb);
    if (rc != MPI_SUCCESS) return rc;
  }
  if (is_root) {
    const int rc = scatter ? describe(sendtype, sendcount, "send", whole_bytes, whole_lb)
                           : describe(recvtype, recvcount, "receive", whole_bytes, whole_lb);
    if (rc != MPI_SUCCESS) return rc;
    if (!h->in_place && whole_bytes != own_bytes)
      return mpi::fail(MPI_ERR_TRUNCATE, std::string(call) + ": the root's send and receive blocks differ in size");
  }
  h->block = is_root ? whole_bytes : own_bytes;
  char *own = static_cast<char *>(const_cast<void *>(scatter ? static_cast<const void *>(recvbuf) : sendbuf));
  char *whole = static_cast<char *>(const_cast<void *>(scatter ? sendbuf : static_cast<const void *>(recvbuf)));
  if (scatter) {
    h->send = is_root ? whole + whole_lb : nullptr;
    h->recv = h->in_place ? nullptr : own + own_lb;
  } else {
    h->send = own + own_lb;
    h->recv = is_root ? whole + whole_lb : nullptr;
  }
  h->background_part = scatter ? !is_root : is_root;
  if (!scatter && is_root) h->stand_in.assign(static_cast<std::size_t>(std::max(0LL, h->block)), 0);
  PATCOLL_MPI_CHECK(MPI_Comm_dup(rt->comm, &h->comm));
  MPI_Comm_set_errhandler(h->comm, MPI_ERRORS_RETURN);
  int *tag_ub = nullptr, found = 0;
  if (MPI_Comm_get_attr(h->comm, MPI_TAG_UB, &tag_ub, &found) == MPI_SUCCESS && found && tag_ub && *tag_ub > 0)
    h->tag_ub = *tag_ub;
  {
    std::lock_guard<std::mutex> handles_lock(rt->mutex);
    rt->handles.insert(h.get());
  }
  *handle = h.release();
  return MPI_SUCCESS;
}

// The handle, if it is one of the runtime's; g_mutex held.
Handle *live_handle(Runtime *rt, void *handle) {
  auto *h = reinterpret_cast<Handle *>(handle);
  std::lock_guard<std::mutex> lock(rt->mutex);
  return rt->handles.count(h) ? h : nullptr;
}

}  // namespace

namespace patcoll::runtime {

bool is_background_algorithm(core::Collective collective, std::string_view name) {
  if (collective == core::Collective::scatter) return name == "bsln" || name == "bsbn";
  if (collective == core::Collective::gather) return name == "bsls" || name == "bsbn";
  return false;
}

int background_init(core::Collective collective, const char *algorithm, const void *sendbuf, int sendcount,
                    MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                    MPI_Comm comm, void **handle) {
  return movement_init(collective, algorithm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                       handle);
}

namespace {
// `read(handle)` under both locks when `handle` is a live handle of the
// running runtime; false otherwise.
template <class Read>
bool read_live_handle(void *handle, Read read) {
  std::lock_guard<std::mutex> lock(g_mutex);
  Runtime *rt = g_runtime;
  if (!rt) return false;
  Handle *h = live_handle(rt, handle);
  if (!h) return false;
  std::lock_guard<std::mutex> handle_lock(rt->mutex);
  return read(*h);
}
}  // namespace

bool background_started(void *handle) {
  return read_live_handle(handle, [](const Handle &h) { return h.started; });
}

bool background_part_pending(void *handle) {
  return read_live_handle(handle, [](const Handle &h) { return h.pending != 0; });
}

int background_run(void *handle) {
  mpi::set_last_error({});
  Runtime *rt = nullptr;
  Handle *h = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    rt = g_runtime;
    if (!rt) return not_initialised("PAT_Run");
    h = live_handle(rt, handle);
    if (!h) return mpi::fail(MPI_ERR_REQUEST, "PAT_Run: not a live background collective");
  }
  bool ran_in_background = false;
  int rc = MPI_SUCCESS;
  std::uint64_t run = 0;
  std::vector<double> arrivals;
  {
    std::unique_lock<std::mutex> lock(rt->mutex);
    rt->cv.wait(lock, [&] { return h->pending == 0; });
    ran_in_background = h->background_done;
    h->background_done = false;
    rc = h->background_rc;
    run = h->runs;
    arrivals = h->arrivals;
  }
  if (!ran_in_background) {
    if (h->block > 0) rc = run_program(*h, run, arrivals, false);
  } else if (rc == MPI_SUCCESS && h->collective == core::Collective::gather && h->block > 0) {
    std::memcpy(static_cast<char *>(h->recv) + h->block * h->root, h->send, static_cast<std::size_t>(h->block));
  }
  {
    std::lock_guard<std::mutex> lock(rt->mutex);
    ++h->runs;
    h->started = false;
  }
  if (rc != MPI_SUCCESS) return mpi::mpi_failure(rc, "PAT_Run");
  return MPI_SUCCESS;
}

int background_start(void *handle) {
  mpi::set_last_error({});
  std::lock_guard<std::mutex> lock(g_mutex);
  Runtime *rt = g_runtime;
  if (!rt) return not_initialised("PAT_Start");
  Handle *h = live_handle(rt, handle);
  if (!h) return mpi::fail(MPI_ERR_REQUEST, "PAT_Start: not a live background collective");
  if (rt->edge_seen && rt->processing)
    return mpi::fail(MPI_ERR_OTHER, "PAT_Start: call it before the phase's edge");
  std::lock_guard<std::mutex> handle_lock(rt->mutex);
  if (h->started) return mpi::fail(MPI_ERR_OTHER, "PAT_Start: already started (PAT_Run first)");
  h->started = true;
  return MPI_SUCCESS;
}

int background_free(void *handle) {
  mpi::set_last_error({});
  std::lock_guard<std::mutex> lock(g_mutex);
  Runtime *rt = g_runtime;
  if (!rt) return not_initialised("PAT_Handle_free");
  Handle *h = live_handle(rt, handle);
  if (!h) return mpi::fail(MPI_ERR_REQUEST, "PAT_Handle_free: not a live background collective");
  {
    std::unique_lock<std::mutex> wait_lock(rt->mutex);
    rt->cv.wait(wait_lock, [&] { return h->pending == 0; });
    if (h->started) return mpi::fail(MPI_ERR_OTHER, "PAT_Handle_free: the collective is started; call PAT_Run first");
    rt->handles.erase(h);
  }
  int rc = MPI_Comm_free(&h->comm);
  delete h;
  if (rc != MPI_SUCCESS) return mpi::mpi_failure(rc, "PAT_Handle_free: MPI_Comm_free");
  return MPI_SUCCESS;
}

}  // namespace patcoll::runtime
