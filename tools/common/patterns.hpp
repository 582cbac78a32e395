// Arrival patterns of every tool (patcoll-bench, patcoll-sim,
// patcoll-sched: one parser, one generator, one trace reader), MPI-free: a
// PAP (one arrival delay per rank, seconds) per iteration, seeded and
// reproducible. Every generated value lies in [0, D].
//
// The --pattern value: NAME[:DELAY[:ARG]], DELAY a duration (20ms, 1.5s,
// 300us, 1e-3; tools/common/cli.hpp) or Nd (N round times, where a tool
// knows its round time), ARG the pattern's own parameter below. With
// --max-delay D (the older spelling) the delay is given apart and the
// value is NAME[:ARG]: `one-late:1 --max-delay 20ms` = `one-late:20ms:1`.
//
//   none            a_i = 0
//   one-late[:k]    a_k = D, others 0 (k defaults to P−1, [M] §6.3)
//   rand-late       a_i ~ U[0, D] ([PA])
//   alternating     odd ranks D, even ranks 0 ([M] §6.2 even/odd)
//   linear          a_i = D·i/(P−1) (rank i, evenly spread; 0 at P = 1)
//   normal          a_i ~ N(D/2, (D/6)²) clamped to [0, D]
//   gamma[:k]       a_i ~ Gamma(shape k = 2, scale D/(4k)) (mean D/4),
//                   clamped to [0, D]
//   bernoulli[:p]   a_i = D with probability p (default 0.5), else 0
//   trace:FILE      line j of FILE is the PAP of measured iteration j:
//                   P non-negative numbers (seconds) separated by blanks or
//                   commas; blank lines and '#' comments are skipped. D is
//                   ignored. A trace with fewer PAPs than measured
//                   iterations is an error; warm-up iterations reuse the
//                   first lines (wrapping).
#pragma once

#include <cstdint>
#include <istream>
#include <random>
#include <string>
#include <vector>

namespace patcoll::bench {

enum class PatternKind { none, one_late, rand_late, alternating, linear, normal, gamma, bernoulli, trace };

struct PatternSpec {
  PatternKind kind = PatternKind::none;
  // The delay written in the pattern (NAME:DELAY[:ARG]); without one the
  // tool's --max-delay (0 when not given) is D.
  bool has_delay = false;
  double delay = 0;          // seconds
  double delay_rounds = -1;  // >= 0: DELAY was Nd, N round times (delay unset)
  int late_rank = -1;        // one-late: −1 means P−1
  double shape = 2.0;        // gamma
  double probability = 0.5;  // bernoulli
  std::string trace_file;    // trace
};

// Where a pattern's delay comes from: a separate flag (--max-delay; the
// pattern is NAME[:ARG]) or the pattern itself (NAME:DELAY[:ARG]).
enum class DelayIn { flag, pattern };

// Parses one pattern; returns "" or what is wrong (the same words in every
// tool; the caller prefixes the flag: "--pattern: ...").
std::string parse_pattern(const std::string &text, PatternSpec &out, DelayIn where = DelayIn::flag);

// The --pattern flag of every tool: NAME:DELAY[:ARG], or NAME[:ARG] when
// --max-delay was given (`max_delay_given`); a delay in both is an error.
std::string parse_pattern_flag(const std::string &text, bool max_delay_given, PatternSpec &out);

// D of a parsed pattern: its own delay, Nd resolved with `round_time`
// (error when the tool has none: round_time < 0), else `max_delay`.
std::string pattern_delay(const PatternSpec &spec, double max_delay, double round_time, double &out);

// The names, for messages and --help.
inline constexpr const char *kPatternNames =
    "none, one-late, rand-late, alternating, linear, normal, gamma, bernoulli, trace:FILE";

// Reads a trace (see above) of `procs` values per line; returns "" or
// "<name> line N: <problem>".
std::string parse_trace(std::istream &in, const std::string &name, int procs,
                        std::vector<std::vector<double>> &out);
std::string load_trace(const std::string &file, int procs, std::vector<std::vector<double>> &out);

// Checks a spec against the process count, iteration count and trace
// length ("" when fine).
std::string check_pattern(const PatternSpec &, int procs, int iterations, std::size_t trace_lines);

class PatternGenerator {
 public:
  // `trace` is used by PatternKind::trace only.
  PatternGenerator(PatternSpec spec, int procs, double max_delay, std::uint64_t seed,
                   std::vector<std::vector<double>> trace = {});

  // The next PAP. Generated patterns draw it from the seeded generator (so
  // the sequence depends on the seed and the call order only); a trace
  // returns line `trace_line` modulo the trace length.
  std::vector<double> next(long long trace_line = 0);

  // The largest imbalance the pattern can produce (D, or for a trace the
  // largest max−min of its lines).
  double max_delay() const;

 private:
  PatternSpec spec_;
  int procs_;
  double max_delay_;
  std::mt19937_64 rng_;
  std::vector<std::vector<double>> trace_;
};

}  // namespace patcoll::bench
