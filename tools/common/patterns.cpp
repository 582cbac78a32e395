#include "patterns.hpp"

#include "cli.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace patcoll::bench {

namespace {

// A whole string as a finite number, or false.
bool parse_number(const std::string &text, double &out) {
  if (text.empty()) return false;
  char *end = nullptr;
  errno = 0;
  out = std::strtod(text.c_str(), &end);
  return errno == 0 && end == text.c_str() + text.size() && std::isfinite(out);
}

bool parse_int(const std::string &text, int &out) {
  double v;
  if (!parse_number(text, v) || v != std::floor(v) || v < -1e9 || v > 1e9) return false;
  out = static_cast<int>(v);
  return true;
}

// A DELAY: a duration (cli::parse_seconds: 20ms, 1.5s, 300us, 1e-3) or Nd.
std::string parse_delay(const std::string &text, const std::string &pattern, PatternSpec &out) {
  out.has_delay = true;
  if (text.size() > 1 && text.back() == 'd') {
    double rounds = 0;
    if (cli::parse_real(text.substr(0, text.size() - 1), rounds, 0.0).empty()) {
      out.delay_rounds = rounds;
      return {};
    }
  }
  if (cli::parse_seconds(text, out.delay).empty()) return {};
  return "bad delay '" + text + "' in '" + pattern + "' (a duration: 20ms, 1.5s, 300us; or Nd, N round times)";
}

// True when `text` reads as a delay with a unit (20ms, 2d): not a bare number.
bool has_unit(const std::string &text) {
  PatternSpec ignored;
  double plain = 0;
  return !text.empty() && std::isdigit(static_cast<unsigned char>(text[0])) && !parse_number(text, plain) &&
         parse_delay(text, text, ignored).empty();
}

}  // namespace

std::string parse_pattern(const std::string &text, PatternSpec &out, DelayIn where) {
  out = PatternSpec{};
  const auto colon = text.find(':');
  const std::string name = text.substr(0, colon);
  const bool has_params = colon != std::string::npos;
  std::string params = has_params ? text.substr(colon + 1) : std::string();
  if (name == "trace") {
    out.kind = PatternKind::trace;
    out.trace_file = params;
    if (params.empty()) return "pattern 'trace' needs a file (trace:FILE)";
    return {};
  }
  static const std::pair<const char *, PatternKind> kinds[] = {
      {"none", PatternKind::none},     {"one-late", PatternKind::one_late},       {"rand-late", PatternKind::rand_late},
      {"linear", PatternKind::linear}, {"alternating", PatternKind::alternating}, {"normal", PatternKind::normal},
      {"gamma", PatternKind::gamma},   {"bernoulli", PatternKind::bernoulli}};
  bool known = false;
  for (const auto &[n, kind] : kinds)
    if (name == n) out.kind = kind, known = true;
  if (!known) return "unknown pattern '" + text + "' (" + kPatternNames + ")";
  if (out.kind == PatternKind::none) {
    if (has_params) return "pattern 'none' takes no delay or argument";
    return {};
  }
  bool has_arg = has_params;
  if (where == DelayIn::pattern) {
    if (!has_params || params.empty())
      return "pattern '" + name + "' needs a delay: " + name + ":DELAY (e.g. " + name + ":20ms)";
    const auto next = params.find(':');
    if (std::string e = parse_delay(params.substr(0, next), text, out); !e.empty()) return e;
    has_arg = next != std::string::npos;
    params = has_arg ? params.substr(next + 1) : std::string();
  } else if (has_params && has_unit(params.substr(0, params.find(':')))) {
    return "delay given twice: in '" + text + "' and by --max-delay";
  }
  const std::string &arg = params;
  switch (out.kind) {
    case PatternKind::one_late:
      if (has_arg && (!parse_int(arg, out.late_rank) || out.late_rank < 0))
        return "bad rank in '" + text + "' (one-late:DELAY:RANK, RANK >= 0)";
      return {};
    case PatternKind::gamma:
      if (has_arg && (!parse_number(arg, out.shape) || !(out.shape > 0)))
        return "bad shape in '" + text + "' (gamma:DELAY:SHAPE, SHAPE > 0)";
      return {};
    case PatternKind::bernoulli:
      if (has_arg && (!parse_number(arg, out.probability) || out.probability < 0 || out.probability > 1))
        return "bad probability in '" + text + "' (bernoulli:DELAY:P, 0 <= P <= 1)";
      return {};
    default:
      if (has_arg) return "pattern '" + name + "' takes a delay and no argument";
      return {};
  }
}

std::string parse_pattern_flag(const std::string &text, bool max_delay_given, PatternSpec &out) {
  return parse_pattern(text, out, max_delay_given ? DelayIn::flag : DelayIn::pattern);
}

