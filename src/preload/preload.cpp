// libpatcoll-preload.so: serves MPI_Reduce, MPI_Allreduce, MPI_Scatter and
// MPI_Gather of an unmodified MPI program through patcoll (PMPI profiling
// interface; LD_PRELOAD, or `mpirun -x LD_PRELOAD=...` under Open MPI).
//
// The algorithm of each collective comes from PATCOLL_REDUCE,
// PATCOLL_ALLREDUCE, PATCOLL_SCATTER, PATCOLL_GATHER; unset, empty or
// "native" calls the PMPI function straight away (loading the shim alone
// changes nothing). An unknown name is reported once on stderr by rank 0 of
// MPI_COMM_WORLD and the collective stays native. Intercommunicators,
// MPI_COMM_NULL, and every call patcoll declines (its argument checks, an
// algorithm's restrictions, MPI_IN_PLACE where it is not allowed, ...) go
// to the PMPI function, so the MPI library reports what it would report
// without the shim. PATCOLL_VERBOSE=1 prints, on rank 0 of each
// communicator, once per communicator, collective and serving algorithm,
// which algorithm serves the collective and why; 2 adds per-communicator
// statistics of the history PAT source at MPI_Finalize (or MPI_Comm_free).
//
// PATCOLL_PATS=history learns PATs from the call history (history.hpp;
// the exchange is described in docs/preload.md): every rank measures its
// offset (exit of the previous intercepted collective on the communicator ->
// entry of this one), predicts it by a moving average, and every k calls
// sends the prediction to rank 0 with a non-blocking send on a private
// duplicate communicator; rank 0 relays the vector k/2 calls later, and it
// is applied (PAT_Set_arrivals) k calls after the start, at the same call
// index on every rank. No synchronising collective is added.
#include <mpi.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/traits.hpp"
#include "history.hpp"
#include "mpi/clock.hpp"
#include "mpi/finalize.hpp"
#include "mpi/report.hpp"
#include "patcoll.h"

