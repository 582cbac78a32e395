#include "dispatch.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>

#include "core/config.hpp"
#include "core/hash.hpp"
#include "core/pat.hpp"
#include "clock.hpp"
#include "error.hpp"

namespace patcoll::mpi {
namespace {

namespace config = core::config;

// The PATCOLL_MODEL file, read once per path (reload() may name another).
// A file that cannot be read or parsed is reported once, by the process
// that is rank 0 of the first communicator to read it (`say`), and the
// built-in model is used.
std::optional<core::CostModel> environment_cost_model(const std::string &path, bool say) {
  static std::mutex mutex;
  static std::string read_path;
  static std::optional<core::CostModel> model;
  std::lock_guard<std::mutex> lock(mutex);
  if (path == read_path) return model;
  read_path = path;
  model.reset();
  if (path.empty()) return model;
  std::ifstream in(path);
  if (!in) {
    if (say) warn_once("cannot read PATCOLL_MODEL file '" + path + "'; using the built-in cost model");
    return model;
  }
  std::stringstream text;
  text << in.rdbuf();
  core::CostModel parsed;
  const std::string error = core::parse_cost_model(text.str(), parsed);
  if (!error.empty()) {
    if (say) warn_once("PATCOLL_MODEL file '" + path + "': " + error + "; using the built-in cost model");
    return model;
  }
  model = parsed;
  return model;
}

}  // namespace

void warn_once(const std::string &message) {
  static std::mutex mutex;
  static std::set<std::string> said;
  std::lock_guard<std::mutex> lock(mutex);
  if (said.insert(message).second) std::fprintf(stderr, "patcoll: %s\n", message.c_str());
}

void report_configuration_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    const auto settings = config::settings();
    std::vector<std::string> problems;
    for (const config::Settings::Problem &p : settings->problems)  // strict ones are the calls' errors
      if (config::variable(p.id).scope == config::Scope::library && !config::variable(p.id).strict)
        problems.push_back(p.message);
    if (problems.empty()) return;
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0) return;
    for (const std::string &problem : problems) warn_once(problem);
  });
}

core::CostModel cost_model(const CommState &state) {
  if (state.cost) return *state.cost;
  if (process_defaults().cost) return *process_defaults().cost;
  if (auto model = environment_cost_model(config::settings()->operator[](config::Var::model).text, state.rank == 0))
    return *model;
  return {};
}

namespace {

// The variables whose values shape schedules: a value that does not parse
// is an error of every call (MPI_ERR_ARG), not a warning.
constexpr config::Var kScheduleVariables[] = {config::Var::segments, config::Var::segment_bytes,
                                              config::Var::clairvoyant_join};

using core::fnv1a;

}  // namespace

std::uint64_t hash_values(const double *values, std::size_t n) {
  std::uint64_t hash = fnv1a(&n, sizeof n);
  for (std::size_t i = 0; i < n; ++i) {
    const double v = values[i] + 0.0;  // -0.0 and 0.0 are the same value
    hash = fnv1a(&v, sizeof v, hash);
  }
  return hash;
}

int agree_across_ranks(const CommState &state, std::uint64_t hash, const std::string &local_error, const char *what) {
  std::uint64_t mine[3] = {hash, ~hash, local_error.empty() ? 0u : 1u}, top[3] = {0, 0, 0};
  PATCOLL_MPI_CHECK(PMPI_Allreduce(mine, top, 3, MPI_UINT64_T, MPI_MAX, state.comm));
  if (!local_error.empty()) return fail(MPI_ERR_ARG, local_error);
  if (top[2] != 0) return fail(MPI_ERR_ARG, std::string(what) + " refused: another rank passed an invalid value");
  if (top[0] != mine[0] || top[1] != mine[1])  // max == min == mine on every rank iff all hashes are equal
    return fail(MPI_ERR_ARG, std::string(what) + " differs between ranks (it must be the same on every rank); "
                                                 "the previous value is kept");
  return MPI_SUCCESS;
}

int check_schedule_configuration() {
  const auto settings = config::settings();
  for (const config::Settings::Problem &problem : settings->problems)
    for (config::Var v : kScheduleVariables)
      if (problem.id == v) return fail(MPI_ERR_ARG, problem.message);
  return MPI_SUCCESS;
}

