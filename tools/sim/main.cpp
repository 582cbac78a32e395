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
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/algorithm.hpp"
#include "core/simulate.hpp"

using namespace patcoll::core;

namespace {

const char *kUsage = R"(usage: patcoll-sim [options]
Simulates the catalogue's algorithms in the Hockney α-β-γ model and prints CSV.
Lists are comma separated; a:b:xK is a geometric range, a:b:+K an arithmetic one.

  --collective C        reduce (default), allreduce, scatter, gather
  --algorithms LIST     algorithm names, or "all" (default: all of the collective);
                        reduce/allreduce also take "bound" (in "all"): the model's
                        limit, latest arrival + α + m(β+γ) (one transfer, one reduction)
  --procs LIST          process counts P (default 8)
  --bytes LIST          message size m in bytes; suffixes K, M, Ki, Mi (default 1Mi)
                        (scatter/gather: bytes per rank); count = bytes / element size
  --count LIST          message size in elements instead of --bytes
  --element-bytes N     size of one element (default 4)
  --segments LIST       segment count; 0 = the algorithm's default (default 0)
  --segment-bytes LIST  segment size in bytes instead of --segments
  --root N              root rank (default 0)
  --radix K1xK2x...     radix_k's radix vector, e.g. 4x4x8 (default: the algorithm's)
  --non-commutative     simulate with a non-commutative op
  --pap LIST            arrival patterns (default none):
                          none | one-late:D[:RANK] (RANK defaults to P-1)
                          | rand-late:D (uniform in [0,D], --seed)
                          | alternating:D (odd ranks late by D) | linear:D (rank i at i*D/(P-1))
                          | trace:FILE (one PAP per line, P values)
                        D in seconds, or with a suffix: s, ms, us, ns, or "d" for
                        multiples of the round time α + B(β+γ) of the first segment size
  --seed N              seed for rand-late (default 1)
  --alpha LIST          α in s (default 2.66e-6)
  --beta LIST           β in s/B (default 4.8179e-10)
  --gamma LIST          γ in s/B (default 1.6654e-10)
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
  --list                list the algorithms and exit
)";

[[noreturn]] void fail(const std::string &message) {
  std::cerr << "patcoll-sim: " << message << "\n";
  std::exit(2);
}

double parse_double(const std::string &text) {
  char *end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0') fail("not a number: '" + text + "'");
  return value;
}

// 64Ki = 65536, 1M = 1e6, 1Mi = 2^20.
std::int64_t parse_size(const std::string &text) {
  std::size_t digits = 0;
  while (digits < text.size() && (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.'))
    ++digits;
  if (digits == 0) fail("not a size: '" + text + "'");
  const double value = parse_double(text.substr(0, digits));
  const std::string suffix = text.substr(digits);
  double scale = 1;
  if (suffix == "" || suffix == "B") scale = 1;
  else if (suffix == "K" || suffix == "k") scale = 1e3;
  else if (suffix == "M") scale = 1e6;
  else if (suffix == "G") scale = 1e9;
  else if (suffix == "Ki") scale = 1024.0;
  else if (suffix == "Mi") scale = 1024.0 * 1024;
  else if (suffix == "Gi") scale = 1024.0 * 1024 * 1024;
  else fail("unknown size suffix in '" + text + "'");
  return static_cast<std::int64_t>(std::llround(value * scale));
}

std::vector<std::string> split(const std::string &text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, separator)) parts.push_back(part);
  return parts;
}

// "4,8,16", "4:1024:x2", "1:10:+3"; values parsed by `parse`.
template <class T, class Parse>
std::vector<T> parse_list(const std::string &text, Parse parse) {
  std::vector<T> values;
  for (const std::string &item : split(text, ',')) {
    const auto range = split(item, ':');
    if (range.size() == 3 && (range[2][0] == 'x' || range[2][0] == '+')) {
      const T first = parse(range[0]), last = parse(range[1]);
      const double step = parse_double(range[2].substr(1));
      const bool geometric = range[2][0] == 'x';
      if ((geometric && step <= 1) || (!geometric && step <= 0)) fail("range step must grow: '" + item + "'");
      for (double v = static_cast<double>(first); v <= static_cast<double>(last) * (1 + 1e-12);
           v = geometric ? v * step : v + step)
        values.push_back(static_cast<T>(v));
    } else {
      values.push_back(parse(item));
    }
  }
  if (values.empty()) fail("empty list");
  return values;
}

std::int64_t parse_int(const std::string &text) { return parse_size(text); }