namespace patcoll::preload {
namespace {

namespace configuration = core::config;

// A collective's index is its core::Collective; names come from the traits
// table and the configuration registry (literals: null-terminated).
constexpr int kCollectives = core::kCollectiveCount;
constexpr int kReduce = static_cast<int>(core::Collective::reduce);
constexpr int kAllreduce = static_cast<int>(core::Collective::allreduce);
constexpr int kScatter = static_cast<int>(core::Collective::scatter);
constexpr int kGather = static_cast<int>(core::Collective::gather);
const char *coll_name(int c) { return core::traits(static_cast<core::Collective>(c)).name.data(); }
const char *mpi_name(int c) { return core::traits(static_cast<core::Collective>(c)).mpi_name.data(); }
const char *env_name(int c) {
  return configuration::variable(configuration::algorithm_variable(static_cast<core::Collective>(c))).name.data();
}

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// --- configuration: the environment, read once -----------------------------

struct Config {
  std::array<std::string, kCollectives> algorithm;  // passed to PAT_<Coll>_with; "" = native
  std::array<std::string, kCollectives> why;        // the reason verbose mode prints
  std::vector<std::string> problems;     // printed once by rank 0 of MPI_COMM_WORLD
  int verbose = 0;
  bool history = false;
  int window = 5;
  int period = 8;
  double quantum = 1e-5;
  bool entry_clock = true;  // PATCOLL_HISTORY_ESTIMATE=entry (default) or offset
  bool any_patcoll = false;  // some collective is served by patcoll (PATs are worth setting)
  bool active = false;  // anything beyond "call PMPI"
};

bool known_algorithm(const char *collective, const std::string &name, std::string &list) {
  bool found = name == "auto";
  list = "auto";
  const int n = PAT_Algorithm_count(collective);
  for (int i = 0; i < n; ++i) {
    const char *candidate = PAT_Algorithm_name(collective, i);
    if (!candidate) continue;
    list += ' ';
    list += candidate;
    if (name == candidate) found = true;
  }
  return found;
}

// The configuration registry's snapshot (core/config.hpp): the shim's own
// variables (scope preload) with their problems, and the algorithm names,
// checked against the library's registry.
Config read_config() {
  Config config;
  const auto settings = configuration::settings();
  for (int c = 0; c < kCollectives; ++c) {
    const configuration::Value &value = (*settings)[configuration::algorithm_variable(static_cast<core::Collective>(c))];
    const std::string name = value.set ? value.text : "";
    if (name.empty()) {
      config.why[c] = std::string(env_name(c)) + " is not set";
      continue;
    }
    if (name == "native") {
      config.why[c] = std::string(env_name(c)) + "=native";
      continue;
    }
    std::string list;
    if (!known_algorithm(coll_name(c), name, list)) {
      config.problems.push_back(std::string(env_name(c)) + "=" + name + " is not a " + coll_name(c) +
                                " algorithm; " + mpi_name(c) + " stays native (known: " + list + ")");
      config.why[c] = std::string(env_name(c)) + "=" + name + " is unknown";
      continue;
    }
    config.algorithm[c] = name;
    config.why[c] = std::string(env_name(c)) + "=" + name;
    config.active = true;
    config.any_patcoll = true;
  }
  for (std::string &problem : settings->problems_of(configuration::Scope::preload))
    config.problems.push_back(std::move(problem));
  config.verbose = static_cast<int>((*settings)[configuration::Var::verbose].integer);
  config.history = (*settings)[configuration::Var::pats].text == "history";
  config.entry_clock = (*settings)[configuration::Var::history_estimate].text == "entry";
  config.window = static_cast<int>((*settings)[configuration::Var::history_window].integer);
  config.period = static_cast<int>((*settings)[configuration::Var::history_period].integer);
  config.quantum = (*settings)[configuration::Var::history_quantum].number;
  if (config.verbose > 0 || config.history || !config.problems.empty()) config.active = true;
  return config;
}

const Config &config() {
  static const Config instance = read_config();
  return instance;
}

// Rank 0 of MPI_COMM_WORLD says what is wrong with the environment, once.
std::atomic<bool> g_reported{false};

void report_startup() {
  const Config &c = config();
  if (g_reported.exchange(true)) return;
  int rank = 0, size = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank != 0) return;
  for (const std::string &problem : c.problems) std::fprintf(stderr, "patcoll-preload: %s\n", problem.c_str());
  if (c.verbose > 0) {
    std::string line = "patcoll-preload: loaded on " + std::to_string(size) + " ranks;";
    for (int i = 0; i < kCollectives; ++i)
      line += std::string(" ") + coll_name(i) + "=" + (c.algorithm[i].empty() ? "native" : c.algorithm[i]);
    if (c.history)
      line += std::string("; PATs: history (") + (c.entry_clock ? "entry times" : "exit->entry offsets") +
              ", SMA window " + std::to_string(c.window) + ", exchange every " +
              std::to_string(c.period) + " calls, quantum " + std::to_string(c.quantum) + " s)";
    else
      line += "; PATs: none";
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fflush(stderr);
}

// --- per-communicator state (an attribute on the user's communicator) ------

struct History {
  MPI_Comm comm = MPI_COMM_NULL;  // private duplicate: exchange traffic never meets the user's
  bool entry_clock = true;        // estimator: entry times on a common clock (else exit->entry offsets)
  double clock_offset = 0;        // local steady clock + offset = rank 0's steady clock
  ArrivalHistory own;             // entry times, or offsets
  double last_exit = -1;
  std::uint64_t calls = 0;
  bool pending = false, relayed = false;
  std::uint64_t relay_at = 0, apply_at = 0;
  int width = 1;                  // values per rank in an exchange
  std::vector<double> row;        // this rank's values (send buffer)
  std::vector<double> gathered;   // rank 0: every rank's row
  std::vector<double> received;   // the PAT vector computed by rank 0
  std::vector<MPI_Request> gather_requests;  // rank 0: the rows coming in
  std::vector<MPI_Request> requests;         // completed at apply_at
  std::vector<double> pats;  // the vector last given to PAT_Set_arrivals
  // statistics (PATCOLL_VERBOSE=2)
  std::uint64_t exchanges = 0, updates = 0;
  double hook_seconds = 0, wait_seconds = 0;

