// Strict command-line parsing shared by every patcoll tool (patcoll-bench,
// patcoll-sim, patcoll-sched, patcoll-calibrate), so that numbers, sizes,
// durations and ranges mean the same everywhere and bad input is treated
// the same everywhere: one line on stderr, exit code 2.
//
//   sizes      integers with binary suffixes: K = 2^10, M = 2^20, G = 2^30
//              (Ki/Mi/Gi are synonyms; a trailing B is allowed: 4KB, 4KiB);
//              "1.5K" = 1536 is fine, "1.3K" (not whole) and "5X" are errors
//   integers   plain decimal, no suffix, range-checked (no wrap-around)
//   reals      finite decimal or scientific numbers; nan/inf are errors
//   durations  seconds with an optional unit: s, ms, us, ns
//   lists      comma separated; a range a:b:xK (geometric) or a:b:+K
//              (arithmetic), at most 100 000 values per list
// No MPI and no exceptions across main(): the parsers return false and a
// message; die() prints "<tool>: <message>" and exits 2.
//
// The flag convention (docs/guide/tools.md): every tool spells a shared
// option the same way (the Flag table below: --coll, --alg, --procs,
// --pattern, --model, --size, --json, --csv, ...) and keeps its older
// spellings working as aliases; an error names the flag as typed and reads
// the same in every tool.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace patcoll::cli {

// The largest process count the MPI-free tools model (patcoll-sim,
// patcoll-sched): all ranks' Programs of 2^20 ranks already take GBs.
constexpr std::int64_t kMaxProcs = std::int64_t{1} << 20;

// The project version (CMake's project(VERSION)).
const char *version();

// "<tool> (patcoll) <version>" and the licence line.
std::string version_text(const std::string &tool);

[[noreturn]] void die(const std::string &tool, const std::string &message);

// Each returns "" on success, else what is wrong with `text` (quoted).
std::string parse_size(const std::string &text, std::int64_t &out, std::int64_t low = 0,
                       std::int64_t high = INT64_MAX);
std::string parse_integer(const std::string &text, std::int64_t &out, std::int64_t low = INT64_MIN,
                          std::int64_t high = INT64_MAX);
// `low_open`: the value must be > low (else >= low).
std::string parse_real(const std::string &text, double &out, double low = -1e308, bool low_open = false);
std::string parse_seconds(const std::string &text, double &out);

// `text` as a JSON string (quotes, escapes), for the tools' JSON records.
std::string json_string(const std::string &text);

// Splits at `separator` (keeps empty items, which the parsers reject).
std::vector<std::string> split(const std::string &text, char separator = ',');

// A comma list of items or ranges; each item or range end parsed by
// `parse_one` (one of the parsers above, bound to its limits).
std::string parse_size_list(const std::string &text, std::vector<std::int64_t> &out, std::int64_t low = 0,
                            std::int64_t high = INT64_MAX);
std::string parse_real_list(const std::string &text, std::vector<double> &out, double low = -1e308,
                            bool low_open = false);

// One flag of the convention: its name, its older spellings (aliases,
// space separated, kept working) and whether it takes a value.
struct Flag {
  const char *name;
  const char *aliases;
  bool takes_value;
};

// The flags several tools share: the same name and meaning everywhere.
namespace flags {
inline constexpr Flag coll{"--coll", "--collective", true};          // reduce|allreduce|scatter|gather[,...]
inline constexpr Flag alg{"--alg", "--algorithms --algorithm", true};  // NAME[,NAME...] or all
inline constexpr Flag procs{"--procs", "", true};                     // process count(s) P
inline constexpr Flag pattern{"--pattern", "--pap", true};            // NAME[:DELAY[:ARG]] (patterns.hpp)
inline constexpr Flag max_delay{"--max-delay", "", true};             // the pattern's delay, given apart
inline constexpr Flag seed{"--seed", "", true};                       // random patterns' seed
inline constexpr Flag model{"--model", "", true};                     // cost-model file (patcoll-calibrate --out)
inline constexpr Flag size{"--size", "--bytes", true};                // message size(s) in bytes, K/M/G
inline constexpr Flag count{"--count", "", true};                     // message size(s) in elements
inline constexpr Flag root{"--root", "", true};                       // root rank
inline constexpr Flag json{"--json", "", false};                      // machine-readable: JSON
inline constexpr Flag csv{"--csv", "", false};                        // machine-readable: CSV
inline constexpr Flag out{"--out", "--output -o", true};              // write the records to FILE
inline constexpr Flag quiet{"--quiet", "", false};                    // no progress on stderr
inline constexpr Flag list{"--list", "", false};                      // the algorithms, then exit
}  // namespace flags

