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
#include "model.hpp"
#include "patterns.hpp"

using namespace patcoll::core;

namespace {

const char *kUsage = R"(usage:
  patcoll-sched clairvoyant --procs P --segments N [--round-time D] [--root R]
                [--generator linear|pairing|segtree] [ARRIVALS] [--json]
  patcoll-sched uni_greedy|bi_greedy --procs P --segments N [--alpha A] [--beta B]
                [--gamma G] [--model FILE] [--segment-bytes S] [--root R] [ARRIVALS] [--json]
  patcoll-sched program --coll C --alg NAME --procs P [--count N | --size BYTES] [--root R]
                [--segments N | --segment-elements E] [--element-bytes B] [--model FILE]
                [--non-commutative] [ARRIVALS] [--json]
ARRIVALS (seconds; default: all equal):
  --arrivals a0,a1,...      one value per process
  --arrivals-file FILE      one value per line
  --pattern NAME[:DELAY[:ARG]]  the tools' patterns: one-late:20ms (process P-1 late),
                            rand-late:1ms (--seed N), alternating, linear, normal, gamma,
                            bernoulli, trace:FILE (its first line); DELAY a duration
                            (20ms, 1.5s, 300us; a bare number is seconds) or Nd (N round
                            times); --max-delay D gives it apart (then NAME[:ARG])
  --pattern uniform:SEED    uniform in [0, P + 0.1] ([PO] §5.7)
Output: a table, JSON (--json) or CSV (--csv: one row per transfer or op; --format table|json|csv). --model FILE: α, β, γ from
a cost-model file (patcoll-calibrate --out); --alpha/--beta/--gamma override it.
Older spellings: --collective (--coll), --algorithm/--algorithms (--alg), --bytes (--size).
--help, --version. Bad input: one line on stderr, exit 2.
Defaults: --segments 1, --round-time 1, --root 0, --generator segtree,
--alpha 1 --beta 0 --gamma 0 --segment-bytes 1 (greedy), --format table.
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
  std::map<std::string, std::string> values;  // by flag name without "--"
  std::map<std::string, std::string> spelled;  // the flag as typed (an alias stays an alias in messages)
  std::string name(const std::string &k) const {
    auto it = spelled.find(k);
    return it == spelled.end() ? "--" + k : it->second;
  }
  bool non_commutative = false;
  bool has(const std::string &k) const { return values.count(k) > 0; }
  std::string get(const std::string &k, const std::string &fallback) const {
    auto it = values.find(k);
    return it == values.end() ? fallback : it->second;
  }
};

// The subcommand's flags (the shared table's where they exist, so aliases
// and errors are the other tools'); switches are stored as "1".
Options parse_options(int argc, char **argv, int first, const std::vector<patcoll::cli::Flag> &allowed) {
  namespace flags = patcoll::cli::flags;
  using patcoll::cli::Flag;
  std::vector<Flag> table = allowed;
  for (const Flag &f : {flags::pattern, flags::max_delay, flags::seed, flags::json, flags::csv, Flag{"--arrivals", "", true},
                        Flag{"--arrivals-file", "", true}, Flag{"--format", "", true}})
    table.push_back(f);
  patcoll::cli::Arguments args("patcoll-sched", kUsage, argc, argv, table, first);
  Options options;
  std::string flag;
  while (args.next(flag)) {
    if (flag == "--non-commutative") options.non_commutative = true;
    else if (flag == "--json") options.values["format"] = "json";
    else if (flag == "--csv") options.values["format"] = "csv";
    else options.values[flag.substr(2)] = args.value(), options.spelled[flag.substr(2)] = args.spelled();
  }
  return options;
}

// Arrival times from --arrivals / --arrivals-file / --pattern (empty: balanced).
// `round_time`: what Nd delays multiply (the schedule's round).
std::vector<double> arrivals_from(const Options &options, int procs, double round_time) {
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
    if (pattern.rfind("uniform:", 0) == 0) {  // [PO] §5.7, patcoll-sched's own
      std::mt19937_64 rng(static_cast<unsigned long long>(parse_int(pattern.substr(8), "--pattern")));
      std::uniform_real_distribution<double> dist(0.0, procs + 0.1);
      for (int p = 0; p < procs; ++p) out.push_back(dist(rng));
    } else {
      // The tools' shared patterns (tools/common/patterns.hpp).
      namespace pat = patcoll::bench;
      pat::PatternSpec spec;
      double max_delay = 0;
      if (options.has("max-delay"))
        if (const std::string e = patcoll::cli::parse_seconds(options.get("max-delay", ""), max_delay); !e.empty())
          fail("--max-delay: " + e);
      if (const std::string e = pat::parse_pattern_flag(pattern, options.has("max-delay"), spec); !e.empty())
        fail(options.name("pattern") + ": " + e);
      std::vector<std::vector<double>> trace;
      if (spec.kind == pat::PatternKind::trace)
        if (const std::string e = pat::load_trace(spec.trace_file, procs, trace); !e.empty()) fail("--pattern: " + e);
      if (const std::string e = pat::check_pattern(spec, procs, 1, trace.size()); !e.empty()) fail("--pattern: " + e);
      double delay = 0;
      if (const std::string e = pat::pattern_delay(spec, max_delay, round_time, delay); !e.empty())
        fail("--pattern: " + e);
      const long long seed = parse_int(options.get("seed", "1"), "--seed");
      if (seed < 0) fail("--seed: integer '" + options.get("seed", "") + "' is negative");
      pat::PatternGenerator generator(spec, procs, delay, static_cast<std::uint64_t>(seed), trace);
      out = generator.next();
    }
  }
  if (!out.empty() && out.size() != static_cast<std::size_t>(procs))
    fail("expected " + std::to_string(procs) + " arrival times, got " + std::to_string(out.size()));
  return out;
}