struct PapSpec {
  std::string text;  // as given, for the CSV
  std::string kind;  // none, one-late, rand-late, alternating, linear, trace
  std::string delay; // raw delay text (units resolved per case)
  int rank = -1;
  std::vector<std::vector<double>> trace;
};

PapSpec parse_pap(const std::string &text) {
  PapSpec spec;
  spec.text = text;
  const auto parts = split(text, ':');
  spec.kind = parts.empty() ? "none" : parts[0];
  if (spec.kind == "none") return spec;
  if (spec.kind == "trace") {
    if (parts.size() < 2) fail("trace needs a file: trace:FILE");
    std::ifstream in(text.substr(6));
    if (!in) fail("cannot read trace file '" + text.substr(6) + "'");
    std::string line;
    while (std::getline(in, line)) {
      std::stringstream values(line);
      std::vector<double> pap;
      double v;
      while (values >> v) {
        pap.push_back(v);
        if (values.peek() == ',') values.ignore();
      }
      if (!pap.empty()) spec.trace.push_back(pap);
    }
    if (spec.trace.empty()) fail("trace file '" + text.substr(6) + "' holds no PAP");
    return spec;
  }
  if (spec.kind != "one-late" && spec.kind != "rand-late" && spec.kind != "alternating" && spec.kind != "linear")
    fail("unknown PAP '" + text + "'");
  if (parts.size() < 2) fail("PAP '" + text + "' needs a delay, e.g. " + spec.kind + ":1ms");
  spec.delay = parts[1];
  if (parts.size() >= 3) spec.rank = static_cast<int>(parse_int(parts[2]));
  return spec;
}

// Seconds of `text` ("1e-3", "2ms", "3d" = 3 round times).
double parse_delay(const std::string &text, double round_time) {
  struct Unit {
    const char *suffix;
    double scale;
  };
  for (Unit unit : {Unit{"ms", 1e-3}, Unit{"us", 1e-6}, Unit{"ns", 1e-9}, Unit{"s", 1.0}}) {
    const std::string suffix = unit.suffix;
    if (text.size() > suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0)
      return parse_double(text.substr(0, text.size() - suffix.size())) * unit.scale;
  }
  if (!text.empty() && text.back() == 'd') return parse_double(text.substr(0, text.size() - 1)) * round_time;
  return parse_double(text);
}

// The PAPs one spec stands for (several for a trace).
std::vector<std::vector<double>> make_paps(const PapSpec &spec, int procs, double round_time, std::uint64_t seed) {
  if (spec.kind == "none") return {{}};
  if (spec.kind == "trace") {
    std::vector<std::vector<double>> paps;
    for (const auto &pap : spec.trace)
      if (static_cast<int>(pap.size()) == procs) paps.push_back(pap);
    if (paps.empty()) fail("trace holds no PAP with " + std::to_string(procs) + " values");
    return paps;
  }
  const double delay = parse_delay(spec.delay, round_time);
  std::vector<double> pap(static_cast<std::size_t>(procs), 0.0);
  if (spec.kind == "one-late") {
    const int late = spec.rank < 0 ? procs - 1 : spec.rank;
    if (late >= procs) fail("one-late rank " + std::to_string(late) + " >= P");
    pap[static_cast<std::size_t>(late)] = delay;
  } else if (spec.kind == "rand-late") {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> uniform(0.0, delay);
    for (double &a : pap) a = uniform(rng);
  } else if (spec.kind == "alternating") {
    for (int rank = 1; rank < procs; rank += 2) pap[static_cast<std::size_t>(rank)] = delay;
  } else if (spec.kind == "linear") {
    for (int rank = 0; rank < procs; ++rank)
      pap[static_cast<std::size_t>(rank)] = procs > 1 ? delay * rank / (procs - 1) : 0.0;
  }
  return {pap};
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

}  // namespace

