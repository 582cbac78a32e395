// patcoll-sim — evaluate the catalogue's algorithms in the α-β-γ model.
//
// Sweeps algorithms × P × message size × segmentation × PAP × (α, β, γ),
// builds every rank's Program exactly as the MPI library would, runs the
// discrete-event simulator (core/simulate.hpp) and prints one CSV row per
// case. With --timeline it draws one case as a Gantt chart (PNG, through
// tools/plot/plot_timeline.py). No MPI needed.
//
//   patcoll-sim --algorithms linear,binomial --procs 4:1024:x2 --bytes 1Mi
//   patcoll-sim --procs 8 --bytes 64Ki --pap one-late:1e-3 --timeline t.png
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <new>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "core/algorithm.hpp"
#include "cli.hpp"
#include "core/select.hpp"
#include "core/simulate.hpp"
#include "patterns.hpp"

using namespace patcoll::core;

namespace {

const char *kUsage = R"(usage: patcoll-sim [options]
Simulates the catalogue's algorithms in the Hockney α-β-γ model and prints CSV.
Lists are comma separated; a:b:xK is a geometric range, a:b:+K an arithmetic one.

  --collective C        reduce (default), allreduce, scatter, gather
  --algorithms LIST     algorithm names, or "all" (default: all of the collective);
                        reduce/allreduce also take "bound" (in "all"): the model's
                        limit, latest arrival + α + m(β+γ) (one transfer, one reduction);
                        "native": the best classic candidate of `auto` (what stands for
                        the MPI library's own); "auto": the library's `auto` on each PAP
                        of the list in turn (core/select.hpp, without measured feedback,
                        deciding on every PAP: period 1),
                        its choice in the last CSV column. Neither is in "all"
  --procs LIST          process counts P, 1 .. 2^20 (default 8)
  --bytes LIST          message size m in bytes; K/M/G = 2^10/2^20/2^30 (default 1M)
                        (scatter/gather: bytes per rank); count = bytes / element size
  --count LIST          message size in elements instead of --bytes
  --element-bytes N     size of one element (default 4)
  --segments LIST       segment count; 0 = the algorithm's default (default 0)
  --segment-bytes LIST  segment size in bytes instead of --segments
  --root N              root rank (default 0)
  --radix K1xK2x...     radix_k's radix vector, e.g. 4x4x8 (default: the algorithm's)
  --non-commutative     simulate with a non-commutative op
  --pap LIST            arrival patterns (default none), patcoll-bench's patterns
                        (tools/bench/patterns.hpp) with the delay D in the text:
                          none | one-late:D[:RANK] (RANK defaults to P-1)
                          | rand-late:D (uniform in [0,D], --seed)
                          | alternating:D (odd ranks late by D) | linear:D (rank i at i*D/(P-1))
                          | normal:D | gamma:D[:SHAPE] | bernoulli:D[:PROB]
                          | trace:FILE (one PAP per line, P values each, every line used)
                        D in seconds, or with a suffix: s, ms, us, ns, or "d" for
                        multiples of the round time α + B(β+γ) of the first segment size
  --seed N              seed for rand-late (default 1)
  --alpha LIST          α in s, > 0 (default 2.66e-6)
  --beta LIST           β in s/B, >= 0 (default 4.8179e-10)
  --gamma LIST          γ in s/B, >= 0 (default 1.6654e-10)
  --ports MODEL         full_duplex (default) or unidirectional
  --copy-cost S         seconds per byte of a local copy (default 0 = free)
  --no-overlap          combine after the step's wait (the IR's phase 4, the
                        papers' model) instead of each message as it arrives,
                        overlapping the step's other transfers (the default,
                        what the MPI executor does; --overlap says it explicitly)
  --clairvoyant-join R  end (default): a process joins a Clairvoyant round if it
                        arrives before the round ends ([PO]); start: only if it
                        arrived by the round's start (schedule time = upper bound)
  --output FILE         CSV to FILE instead of stdout
  --timeline FILE.png   Gantt chart of the (single) simulated case
  --timeline-csv FILE   the timeline as CSV (rank,step,activity,peer,start,end,bytes)
  --no-header           omit the CSV header
  --no-absorption       skip the balanced run behind the balanced_run_time and
                        absorption columns of PAP rows (they are then nan); by
                        default it runs on a second thread beside the PAP run
  --list                list the algorithms and exit
  --quiet               no progress lines on stderr (printed for sweeps over 1 s)
  --progress SECONDS    seconds between progress lines (default 1)
  --help, --version