// --csv: one row per transfer of a schedule, one per op of a Program
// (sizes in elements, times in seconds or round units).
std::string schedule_csv(const Schedule &schedule) {
  std::ostringstream out;
  out.precision(12);
  out << "rank,direction,peer,round,segment,time_s\n";
  for (std::size_t rank = 0; rank < schedule.ranks.size(); ++rank) {
    for (const Transfer &t : schedule.ranks[rank].recv)
      out << rank << ",recv," << t.peer << ',' << t.round << ',' << t.segment << ',' << t.time << '\n';
    for (const Transfer &t : schedule.ranks[rank].send)
      out << rank << ",send," << t.peer << ',' << t.round << ',' << t.segment << ',' << t.time << '\n';
  }
  return out.str();
}

std::string programs_csv(const std::vector<Program> &programs) {
  std::ostringstream out;
  out << "rank,step,round,kind,combine,peer,src_buffer,src_offset_elements,src_count_elements,dst_buffer,"
         "dst_offset_elements,dst_count_elements\n";
  for (const Program &program : programs)
    for (std::size_t step = 0; step < program.steps.size(); ++step)
      for (const Op &op : program.steps[step].ops) {
        out << program.rank << ',' << step << ',' << program.steps[step].round << ',' << to_string(op.kind) << ','
            << to_string(op.combine) << ',' << op.peer << ',';
        if (op.kind == OpKind::recv) out << ",,,";
        else out << to_string(op.src.buffer) << ',' << op.src.offset << ',' << op.src.count << ',';
        if (op.kind == OpKind::send) out << ",,\n";
        else out << to_string(op.dst.buffer) << ',' << op.dst.offset << ',' << op.dst.count << '\n';
      }
  return out.str();
}

int checked_procs(const Options &options) {
  if (!options.has("procs")) fail("--procs is required");
  std::vector<std::int64_t> procs;
  if (const std::string e = patcoll::cli::parse_procs(options.get("procs", ""), procs, true); !e.empty())
    fail("--procs: " + e);
  return static_cast<int>(procs.front());
}

int checked_root(const Options &options, int procs) {
  const long long root = parse_int(options.get("root", "0"), "--root");
  if (const std::string e = patcoll::cli::root_problem(root, procs); !e.empty()) fail("--root: " + e);
  return static_cast<int>(root);
}

std::string checked_format(const Options &options) {
  const std::string format = options.get("format", "table");
  if (format != "table" && format != "json" && format != "csv")
    fail("--format: '" + format + "' is not table, json or csv");
  return format;
}

// --model FILE, then --alpha/--beta/--gamma over it.
CostModel checked_model(const Options &options, CostModel model) {
  if (options.has("model"))
    if (const std::string e = patcoll::cli::load_model(options.get("model", ""), model); !e.empty())
      fail("--model: " + e);
  if (options.has("alpha")) model.alpha = parse_double(options.get("alpha", ""), "--alpha");
  if (options.has("beta")) model.beta = parse_double(options.get("beta", ""), "--beta");
  if (options.has("gamma")) model.gamma = parse_double(options.get("gamma", ""), "--gamma");
  return model;
}

using patcoll::cli::Flag;
namespace flags = patcoll::cli::flags;