// A bad command line found by an Arguments in throwing mode (a tool that
// must say it after MPI_Init, from one rank: patcoll-bench).
struct BadArguments {
  std::string message;
};

// The convention's shared values, the same words in every tool (the
// caller puts the flag in front: "--procs: ...").
//   P list (a single P where the tool takes one: `single`)
std::string parse_procs(const std::string &text, std::vector<std::int64_t> &out, bool single = false);
//   "" when 0 <= root < procs, else "R is outside 0 .. P-1"
std::string root_problem(std::int64_t root, std::int64_t procs);
//   "unknown collective 'x' (reduce, allreduce, scatter, gather, ...)" (every collective)
std::string unknown_collective(const std::string &name);
//   "unknown algorithm 'x' (patcoll-info lists them)", naming the collectives
std::string unknown_algorithm(const std::string &name, const std::string &collectives);

// Walks argv: flags with a value ("--flag VALUE" or "--flag=VALUE"),
// switches, and --help / -h / --version, answered the same by every tool.
class Arguments {
 public:
  Arguments(std::string tool, std::string usage, int argc, char **argv, int first = 1);
  // With a flag table: next() returns a flag's name for any of its
  // spellings and refuses what the table lacks ("unknown option").
  Arguments(std::string tool, std::string usage, int argc, char **argv, std::vector<Flag> table, int first = 1);
  // fail() (and every parser below) throws BadArguments instead of dying.
  void throw_on_error() { throws_ = true; }
  // The next flag, or false at the end. A word not starting with '-' is an
  // error (die) unless `positional` allows it. --help prints the usage and
  // exits 0, --version prints version_text() and exits 0.
  bool next(std::string &flag);
  // The flag as the user spelled it (an alias stays an alias in messages).
  const std::string &spelled() const { return spelled_; }
  // The value of the current flag (die when there is none: "--x needs a value").
  std::string value();
  // die("unknown option '--x' (see --help)").
  [[noreturn]] void unknown() const;
  [[noreturn]] void fail(const std::string &message) const;
  // fail() with the flag as typed in front: "--pattern: <message>".
  [[noreturn]] void fail_value(const std::string &message) const { fail(spelled_ + ": " + message); }
  // Parsers that die with the flag's name on error.
  std::int64_t size(std::int64_t low = 0, std::int64_t high = INT64_MAX);
  std::int64_t integer(std::int64_t low = INT64_MIN, std::int64_t high = INT64_MAX);
  double real(double low = -1e308, bool low_open = false);
  double seconds();
  const std::string &tool() const { return tool_; }

 private:
  std::string tool_, usage_;
  int argc_;
  char **argv_;
  int index_;
  std::vector<Flag> table_;
  bool throws_ = false;
  std::string flag_, spelled_;
  std::string inline_value_;
  bool has_inline_value_ = false;
};

// Progress of a long sweep on stderr: "<tool>: 120/400 cases (30%), 4 s",
// at most once every `interval` seconds and only once the sweep has run
// that long (interval 0: after every case, for tests).
class Progress {
 public:
  Progress(std::string tool, std::int64_t total, bool enabled = true, double interval = 1.0);
  void step(std::int64_t done);
  void finish();

 private:
  std::string tool_;
  std::int64_t total_;
  bool enabled_;
  bool printed_ = false;
  double interval_;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace patcoll::cli
