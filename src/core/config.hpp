// The configuration registry: every PATCOLL_* environment variable,
// declared once (name, type, default, documentation, who reads it), read
// once and validated once. The library, the PAT runtime, the preload shim
// and `patcoll-info` all read this table; nothing else calls getenv for a
// PATCOLL_* variable. A value that does not parse is reported once (the
// `problems` of the snapshot, printed by the layer that owns the variable)
// and the default is used — never silently ignored; a `strict` variable
// (one that shapes schedules) makes every collective fail with MPI_ERR_ARG
// instead.
//
// MPI-free: the MPI layer validates algorithm names against the registry of
// mpi/registry.hpp (it knows `native`), the table only declares them.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir.hpp"

namespace patcoll::core::config {

// One entry per variable, in the order of the table (and of patcoll-info).
enum class Var : int {
  // PATCOLL_<COLL> of every collective, first, in Collective's order
#define PATCOLL_COLLECTIVE(name, Name, NAME, kind) name,
#include "collectives.def"
#undef PATCOLL_COLLECTIVE
  segments,           // PATCOLL_SEGMENTS
  segment_bytes,      // PATCOLL_SEGMENT_BYTES
  clairvoyant_join,   // PATCOLL_CLAIRVOYANT_JOIN
  model,              // PATCOLL_MODEL
  fallback,           // PATCOLL_FALLBACK
  schedule_cache,     // PATCOLL_SCHEDULE_CACHE
  combine,            // PATCOLL_COMBINE
  predictor,          // PATCOLL_PREDICTOR
  pats,               // PATCOLL_PATS
  verbose,            // PATCOLL_VERBOSE
  auto_feedback,      // PATCOLL_AUTO_FEEDBACK
  history_window,     // PATCOLL_HISTORY_WINDOW
  history_period,     // PATCOLL_HISTORY_PERIOD
  history_quantum,    // PATCOLL_HISTORY_QUANTUM
  history_estimate,   // PATCOLL_HISTORY_ESTIMATE
  report,             // PATCOLL_REPORT
  report_samples,     // PATCOLL_REPORT_SAMPLES
  report_flush,       // PATCOLL_REPORT_FLUSH
  count_
};
inline constexpr int kVariableCount = static_cast<int>(Var::count_);

enum class Type {
  algorithm,  // an algorithm name of one collective, `auto` or `native` (checked by the MPI layer)
  integer,    // a decimal integer >= minimum
  seconds,    // a number of seconds >= 0
  path,       // a file name (checked where it is opened)
  choice,     // one of `choices` (space separated)
  flag,       // 0 or 1
};

// Who reads a variable and reports its problems.
enum class Scope { library, runtime, preload };

struct Variable {
  Var id;
  std::string_view name;
  Type type;
  std::string_view default_value;  // as the user would write it; "" = unset
  std::string_view doc;
  Scope scope;
  std::int64_t minimum = 0;        // integer
  std::string_view choices = {};   // choice (and predictor's fixed forms)
  // A value that does not parse is an error of every call that reads it
  // (MPI_ERR_ARG: the variables that shape schedules, which every rank
  // must agree on) instead of a warning with the default.
  bool strict = false;
};

// PATCOLL_REDUCE, ... : the variable naming a collective's algorithm.
Var algorithm_variable(Collective);

std::span<const Variable> variables();
const Variable &variable(Var);
const Variable *find_variable(std::string_view name);
std::string_view to_string(Type);
std::string_view to_string(Scope);

// One variable's value after parsing: `text` as given (or the default when
// unset or invalid), and the parsed number for integer/seconds/flag.
struct Value {
  bool set = false;      // present and non-empty in the environment
  bool valid = true;     // parsed (an invalid value falls back to the default)
  std::string text;      // the effective text
  std::string given;     // as found in the environment ("" when unset)
  std::int64_t integer = 0;
  double number = 0;
};

// The environment as read at one moment.
struct Settings {
  Value values[kVariableCount];
  // "PATCOLL_FALLBACK='yes' is not 0 or 1; using the default (0)", or for a
  // strict variable "PATCOLL_SEGMENTS='abc' is not an integer >= 1"
  struct Problem {
    Var id;
    std::string message;
  };
  std::vector<Problem> problems;

  const Value &operator[](Var v) const { return values[static_cast<int>(v)]; }
  // Problems of one scope, one line each.
  std::vector<std::string> problems_of(Scope) const;
};

// Parses `lookup(name)` for every variable (lookup returns nullptr when
// unset); the pure form used by the tests.
Settings read(const char *(*lookup)(const char *name));

// The process's snapshot, read from the environment on first use. reload()
// re-reads it (tests and tools that change the environment between cases);
// it is not meant to race with collectives in flight.
std::shared_ptr<const Settings> settings();
void reload();

// Validates one predictor value ("edge", "last", "sma", "sma:<k>").
bool valid_predictor(std::string_view text);

}  // namespace patcoll::core::config
