// libpatcoll-preload.so: serves the collectives of core/collectives.def
// (MPI_<Coll>, MPI_I<coll> and, MPI-4, MPI_<Coll>_init; requests.cpp
// completes the latter two) of an unmodified MPI program through patcoll
// (PMPI profiling interface; LD_PRELOAD, or `mpirun -x LD_PRELOAD=...`
// under Open MPI).
//
// The algorithm of each collective comes from PATCOLL_<COLL>; unset, empty
// or "native" leaves it to the MPI library (loading the shim alone changes
// nothing). An unknown name is reported once on stderr by rank 0 of
// MPI_COMM_WORLD and the collective stays native. Every call goes through
// the library's one call path (mpi/call.hpp): intercommunicators and calls
// whose op or counts the algorithm's restrictions do not allow go to the
// MPI library on every rank alike (said once by rank 0); any other error is
// raised on the communicator's error handler, never retried with PMPI_*.
// PATCOLL_VERBOSE=1 prints, on rank 0 of each communicator, once per
// communicator, collective and serving algorithm, which algorithm serves
// the collective and why; 2 adds the history statistics per communicator.
//
// PATCOLL_PATS=history (mpi/call_history.hpp) and PATCOLL_REPORT
// (mpi/report.hpp) are the library's, kept in its per-communicator state.
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

#include "core/algorithm.hpp"
#include "core/config.hpp"
#include "core/traits.hpp"
#include "mpi/call.hpp"
#include "mpi/comm_cache.hpp"
#include "mpi/dispatch.hpp"
#include "mpi/report.hpp"
#include "mpi/signature.hpp"
#include "shim.hpp"
#include "patcoll.h"

namespace patcoll::preload {
namespace {

namespace configuration = core::config;

// A collective's index is its core::Collective; names come from the traits
// table and the configuration registry (literals: null-terminated).
constexpr int kCollectives = core::kCollectiveCount;
const char *coll_name(int c) { return core::traits(static_cast<core::Collective>(c)).name.data(); }
const char *mpi_name(int c) { return core::traits(static_cast<core::Collective>(c)).mpi_name.data(); }
const char *env_name(int c) {
  return configuration::variable(configuration::algorithm_variable(static_cast<core::Collective>(c))).name.data();
}


// --- configuration: the environment, read once -----------------------------

struct Config {
  std::array<std::string, kCollectives> algorithm;  // passed to PAT_<Coll>_with; "" = native
  std::array<std::string, kCollectives> why;        // the reason verbose mode prints
  std::vector<std::string> problems;     // printed once by rank 0 of MPI_COMM_WORLD
  int verbose = 0;
  mpi::HistoryOptions history;  // PATCOLL_PATS and PATCOLL_HISTORY_* (the library's)
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
  core::Collective c;  // an alias (bnom, ...) is a name too
  return found || (core::parse_collective(collective, c) && core::find_algorithm(c, name) != nullptr);
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
    const core::Algorithm *row = core::find_algorithm(static_cast<core::Collective>(c), name);
    config.algorithm[c] = row ? std::string(row->name) : name;  // an alias serves as its canonical name
    config.why[c] = std::string(env_name(c)) + "=" + name;
    config.active = true;
    config.any_patcoll = true;
  }
  for (std::string &problem : settings->problems_of(configuration::Scope::preload))
    config.problems.push_back(std::move(problem));
  config.verbose = static_cast<int>((*settings)[configuration::Var::verbose].integer);
  config.history = mpi::history_options();
  if (config.verbose > 0 || config.history.enabled || !config.problems.empty() || mpi::report::enabled())
    config.active = true;
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
    const mpi::HistoryOptions &h = c.history;
    if (h.enabled)
      line += std::string("; PATs: history (") + (h.entry_clock ? "entry times" : "exit->entry offsets") +
              ", SMA window " + std::to_string(h.window) + ", exchange every " + std::to_string(h.period) +
              " calls, quantum " + std::to_string(h.quantum) + " s)";
    else
      line += "; PATs: none";
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fflush(stderr);
}

// --- dispatch -----------------------------------------------------------------

// Rank 0 of the communicator names what serves a collective there, once per
// serving algorithm (PATCOLL_VERBOSE=1), and every decline, once per reason
// whatever the verbosity: nothing falls back silently.
// `function`: the MPI function's name when it is not the blocking one
// (MPI_Iallreduce, MPI_Allreduce_init).
void report(mpi::CommState &state, int coll, const std::string &served, const std::string &why, bool always,
            const std::string &function = {}) {
  const Config &c = config();
  if (state.rank != 0 || (!always && c.verbose <= 0)) return;
  const std::string name = function.empty() ? std::string(mpi_name(coll)) : function;
  if (!state.reported[static_cast<std::size_t>(coll)].insert(name + '\n' + served + '\n' + why).second) return;
  std::string line = std::string("patcoll-preload: ") + name + " on " + state.label + ": " + served +
                     ", because " + why;
  if (state.history) line += "; PATs: history";
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

// PATCOLL_VERBOSE: an intercommunicator's collective, once per
// communicator and collective, from rank 0 of its local group.
void report_intercommunicator(int coll, MPI_Comm comm) {
  int inter = 0, rank = 0, size = 0;
  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || !inter) return;
  PMPI_Comm_rank(comm, &rank);
  if (rank != 0) return;
  static std::mutex mutex;
  static std::set<std::pair<MPI_Comm, int>> said;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!said.insert({comm, coll}).second) return;
  }
  PMPI_Comm_size(comm, &size);
  char name[MPI_MAX_OBJECT_NAME] = {0};
  int length = 0;
  PMPI_Comm_get_name(comm, name, &length);
  std::fprintf(stderr,
               "patcoll-preload: %s on %s (%d ranks, intercommunicator): native, because intercommunicators always "
               "go to the MPI library\n",
               mpi_name(coll), length > 0 ? name : "an intercommunicator", size);
  std::fflush(stderr);
}