core::Params call_params(const CallShape &call, int procs, std::vector<double> arrivals, const core::CostModel &cost) {
  const auto settings = config::settings();
  core::Params params;
  params.collective = call.collective;
  params.procs = procs;
  params.root = call.root;
  params.count = call.count;
  params.element_bytes = std::max<std::int64_t>(1, call.element_bytes);
  params.commutative = call.commutative;
  if (static_cast<int>(arrivals.size()) == procs) params.arrivals = std::move(arrivals);
  params.cost = cost;
  params.segment_count = (*settings)[config::Var::segments].integer;
  if (const std::int64_t bytes = (*settings)[config::Var::segment_bytes].integer; bytes > 0)
    params.segment_elements = std::max<std::int64_t>(1, bytes / params.element_bytes);
  core::parse_clairvoyant_join((*settings)[config::Var::clairvoyant_join].text, params.clairvoyant_join);
  return params;
}

// The process-wide inputs that shape schedules are checked to be the same
// on every rank at the first collective on a communicator (one allreduce
// per communicator, collective even when this rank's configuration is
// malformed, so nobody hangs).
int call_params(CommState &state, const CallShape &call, core::Params &out) {
  const CallContext *context = current_call();
  const std::vector<double> &arrivals =
      state.arrivals.empty() && context && context->history_arrivals ? *context->history_arrivals : state.arrivals;
  out = call_params(call, state.size, arrivals, cost_model(state));
  const int rc = check_schedule_configuration();
  if (rc != MPI_SUCCESS && context) const_cast<CallContext *>(context)->configuration_error = true;
  if (state.process_inputs_agreed) return rc;
  const double model[3] = {out.cost.alpha, out.cost.beta, out.cost.gamma};
  std::uint64_t hash = hash_values(model, 3);
  const auto settings = config::settings();
  for (config::Var v : kScheduleVariables) {
    const config::Value &value = (*settings)[v];
    const std::string text = value.set ? "=" + value.given : std::string("unset");
    hash = fnv1a(text.data(), text.size() + 1, hash);
  }
  const std::string mine = rc == MPI_SUCCESS ? std::string() : last_error();
  if (int agreed = agree_across_ranks(state, hash, mine,
                                      "the process-wide cost model or segmentation (PATCOLL_MODEL, PATCOLL_SEGMENTS, "
                                      "PATCOLL_SEGMENT_BYTES, PATCOLL_CLAIRVOYANT_JOIN, "
                                      "PAT_Set_cost_model(MPI_COMM_NULL))");
      agreed != MPI_SUCCESS)
    return agreed;
  state.process_inputs_agreed = true;
  return MPI_SUCCESS;
}

