#include "config.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <mutex>

#include "runtime/predictor.hpp"

namespace patcoll::core::config {
namespace {

using S = Scope;
using T = Type;

const Variable kVariables[] = {
// PATCOLL_<COLL>, one per row of collectives.def.
#define PATCOLL_COLLECTIVE(name, Name, NAME, kind)                                                       \
  {Var::name, "PATCOLL_" #NAME, T::algorithm, "auto",                                                    \
   "MPI_" #Name " algorithm when none is chosen in the program (patcoll-info lists them); the shim serves " \
   "MPI_" #Name " with it, unset or `native` leaves MPI_" #Name " to the MPI library",                   \
   S::library},
#include "collectives.def"
#undef PATCOLL_COLLECTIVE
    {Var::segments, "PATCOLL_SEGMENTS", T::integer, "",
     "segment count N of the segmenting algorithms; unset: each algorithm's default (N_opt of [M] 5.2 for the "
     "schedule-based reduces); wins over PATCOLL_SEGMENT_BYTES; same on every rank, a bad value is MPI_ERR_ARG",
     S::library, 1, {}, true},
    {Var::segment_bytes, "PATCOLL_SEGMENT_BYTES", T::integer, "",
     "segment size in bytes of the segmenting algorithms (rounded down to whole elements, at least one); same on "
     "every rank, a bad value is MPI_ERR_ARG",
     S::library, 1, {}, true},
    {Var::clairvoyant_join, "PATCOLL_CLAIRVOYANT_JOIN", T::choice, "end",
     "Clairvoyant's join rule: end (a rank joins the round it arrives before the end of) or start (arrivals rounded "
     "up to the round grid, so rounds x d bounds the executed time); same on every rank, a bad value is MPI_ERR_ARG",
     S::library, 0, "end start before_round_end by_round_start", true},
    {Var::model, "PATCOLL_MODEL", T::path, "",
     "cost-model file (alpha/beta/gamma lines, written by patcoll-calibrate) used when the program sets none "
     "with PAT_Set_cost_model; must be the same on every rank",
     S::library},
    {Var::fallback, "PATCOLL_FALLBACK", T::flag, "0",
     "1: a forced algorithm whose restrictions fail falls back to `auto` with one line on stderr instead of "
     "returning an error",
     S::library},
    {Var::schedule_cache, "PATCOLL_SCHEDULE_CACHE", T::integer, "16",
     "Programs kept per communicator (least recently used); 0 rebuilds on every call", S::library, 0},
    {Var::combine, "PATCOLL_COMBINE", T::choice, "arrival",
     "executor: arrival combines each received segment as it arrives (MPI_Waitsome); wait combines after the "
     "step's MPI_Waitall in op order (the earlier executor, for measuring what arrival gains); a bad value is "
     "MPI_ERR_ARG at every start",
     S::library, 0, "arrival wait", true},
    {Var::predictor, "PATCOLL_PREDICTOR", T::choice, "edge",
     "PAT runtime predictor: edge, last, sma or sma:<k> (PAT_Set_predictor wins)", S::runtime, 0,
     "edge last sma sma:<k>"},
    {Var::pats, "PATCOLL_PATS", T::choice, "none",
     "PAT source of the library and the shim: history learns PATs from the call history, per communicator, "
     "collective and call site",
     S::library, 0, "none history"},
    {Var::verbose, "PATCOLL_VERBOSE", T::integer, "0",
     "1: rank 0 says every change of `auto`'s choice (predictions, PATs); the preload shim also says which "
     "algorithm serves each collective and why; 2 adds the history statistics per communicator",
     S::library, 0},
    {Var::auto_feedback, "PATCOLL_AUTO_FEEDBACK", T::flag, "1",
     "1: `auto` measures each blocking call's time after the last arrival and drops a choice other than native "
     "whose measured time exceeds native's by more than 5 % for that arrival pattern (native is run on a few "
     "calls of each pattern to measure it; docs/results/adaptive.md); 0: the model's prediction alone decides "
     "and balanced calls stay native",
     S::library},
    {Var::history_window, "PATCOLL_HISTORY_WINDOW", T::integer, "5",
     "history PAT source: calls in the moving average", S::library, 1},
    {Var::history_period, "PATCOLL_HISTORY_PERIOD", T::integer, "8",
     "history PAT source: calls between exchanges", S::library, 1},
    {Var::history_quantum, "PATCOLL_HISTORY_QUANTUM", T::seconds, "1e-5",
     "history PAT source: PATs are rounded to multiples of this many seconds", S::library},
    {Var::history_estimate, "PATCOLL_HISTORY_ESTIMATE", T::choice, "entry",
     "history PAT source: entry (entry times on a common clock) or offset (exit->entry offsets)", S::library, 0,
     "entry offset"},
    {Var::report, "PATCOLL_REPORT", T::path, "",
     "arrival report: every intercepted (shim) or blocking PAT_* (library) collective call is recorded, and at "
     "MPI_Finalize rank 0 of MPI_COMM_WORLD writes this JSON file and one PAT trace per call site beside it "
     "(patcoll-report reads them; docs/guide/profile.md)",
     S::library},
    {Var::report_samples, "PATCOLL_REPORT_SAMPLES", T::integer, "1000",
     "arrival report: calls per call site whose every-rank entry and exit times are kept (the first half of them, "
     "then evenly spaced calls over the run); 0 keeps statistics only",
     S::library, 0},
    {Var::report_flush, "PATCOLL_REPORT_FLUSH", T::seconds, "10",
     "arrival report: seconds between the partial files PATCOLL_REPORT.rank<R> each rank rewrites (so an aborted "
     "run keeps what was written); 0: no partial files",
     S::library},
};
static_assert(std::size(kVariables) == kVariableCount, "one table row per Var");

bool one_of(std::string_view choices, std::string_view text) {
  while (!choices.empty()) {
    const std::size_t space = choices.find(' ');
    if (choices.substr(0, space) == text) return true;
    if (space == std::string_view::npos) break;
    choices.remove_prefix(space + 1);
  }
  return false;
}

// Parses `text` into `value`; "" when it parses, else what it should be.
std::string parse(const Variable &v, const std::string &text, Value &value) {
  value.text = text;
  switch (v.type) {
    case T::algorithm:
    case T::path:
      return {};
    case T::integer: {
      errno = 0;
      char *end = nullptr;
      const long long n = std::strtoll(text.c_str(), &end, 10);
      if (text.empty() || *end != '\0' || errno == ERANGE || n < v.minimum)
        return "is not an integer >= " + std::to_string(v.minimum);
      value.integer = n;
      value.number = static_cast<double>(n);
      return {};
    }
    case T::seconds: {
      char *end = nullptr;
      const double x = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || !(x >= 0) || !std::isfinite(x)) return "is not a number of seconds >= 0";
      value.number = x;
      return {};
    }
    case T::flag:
      if (text != "0" && text != "1") return "is not 0 or 1";
      value.integer = text == "1";
      return {};
    case T::choice:
      if (v.id == Var::predictor ? valid_predictor(text) : one_of(v.choices, text)) return {};
      return "is not one of " + std::string(v.choices);
  }
  return {};
}

std::mutex g_mutex;
std::shared_ptr<const Settings> g_settings;

const char *environment(const char *name) { return std::getenv(name); }

}  // namespace

