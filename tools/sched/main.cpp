// patcoll-sched — print a schedule generator's schedule, or any catalogue
// builder's Programs, as a readable table or JSON. No MPI needed.
//
//   patcoll-sched clairvoyant --procs 4 --segments 4 --arrivals 0,0,0,0
//       --round-time 1 --root 0 --generator segtree --format json
//   patcoll-sched uni_greedy --procs 16 --segments 5 --alpha 2 --gamma 1 --segment-bytes 1
//   patcoll-sched program --coll reduce --alg clairvoyant --procs 4 --count 8 --root 0
// Bad input: one line on stderr, exit code 2.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <new>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/algorithm.hpp"
#include "core/generators/clairvoyant.hpp"
#include "core/generators/greedy.hpp"
#include "core/ir.hpp"
#include "cli.hpp"

using namespace patcoll::core;

namespace {

const char *kUsage = R"(usage:
  patcoll-sched clairvoyant --procs P --segments N [--round-time D] [--root R]
                [--generator linear|pairing|segtree] [ARRIVALS] [--format table|json]
  patcoll-sched uni_greedy|bi_greedy --procs P --segments N [--alpha A] [--beta B]
                [--gamma G] [--segment-bytes S] [--root R] [ARRIVALS] [--format table|json]
  patcoll-sched program --coll C --alg NAME --procs P --count C [--root R]
                [--segments N | --segment-elements E] [--element-bytes B]
                [--non-commutative] [ARRIVALS] [--format table|json]
ARRIVALS (seconds; default: all equal):
  --arrivals a0,a1,...      one value per process
  --arrivals-file FILE      one value per line
  --pattern uniform:SEED    uniform in [0, P + 0.1] ([PO] §5.7)
  --pattern one-late:DELAY  process P-1 arrives DELAY late
--help, --version. Numbers: tools/common/cli.hpp (strict; bad input: one line, exit 2).
Defaults: --segments 1, --round-time 1, --root 0, --generator segtree,
--alpha 1 --beta 0 --gamma 0 --segment-bytes 1, --format table.
)";

struct BadInput {
  std::string what;
};

[[noreturn]] void fail(const std::string &what) { throw BadInput{what}; }

// Numbers are read by the tools' shared strict parser (tools/common/cli.hpp).
double parse_double(const std::string &text, const std::string &option) {
  double v = 0;
  if (const std::string e = patcoll::cli::parse_real(text, v); !e.empty()) fail(option + ": " + e);
  return v;
}

long long parse_int(const std::string &text, const std::string &option) {
  std::int64_t v = 0;
  if (const std::string e = patcoll::cli::parse_integer(text, v); !e.empty()) fail(option + ": " + e);
  return v;
}

std::vector<double> parse_list(const std::string &text, const std::string &option) {
  std::vector<double> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) out.push_back(parse_double(item, option));
  return out;
}

struct Options {
  std::map<std::string, std::string> values;
  bool non_commutative = false;
  bool has(const std::string &k) const { return values.count(k) > 0; }
  std::string get(const std::string &k, const std::string &fallback) const {
    auto it = values.find(k);
    return it == values.end() ? fallback : it->second;
  }
};

Options parse_options(int argc, char **argv, int first, const std::vector<std::string> &allowed) {
  Options options;
  for (int i = first; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--non-commutative") {
      options.non_commutative = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0) fail("unexpected argument '" + arg + "'");
    std::string key = arg.substr(2), value;
    if (const auto eq = key.find('='); eq != std::string::npos) {
      value = key.substr(eq + 1), key = key.substr(0, eq);
    } else {
      if (i + 1 >= argc) fail(arg + " needs a value");
      value = argv[++i];
    }
    bool known = false;
    for (const std::string &a : allowed) known |= a == key;
    if (!known) fail("unknown option --" + key);
    options.values[key] = value;
  }
  return options;
}