Numbers follow tools/common/cli.hpp: malformed values, overflow and unknown
options are one line on stderr and exit code 2.
)";

[[noreturn]] void fail(const std::string &message) { patcoll::cli::die("patcoll-sim", message); }

// Numbers, sizes and lists: the tools' shared strict parser
// (tools/common/cli.hpp; K/M/G = 2^10/2^20/2^30 — before 0.1.0 patcoll-sim
// read 1M as 10^6).
double parse_double(const std::string &text) {
  double value = 0;
  if (const std::string e = patcoll::cli::parse_real(text, value); !e.empty()) fail(e);
  return value;
}

std::int64_t parse_int(const std::string &text) {
  std::int64_t value = 0;
  if (const std::string e = patcoll::cli::parse_size(text, value); !e.empty()) fail(e);
  return value;
}

std::vector<std::int64_t> size_list(const std::string &flag, const std::string &text, std::int64_t low,
                                    std::int64_t high) {
  std::vector<std::int64_t> values;
  if (const std::string e = patcoll::cli::parse_size_list(text, values, low, high); !e.empty()) fail(flag + ": " + e);
  return values;
}

std::vector<double> real_list(const std::string &flag, const std::string &text, bool positive) {
  std::vector<double> values;
  if (const std::string e = patcoll::cli::parse_real_list(text, values, 0.0, positive); !e.empty())
    fail(flag + ": " + e);
  return values;
}

using patcoll::cli::split;

// --pap KIND:D[:ARG]: the bench's patterns (tools/bench/patterns.hpp, the
// same parser, generator and trace reader) with the delay D given per
// pattern, so one sweep can cover several delays.
struct PapSpec {
  std::string text;   // as given, for the CSV
  std::string delay;  // raw delay text (units resolved per case)
  patcoll::bench::PatternSpec pattern;
};

PapSpec parse_pap(const std::string &text) {
  PapSpec spec;
  spec.text = text;
  const auto parts = split(text, ':');
  const std::string kind = parts[0];
  std::string bench_text = kind;
  if (kind == "trace") {
    bench_text = text;
  } else if (kind != "none") {
    if (parts.size() < 2 || parts[1].empty()) fail("PAP '" + text + "' needs a delay, e.g. " + kind + ":1ms");
    spec.delay = parts[1];
    for (std::size_t i = 2; i < parts.size(); ++i) bench_text += ":" + parts[i];
  }
  if (const std::string e = patcoll::bench::parse_pattern(bench_text, spec.pattern); !e.empty())
    fail("--pap: " + e + " (KIND:D[:ARG], D per pattern)");
  return spec;
}

// Seconds of `text` ("1e-3", "2ms", "3d" = 3 round times).
double parse_delay(const std::string &text, double round_time) {
  if (!text.empty() && text.back() == 'd') {
    double rounds = 0;
    if (const std::string e = patcoll::cli::parse_real(text.substr(0, text.size() - 1), rounds, 0.0); !e.empty())
      fail("bad delay '" + text + "'");
    return rounds * round_time;
  }
  double seconds = 0;
  if (const std::string e = patcoll::cli::parse_seconds(text, seconds); !e.empty()) fail(e);
  return seconds;
}

// The PAPs one spec stands for (every line of a trace).
std::vector<std::vector<double>> make_paps(const PapSpec &spec, int procs, double round_time, std::uint64_t seed) {
  using patcoll::bench::PatternKind;
  if (spec.pattern.kind == PatternKind::none) return {{}};
  std::vector<std::vector<double>> trace;
  if (spec.pattern.kind == PatternKind::trace) {
    if (const std::string e = patcoll::bench::load_trace(spec.pattern.trace_file, procs, trace); !e.empty()) fail(e);
    return trace;
  }
  if (const std::string e = patcoll::bench::check_pattern(spec.pattern, procs, 1, 0); !e.empty()) fail(e);
  patcoll::bench::PatternGenerator generator(spec.pattern, procs, parse_delay(spec.delay, round_time), seed);
  return {generator.next()};
}