  explicit History(int window) : own(window) {}
};

struct ShimComm {
  int size = 1, rank = 0;
  bool inter = false;
  std::string label;
  std::array<std::set<std::string>, kCollectives> reported;  // serving algorithms already printed
  std::unique_ptr<History> history;
};

std::mutex g_mutex;
int g_keyval = MPI_KEYVAL_INVALID;
bool g_finalize_hook = false;
std::set<ShimComm *> g_states;
int g_next_id = 0;

void wait_all(std::vector<MPI_Request> &requests) {
  if (!requests.empty()) PMPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  requests.clear();
}

constexpr int kGatherTag = 0, kRelayTag = 1;

// Rank 0: every row is in (the senders posted them k/2 calls ago): compute
// the PAT vector and send it to everybody.
void relay(History &h, int size) {
  wait_all(h.gather_requests);
  h.received = mean_relative_arrivals(h.gathered, size, h.width);
  for (int peer = 1; peer < size; ++peer) {
    h.requests.push_back(MPI_REQUEST_NULL);
    PMPI_Isend(h.received.data(), size, MPI_DOUBLE, peer, kRelayTag, h.comm, &h.requests.back());
  }
  h.relayed = true;
}

void finish_exchange(History &h, int size, int rank) {
  if (rank == 0 && !h.relayed) relay(h, size);
  wait_all(h.requests);
  h.pending = false;
}

void destroy(ShimComm *state) {
  if (g_states.erase(state) == 0) return;
  if (History *h = state->history.get()) {
    if (h->pending) finish_exchange(*h, state->size, state->rank);
    if (config().verbose >= 2 && state->rank == 0 && h->calls > 0) {
      std::string pats;
      for (double p : h->pats) pats += " " + std::to_string(p * 1e6);
      std::fprintf(stderr,
                   "patcoll-preload: history on %s: %llu calls, %llu exchanges, %llu PAT updates, "
                   "%.3f us per call in history code (of which %.3f us waiting for exchanges); last PATs (us):%s\n",
                   state->label.c_str(), static_cast<unsigned long long>(h->calls),
                   static_cast<unsigned long long>(h->exchanges), static_cast<unsigned long long>(h->updates),
                   1e6 * h->hook_seconds / static_cast<double>(h->calls),
                   1e6 * h->wait_seconds / static_cast<double>(h->calls), pats.empty() ? " (none)" : pats.c_str());
      std::fflush(stderr);
    }
    if (h->comm != MPI_COMM_NULL) PMPI_Comm_free(&h->comm);
  }
  delete state;
}

int delete_state(MPI_Comm, int, void *attribute, void *) {
  std::lock_guard<std::mutex> lock(g_mutex);
  destroy(static_cast<ShimComm *>(attribute));
  return MPI_SUCCESS;
}

// At MPI_Finalize (mpi/finalize.hpp): finish outstanding exchanges and
// free every state left.
int finalize_sweep(MPI_Comm, int, void *, void *) {
  std::lock_guard<std::mutex> lock(g_mutex);
  while (!g_states.empty()) destroy(*g_states.begin());
  if (g_keyval != MPI_KEYVAL_INVALID) PMPI_Comm_free_keyval(&g_keyval);
  g_keyval = MPI_KEYVAL_INVALID;
  g_finalize_hook = false;
  return MPI_SUCCESS;
}

// Offset of this rank's steady clock to rank 0's (collective over `comm`,
// once per communicator): 0 when every rank runs on one node (one
// CLOCK_MONOTONIC); otherwise the ping-pong estimate (mpi/clock.hpp).
double clock_offset(MPI_Comm comm, int, int) {
  return patcoll::mpi::clock::one_node(comm) ? 0 : patcoll::mpi::clock::ping_pong_offset(comm, now);
}

// The shim's state of `comm`; created (collectively: MPI_Comm_dup for the
// history exchange) at the first intercepted call there. nullptr when MPI
// refuses. The collective part runs outside the mutex: with
// MPI_THREAD_MULTIPLE two threads creating the states of two communicators
// in different orders on different ranks would otherwise deadlock (only
// the thread calling a collective on `comm` ever creates its state).
ShimComm *shim_state(MPI_Comm comm, bool inter) {
  std::unique_lock<std::mutex> lock(g_mutex);
  if (g_keyval == MPI_KEYVAL_INVALID &&
      PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &g_keyval, nullptr) != MPI_SUCCESS)
    return nullptr;
  if (!g_finalize_hook) {
    if (patcoll::mpi::at_finalize(finalize_sweep) != MPI_SUCCESS) return nullptr;
    g_finalize_hook = true;
  }
  void *attribute = nullptr;
  int found = 0;
  if (PMPI_Comm_get_attr(comm, g_keyval, &attribute, &found) != MPI_SUCCESS) return nullptr;
  if (found) return static_cast<ShimComm *>(attribute);
  const int id = g_next_id++;
  lock.unlock();