// An error of a call the shim served: what MPI does with one (the
// communicator's error handler, MPI_ERRORS_ARE_FATAL unless the program set
// another), after one line saying what was wrong: from rank 0 of the
// communicator for a misconfiguration (the same on every rank), else from
// the failing rank when the handler is fatal.
int raise(int coll, MPI_Comm comm, int rc, const mpi::CallOutcome &outcome) {
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  bool fatal = true;
  if (PMPI_Comm_get_errhandler(comm, &handler) == MPI_SUCCESS) {
    fatal = handler == MPI_ERRORS_ARE_FATAL;
    if (handler != MPI_ERRHANDLER_NULL) PMPI_Errhandler_free(&handler);
  }
  const bool say = outcome.configuration ? (!outcome.state || outcome.state->rank == 0) : fatal;
  if (say) {
    std::fprintf(stderr, "patcoll-preload: %s on %s: %s\n", mpi_name(coll),
                 outcome.state ? outcome.state->label.c_str() : "a communicator", PAT_Last_error());
    std::fflush(stderr);
  }
  // A misconfiguration fails on every rank at the same call: wait for rank
  // 0's line before a fatal handler may end the job (an MPI library aborts
  // every rank from the first that calls it).
  if (outcome.configuration && fatal && outcome.state) PMPI_Barrier(outcome.state->comm);
  PMPI_Comm_call_errhandler(comm, rc);
  return rc;
}

int serve(int coll, const mpi::NativeCall &call, const void *site) {
  const Config &c = config();
  if (!c.active) return mpi::native_blocking(call);
  int initialized = 0, finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  if (!initialized || finalized || call.comm == MPI_COMM_NULL) return mpi::native_blocking(call);  // MPI says what is wrong
  if (!g_reported.load(std::memory_order_relaxed)) report_startup();
  const std::string &name = c.algorithm[coll];
  mpi::CallOutcome outcome;
  const int rc = mpi::blocking_call(call, name.empty() ? nullptr : name.c_str(), site, mpi::Caller::shim, &outcome);
  if (!outcome.state && c.verbose > 0) report_intercommunicator(coll, call.comm);
  if (outcome.state) {
    if (!outcome.declined.empty())
      report(*outcome.state, coll, "native", c.why[coll] + " but the call does not allow it (" + outcome.declined + ")",
             true);
    else if (rc == MPI_SUCCESS)
      report(*outcome.state, coll, std::string(outcome.served), c.why[coll], false);
  }
  if (rc != MPI_SUCCESS) return raise(coll, call.comm, rc, outcome);
  return rc;
}