// Arrival times from --arrivals / --arrivals-file / --pattern (empty: balanced).
std::vector<double> arrivals_from(const Options &options, int procs) {
  const int given = options.has("arrivals") + options.has("arrivals-file") + options.has("pattern");
  if (given > 1) fail("give at most one of --arrivals, --arrivals-file, --pattern");
  std::vector<double> out;
  if (options.has("arrivals")) out = parse_list(options.get("arrivals", ""), "--arrivals");
  if (options.has("arrivals-file")) {
    const std::string path = options.get("arrivals-file", "");
    std::ifstream file(path);
    if (!file) fail("--arrivals-file: cannot read " + path);
    std::string line;
    while (std::getline(file, line)) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      out.push_back(parse_double(line.substr(0, line.find_last_not_of(" \t\r") + 1), "--arrivals-file"));
    }
  }
  if (options.has("pattern")) {
    const std::string pattern = options.get("pattern", "");
    const auto colon = pattern.find(':');
    const std::string kind = pattern.substr(0, colon), arg = colon == std::string::npos ? "" : pattern.substr(colon + 1);
    if (kind == "uniform") {
      std::mt19937_64 rng(static_cast<unsigned long long>(parse_int(arg, "--pattern uniform:SEED")));
      std::uniform_real_distribution<double> dist(0.0, procs + 0.1);
      for (int p = 0; p < procs; ++p) out.push_back(dist(rng));
    } else if (kind == "one-late") {
      const double delay = parse_double(arg, "--pattern one-late:DELAY");
      if (delay < 0) fail("--pattern one-late: negative delay");
      out.assign(static_cast<std::size_t>(std::max(procs, 0)), 0.0);
      if (procs > 0) out.back() = delay;
    } else {
      fail("unknown pattern '" + pattern + "' (uniform:SEED or one-late:DELAY)");
    }
  }
  if (!out.empty() && out.size() != static_cast<std::size_t>(procs))
    fail("expected " + std::to_string(procs) + " arrival times, got " + std::to_string(out.size()));
  return out;
}

int checked_procs(const Options &options) {
  if (!options.has("procs")) fail("--procs is required");
  const long long procs = parse_int(options.get("procs", ""), "--procs");
  if (procs < 1 || procs > patcoll::cli::kMaxProcs)
    fail("--procs must be between 1 and " + std::to_string(patcoll::cli::kMaxProcs));
  return static_cast<int>(procs);
}

std::string checked_format(const Options &options) {
  const std::string format = options.get("format", "table");
  if (format != "table" && format != "json") fail("--format must be table or json");
  return format;
}

int run_clairvoyant(int argc, char **argv) {
  const Options options = parse_options(argc, argv, 2,
                                        {"procs", "segments", "round-time", "root", "generator", "arrivals",
                                         "arrivals-file", "pattern", "format"});
  ClairvoyantInput input;
  input.procs = checked_procs(options);
  const long long segments = parse_int(options.get("segments", "1"), "--segments");
  if (segments < 1 || segments > (1 << 24)) fail("--segments must be at least 1");
  input.segments = static_cast<int>(segments);
  input.round_time = parse_double(options.get("round-time", "1"), "--round-time");
  if (input.round_time <= 0) fail("--round-time must be positive");
  const long long root = parse_int(options.get("root", "0"), "--root");
  if (root < 0 || root >= input.procs) fail("--root out of range");
  input.root = static_cast<int>(root);
  input.arrivals = arrivals_from(options, input.procs);
  const std::string format = checked_format(options);
  const std::string generator = options.get("generator", "segtree");
  Schedule (*generate)(const ClairvoyantInput &) = nullptr;
  if (generator == "linear") generate = clairvoyant_linear;
  else if (generator == "pairing") generate = clairvoyant_pairing;
  else if (generator == "segtree") generate = clairvoyant_segtree;
  else fail("unknown generator '" + generator + "' (linear, pairing, segtree)");
  if (const std::string error = clairvoyant_input_error(input); !error.empty()) fail(error);
  const Schedule schedule = generate(input);
  std::cout << (format == "json" ? to_json(schedule) + "\n" : to_table(schedule));
  return 0;
}