namespace {

std::string milliseconds(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", seconds * 1e3);
  return buf;
}

// One line per change of auto's choice, from rank 0 of the communicator.
void say_choice(const CommState &state, const core::Params &params, const core::Selection &selection) {
  std::string line = "patcoll: auto on ";
  char name[MPI_MAX_OBJECT_NAME] = "";
  int length = 0;
  if (MPI_Comm_get_name(state.comm, name, &length) == MPI_SUCCESS && length > 0) line += std::string("'") + name + "' ";
  line += "(" + std::to_string(state.size) + " ranks): " + std::string(core::to_string(params.collective)) + " of " +
          std::to_string(params.count * params.element_bytes) + " bytes -> " + std::string(selection.name);
  if (selection.unpredictable) {
    line += " (arrivals unpredictable: the PAT vectors missed them by " + milliseconds(selection.arrival_error) +
            " ms, median; measured against native, not predicted)";
  } else if (selection.predictions.empty()) {
    line += selection.deferred ? " (kept: a new pattern is predicted once per period)"
                               : " (no imbalance to exploit, or below the size auto predicts)";
  } else {
    line += "; predicted ms:";
    for (const core::Prediction &p : selection.predictions) line += " " + std::string(p.name) + "=" + milliseconds(p.seconds);
  }
  line += "; PATs ms:";
  for (double a : selection.arrivals) line += " " + milliseconds(a);
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

}  // namespace

namespace {

std::atomic<FeedbackHook> g_feedback_hook{nullptr};
// A value of the exchange left out (no common clock; a reduce's non-root exit).
constexpr double kNoClock = -std::numeric_limits<double>::max();
thread_local int g_unmeasured_calls = 0;  // UnmeasuredCall scopes open on this thread

// The name of an algorithm as an exactly representable double (the
// exchange checks that every rank measured the same one).
double name_id(std::string_view name) { return static_cast<double>(fnv1a(name.data(), name.size()) >> 12); }

// One line when measurements drop auto's choice for a pattern (rank 0).
void say_drop(const CommState &state, core::Collective collective, const core::Verdict &verdict,
              double min_elapsed) {
  std::fprintf(stderr,
               "patcoll: auto on %d ranks: %s: dropped %s for this arrival pattern: measured %s ms after the last "
               "arrival (median of %zu) > native's %s ms (median of %zu) + %.0f %%; the latest rank's own time "
               "was %s ms\n",
               state.size, std::string(core::to_string(collective)).c_str(), verdict.name.c_str(),
               milliseconds(verdict.tail).c_str(), verdict.samples, milliseconds(verdict.native_tail).c_str(),
               verdict.native_samples, 100 * state.selectors[static_cast<std::size_t>(collective)].options().hysteresis,
               milliseconds(min_elapsed).c_str());
  std::fflush(stderr);
}

// Completes the exchanges due at this auto call (every rank the same ones)
// and records them; the others are only progressed.
void collect_feedback(CommState &state, bool verbose) {
  auto &in_flight = state.feedback.in_flight;
  while (!in_flight.empty()) {
    AutoFeedback::Exchange &exchange = in_flight.front();
    if (exchange.due > state.feedback.calls) {
      int done = 0;
      PMPI_Test(&exchange.request, &done, MPI_STATUS_IGNORE);  // progress only: recorded when due
      break;
    }
    const int rc = exchange.request == MPI_REQUEST_NULL ? MPI_SUCCESS
                                                        : PMPI_Wait(&exchange.request, MPI_STATUS_IGNORE);
    const double *agreed = exchange.agreed;
    // Every rank ran the same algorithm (max == min of its id) by the
    // selection's agreement; anything else is not recorded, on any rank.
    if (rc == MPI_SUCCESS && agreed[2] == -agreed[3] && agreed[2] == exchange.mine[2]) {
      core::Selector &selector = state.selectors[static_cast<std::size_t>(exchange.collective)];
      // On the common clock: the tail from the actual last arrival, and
      // how far the arrivals were from the PAT vector.
      double tail = agreed[0], arrival_error = NAN;
      if (agreed[4] > kNoClock) {
        tail = std::max(0.0, agreed[5] - agreed[4]);
        arrival_error = agreed[6] + agreed[7];
      }
      if (const std::optional<core::Verdict> verdict =
              selector.record(exchange.pattern, exchange.algorithm, tail, arrival_error))
        if (verbose && state.rank == 0) say_drop(state, exchange.collective, *verdict, -agreed[1]);
    }
    in_flight.pop_front();
  }
}

}  // namespace

namespace {
thread_local CallContext *g_call = nullptr;
}  // namespace

CallContext *current_call() { return g_call; }
CallScope::CallScope(CallContext &context) : previous_(g_call) { g_call = &context; }
CallScope::~CallScope() { g_call = previous_; }

void set_feedback_hook(FeedbackHook hook) { g_feedback_hook.store(hook); }

UnmeasuredCall::UnmeasuredCall() { ++g_unmeasured_calls; }
bool unmeasured_call_open() { return g_unmeasured_calls > 0; }
UnmeasuredCall::~UnmeasuredCall() { --g_unmeasured_calls; }

void measure_blocking_call(CommState &state, double entry_time) {
  AutoFeedback::Measured &current = state.feedback.current;
  if (!current.armed) return;
  current.armed = false;
  const double elapsed = MPI_Wtime() - entry_time;
  double tail = elapsed - current.arrival_offset;
  bool injected = false;
  if (FeedbackHook hook = g_feedback_hook.load()) {
    const double measured = tail;
    tail = hook(current.collective, current.algorithm, state.rank, tail);
    injected = tail != measured;
  }
  AutoFeedback::Exchange &exchange = state.feedback.in_flight.emplace_back();
  const double id = name_id(current.algorithm);
  // A reduce is done when its root is: the root's tail alone. The maximum
  // over every rank's would also take in ranks that wait inside the
  // schedule, whose own lag the PATs may have got wrong (history PATs
  // under random delays) by an amount that depends on the algorithm, so
  // it misjudged PAP-aware reduces (docs/results/adaptive.md, "Re-run"). The
  // root's own error is the same whatever the algorithm.
  exchange.mine[0] = current.tail_counts ? tail : -std::numeric_limits<double>::max();
  exchange.mine[1] = -elapsed;
  exchange.mine[2] = id;
  exchange.mine[3] = -id;
  // On the common clock, the actual arrivals: the tail is measured from
  // the last one, not from the one the PATs planned (wrong by up to the
  // delays themselves when they are drawn anew every call), and the spread
  // of actual minus predicted arrival tells the selector how predictable
  // the pattern is.
  if (state.feedback.aligned && !injected) {
    const double offset = state.feedback.clock_offset;
    const double entry = entry_time + offset;
    exchange.mine[4] = entry;
    exchange.mine[5] = current.tail_counts ? MPI_Wtime() + offset : kNoClock;
    exchange.mine[6] = entry - current.predicted_arrival;
    exchange.mine[7] = -exchange.mine[6];
  } else {
    std::fill(exchange.mine + 4, exchange.mine + 8, kNoClock);
  }
  exchange.collective = current.collective;
  exchange.pattern = std::move(current.pattern);
  exchange.algorithm = current.algorithm;
  exchange.due = state.feedback.calls + kFeedbackLag;
  if (PMPI_Iallreduce(exchange.mine, exchange.agreed, 8, MPI_DOUBLE, MPI_MAX, state.comm, &exchange.request) !=
      MPI_SUCCESS) {
    exchange.request = MPI_REQUEST_NULL;
    exchange.mine[2] = NAN;  // never recorded
    warn_once("auto's feedback exchange could not be started; measurements are not used");
  }
}

const Entry *choose_auto(CommState &state, const core::Params &params) {
  const auto settings = config::settings();
  const bool verbose = (*settings)[config::Var::verbose].integer > 0;
  const bool feedback = (*settings)[config::Var::auto_feedback].integer == 1;
  core::Selector &selector = state.selectors[static_cast<std::size_t>(params.collective)];
  ++state.feedback.calls;
  collect_feedback(state, verbose);
  selector.set_feedback(feedback);
  const bool measured = g_unmeasured_calls == 0;
  const core::Selection selection = selector.select(params, measured);
  const Entry *entry = find_entry(params.collective, selection.name);
  if (!entry) entry = auto_choice(params);
  if (selection.changed && state.rank == 0 && verbose && (!params.arrivals.empty() || selection.simulated))
    say_choice(state, params, selection);
  if (feedback && measured && !selection.pattern.empty() && entry->name == selection.name) {
    // The measurements' common clock, once per communicator: the history's
    // alignment when it has one, else measured here (collective: every
    // rank arms the same call). A balanced pattern's calls need none.
    if (!state.feedback.aligned && !params.arrivals.empty()) {
      const CallHistory *history = state.history.get();
      state.feedback.clock_offset = history && history->aligned()
                                        ? history->clock_offset()
                                        : clock::align_to_root(state.comm, clock::local_anchor()).offset;
      state.feedback.aligned = true;
    }
    AutoFeedback::Measured &current = state.feedback.current;
    current.armed = true;
    current.collective = params.collective;
    current.pattern = selection.pattern;
    current.algorithm = entry->name;
    // No vector (a balanced pattern): every rank is taken to arrive at once.
    const auto latest = std::max_element(params.arrivals.begin(), params.arrivals.end());
    current.arrival_offset =
        params.arrivals.empty() ? 0.0 : *latest - params.arrivals[static_cast<std::size_t>(state.rank)];
    current.tail_counts = params.collective != core::Collective::reduce || params.root == state.rank;
    current.predicted_arrival = params.arrivals.empty() ? 0.0 : params.arrivals[static_cast<std::size_t>(state.rank)];
  }
  return entry;
}

int select(CommState &state, core::Collective collective, const char *explicit_name, const core::Params &params,
           const Entry *&out) {
  report_configuration_once();
  const int index = static_cast<int>(collective);
  const auto settings = config::settings();
  const config::Value &environment = (*settings)[config::algorithm_variable(collective)];
  std::string name;
  if (explicit_name && *explicit_name) name = explicit_name;
  else if (!state.algorithm[index].empty()) name = state.algorithm[index];
  else if (!process_defaults().algorithm[index].empty()) name = process_defaults().algorithm[index];
  else name = environment.text;  // "auto" when unset

  std::string_view &last = state.last_algorithm[static_cast<std::size_t>(index)];
  state.feedback.current.armed = false;  // only an auto call of this selection is measured
  if (name == "auto") {
    out = choose_auto(state, params);
    last = out->name;
    return MPI_SUCCESS;
  }
  const Entry *entry = find_entry(collective, name);
  if (!entry)
    return fail(MPI_ERR_ARG, "unknown " + std::string(core::to_string(collective)) + " algorithm '" + name +
                                 "' (patcoll-info lists the registered ones)");
  if (!entry->native()) {
    const std::string reason = core::unsupported_reason(*entry->algorithm, params);
    if (!reason.empty()) {
      if ((*settings)[config::Var::fallback].integer == 1) {
        out = choose_auto(state, params);
        warn_once(reason + "; falling back to " + std::string(out->name));
        last = out->name;
        return MPI_SUCCESS;
      }
      if (CallContext *context = current_call(); context && context->shim) {
        // Facts every rank sees alike (the op, the counts, the
        // configuration): every rank declines, the MPI library serves.
        context->declined = reason;
        out = &entries(collective).front();  // native
        last = out->name;
        return MPI_SUCCESS;
      }
      const bool op_problem = (entry->restrictions & core::needs_commutative) && !params.commutative;
      return fail(op_problem ? MPI_ERR_OP : MPI_ERR_ARG, reason);
    }
  }
  out = entry;
  last = out->name;
  return MPI_SUCCESS;
}

namespace {

// The key's fields as raw bytes (length-prefixed where variable): equality is
// all the cache needs, and formatting the doubles as text took a tenth of a
// small collective's time (docs/results/executor.md).
template <class T>
void append_raw(std::string &key, const T &value) {
  key.append(reinterpret_cast<const char *>(&value), sizeof value);
}

template <class T>
void append_raw(std::string &key, const std::vector<T> &values) {
  append_raw(key, values.size());
  if (!values.empty()) key.append(reinterpret_cast<const char *>(values.data()), values.size() * sizeof(T));
}

}  // namespace

std::string cache_key(const Entry &entry, const core::Params &p, int rank) {
  std::string key;
  key.reserve(128 + entry.name.size() + 8 * (p.radix.size() + p.segment_sizes.size() + p.counts.size() + p.arrivals.size()));
  append_raw(key, entry.name.size());
  key.append(entry.name);
  append_raw(key, static_cast<int>(p.collective));
  append_raw(key, rank);
  append_raw(key, p.procs);
  append_raw(key, p.root);
  append_raw(key, p.count);
  append_raw(key, p.element_bytes);
  append_raw(key, static_cast<int>(p.commutative));
  append_raw(key, p.segment_count);
  append_raw(key, p.segment_elements);
  append_raw(key, static_cast<int>(p.clairvoyant_join));
  append_raw(key, p.cost.alpha);
  append_raw(key, p.cost.beta);
  append_raw(key, p.cost.gamma);
  append_raw(key, p.radix);
  append_raw(key, p.segment_sizes);
  append_raw(key, p.counts);
  append_raw(key, p.arrivals);
  return key;
}

std::shared_ptr<CachedProgram> program(ProgramCache &cache, int rank, const Entry &entry,
                                       const core::Params &requested) {
  const core::Params params = core::builder_params(*entry.algorithm, requested);
  std::string key = cache_key(entry, params, rank);
  if (std::shared_ptr<CachedProgram> cached = cache.find(key)) return cached;
  return cache.insert(std::move(key), core::build_rank(*entry.algorithm, params, rank));
}

int run_cached(CachedProgram &cached, const ExecutionBuffers &buffers, const ExecutionContext &context) {
  std::unique_ptr<Workspace> workspace = cached.acquire();
  const int rc = execute(cached.program, cached.shape, buffers, context, *workspace);
  cached.release(std::move(workspace));
  return rc;
}

}  // namespace patcoll::mpi