int main(int argc, char **argv) {
  Collective collective = Collective::reduce;
  std::string algorithm_list = "all", procs_text = "8", bytes_text = "1Mi", count_text, segments_text = "0",
              segment_bytes_text, pap_text = "none", alpha_text, beta_text, gamma_text, output_path, timeline_png,
              timeline_csv;
  std::int64_t element_bytes = 4;
  int root = 0;
  std::vector<int> radix;
  bool commutative = true, header = true, list = false;
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
      if (element_bytes <= 0) fail("--element-bytes must be positive");
    } else if (arg == "--segments") {
      segments_text = value();
      segment_bytes_text.clear();
    } else if (arg == "--segment-bytes") {
      segment_bytes_text = value();
    } else if (arg == "--radix") {
      radix.clear();
      for (const std::string &k : split(value(), 'x')) radix.push_back(static_cast<int>(parse_int(k)));
    } else if (arg == "--root") {
      root = static_cast<int>(parse_int(value()));
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
  bool bound_row = false;
  if (algorithm_list == "all") {
    for (const Algorithm &a : algorithms())
      if (a.collective == collective) selected.push_back(&a);
    bound_row = bound_applies;
  } else {
    for (const std::string &name : split(algorithm_list, ',')) {
      if (name == "bound" && bound_applies) {
        bound_row = true;
        continue;
      }
      const Algorithm *a = find_algorithm(collective, name);
      if (!a) fail("no " + std::string(to_string(collective)) + " algorithm named '" + name + "' (see --list)");
      selected.push_back(a);
    }
  }
  if (selected.empty() && !bound_row) fail("no algorithm selected");

  const auto procs_list = parse_list<std::int64_t>(procs_text, parse_int);
  const bool by_count = !count_text.empty();
  const auto size_list = parse_list<std::int64_t>(by_count ? count_text : bytes_text, parse_int);
  const bool by_segment_bytes = !segment_bytes_text.empty();
  const auto segment_list =
      parse_list<std::int64_t>(by_segment_bytes ? segment_bytes_text : segments_text, parse_int);
  std::vector<PapSpec> paps;
  for (const std::string &text : split(pap_text, ',')) paps.push_back(parse_pap(text));
  const auto alphas = parse_list<double>(alpha_text, parse_double);
  const auto betas = parse_list<double>(beta_text, parse_double);
  const auto gammas = parse_list<double>(gamma_text, parse_double);

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
           "normalized_absorption,messages,bytes_sent,build_seconds,simulate_seconds,error\n";

  std::optional<SimulateResult> last_result;
  std::string timeline_title;
  int cases = 0;
  for (const Algorithm *algorithm : selected)
    for (std::int64_t procs : procs_list)
      for (std::int64_t size : size_list)
        for (std::int64_t segmentation : segment_list)
          for (double alpha : alphas)
            for (double beta : betas)
              for (double gamma : gammas)
                for (const PapSpec &pap_spec : paps) {
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
                  const double message_bytes = static_cast<double>(params.count * element_bytes);
                  // "d" delays: the round time of one unsegmented message when no
                  // segmentation is fixed, else of one segment.
                  double segment_bytes = message_bytes;
                  if (params.segment_count > 0) segment_bytes = message_bytes / static_cast<double>(params.segment_count);
                  if (params.segment_elements > 0)
                    segment_bytes = static_cast<double>(std::min(params.segment_elements, params.count) * element_bytes);
                  const double round_time = params.cost.round_time(segment_bytes);

                  // The balanced run, for absorption (PAP-aware algorithms built without PATs).
                  const auto time_now = [] { return std::chrono::steady_clock::now(); };
                  const auto seconds = [](auto from, auto to) { return std::chrono::duration<double>(to - from).count(); };
                  const std::string reason = unsupported_reason(*algorithm, params);
                  double balanced = NAN;
                  if (reason.empty() && pap_spec.kind != "none") {
                    const SimulateResult r = simulate(*algorithm, params, options);
                    if (r.error.empty()) balanced = r.run_time;
                  }
                  const auto pap_list = make_paps(pap_spec, params.procs, round_time, seed);
                  for (std::size_t pap_index = 0; pap_index < pap_list.size(); ++pap_index) {
                    params.arrivals = pap_list[pap_index];
                    SimulateResult result;
                    double build_seconds = 0, simulate_seconds = 0;
                    std::string error = unsupported_reason(*algorithm, params);
                    if (error.empty()) {
                      const auto t0 = time_now();
                      const auto programs = build_all(*algorithm, params);
                      const auto t1 = time_now();
                      SimulateOptions case_options = options;
                      case_options.record_timeline = !timeline_png.empty() || !timeline_csv.empty();
                      result = simulate(params, programs, case_options);
                      const auto t2 = time_now();
                      build_seconds = seconds(t0, t1), simulate_seconds = seconds(t1, t2);
                      error = result.error;
                    }
                    if (pap_spec.kind == "none" && error.empty()) balanced = result.run_time;
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
                        << absorbed / balanced << ',' << result.messages << ',' << result.bytes << ','
                        << build_seconds << ',' << simulate_seconds << ',' << csv_escape(error) << '\n';
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
                    << imbalance_seconds + after << ',' << after << ",0,0,0,0,0,0,\n";
              }
            }

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