int run_greedy(int argc, char **argv, bool bidirectional) {
  const Options options = parse_options(argc, argv, 2,
                                        {"procs", "segments", "alpha", "beta", "gamma", "segment-bytes", "root",
                                         "arrivals", "arrivals-file", "pattern", "format"});
  GreedyInput input;
  input.procs = checked_procs(options);
  const long long segments = parse_int(options.get("segments", "1"), "--segments");
  if (segments < 1 || segments > (1 << 24)) fail("--segments must be at least 1");
  input.segments = static_cast<int>(segments);
  input.alpha = parse_double(options.get("alpha", "1"), "--alpha");
  input.beta = parse_double(options.get("beta", "0"), "--beta");
  input.gamma = parse_double(options.get("gamma", "0"), "--gamma");
  input.segment_bytes = parse_double(options.get("segment-bytes", "1"), "--segment-bytes");
  const long long root = parse_int(options.get("root", "0"), "--root");
  if (root < 0 || root >= input.procs) fail("--root out of range");
  input.root = static_cast<int>(root);
  input.arrivals = arrivals_from(options, input.procs);
  const std::string format = checked_format(options);
  if (const std::string error = greedy_input_error(input); !error.empty()) fail(error);
  const Schedule schedule = bidirectional ? bi_greedy(input) : uni_greedy(input);
  std::cout << (format == "json" ? to_json(schedule, true) + "\n" : to_table(schedule));
  return 0;
}

int run_program(int argc, char **argv) {
  const Options options = parse_options(argc, argv, 2,
                                        {"coll", "alg", "procs", "count", "root", "segments", "segment-elements",
                                         "element-bytes", "arrivals", "arrivals-file", "pattern", "format"});
  Params params;
  if (!parse_collective(options.get("coll", "reduce"), params.collective))
    fail("unknown collective '" + options.get("coll", "") + "'");
  if (!options.has("alg")) fail("--alg is required");
  const Algorithm *algorithm = find_algorithm(params.collective, options.get("alg", ""));
  if (!algorithm) fail("unknown algorithm '" + options.get("alg", "") + "' for " + options.get("coll", "reduce"));
  params.procs = checked_procs(options);
  params.count = parse_int(options.get("count", "1"), "--count");
  if (params.count < 0) fail("--count must not be negative");
  const long long root = parse_int(options.get("root", "0"), "--root");
  if (root < 0 || root >= params.procs) fail("--root out of range");
  params.root = static_cast<int>(root);
  params.segment_count = parse_int(options.get("segments", "0"), "--segments");
  params.segment_elements = parse_int(options.get("segment-elements", "0"), "--segment-elements");
  params.element_bytes = parse_int(options.get("element-bytes", "4"), "--element-bytes");
  if (params.segment_count < 0 || params.segment_elements < 0 || params.element_bytes < 1)
    fail("--segments/--segment-elements must not be negative, --element-bytes positive");
  params.commutative = !options.non_commutative;
  params.arrivals = arrivals_from(options, params.procs);
  const std::string format = checked_format(options);
  if (const std::string reason = unsupported_reason(*algorithm, params); !reason.empty()) fail(reason);
  const std::vector<Program> programs = build_all(*algorithm, params);
  if (format == "json") {
    std::cout << to_json(programs) << "\n";
  } else {
    for (const Program &program : programs) std::cout << to_table(program) << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::cout << kUsage;
    return argc < 2 ? 2 : 0;
  }
  if (std::string(argv[1]) == "--version") {
    std::cout << patcoll::cli::version_text("patcoll-sched");
    return 0;
  }
  const std::string command = argv[1];
  try {
    if (command == "clairvoyant") return run_clairvoyant(argc, argv);
    if (command == "uni_greedy") return run_greedy(argc, argv, false);
    if (command == "bi_greedy") return run_greedy(argc, argv, true);
    if (command == "program") return run_program(argc, argv);
    fail("unknown command '" + command + "' (clairvoyant, uni_greedy, bi_greedy, program)");
  } catch (const BadInput &e) {
    std::cerr << "patcoll-sched: " << e.what << "\n";
    return 2;
  } catch (const std::bad_alloc &) {
    std::cerr << "patcoll-sched: out of memory for this schedule (lower --procs or --segments)\n";
    return 1;
  }
}
