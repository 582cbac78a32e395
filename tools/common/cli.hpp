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

// Splits at `separator` (keeps empty items, which the parsers reject).
std::vector<std::string> split(const std::string &text, char separator = ',');

// A comma list of items or ranges; each item or range end parsed by
// `parse_one` (one of the parsers above, bound to its limits).
std::string parse_size_list(const std::string &text, std::vector<std::int64_t> &out, std::int64_t low = 0,
                            std::int64_t high = INT64_MAX);
std::string parse_real_list(const std::string &text, std::vector<double> &out, double low = -1e308,
                            bool low_open = false);

// Walks argv: flags with a value ("--flag VALUE" or "--flag=VALUE"),
// switches, and --help / -h / --version, answered the same by every tool.
class Arguments {
 public:
  Arguments(std::string tool, std::string usage, int argc, char **argv, int first = 1);
  // The next flag, or false at the end. A word not starting with '-' is an
  // error (die) unless `positional` allows it. --help prints the usage and
  // exits 0, --version prints version_text() and exits 0.
  bool next(std::string &flag);
  // The value of the current flag (die when there is none: "--x needs a value").
  std::string value();
  // die("unknown option '--x' (see --help)").
  [[noreturn]] void unknown() const;
  [[noreturn]] void fail(const std::string &message) const { die(tool_, message); }
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
  std::string flag_;
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