// Non-blocking and persistent starts: the same checks, selection and
// declines as a blocking call, without the history and the report (their
// arrival is not the start's).
int start(int coll, const mpi::NativeCall &call, bool persistent, MPI_Info info, MPI_Request *request) {
  const Config &c = config();
  int initialized = 0, finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  const std::string &name = c.algorithm[coll];
  if (!c.active || name.empty() || !initialized || finalized || call.comm == MPI_COMM_NULL || !request)
    return persistent ? mpi::native_init(call, info, request) : mpi::native_start(call, request);
  if (!g_reported.load(std::memory_order_relaxed)) report_startup();
  mpi::CallContext context;
  context.shim = true;
  std::unique_ptr<mpi::Handle> handle;
  int rc = MPI_SUCCESS;
  {
    const mpi::CallScope scope(context);
    if (persistent) {
      mpi::Handle::Prepare prepare;
      rc = mpi::persistent_preparation(call, name, prepare);
      if (rc == MPI_SUCCESS) handle = std::make_unique<mpi::Handle>(true, std::move(prepare));
    } else {
      handle = std::make_unique<mpi::Handle>(
          false, [call, name](mpi::Run &run) { return mpi::prepare_call(call, name.c_str(), run); });
      rc = handle->start();
    }
  }
  mpi::CallOutcome outcome;
  bool inter = false;
  if (mpi::intra_comm_state(call.comm, outcome.state, inter) != MPI_SUCCESS || inter) outcome.state = nullptr;
  outcome.configuration = context.configuration_error;
  const std::string function = persistent ? std::string(mpi_name(coll)) + "_init"
                                          : "MPI_I" + std::string(coll_name(coll));
  if (outcome.state && !context.declined.empty())
    report(*outcome.state, coll, "native", c.why[coll] + " but the call does not allow it (" + context.declined + ")",
           true, function);
  if (rc != MPI_SUCCESS) return raise(coll, call.comm, rc, outcome);
  if (outcome.state && context.declined.empty())
    report(*outcome.state, coll, std::string(outcome.state->last_algorithm[static_cast<std::size_t>(coll)]),
           c.why[coll], false, function);
  return adopt(std::move(handle), coll, call.comm, persistent, request);
}

}  // namespace

int serve_call(const mpi::NativeCall &call, const void *site) {
  return serve(static_cast<int>(call.collective), call, site);
}

int serve_start(const mpi::NativeCall &call, bool persistent, MPI_Info info, MPI_Request *request) {
  return start(static_cast<int>(call.collective), call, persistent, info, request);
}

int start_handle(mpi::Handle &handle) {
  mpi::CallContext context;
  context.shim = true;
  int rc = MPI_SUCCESS;
  {
    const mpi::CallScope scope(context);
    rc = handle.start();
  }
  return rc;
}

int raise_error(int collective, MPI_Comm comm, int rc) {
  mpi::CallOutcome outcome;
  bool inter = false;
  if (mpi::intra_comm_state(comm, outcome.state, inter) != MPI_SUCCESS || inter) outcome.state = nullptr;
  return raise(collective, comm, rc, outcome);
}

}  // namespace patcoll::preload

using namespace patcoll::preload;

extern "C" {

int MPI_Init(int *argc, char ***argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS && config().active) report_startup();
  // The arrival report: every rank takes part in its gather at MPI_Finalize.
  if (rc == MPI_SUCCESS) patcoll::mpi::report::prepare();
  return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS && config().active) report_startup();
  if (rc == MPI_SUCCESS) patcoll::mpi::report::prepare();
  return rc;
}

// MPI_<Coll> of every collective (core/collectives.def, signatures in
// mpi/signature.hpp); the caller's return address is the call site.
#define PATCOLL_COLLECTIVE(name, Name, NAME, kind)                                                             \
  int MPI_##Name(PATCOLL_PARAMS_##kind) {                                                                      \
    return serve_call(PATCOLL_CALL_##kind(patcoll::core::Collective::name), __builtin_return_address(0));      \
  }
#include "core/collectives.def"
#undef PATCOLL_COLLECTIVE

// MPI_I<coll> and, where the MPI library has them (MPI-4), MPI_<Coll>_init
// (requests.cpp completes them).
#define PATCOLL_COLLECTIVE(name, Name, NAME, kind)                                                             \
  int MPI_I##name(PATCOLL_PARAMS_##kind, MPI_Request *request) {                                              \
    return serve_start(PATCOLL_CALL_##kind(patcoll::core::Collective::name), false, MPI_INFO_NULL, request);   \
  }
#include "core/collectives.def"
#undef PATCOLL_COLLECTIVE
#if MPI_VERSION >= 4
#define PATCOLL_COLLECTIVE(name, Name, NAME, kind)                                                             \
  int MPI_##Name##_init(PATCOLL_PARAMS_##kind, MPI_Info info, MPI_Request *request) {                         \
    return serve_start(PATCOLL_CALL_##kind(patcoll::core::Collective::name), true, info, request);            \
  }
#include "core/collectives.def"
#undef PATCOLL_COLLECTIVE
#endif

}  // extern "C"
