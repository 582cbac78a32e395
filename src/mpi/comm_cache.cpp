#include "comm_cache.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>

#include "core/config.hpp"
#include "error.hpp"
#include "finalize.hpp"
#include "reactive.hpp"

namespace patcoll::mpi {

std::unique_ptr<Workspace> CachedProgram::acquire() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!idle_.empty()) {
      std::unique_ptr<Workspace> workspace = std::move(idle_.back());
      idle_.pop_back();
      return workspace;
    }
  }
  return std::make_unique<Workspace>();
}

void CachedProgram::release(std::unique_ptr<Workspace> workspace) {
  std::lock_guard<std::mutex> lock(mutex_);
  idle_.push_back(std::move(workspace));
}

std::shared_ptr<CachedProgram> ProgramCache::find(const std::string &key) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->first != key) continue;
    entries_.splice(entries_.begin(), entries_, it);
    ++hits_;
    return entries_.front().second;
  }
  ++misses_;
  return nullptr;
}

std::shared_ptr<CachedProgram> ProgramCache::insert(std::string key, core::Program program) {
  auto entry = std::make_shared<CachedProgram>(std::move(program));
  if (capacity_ == 0) return entry;
  entries_.emplace_front(std::move(key), entry);
  while (entries_.size() > capacity_) entries_.pop_back();
  return entry;
}

void ArrivalsMailbox::expect() {
  std::lock_guard<std::mutex> lock(mutex);
  ++expected;
}

void ArrivalsMailbox::deliver(std::vector<double> arrivals) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    latest = std::move(arrivals);
    fresh = true;
    ++delivered;
  }
  delivered_cv.notify_all();
}

void ArrivalsMailbox::clear() {
  std::lock_guard<std::mutex> lock(mutex);
  latest.clear();
  fresh = true;
}

bool ArrivalsMailbox::take(std::vector<double> &out) {
  std::unique_lock<std::mutex> lock(mutex);
  delivered_cv.wait(lock, [&] { return delivered >= expected; });
  if (!fresh) return false;
  fresh = false;
  out = latest;
  return true;
}

namespace {

std::mutex g_mutex;
int g_keyval = MPI_KEYVAL_INVALID;
bool g_finalize_hook = false;
std::set<CommState *> g_states;  // live states, for the finalize sweep
// Bumped whenever a state goes: a thread's cached (communicator, state)
// pair of an older generation is not trusted (the handle may be reused).
std::atomic<std::uint64_t> g_generation{1};
struct LastState {
  MPI_Comm comm = MPI_COMM_NULL;
  CommState *state = nullptr;
  std::uint64_t generation = 0;
};
thread_local LastState t_last;

void destroy(CommState *state) {
  if (g_states.erase(state) == 0) return;  // already swept at finalize
  g_generation.fetch_add(1);
  // `auto`'s measurement exchanges still in flight: every rank started the
  // same ones and frees the communicator (or finalizes) too, so they complete.
  for (AutoFeedback::Exchange &exchange : state->feedback.in_flight)
    if (exchange.request != MPI_REQUEST_NULL) PMPI_Wait(&exchange.request, MPI_STATUS_IGNORE);
  if (CallHistory *h = state->history.get()) {
    h->finish();  // every rank frees the communicator (or finalizes) too
    if ((*core::config::settings())[core::config::Var::verbose].integer >= 2 && state->rank == 0 && h->calls() > 0)
      std::fprintf(stderr,
                   "patcoll: history on %s: %llu calls, %llu exchanges, %llu PAT updates, %.3f us per call in "
                   "history code (of which %.3f us waiting for exchanges), %s; last PATs: %s\n",
                   state->label.c_str(), static_cast<unsigned long long>(h->calls()),
                   static_cast<unsigned long long>(h->exchanges()), static_cast<unsigned long long>(h->updates()),
                   1e6 * h->seconds_in_hooks() / static_cast<double>(h->calls()),
                   1e6 * h->seconds_waiting() / static_cast<double>(h->calls()),
                   h->per_call_site() ? "per collective and call site" : "per collective (the ranks' call sites differ)",
                   h->describe().c_str());
    state->history.reset();
  }
  release_reactive(*state);
  if (state->comm != MPI_COMM_NULL) MPI_Comm_free(&state->comm);
  delete state;
}

int delete_state(MPI_Comm, int, void *attribute, void *) {
  std::lock_guard<std::mutex> lock(g_mutex);
  destroy(static_cast<CommState *>(attribute));
  return MPI_SUCCESS;
}

// At MPI_Finalize (finalize.hpp): free every state left (MPI_COMM_WORLD's
// among them).
int finalize_sweep(MPI_Comm, int, void *, void *) {
  std::lock_guard<std::mutex> lock(g_mutex);
  while (!g_states.empty()) destroy(*g_states.begin());
  if (g_keyval != MPI_KEYVAL_INVALID) MPI_Comm_free_keyval(&g_keyval);
  g_keyval = MPI_KEYVAL_INVALID;
  g_finalize_hook = false;
  return MPI_SUCCESS;
}

int ensure_keyvals() {
  if (g_keyval == MPI_KEYVAL_INVALID)
    PATCOLL_MPI_CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &g_keyval, nullptr));
  if (!g_finalize_hook) {
    PATCOLL_MPI_CHECK(at_finalize(finalize_sweep));
    g_finalize_hook = true;
  }
  return MPI_SUCCESS;
}

}  // namespace