Var algorithm_variable(Collective collective) {
  // collectives.def generates both enumerations in the same order.
#define PATCOLL_COLLECTIVE(name, Name, NAME, kind)                                    \
  static_assert(static_cast<int>(Var::name) == static_cast<int>(Collective::name), \
                "the algorithm variables come first, in Collective's order");
#include "collectives.def"
#undef PATCOLL_COLLECTIVE
  return static_cast<Var>(static_cast<int>(collective));
}

std::span<const Variable> variables() { return kVariables; }
const Variable &variable(Var id) { return kVariables[static_cast<int>(id)]; }

const Variable *find_variable(std::string_view name) {
  for (const Variable &v : kVariables)
    if (v.name == name) return &v;
  return nullptr;
}

std::string_view to_string(Type type) {
  switch (type) {
    case T::algorithm: return "algorithm";
    case T::integer: return "integer";
    case T::seconds: return "seconds";
    case T::path: return "path";
    case T::choice: return "choice";
    case T::flag: return "flag";
  }
  return "?";
}

std::string_view to_string(Scope scope) {
  switch (scope) {
    case S::library: return "library";
    case S::runtime: return "runtime";
    case S::preload: return "preload";
  }
  return "?";
}

bool valid_predictor(std::string_view text) {
  runtime::PredictorConfig config;
  return runtime::parse_predictor(text, config);
}

Settings read(const char *(*lookup)(const char *name)) {
  Settings out;
  for (const Variable &v : kVariables) {
    Value &value = out.values[static_cast<int>(v.id)];
    const std::string fallback(v.default_value);
    if (!fallback.empty()) parse(v, fallback, value);  // the defaults always parse (unit-tested)
    const char *given = lookup(std::string(v.name).c_str());
    if (!given || !*given) continue;
    Value parsed;
    const std::string problem = parse(v, given, parsed);
    if (problem.empty()) {
      parsed.set = true;
      parsed.given = given;
      value = std::move(parsed);
      continue;
    }
    value.set = true;
    value.valid = false;
    value.given = given;
    std::string message = std::string(v.name) + "='" + given + "' " + problem;
    if (!v.strict) message += "; using the default (" + (fallback.empty() ? std::string("unset") : fallback) + ")";
    out.problems.push_back({v.id, std::move(message)});
  }
  return out;
}

std::vector<std::string> Settings::problems_of(Scope scope) const {
  std::vector<std::string> out;
  for (const Problem &p : problems)
    if (variable(p.id).scope == scope) out.push_back(p.message);
  return out;
}

std::shared_ptr<const Settings> settings() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_settings) g_settings = std::make_shared<const Settings>(read(environment));
  return g_settings;
}

void reload() {
  auto fresh = std::make_shared<const Settings>(read(environment));
  std::lock_guard<std::mutex> lock(g_mutex);
  g_settings = std::move(fresh);
}

}  // namespace patcoll::core::config