std::string csv_escape(const std::string &text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string python_interpreter() {
  // Debian's python3 carries numpy/matplotlib; a pyenv shim may not.
  if (std::ifstream("/usr/bin/python3").good()) return "/usr/bin/python3";
  return "python3";
}

void write_timeline_csv(const std::string &path, const SimulateResult &result) {
  std::ofstream out(path);
  if (!out) fail("cannot write '" + path + "'");
  out << "rank,step,activity,peer,start,end,bytes\n";
  out.precision(17);
  for (const TimelineEntry &e : result.timeline)
    out << e.rank << ',' << e.step << ',' << to_string(e.activity) << ',' << e.peer << ',' << e.start << ','
        << e.end << ',' << e.bytes << '\n';
  for (std::size_t rank = 0; rank < result.arrival.size(); ++rank)
    out << rank << ",-1,arrival,-1," << result.arrival[rank] << ',' << result.exit[rank] << ",0\n";
}

// The balanced run of one case on its own thread (see the sweep loop);
// join() waits for it and rethrows what it threw (std::bad_alloc).
class BalancedRun {
 public:
  template <typename Run>
  void start(Run run) {
    thread_ = std::thread([this, run] {
      try {
        run();
      } catch (...) {
        error_ = std::current_exception();
      }
    });
  }
  void join() {
    if (thread_.joinable()) thread_.join();
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }
  ~BalancedRun() {
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::thread thread_;
  std::exception_ptr error_;
};

}  // namespace

int run(int argc, char **argv) {
  Collective collective = Collective::reduce;
  std::string algorithm_list = "all", procs_text = "8", bytes_text = "1Mi", count_text, segments_text = "0",
              segment_bytes_text, pap_text = "none", alpha_text, beta_text, gamma_text, output_path, timeline_png,
              timeline_csv;
  std::int64_t element_bytes = 4;
  int root = 0;
  std::vector<int> radix;
  bool commutative = true, header = true, list = false, quiet = false, absorption_column = true;
  double progress_interval = 1.0;
  std::uint64_t seed = 1;
  SimulateOptions options;
  ClairvoyantJoin clairvoyant_join = ClairvoyantJoin::before_round_end;
  const CostModel defaults;
  alpha_text = std::to_string(defaults.alpha);
  {
    std::ostringstream a, b, g;
    a.precision(17), b.precision(17), g.precision(17);
    a << defaults.alpha, b << defaults.beta, g << defaults.gamma;
    alpha_text = a.str(), beta_text = b.str(), gamma_text = g.str();
  }

  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) fail(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      return 0;
    } else if (arg == "--version") {
      std::cout << patcoll::cli::version_text("patcoll-sim");
      return 0;
    } else if (arg == "--quiet") {
      quiet = true;
    } else if (arg == "--progress") {
      progress_interval = parse_double(value());
      if (progress_interval < 0) fail("--progress must not be negative");
    } else if (arg == "--collective") {
      if (!parse_collective(value(), collective)) fail("unknown collective '" + std::string(argv[i]) + "'");
    } else if (arg == "--algorithms" || arg == "--algorithm") {
      algorithm_list = value();
    } else if (arg == "--procs") {
      procs_text = value();
    } else if (arg == "--bytes") {
      bytes_text = value();
      count_text.clear();
    } else if (arg == "--count") {
      count_text = value();
    } else if (arg == "--element-bytes") {
      element_bytes = parse_int(value());
      if (element_bytes <= 0 || element_bytes > (1 << 30)) fail("--element-bytes must be in 1 .. 2^30");
    } else if (arg == "--segments") {
      segments_text = value();
      segment_bytes_text.clear();
    } else if (arg == "--segment-bytes") {
      segment_bytes_text = value();
    } else if (arg == "--radix") {
      radix.clear();
      for (const std::string &k : split(value(), 'x')) {
        const std::int64_t radix_k = parse_int(k);
        if (radix_k < 2 || radix_k > 1024) fail("--radix: every factor must be in 2 .. 1024");
        radix.push_back(static_cast<int>(radix_k));
      }
    } else if (arg == "--root") {
      const std::int64_t r = parse_int(value());
      if (r >= patcoll::cli::kMaxProcs) fail("--root " + std::to_string(r) + " is above every allowed P");
      root = static_cast<int>(r);
    } else if (arg == "--non-commutative") {
      commutative = false;
    } else if (arg == "--pap") {
      pap_text = value();
    } else if (arg == "--seed") {
      seed = static_cast<std::uint64_t>(parse_int(value()));
    } else if (arg == "--alpha") {
      alpha_text = value();
    } else if (arg == "--beta") {
      beta_text = value();
    } else if (arg == "--gamma") {
      gamma_text = value();
    } else if (arg == "--ports") {
      if (!parse_port_model(value(), options.ports)) fail("unknown port model '" + std::string(argv[i]) + "'");
    } else if (arg == "--copy-cost") {
      options.copy_seconds_per_byte = parse_double(value());
      if (options.copy_seconds_per_byte < 0) fail("--copy-cost must not be negative");
    } else if (arg == "--overlap") {
      options.combine_on_arrival = true;
    } else if (arg == "--no-overlap") {
      options.combine_on_arrival = false;
    } else if (arg == "--clairvoyant-join") {
      if (!parse_clairvoyant_join(value(), clairvoyant_join))
        fail("unknown join rule '" + std::string(argv[i]) + "' (end, start)");
    } else if (arg == "--output" || arg == "-o") {
      output_path = value();
    } else if (arg == "--timeline") {
      timeline_png = value();
    } else if (arg == "--timeline-csv") {
      timeline_csv = value();
    } else if (arg == "--no-header") {
      header = false;
    } else if (arg == "--no-absorption") {
      absorption_column = false;
    } else if (arg == "--list") {
      list = true;
    } else {
      fail("unknown option '" + arg + "' (see --help)");
    }
  }

  if (list) {
    for (const Algorithm &a : algorithms())
      std::cout << to_string(a.collective) << ' ' << a.name << " [" << restrictions_to_string(a.restrictions)
                << "] " << a.description << '\n';
    return 0;
  }

  std::vector<const Algorithm *> selected;
  const bool bound_applies = collective == Collective::reduce || collective == Collective::allreduce;
  bool bound_row = false, native_row = false, auto_row = false;
  for (const std::string &name : split(algorithm_list, ',')) {
    if (name == "all") {
      for (const Algorithm &a : algorithms())
        if (a.collective == collective) selected.push_back(&a);
      bound_row = bound_row || bound_applies;
      continue;
    }
    if (name == "bound" && bound_applies) {
      bound_row = true;
      continue;
    }
    if (name == "native" || name == "auto") {
      (name == "native" ? native_row : auto_row) = true;
      continue;
    }
    const Algorithm *a = find_algorithm(collective, name);
    if (!a) fail("no " + std::string(to_string(collective)) + " algorithm named '" + name + "' (see --list)");
    selected.push_back(a);
  }
  if (selected.empty() && !bound_row && !native_row && !auto_row) fail("no algorithm selected");

  // P = 1 .. 2^20 (all ranks' Programs are built: more does not fit in memory).
  const auto procs_list = ::size_list("--procs", procs_text, 1, patcoll::cli::kMaxProcs);
  const bool by_count = !count_text.empty();
  const auto size_list = ::size_list(by_count ? "--count" : "--bytes", by_count ? count_text : bytes_text, 0,
                                     std::int64_t{1} << 40);
  const bool by_segment_bytes = !segment_bytes_text.empty();
  const auto segment_list = ::size_list(by_segment_bytes ? "--segment-bytes" : "--segments",
                                        by_segment_bytes ? segment_bytes_text : segments_text, 0,
                                        std::int64_t{1} << 40);
  std::vector<PapSpec> paps;
  for (const std::string &text : split(pap_text, ',')) paps.push_back(parse_pap(text));
  // α > 0 (every message costs something); β, γ >= 0 ([LL] uses γ = 0).
  const auto alphas = real_list("--alpha", alpha_text, true);
  const auto betas = real_list("--beta", beta_text, false);
  const auto gammas = real_list("--gamma", gamma_text, false);

  std::ofstream file;
  if (!output_path.empty()) {
    file.open(output_path);
    if (!file) fail("cannot write '" + output_path + "'");
  }
  std::ostream &out = output_path.empty() ? std::cout : file;
  out.precision(12);
  if (header)
    out << "collective,algorithm,procs,root,count,bytes,element_bytes,segments,segment_bytes,pap,pap_index,"
           "imbalance,alpha,beta,gamma,ports,run_time,average_elapsed,max_elapsed,balanced_run_time,absorption,"
           "normalized_absorption,messages,bytes_sent,build_seconds,simulate_seconds,error,choice\n";

  // One case's Params (everything but the arrivals).
  auto case_params = [&](std::int64_t procs, std::int64_t size, std::int64_t segmentation, double alpha, double beta,
                         double gamma) {
    Params params;
    params.collective = collective;
    params.procs = static_cast<int>(procs);
    params.root = root;
    params.count = by_count ? size : size / element_bytes;
    params.element_bytes = element_bytes;
    params.commutative = commutative;
    params.radix = radix;
    if (by_segment_bytes)
      params.segment_elements = std::max<std::int64_t>(1, segmentation / element_bytes);
    else
      params.segment_count = segmentation;
    params.cost = CostModel{alpha, beta, gamma};
    params.clairvoyant_join = clairvoyant_join;
    if (root < 0 || root >= procs) fail("root " + std::to_string(root) + " outside 0.." + std::to_string(procs - 1));
    return params;
  };

  std::optional<SimulateResult> last_result;
  std::string timeline_title;
  int cases = 0;
  // Progress on stderr for sweeps that take more than a second (--quiet: none).
  const std::int64_t total = static_cast<std::int64_t>(selected.size() * procs_list.size() * size_list.size() *
                                                       segment_list.size() * alphas.size() * betas.size() *
                                                       gammas.size() * paps.size());
  patcoll::cli::Progress progress("patcoll-sim", total, !quiet, progress_interval);
  std::int64_t done = 0;
  for (const Algorithm *algorithm : selected)
    for (std::int64_t procs : procs_list)
      for (std::int64_t size : size_list)
        for (std::int64_t segmentation : segment_list)
          for (double alpha : alphas)
            for (double beta : betas)
              for (double gamma : gammas)
                for (const PapSpec &pap_spec : paps) {
                  progress.step(done++);
                  Params params = case_params(procs, size, segmentation, alpha, beta, gamma);
                  const double message_bytes = static_cast<double>(params.count * element_bytes);
                  // "d" delays: the round time of one unsegmented message when no
                  // segmentation is fixed, else of one segment.
                  double segment_bytes = message_bytes;
                  if (params.segment_count > 0) segment_bytes = message_bytes / static_cast<double>(params.segment_count);
                  if (params.segment_elements > 0)
                    segment_bytes = static_cast<double>(std::min(params.segment_elements, params.count) * element_bytes);
                  const double round_time = params.cost.round_time(segment_bytes);

                  // The balanced run, for the absorption column (PAP-aware
                  // algorithms built without PATs). It does not depend on the
                  // PAP, so it runs on a second thread beside the PAP runs: the
                  // invocation's wall time is the longer of the two, not their
                  // sum (CPU time still adds). An algorithm that ignores arrivals
                  // (not pap_aware) has the same Programs for both runs: built
                  // once, simulated twice (a FlatPrograms is read-only there).
                  const auto time_now = [] { return std::chrono::steady_clock::now(); };
                  const auto seconds = [](auto from, auto to) { return std::chrono::duration<double>(to - from).count(); };
                  const std::string reason = unsupported_reason(*algorithm, params);
                  const bool pap_aware = (algorithm->restrictions & Restriction::pap_aware) != 0;
                  std::optional<FlatPrograms> shared;
                  double shared_build_seconds = 0;
                  if (reason.empty() && !pap_aware) {
                    const auto t0 = time_now();
                    shared = build_flat(*algorithm, params);
                    shared_build_seconds = seconds(t0, time_now());
                  }
                  double balanced = NAN;
                  BalancedRun balanced_run;
                  if (reason.empty() && absorption_column && pap_spec.pattern.kind != patcoll::bench::PatternKind::none)
                    balanced_run.start([&, balanced_params = params] {
                      const SimulateResult r = shared ? simulate(balanced_params, *shared, options)
                                                      : simulate(*algorithm, balanced_params, options);
                      if (r.error.empty()) balanced = r.run_time;
                    });
                  const auto pap_list = make_paps(pap_spec, params.procs, round_time, seed);
                  for (std::size_t pap_index = 0; pap_index < pap_list.size(); ++pap_index) {
                    params.arrivals = pap_list[pap_index];
                    SimulateResult result;
                    double build_seconds = 0, simulate_seconds = 0;
                    std::string error = unsupported_reason(*algorithm, params);
                    if (error.empty()) {
                      const auto t0 = time_now();
                      std::optional<FlatPrograms> own;
                      if (!shared) own = build_flat(*algorithm, params);
                      const FlatPrograms &programs = shared ? *shared : *own;
                      const auto t1 = time_now();
                      SimulateOptions case_options = options;
                      case_options.record_timeline = !timeline_png.empty() || !timeline_csv.empty();
                      result = simulate(params, programs, case_options);
                      const auto t2 = time_now();
                      build_seconds = shared ? shared_build_seconds : seconds(t0, t1), simulate_seconds = seconds(t1, t2);
                      error = result.error;
                    }
                    balanced_run.join();
                    if (pap_spec.pattern.kind == patcoll::bench::PatternKind::none && error.empty())
                      balanced = result.run_time;
                    const double imbalance_seconds = imbalance(params.arrivals);
                    const double absorbed = error.empty() ? absorption(balanced, result.run_time, imbalance_seconds) : NAN;
                    out << to_string(collective) << ',' << algorithm->name << ',' << procs << ',' << root << ','
                        << params.count << ',' << params.count * element_bytes << ',' << element_bytes << ','
                        << params.segment_count << ',' << (by_segment_bytes ? segmentation : 0) << ','
                        << csv_escape(pap_spec.text) << ',' << pap_index << ',' << imbalance_seconds << ',' << alpha
                        << ',' << beta << ',' << gamma << ',' << to_string(options.ports) << ','
                        << (error.empty() ? result.run_time : NAN) << ','
                        << (error.empty() ? result.average_elapsed : NAN) << ','
                        << (error.empty() ? result.max_elapsed : NAN) << ',' << balanced << ',' << absorbed << ','
                        << (balanced > 0 ? absorbed / balanced : NAN) << ',' << result.messages << ',' << result.bytes << ','
                        << build_seconds << ',' << simulate_seconds << ',' << csv_escape(error) << ",\n";
                    ++cases;
                    if (error.empty()) {
                      last_result = std::move(result);
                      timeline_title = std::string(to_string(collective)) + " " + std::string(algorithm->name) +
                                       ", P = " + std::to_string(procs) + ", m = " +
                                       std::to_string(params.count * element_bytes) + " B, PAP " + pap_spec.text +
                                       ", " + std::string(to_string(options.ports));
                    }
                  }
                }

  // The model's bound: nothing can finish before the latest arrival plus
  // one transfer of the message and one reduction of it (the issue's
  // "physical limit"; patcoll-bench measures the same row).
  for (std::int64_t procs : procs_list)
    for (std::int64_t size : size_list)
      for (double alpha : alphas)
        for (double beta : betas)
          for (double gamma : gammas)
            for (const PapSpec &pap_spec : paps) {
              if (!bound_row) break;
              const std::int64_t count = by_count ? size : size / element_bytes;
              const double after = alpha + static_cast<double>(count * element_bytes) * (beta + gamma);
              const double round_time = CostModel{alpha, beta, gamma}.round_time(static_cast<double>(count * element_bytes));
              const auto pap_list = make_paps(pap_spec, static_cast<int>(procs), round_time, seed);
              for (std::size_t pap_index = 0; pap_index < pap_list.size(); ++pap_index) {
                const auto &pap = pap_list[pap_index];
                const double last = pap.empty() ? 0 : *std::max_element(pap.begin(), pap.end());
                double waiting = 0;
                for (double a : pap) waiting += last - a;
                const double mean_wait = pap.empty() ? 0 : waiting / static_cast<double>(pap.size());
                const double imbalance_seconds = imbalance(pap);
                out << to_string(collective) << ",bound," << procs << ',' << root << ',' << count << ','
                    << count * element_bytes << ',' << element_bytes << ",0,0," << csv_escape(pap_spec.text) << ','
                    << pap_index << ',' << imbalance_seconds << ',' << alpha << ',' << beta << ',' << gamma << ','
                    << to_string(options.ports) << ',' << imbalance_seconds + after << ',' << mean_wait + after << ','
                    << imbalance_seconds + after << ',' << after << ",0,0,0,0,0,0,,\n";
              }
            }

  // native (the best classic candidate) and auto (the library's selector,
  // kept across the PAPs of a spec, as across the calls of a program).
  for (std::int64_t procs : procs_list)
    for (std::int64_t size : size_list)
      for (std::int64_t segmentation : segment_list)
        for (double alpha : alphas)
          for (double beta : betas)
            for (double gamma : gammas)
              for (const PapSpec &pap_spec : paps) {
                if (!native_row && !auto_row) break;
                Params params = case_params(procs, size, segmentation, alpha, beta, gamma);
                const double message_bytes = static_cast<double>(params.count * element_bytes);
                const auto pap_list = make_paps(pap_spec, params.procs, params.cost.round_time(message_bytes), seed);
                SelectOptions select_options;
                select_options.feedback = false;  // nothing measured here
                select_options.period = 1;        // every PAP of the list decided on (none deferred)
                Selector selector(select_options);
                for (std::size_t pap_index = 0; pap_index < pap_list.size(); ++pap_index) {
                  params.arrivals = pap_list[pap_index];
                  auto simulated = [&](std::string_view name) {
                    const Algorithm *a = find_algorithm(collective, name);
                    if (!a || !unsupported_reason(*a, params).empty()) return double(NAN);
                    const SimulateResult r = simulate(*a, params, options);
                    return r.error.empty() ? r.run_time : double(NAN);
                  };
                  auto native_time = [&] {  // the best classic candidate, as predict_candidates has it
                    double best = NAN;
                    for (std::string_view name : classic_candidates(params))
                      if (const double t = simulated(name); !std::isnan(t) && !(t >= best)) best = t;
                    return best;
                  };
                  std::vector<std::tuple<std::string, std::string, double>> rows;  // algorithm, choice, run time
                  if (native_row) rows.emplace_back("native", "", native_time());
                  if (auto_row) {
                    const Selection selection = selector.select(params);
                    double t = NAN;
                    for (const Prediction &p : selection.predictions)  // simulated on the quantised vector: again here
                      if (p.name == selection.name) t = p.name == native_name ? native_time() : simulated(p.name);
                    if (selection.predictions.empty())
                      t = selection.name == native_name ? native_time() : simulated(selection.name);
                    rows.emplace_back("auto", std::string(selection.name), t);
                  }
                  for (const auto &[name, choice, run_time] : rows) {
                    out << to_string(collective) << ',' << name << ',' << procs << ',' << root << ','
                        << params.count << ',' << params.count * element_bytes << ',' << element_bytes << ',' << params.segment_count << ','
                        << (by_segment_bytes ? segmentation : 0) << ',' << csv_escape(pap_spec.text) << ',' << pap_index
                        << ',' << imbalance(params.arrivals) << ',' << alpha << ',' << beta << ',' << gamma << ','
                        << to_string(options.ports) << ',' << run_time << ",nan,nan,nan,nan,nan,0,0,0,0,"
                        << (std::isnan(run_time) ? "no prediction" : "") << ',' << choice << '\n';
                  }
                }
              }

  progress.finish();
  if (!timeline_png.empty() || !timeline_csv.empty()) {
    if (cases != 1) fail("--timeline needs exactly one case; this sweep has " + std::to_string(cases));
    if (!last_result) fail("the case failed; no timeline");
    const std::string csv_path = timeline_csv.empty() ? timeline_png + ".csv" : timeline_csv;
    write_timeline_csv(csv_path, *last_result);
    if (!timeline_png.empty()) {
      const std::string command = python_interpreter() + " '" PATCOLL_SOURCE_DIR "/tools/plot/plot_timeline.py' '" +
                                  csv_path + "' '" + timeline_png + "' --title '" + timeline_title + "'";
      const int status = std::system(command.c_str());
      if (timeline_csv.empty()) std::remove(csv_path.c_str());
      if (status != 0) fail("plotting failed: " + command);
      std::cerr << "patcoll-sim: wrote " << timeline_png << "\n";
    }
  }
  return 0;
}

// A sweep too large for memory is one line and exit 1, not an abort.
int main(int argc, char **argv) {
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc &) {
    std::cerr << "patcoll-sim: out of memory (lower --procs, --bytes or --segments)\n";
    return 1;
  }
}