  auto state = std::make_unique<ShimComm>();
  state->inter = inter;
  PMPI_Comm_size(comm, &state->size);
  PMPI_Comm_rank(comm, &state->rank);
  char name[MPI_MAX_OBJECT_NAME] = {0};
  int length = 0;
  PMPI_Comm_get_name(comm, name, &length);
  state->label = (length > 0 ? std::string(name, static_cast<std::size_t>(length)) : "communicator #" + std::to_string(id)) +
                 " (" + std::to_string(state->size) + " ranks" + (inter ? ", intercommunicator" : "") + ")";
  if (config().history && !inter && state->size > 1) {
    auto h = std::make_unique<History>(config().window);
    h->entry_clock = config().entry_clock;
    if (PMPI_Comm_dup(comm, &h->comm) == MPI_SUCCESS) {
      PMPI_Comm_set_errhandler(h->comm, MPI_ERRORS_RETURN);
      if (h->entry_clock) h->clock_offset = clock_offset(h->comm, state->rank, state->size);
      state->history = std::move(h);
    }
  }
  lock.lock();
  if (PMPI_Comm_set_attr(comm, g_keyval, state.get()) != MPI_SUCCESS) {
    if (state->history && state->history->comm != MPI_COMM_NULL) PMPI_Comm_free(&state->history->comm);
    return nullptr;
  }
  g_states.insert(state.get());
  return state.release();
}

// --- the history PAT source -------------------------------------------------

void history_enter(History &h, MPI_Comm comm, int size, int rank, double entry) {
  if (h.entry_clock) h.own.record(entry + h.clock_offset);
  else if (h.last_exit >= 0) h.own.record(entry - h.last_exit);
  ++h.calls;
  if (h.pending && rank == 0 && !h.relayed && h.calls == h.relay_at) {
    const double wait_start = now();
    relay(h, size);
    h.wait_seconds += now() - wait_start;
  }
  if (h.pending && h.calls == h.apply_at) {
    const double wait_start = now();
    finish_exchange(h, size, rank);
    h.wait_seconds += now() - wait_start;
    std::vector<double> pats = relative_pats(h.received, config().quantum);
    // With every collective native the PATs are only measured (statistics):
    // PAT_Set_arrivals would create patcoll's state (a collective dup) for nothing.
    if (pats != h.pats && (!config().any_patcoll || PAT_Set_arrivals(comm, pats.data()) == MPI_SUCCESS)) {
      h.pats = std::move(pats);
      ++h.updates;
    }
  }
  h.hook_seconds += now() - entry;
}

void history_exit(History &h, int size, int rank) {
  const double start = now();
  if (!h.pending && h.calls % static_cast<std::uint64_t>(config().period) == 0) {
    // The row: the entry times of the last `window` calls (the same calls
    // on every rank; NaN where there were fewer), or the SMA offset.
    if (h.entry_clock) {
      h.width = h.own.window();
      h.row.assign(static_cast<std::size_t>(h.width), std::numeric_limits<double>::quiet_NaN());
      const std::vector<double> recent = h.own.recent();
      std::copy(recent.begin(), recent.end(), h.row.end() - static_cast<std::ptrdiff_t>(recent.size()));
    } else {
      h.width = 1;
      h.row.assign(1, h.own.predict());
    }
    h.received.assign(static_cast<std::size_t>(size), 0.0);
    // Gather at rank 0 now, relay from rank 0 at call relay_at, apply
    // everywhere at call apply_at: 2(P-1) messages per exchange.
    if (rank == 0) {
      h.gathered.assign(static_cast<std::size_t>(size) * static_cast<std::size_t>(h.width), 0.0);
      std::copy(h.row.begin(), h.row.end(), h.gathered.begin());
      h.gather_requests.assign(static_cast<std::size_t>(size - 1), MPI_REQUEST_NULL);
      for (int peer = 1; peer < size; ++peer)
        PMPI_Irecv(&h.gathered[static_cast<std::size_t>(peer) * static_cast<std::size_t>(h.width)], h.width,
                   MPI_DOUBLE, peer, kGatherTag, h.comm, &h.gather_requests[static_cast<std::size_t>(peer - 1)]);
    } else {
      h.requests.assign(2, MPI_REQUEST_NULL);
      PMPI_Irecv(h.received.data(), size, MPI_DOUBLE, 0, kRelayTag, h.comm, &h.requests[0]);
      PMPI_Isend(h.row.data(), h.width, MPI_DOUBLE, 0, kGatherTag, h.comm, &h.requests[1]);
    }
    const auto period = static_cast<std::uint64_t>(config().period);
    h.pending = true;
    h.relayed = false;
    h.relay_at = h.calls + std::max<std::uint64_t>(1, period / 2);
    h.apply_at = h.calls + period;
    ++h.exchanges;
  }
  const double end = now();
  h.hook_seconds += end - start;
  h.last_exit = end;
}

// --- dispatch -----------------------------------------------------------------

void report(ShimComm &state, int coll, const std::string &served, const std::string &why) {
  if (state.rank != 0 || !state.reported[coll].insert(served).second) return;
  std::string line = std::string("patcoll-preload: ") + mpi_name(coll) + " on " + state.label + ": " + served +
                     ", because " + why;
  if (state.history) line += "; PATs: history";
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

template <class Native, class Patcoll>
int serve_call(int coll, MPI_Comm comm, Native &&native, Patcoll &&patcoll) {
  const Config &c = config();
  if (!c.active) return native();
  int initialized = 0, finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  if (!initialized || finalized || comm == MPI_COMM_NULL) return native();  // MPI says what is wrong
  if (!g_reported.load(std::memory_order_relaxed)) report_startup();
  int inter = 0;
  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return native();
  ShimComm *state = (c.verbose > 0 || c.history) ? shim_state(comm, inter != 0) : nullptr;
  History *h = state ? state->history.get() : nullptr;
  if (h) history_enter(*h, comm, state->size, state->rank, now());

  int rc = MPI_SUCCESS;
  const std::string &name = c.algorithm[coll];
  if (inter) {
    rc = native();
    if (state && c.verbose > 0) report(*state, coll, "native", "intercommunicators always go to the MPI library");
  } else if (name.empty()) {
    rc = native();
    if (state && c.verbose > 0) report(*state, coll, "native", c.why[coll]);
  } else {
    rc = patcoll(name.c_str());
    if (rc != MPI_SUCCESS) {
      // Declined before any communication (argument checks, restrictions):
      // the MPI library serves the call and reports what it would report.
      const std::string reason = c.verbose > 0 ? std::string(PAT_Last_error()) : std::string();
      rc = native();
      if (state && c.verbose > 0)
        report(*state, coll, "native", c.why[coll] + " but patcoll declined this call (" + reason + ")");
    } else if (state && c.verbose > 0) {
      report(*state, coll, name, c.why[coll]);
    }
  }
  if (h) history_exit(*h, state->size, state->rank);
  return rc;
}

// Arrival report (PATCOLL_REPORT, mpi/report.hpp): every intercepted call is
// recorded here exactly once, whoever serves it; the library does not record
// while the shim serves (report::ShimCall). `call_site`: the caller's return address.
template <class Bytes, class Native, class Patcoll>
int serve(int coll, MPI_Comm comm, const void *call_site, Bytes &&bytes, Native &&native, Patcoll &&patcoll) {
  if (!patcoll::mpi::report::enabled()) return serve_call(coll, comm, native, patcoll);
  patcoll::mpi::report::ShimCall call(comm, static_cast<core::Collective>(coll), call_site, bytes());
  return call.done(serve_call(coll, comm, [&] { return call.native(native()); }, patcoll));
}

}  // namespace
}  // namespace patcoll::preload