int existing_comm_state(MPI_Comm comm, CommState *&out) {
  out = nullptr;
  std::lock_guard<std::mutex> lock(g_mutex);
  PATCOLL_MPI_CHECK(ensure_keyvals());
  void *attribute = nullptr;
  int found = 0;
  PATCOLL_MPI_CHECK(MPI_Comm_get_attr(comm, g_keyval, &attribute, &found));
  if (found) out = static_cast<CommState *>(attribute);
  return MPI_SUCCESS;
}

std::size_t schedule_cache_capacity() {
  return static_cast<std::size_t>(
      (*core::config::settings())[core::config::Var::schedule_cache].integer);
}

int comm_state(MPI_Comm comm, CommState *&out) {
  if (t_last.state && t_last.comm == comm && t_last.generation == g_generation.load(std::memory_order_acquire)) {
    out = t_last.state;  // the thread's last communicator again: no lock, no attribute lookup
    return MPI_SUCCESS;
  }
  const std::uint64_t generation = g_generation.load(std::memory_order_acquire);
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    PATCOLL_MPI_CHECK(ensure_keyvals());
    void *attribute = nullptr;
    int found = 0;
    PATCOLL_MPI_CHECK(MPI_Comm_get_attr(comm, g_keyval, &attribute, &found));
    if (found) {
      out = static_cast<CommState *>(attribute);
      t_last = {comm, out, generation};
      return MPI_SUCCESS;
    }
  }
  // First use of `comm`: the duplicate is made without holding the
  // process-wide lock (MPI_Comm_dup is collective; two threads setting up
  // two communicators at once must not wait for each other).
  auto *state = new CommState;
  // PATCOLL_SCHEDULE_CACHE: Programs kept per communicator (0 rebuilds
  // every call, to measure what the cache saves).
  state->programs = ProgramCache(schedule_cache_capacity());
  int found = 0;
  int rc = MPI_Comm_dup(comm, &state->comm);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_set_errhandler(state->comm, MPI_ERRORS_RETURN);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_size(comm, &state->size);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_rank(comm, &state->rank);
  if (rc == MPI_SUCCESS) {
    int *tag_ub = nullptr;
    rc = MPI_Comm_get_attr(comm, MPI_TAG_UB, &tag_ub, &found);
    if (rc == MPI_SUCCESS && found && tag_ub && *tag_ub > 0) state->tag_ub = *tag_ub;
  }
  if (rc == MPI_SUCCESS) {
    char name[MPI_MAX_OBJECT_NAME] = {0};
    int length = 0;
    MPI_Comm_get_name(comm, name, &length);
    static std::atomic<int> next_id{0};
    state->label = (length > 0 ? std::string(name, static_cast<std::size_t>(length))
                               : "communicator #" + std::to_string(next_id++)) +
                   " (" + std::to_string(state->size) + " ranks)";
  }
  // Collective too (the clock offset), and only the thread calling a
  // collective on `comm` gets here.
  if (rc == MPI_SUCCESS && state->size > 1)
    if (const HistoryOptions options = history_options(); options.enabled)
      state->history = std::make_unique<CallHistory>(state->comm, state->rank, state->size, options);
  std::lock_guard<std::mutex> lock(g_mutex);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_set_attr(comm, g_keyval, state);
  if (rc != MPI_SUCCESS) {
    if (state->comm != MPI_COMM_NULL) MPI_Comm_free(&state->comm);
    delete state;
    return mpi_failure(rc, "creating patcoll's communicator state");
  }
  g_states.insert(state);
  out = state;
  t_last = {comm, out, generation};
  return MPI_SUCCESS;
}

int intra_comm_state(MPI_Comm comm, CommState *&out, bool &inter) {
  out = nullptr;
  inter = false;
  if (t_last.state && t_last.comm == comm && t_last.generation == g_generation.load(std::memory_order_acquire)) {
    out = t_last.state;  // states exist for intracommunicators only
    return MPI_SUCCESS;
  }
  int flag = 0;
  PATCOLL_MPI_CHECK(MPI_Comm_test_inter(comm, &flag));
  inter = flag != 0;
  return inter ? MPI_SUCCESS : comm_state(comm, out);
}

ProcessDefaults &process_defaults() {
  static ProcessDefaults defaults;
  return defaults;
}

}  // namespace patcoll::mpi