int run_clairvoyant(int argc, char **argv) {
  const Options options =
      parse_options(argc, argv, 2,
                    {flags::procs, flags::root, Flag{"--segments", "", true}, Flag{"--round-time", "", true},
                     Flag{"--generator", "", true}});
  ClairvoyantInput input;
  input.procs = checked_procs(options);
  const long long segments = parse_int(options.get("segments", "1"), "--segments");
  if (segments < 1 || segments > (1 << 24)) fail("--segments must be at least 1");
  input.segments = static_cast<int>(segments);
  input.round_time = parse_double(options.get("round-time", "1"), "--round-time");
  if (input.round_time <= 0) fail("--round-time must be positive");
  input.root = checked_root(options, input.procs);
  input.arrivals = arrivals_from(options, input.procs, input.round_time);
  const std::string format = checked_format(options);
  const std::string generator = options.get("generator", "segtree");
  Schedule (*generate)(const ClairvoyantInput &) = nullptr;
  if (generator == "linear") generate = clairvoyant_linear;
  else if (generator == "pairing") generate = clairvoyant_pairing;
  else if (generator == "segtree") generate = clairvoyant_segtree;
  else fail("unknown generator '" + generator + "' (linear, pairing, segtree)");
  if (const std::string error = clairvoyant_input_error(input); !error.empty()) fail(error);
  const Schedule schedule = generate(input);
  std::cout << (format == "json"  ? to_json(schedule) + "\n"
                : format == "csv" ? schedule_csv(schedule)
                                  : to_table(schedule));
  return 0;
}

int run_greedy(int argc, char **argv, bool bidirectional) {
  const Options options =
      parse_options(argc, argv, 2,
                    {flags::procs, flags::root, flags::model, Flag{"--segments", "", true}, Flag{"--alpha", "", true},
                     Flag{"--beta", "", true}, Flag{"--gamma", "", true}, Flag{"--segment-bytes", "", true}});
  GreedyInput input;
  input.procs = checked_procs(options);
  const long long segments = parse_int(options.get("segments", "1"), "--segments");
  if (segments < 1 || segments > (1 << 24)) fail("--segments must be at least 1");
  input.segments = static_cast<int>(segments);
  // Abstract units by default ([LL]: α = 1, β = γ = 0); a --model is seconds.
  const CostModel model = checked_model(options, CostModel{1, 0, 0});
  input.alpha = model.alpha, input.beta = model.beta, input.gamma = model.gamma;
  input.segment_bytes = parse_double(options.get("segment-bytes", "1"), "--segment-bytes");
  input.root = checked_root(options, input.procs);
  input.arrivals =
      arrivals_from(options, input.procs, input.alpha + input.segment_bytes * (input.beta + input.gamma));
  const std::string format = checked_format(options);
  if (const std::string error = greedy_input_error(input); !error.empty()) fail(error);
  const Schedule schedule = bidirectional ? bi_greedy(input) : uni_greedy(input);
  std::cout << (format == "json"  ? to_json(schedule, true) + "\n"
                : format == "csv" ? schedule_csv(schedule)
                                  : to_table(schedule));
  return 0;
}

int run_program(int argc, char **argv) {
  const Options options =
      parse_options(argc, argv, 2,
                    {flags::coll, flags::alg, flags::procs, flags::count,
                     flags::size, flags::root, flags::model, Flag{"--segments", "", true},
                     Flag{"--segment-elements", "", true}, Flag{"--element-bytes", "", true},
                     Flag{"--non-commutative", "", false}});
  Params params;
  const std::string coll = options.get("coll", "reduce");
  if (!parse_collective(coll, params.collective))
    fail(options.name("coll") + ": " + patcoll::cli::unknown_collective(coll));
  if (!options.has("alg")) fail("--alg is required");
  const Algorithm *algorithm = find_algorithm(params.collective, options.get("alg", ""));
  if (!algorithm) fail(options.name("alg") + ": " + patcoll::cli::unknown_algorithm(options.get("alg", ""), coll));
  params.procs = checked_procs(options);
  params.element_bytes = parse_int(options.get("element-bytes", "4"), "--element-bytes");
  if (params.element_bytes < 1) fail("--element-bytes must be positive");
  if (options.has("count") && options.has("size")) fail("give --count or --size, not both");
  std::int64_t amount = 1;
  const bool by_size = options.has("size");
  const std::string flag = options.name(by_size ? "size" : "count");
  if (const std::string e = patcoll::cli::parse_size(options.get(by_size ? "size" : "count", "1"), amount, 0,
                                                     std::int64_t{1} << 40);
      !e.empty())
    fail(flag + ": " + e);
  params.count = by_size ? amount / params.element_bytes : amount;
  params.root = checked_root(options, params.procs);
  params.segment_count = parse_int(options.get("segments", "0"), "--segments");
  params.segment_elements = parse_int(options.get("segment-elements", "0"), "--segment-elements");
  if (params.segment_count < 0 || params.segment_elements < 0)
    fail("--segments/--segment-elements must not be negative");
  params.commutative = !options.non_commutative;
  params.cost = checked_model(options, params.cost);
  params.arrivals = arrivals_from(options, params.procs,
                                  params.cost.round_time(static_cast<double>(params.count * params.element_bytes)));
  const std::string format = checked_format(options);
  if (const std::string reason = unsupported_reason(*algorithm, params); !reason.empty()) fail(reason);
  const std::vector<Program> programs = build_all(*algorithm, params);
  if (format == "json") {
    std::cout << to_json(programs) << "\n";
  } else if (format == "csv") {
    std::cout << programs_csv(programs);
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