using namespace patcoll::preload;

extern "C" {

int MPI_Init(int *argc, char ***argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS && config().active) report_startup();
  // Arrival report (mpi/report.hpp): every rank takes part in its gather at MPI_Finalize.
  if (rc == MPI_SUCCESS) patcoll::mpi::report::prepare();
  return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS && config().active) report_startup();
  // Arrival report (mpi/report.hpp): every rank takes part in its gather at MPI_Finalize.
  if (rc == MPI_SUCCESS) patcoll::mpi::report::prepare();
  return rc;
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm) {
  return serve(
      kReduce, comm, __builtin_return_address(0),
      [&] { return patcoll::mpi::report::reduction_bytes(count, datatype); },
      [&] { return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm); },
      [&](const char *name) { return PAT_Reduce_with(name, sendbuf, recvbuf, count, datatype, op, root, comm); });
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return serve(
      kAllreduce, comm, __builtin_return_address(0),
      [&] { return patcoll::mpi::report::reduction_bytes(count, datatype); },
      [&] { return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm); },
      [&](const char *name) { return PAT_Allreduce_with(name, sendbuf, recvbuf, count, datatype, op, comm); });
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return serve(
      kScatter, comm, __builtin_return_address(0),
      [&] {
        return patcoll::mpi::report::movement_bytes(patcoll::core::Collective::scatter, sendbuf, sendcount, sendtype,
                                                    recvbuf, recvcount, recvtype);
      },
      [&] { return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm); },
      [&](const char *name) {
        return PAT_Scatter_with(name, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
      });
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return serve(
      kGather, comm, __builtin_return_address(0),
      [&] {
        return patcoll::mpi::report::movement_bytes(patcoll::core::Collective::gather, sendbuf, sendcount, sendtype,
                                                    recvbuf, recvcount, recvtype);
      },
      [&] { return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm); },
      [&](const char *name) {
        return PAT_Gather_with(name, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
      });
}

}  // extern "C"