std::string pattern_delay(const PatternSpec &spec, double max_delay, double round_time, double &out) {
  if (spec.delay_rounds >= 0) {
    if (round_time < 0) return "round-time delays (Nd) need a cost model; give the delay as a duration (20ms)";
    out = spec.delay_rounds * round_time;
  } else {
    out = spec.has_delay ? spec.delay : max_delay;
  }
  return {};
}

std::string parse_trace(std::istream &in, const std::string &name, int procs,
                        std::vector<std::vector<double>> &out) {
  out.clear();
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::replace(line.begin(), line.end(), ',', ' ');
    std::istringstream fields(line);
    std::vector<double> pap;
    std::string field;
    while (fields >> field) {
      double v;
      if (!parse_number(field, v))
        return name + " line " + std::to_string(number) + ": '" + field + "' is not a number";
      if (v < 0) return name + " line " + std::to_string(number) + ": negative arrival time " + field;
      pap.push_back(v);
    }
    if (pap.empty()) continue;
    if (static_cast<int>(pap.size()) != procs)
      return name + " line " + std::to_string(number) + ": " + std::to_string(pap.size()) + " values, expected " +
             std::to_string(procs) + " (one per rank)";
    out.push_back(std::move(pap));
  }
  if (out.empty()) return name + ": no arrival patterns in the file";
  return {};
}

std::string load_trace(const std::string &file, int procs, std::vector<std::vector<double>> &out) {
  std::ifstream in(file);
  if (!in) return "cannot open trace file '" + file + "'";
  return parse_trace(in, "trace " + file, procs, out);
}

std::string check_pattern(const PatternSpec &spec, int procs, int iterations, std::size_t trace_lines) {
  if (spec.kind == PatternKind::one_late && spec.late_rank >= procs)
    return "one-late rank " + std::to_string(spec.late_rank) + " out of range (" + std::to_string(procs) +
           " processes)";
  if (spec.kind == PatternKind::trace && trace_lines < static_cast<std::size_t>(iterations))
    return "trace " + spec.trace_file + " has " + std::to_string(trace_lines) + " arrival patterns, fewer than --iters " +
           std::to_string(iterations);
  return {};
}

PatternGenerator::PatternGenerator(PatternSpec spec, int procs, double max_delay, std::uint64_t seed,
                                   std::vector<std::vector<double>> trace)
    : spec_(std::move(spec)), procs_(procs), max_delay_(max_delay), rng_(seed), trace_(std::move(trace)) {}

double PatternGenerator::max_delay() const {
  if (spec_.kind != PatternKind::trace) return max_delay_;
  double widest = 0;
  for (const auto &pap : trace_) {
    const auto [lo, hi] = std::minmax_element(pap.begin(), pap.end());
    widest = std::max(widest, *hi - *lo);
  }
  return widest;
}

std::vector<double> PatternGenerator::next(long long trace_line) {
  const double d = max_delay_;
  std::vector<double> a(static_cast<std::size_t>(procs_), 0.0);
  auto clamp = [d](double x) { return std::clamp(x, 0.0, d); };
  switch (spec_.kind) {
    case PatternKind::none: break;
    case PatternKind::one_late: {
      const int late = spec_.late_rank >= 0 ? spec_.late_rank : procs_ - 1;
      if (late < procs_) a[static_cast<std::size_t>(late)] = d;
      break;
    }
    case PatternKind::rand_late: {
      std::uniform_real_distribution<double> dist(0.0, d);
      for (double &x : a) x = d > 0 ? dist(rng_) : 0.0;
      break;
    }
    case PatternKind::alternating:
      for (std::size_t i = 1; i < a.size(); i += 2) a[i] = d;
      break;
    case PatternKind::linear:
      for (std::size_t i = 0; i < a.size(); ++i) a[i] = procs_ > 1 ? d * static_cast<double>(i) / (procs_ - 1) : 0.0;
      break;
    case PatternKind::normal: {
      std::normal_distribution<double> dist(d / 2, d / 6);
      for (double &x : a) x = d > 0 ? clamp(dist(rng_)) : 0.0;
      break;
    }
    case PatternKind::gamma: {
      std::gamma_distribution<double> dist(spec_.shape, d > 0 ? d / (4 * spec_.shape) : 1.0);
      for (double &x : a) x = d > 0 ? clamp(dist(rng_)) : 0.0;
      break;
    }
    case PatternKind::bernoulli: {
      std::bernoulli_distribution dist(spec_.probability);
      for (double &x : a) x = dist(rng_) ? d : 0.0;
      break;
    }
    case PatternKind::trace:
      if (!trace_.empty()) {
        const auto n = static_cast<long long>(trace_.size());
        a = trace_[static_cast<std::size_t>(((trace_line % n) + n) % n)];
      }
      break;
  }
  return a;
}

}  // namespace patcoll::bench
