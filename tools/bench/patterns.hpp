// Arrival patterns of patcoll-bench and patcoll-sim (one parser, one
// generator, one trace reader for both), MPI-free: a PAP (one arrival delay
// per rank, seconds) per iteration, seeded and reproducible. D is
// --max-delay; every generated value lies in [0, D].
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
  int late_rank = -1;        // one-late: −1 means P−1
  double shape = 2.0;        // gamma
  double probability = 0.5;  // bernoulli
  std::string trace_file;    // trace
};

// Parses the --pattern argument; returns "" or what is wrong.
std::string parse_pattern(const std::string &text, PatternSpec &out);

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
