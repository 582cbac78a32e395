// patcoll-sim — evaluate the catalogue's algorithms in the α-β-γ model.
//
// Sweeps collectives × algorithms × P × message size × segmentation ×
// pattern × (α, β, γ), builds every rank's Program exactly as the MPI
// library would, runs the discrete-event simulator (core/simulate.hpp) and
// prints one CSV row (or JSON line) per case. With --timeline it draws one
// case as a Gantt chart (PNG, through tools/plot/plot_timeline.py). No MPI
// needed. Flags follow the tools' convention (docs/guide/tools.md).
//
//   patcoll-sim --alg linear,binomial --procs 4:1024:x2 --size 1M
//   patcoll-sim --procs 8 --size 64K --pattern one-late:1ms --timeline t.png
//   patcoll-sim --model patcoll.model --coll reduce,allreduce --pattern rand-late:20ms
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
#include <utility>
#include <vector>

#include "cli.hpp"
#include "core/algorithm.hpp"
#include "core/bound.hpp"
#include "core/builders/bcast.hpp"
#include "core/builders/pap.hpp"
#include "core/builders/tree.hpp"
#include "core/generators/schedule.hpp"
#include "core/select.hpp"
#include "core/simulate.hpp"
#include "model.hpp"
#include "patterns.hpp"

using namespace patcoll::core;

namespace {

const char *kUsage = R"(usage: patcoll-sim [options]
Simulates the catalogue's algorithms in the Hockney α-β-γ model; one CSV row
(or JSON line) per case. Lists are comma separated; a:b:xK is a geometric
range, a:b:+K an arithmetic one. Older spellings in parentheses still work.

  --coll LIST           reduce (default), allreduce, scatter, gather, bcast,
                        allgather, allgatherv, alltoall, alltoallv, reduce_scatter_block,
                        reduce_scatter (--collective)
  --alg LIST            algorithm names, or "all" (default: all of each collective);
                        every collective with a bound also takes "bound" (in "all"): the model's
                        limit, latest arrival + α + m(β+γ) (one transfer, one reduction);
                        bcast: max over ranks of max(arrival, root's) + α + mβ;
                        allgather(v): docs/results/allgather.md;
                        alltoall(v): every rank's arrival + α + its P − 1 pairs' β;
                        reduce_scatter(_block): each rank's arrival + α + its sends'
                        ((P−1)/P of its vector) β (docs/results/reduce-scatter.md);
                        and "tight_bound" (in "all"): the proved limit over every group
                        of late ranks (allreduce: (P + k − 1)/P·m through a port after
                        the k latest arrive, and what the ranks that came less than a
                        transfer earlier still hold), under --ports; docs/results/bounds.md;
                        two more rows, not in "all" (--alg all,native,auto adds them):
                        "native", the fastest classic candidate of `auto` (the MPI
                        library's own, as the model sees it), and "auto", the
                        library's selector (core/select.hpp) deciding on each pattern
                        in turn (no measured feedback, no deferred decision), its
                        choice in the last column, choice (--algorithms, --algorithm)
  --procs LIST          process counts P, 1 .. 2^20 (default 8)
  --size LIST           message size m in bytes; K/M/G = 2^10/2^20/2^30 (default 1M)
                        (scatter/gather: bytes per rank; bcast: bytes); count = bytes / element size (--bytes)
  --count LIST          message size in elements instead of --size
  --element-bytes N     size of one element (default 4)
  --segments LIST       segment count; 0 = the algorithm's default (default 0); the
                        CSV's segments column is the N the algorithm used
  --segment-bytes LIST  segment size in bytes instead of --segments
  --root N              root rank (default 0)
  --radix K1xK2x...     radix_k's radix vector, e.g. 4x4x8 (default: the algorithm's)
  --non-commutative     simulate with a non-commutative op
  --pattern LIST        arrival patterns (default none): NAME[:DELAY[:ARG]]
                          none | one-late:D[:RANK] (RANK defaults to P-1)
                          | rand-late:D (uniform in [0,D], --seed)
                          | alternating:D (odd ranks late by D) | linear:D (rank i at i*D/(P-1))
                          | normal:D | gamma:D[:SHAPE] | bernoulli:D[:PROB]
                          | trace:FILE (one pattern per line, P values in seconds, every line used)
                        D a duration (20ms, 1.5s, 300us, 1e-3 = seconds) or Nd, N round
                        times α + B(β+γ) of the first segment size (--pap)
  --max-delay D         the delay of every pattern, given apart (then NAME[:ARG])
  --seed N              seed for the random patterns (default 1)
  --model FILE          α, β, γ from a cost-model file (patcoll-calibrate --out);
                        --alpha/--beta/--gamma override it
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
  --csv, --json         CSV with a header (default) or one JSON object per line;
                        times in seconds (columns *_s), sizes in bytes
  --out FILE            the records to FILE instead of stdout (--output, -o)
  --timeline FILE.png   Gantt chart of the (single) simulated case
  --timeline-csv FILE   the timeline as CSV (rank,step,activity,peer,start,end,bytes; s)
  --no-header           omit the CSV header
  --no-absorption       skip the balanced run behind the balanced_run_time_s and
                        absorption_s columns of pattern rows (they are then nan); by
                        default it runs on a second thread beside the pattern run
  --list                list the algorithms and exit
  --quiet               no progress lines on stderr (printed for sweeps over 1 s)
  --progress SECONDS    seconds between progress lines (default 1)
  --help, --version
Bad input (unknown options, malformed values, overflow): one line on stderr, exit 2.
)";

[[noreturn]] void fail(const std::string &message) { patcoll::cli::die("patcoll-sim", message); }

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

// One --pattern item: the shared pattern parser (tools/common/patterns.hpp),
// the delay per pattern, so one sweep can cover several delays.
struct PapSpec {
  std::string text;  // as given, for the records
  patcoll::bench::PatternSpec pattern;
};

// The patterns one spec stands for (every line of a trace).
std::vector<std::vector<double>> make_paps(const PapSpec &spec, int procs, double max_delay, double round_time,
                                           std::uint64_t seed) {
  using patcoll::bench::PatternKind;
  if (spec.pattern.kind == PatternKind::none) return {{}};
  std::vector<std::vector<double>> trace;
  if (spec.pattern.kind == PatternKind::trace) {
    if (const std::string e = patcoll::bench::load_trace(spec.pattern.trace_file, procs, trace); !e.empty())
      fail("--pattern: " + e);
    return trace;
  }
  if (const std::string e = patcoll::bench::check_pattern(spec.pattern, procs, 1, 0); !e.empty())
    fail("--pattern: " + e);
  double delay = 0;
  if (const std::string e = patcoll::bench::pattern_delay(spec.pattern, max_delay, round_time, delay); !e.empty())
    fail("--pattern: " + e);
  patcoll::bench::PatternGenerator generator(spec.pattern, procs, delay, seed);
  return {generator.next()};
}

// The segment count N the algorithm's builder uses for `params` (where the
// builders decide it): the schedule-based reduces schedule_segment_count
// (N_opt of [M] §5.2 unless fixed), the segmented trees and chains
// segments_for_bytes(kDefaultSegmentBytes), Clairvoyant allreduce its plan's
// fold segments (clairvoyant_fold_segments; 1 when nothing is folded),
// linear_sync/sls (and bsls) two per leaf; the clairvoyant bcast
// bcast_clairvoyant_segments; every other algorithm sends whole messages or blocks: 1.
std::int64_t segments_used(const Algorithm &algorithm, const Params &params) {
  const std::string_view name = algorithm.base.empty() ? algorithm.name : algorithm.base;  // background: its base
  if (algorithm.collective == Collective::reduce && (algorithm.capabilities & schedule_based))
    return schedule_segment_count(params);
  if ((algorithm.collective == Collective::reduce && (name == "chain" || name == "binary")) ||
      (algorithm.collective == Collective::allreduce && (name == "linear_tree" || name == "slt")))
    return segments_for_bytes(params, kDefaultSegmentBytes);
  if (algorithm.collective == Collective::allreduce && name == "clairvoyant") {
    const ClairvoyantAllreducePlan plan = plan_clairvoyant_allreduce(params);
    if (plan.folded == 0) return 1;
    if (plan.segments > 0) return std::min(plan.segments, std::max<std::int64_t>(1, params.count));
    return clairvoyant_fold_segments(params, params.procs - plan.folded);
  }
  if (algorithm.collective == Collective::bcast && (name == "chain" || name == "binary"))
    return segments_for_bytes(params, kDefaultSegmentBytes);
  if (algorithm.collective == Collective::bcast && name == "clairvoyant") return bcast_clairvoyant_segments(params);
  if (algorithm.collective == Collective::gather && (name == "linear_sync" || name == "sls"))
    return params.count > 1 ? 2 : 1;
  return 1;
}

// One record: CSV (the header once) or a JSON object per line, the same
// fields in the same order.
class Records {
 public:
  Records(std::ostream &out, bool json, bool header) : out_(out), json_(json), header_(header) {}
  Records &field(const char *key, const std::string &text) { return add(key, text, true); }
  Records &field(const char *key, double value) {
    std::ostringstream s;
    s.precision(12);
    s << value;
    return add(key, std::isfinite(value) ? s.str() : (json_ ? "null" : s.str()), false);
  }
  Records &field(const char *key, std::int64_t value) { return add(key, std::to_string(value), false); }
  void end() {
    if (!json_ && header_) {
      for (std::size_t i = 0; i < keys_.size(); ++i) out_ << (i ? "," : "") << keys_[i];
      out_ << '\n';
    }
    header_ = false;
    if (json_) out_ << '{';
    for (std::size_t i = 0; i < keys_.size(); ++i) {
      if (i) out_ << ',';
      if (json_) out_ << '"' << keys_[i] << "\":";
      out_ << values_[i];
    }
    out_ << (json_ ? "}\n" : "\n");
    keys_.clear(), values_.clear();
  }
  // The CSV header alone (a sweep without rows still names its columns).
  void header_only(const std::vector<const char *> &keys) {
    if (json_ || !header_) return;
    for (std::size_t i = 0; i < keys.size(); ++i) out_ << (i ? "," : "") << keys[i];
    out_ << '\n';
    header_ = false;
  }

 private:
  Records &add(const char *key, const std::string &text, bool quoted) {
    keys_.push_back(key);
    values_.push_back(quoted ? (json_ ? patcoll::cli::json_string(text) : csv_escape(text)) : text);
    return *this;
  }
  static std::string csv_escape(const std::string &text) {
    if (text.find_first_of(",\"\n") == std::string::npos) return text;
    std::string out = "\"";
    for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
  }
  std::ostream &out_;
  bool json_, header_;
  std::vector<const char *> keys_;
  std::vector<std::string> values_;
};

// One case's record. Units in the column names: _s seconds, _s_per_byte,
// bytes; segments is the N the algorithm used (segments_used).
struct Row {
  std::string collective, algorithm, pattern, ports, error, choice;  // choice: auto's (its rows only)
  std::int64_t procs = 0, root = 0, count = 0, bytes = 0, element_bytes = 0, segments = 0, segment_bytes = 0,
               pattern_index = 0, messages = 0, bytes_sent = 0;
  double imbalance = 0, alpha = 0, beta = 0, gamma = 0, run_time = 0, avg_elapsed = 0, max_elapsed = 0,
         balanced_run_time = 0, absorption = 0, normalized_absorption = 0, build = 0, simulate = 0;
};

const std::vector<const char *> kColumns = {
    "collective", "algorithm", "procs", "root", "count", "bytes", "element_bytes", "segments", "segment_bytes",
    "pattern", "pattern_index", "imbalance_s", "alpha_s", "beta_s_per_byte", "gamma_s_per_byte", "ports",
    "run_time_s", "avg_elapsed_s", "max_elapsed_s", "balanced_run_time_s", "absorption_s", "normalized_absorption",
    "messages", "bytes_sent", "build_s", "simulate_s", "error", "choice"};

void write_row(Records &records, const Row &r) {
  records.field(kColumns[0], r.collective).field(kColumns[1], r.algorithm).field(kColumns[2], r.procs)
      .field(kColumns[3], r.root).field(kColumns[4], r.count).field(kColumns[5], r.bytes)
      .field(kColumns[6], r.element_bytes).field(kColumns[7], r.segments).field(kColumns[8], r.segment_bytes)
      .field(kColumns[9], r.pattern).field(kColumns[10], r.pattern_index).field(kColumns[11], r.imbalance)
      .field(kColumns[12], r.alpha).field(kColumns[13], r.beta).field(kColumns[14], r.gamma)
      .field(kColumns[15], r.ports).field(kColumns[16], r.run_time).field(kColumns[17], r.avg_elapsed)
      .field(kColumns[18], r.max_elapsed).field(kColumns[19], r.balanced_run_time).field(kColumns[20], r.absorption)
      .field(kColumns[21], r.normalized_absorption).field(kColumns[22], r.messages).field(kColumns[23], r.bytes_sent)
      .field(kColumns[24], r.build).field(kColumns[25], r.simulate).field(kColumns[26], r.error)
      .field(kColumns[27], r.choice)
      .end();
}
std::string python_interpreter() {
  // Debian's python3 carries numpy/matplotlib; a pyenv shim may not.
  if (std::ifstream("/usr/bin/python3").good()) return "/usr/bin/python3";
  return "python3";
}

void write_timeline_csv(const std::string &path, const SimulateResult &result) {
  std::ofstream out(path);
  if (!out) fail("--timeline-csv: cannot write '" + path + "'");
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
  std::string collective_list = "reduce", algorithm_list = "all", procs_text = "8", bytes_text = "1Mi", count_text,
              segments_text = "0", segment_bytes_text, pap_text = "none", alpha_text, beta_text, gamma_text,
              output_path, timeline_png, timeline_csv, model_path;
  std::int64_t element_bytes = 4;
  int root = 0;
  std::vector<int> radix;
  bool commutative = true, header = true, list = false, quiet = false, absorption_column = true, json = false;
  bool alpha_given = false, beta_given = false, gamma_given = false, max_delay_given = false;
  double progress_interval = 1.0, max_delay = 0;
  std::string size_flag = "--size", pattern_flag = "--pattern";  // as typed, for messages
  std::uint64_t seed = 1;
  SimulateOptions options;
  ClairvoyantJoin clairvoyant_join = ClairvoyantJoin::before_round_end;

  namespace flags = patcoll::cli::flags;
  using patcoll::cli::Flag;
  patcoll::cli::Arguments args(
      "patcoll-sim", kUsage, argc, argv,
      {flags::coll, flags::alg, flags::procs, flags::size, flags::count, flags::pattern, flags::max_delay, flags::seed,
       flags::model, flags::root, flags::json, flags::csv, flags::out, flags::quiet, flags::list,
       Flag{"--element-bytes", "", true}, Flag{"--segments", "", true}, Flag{"--segment-bytes", "", true},
       Flag{"--radix", "", true}, Flag{"--non-commutative", "", false}, Flag{"--alpha", "", true},
       Flag{"--beta", "", true}, Flag{"--gamma", "", true}, Flag{"--ports", "", true}, Flag{"--copy-cost", "", true},
       Flag{"--overlap", "", false}, Flag{"--no-overlap", "", false}, Flag{"--clairvoyant-join", "", true},
       Flag{"--timeline", "", true}, Flag{"--timeline-csv", "", true}, Flag{"--no-header", "", false},
       Flag{"--no-absorption", "", false}, Flag{"--progress", "", true}});
  std::string flag;
  while (args.next(flag)) {
    if (flag == "--quiet") quiet = true;
    else if (flag == "--progress") progress_interval = args.real(0.0);
    else if (flag == "--coll") collective_list = args.value();
    else if (flag == "--alg") algorithm_list = args.value();
    else if (flag == "--procs") procs_text = args.value();
    else if (flag == "--size") bytes_text = args.value(), count_text.clear(), size_flag = args.spelled();
    else if (flag == "--count") count_text = args.value();
    else if (flag == "--element-bytes") element_bytes = args.size(1, 1 << 30);
    else if (flag == "--segments") segments_text = args.value(), segment_bytes_text.clear();
    else if (flag == "--segment-bytes") segment_bytes_text = args.value();
    else if (flag == "--radix") {
      radix.clear();
      for (const std::string &k : split(args.value(), 'x')) {
        std::int64_t factor = 0;
        if (!patcoll::cli::parse_integer(k, factor, 2, 1024).empty())
          args.fail_value("every factor must be an integer in 2 .. 1024");
        radix.push_back(static_cast<int>(factor));
      }
    } else if (flag == "--root") {
      root = static_cast<int>(args.integer(0, patcoll::cli::kMaxProcs - 1));
    } else if (flag == "--non-commutative") commutative = false;
    else if (flag == "--pattern") pap_text = args.value(), pattern_flag = args.spelled();
    else if (flag == "--max-delay") max_delay = args.seconds(), max_delay_given = true;
    else if (flag == "--seed") seed = static_cast<std::uint64_t>(args.integer(0, std::int64_t{1} << 62));
    else if (flag == "--model") model_path = args.value();
    else if (flag == "--alpha") alpha_text = args.value(), alpha_given = true;
    else if (flag == "--beta") beta_text = args.value(), beta_given = true;
    else if (flag == "--gamma") gamma_text = args.value(), gamma_given = true;
    else if (flag == "--ports") {
      const std::string v = args.value();
      if (!parse_port_model(v, options.ports)) args.fail_value("unknown port model '" + v + "' (full_duplex, unidirectional)");
    } else if (flag == "--copy-cost") options.copy_seconds_per_byte = args.real(0.0);
    else if (flag == "--overlap") options.combine_on_arrival = true;
    else if (flag == "--no-overlap") options.combine_on_arrival = false;
    else if (flag == "--clairvoyant-join") {
      const std::string v = args.value();
      if (!parse_clairvoyant_join(v, clairvoyant_join)) args.fail_value("unknown join rule '" + v + "' (end, start)");
    } else if (flag == "--out") output_path = args.value();
    else if (flag == "--json") json = true;
    else if (flag == "--csv") json = false;
    else if (flag == "--timeline") timeline_png = args.value();
    else if (flag == "--timeline-csv") timeline_csv = args.value();
    else if (flag == "--no-header") header = false;
    else if (flag == "--no-absorption") absorption_column = false;
    else if (flag == "--list") list = true;
  }

  if (list) {
    for (const Algorithm &a : algorithms())
      std::cout << to_string(a.collective) << ' ' << a.name << " [" << restrictions_to_string(a.restrictions)
                << "] [" << capabilities_to_string(a.capabilities) << "] [" << aliases_to_string(a) << "] "
                << a.description << '\n';
    return 0;
  }

  // The cost model: the built-in values, a --model file over them, explicit
  // --alpha/--beta/--gamma over both.
  CostModel model;
  if (!model_path.empty())
    if (const std::string e = patcoll::cli::load_model(model_path, model); !e.empty()) fail("--model: " + e);
  auto text_of = [](double v) {
    std::ostringstream s;
    s.precision(17);
    s << v;
    return s.str();
  };
  if (!alpha_given) alpha_text = text_of(model.alpha);
  if (!beta_given) beta_text = text_of(model.beta);
  if (!gamma_given) gamma_text = text_of(model.gamma);

  // (collective, algorithm) pairs; `bound` rows per collective.
  std::vector<Collective> collectives;
  for (const std::string &name : split(collective_list, ',')) {
    Collective c;
    if (!parse_collective(name, c)) fail("--coll: " + patcoll::cli::unknown_collective(name));
    collectives.push_back(c);
  }
  std::vector<const Algorithm *> selected;
  std::vector<Collective> bound_rows, tight_rows;
  bool native_row = false, auto_row = false;  // for every collective of --coll
  auto add_unique = [](auto &list, auto item) {
    if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
  };
  for (const std::string &name : split(algorithm_list, ',')) {
    if (name == "all") {
      for (Collective c : collectives) {
        for (const Algorithm &a : algorithms())
          if (a.collective == c) add_unique(selected, &a);
        if (has_bound(c)) add_unique(bound_rows, c), add_unique(tight_rows, c);
      }
    } else if (name == "native" || name == "auto") {
      (name == "native" ? native_row : auto_row) = true;
    } else {
      bool anywhere = false;
      for (Collective c : collectives) {
        if (name == "bound" && has_bound(c)) {
          add_unique(bound_rows, c), anywhere = true;
        } else if (name == "tight_bound" && has_bound(c)) {
          add_unique(tight_rows, c), anywhere = true;
        } else if (const Algorithm *a = find_algorithm(c, name)) {
          add_unique(selected, a), anywhere = true;
        }
      }
      if (!anywhere) fail("--alg: " + patcoll::cli::unknown_algorithm(name, collective_list));
    }
  }
  if (selected.empty() && bound_rows.empty() && tight_rows.empty() && !native_row && !auto_row)
    fail("--alg: no algorithm selected");

  // P = 1 .. 2^20 (all ranks' Programs are built: more does not fit in memory).
  std::vector<std::int64_t> procs_list;
  if (const std::string e = patcoll::cli::parse_procs(procs_text, procs_list); !e.empty()) fail("--procs: " + e);
  const bool by_count = !count_text.empty();
  const auto size_list = ::size_list(by_count ? "--count" : size_flag, by_count ? count_text : bytes_text, 0,
                                     std::int64_t{1} << 40);
  const bool by_segment_bytes = !segment_bytes_text.empty();
  const auto segment_list = ::size_list(by_segment_bytes ? "--segment-bytes" : "--segments",
                                        by_segment_bytes ? segment_bytes_text : segments_text, 0,
                                        std::int64_t{1} << 40);
  std::vector<PapSpec> paps;
  for (const std::string &text : split(pap_text, ',')) {
    PapSpec spec{text, {}};
    if (const std::string e = patcoll::bench::parse_pattern_flag(text, max_delay_given, spec.pattern); !e.empty())
      fail(pattern_flag + ": " + e);
    paps.push_back(std::move(spec));
  }
  for (std::int64_t procs : procs_list)
    if (const std::string e = patcoll::cli::root_problem(root, procs); !e.empty()) fail("--root: " + e);
  // α > 0 (every message costs something); β, γ >= 0 ([LL] uses γ = 0).
  const auto alphas = real_list("--alpha", alpha_text, true);
  const auto betas = real_list("--beta", beta_text, false);
  const auto gammas = real_list("--gamma", gamma_text, false);

  std::ofstream file;
  if (!output_path.empty()) {
    file.open(output_path);
    if (!file) fail("--out: cannot write '" + output_path + "'");
  }
  std::ostream &out = output_path.empty() ? std::cout : file;
  Records records(out, json, header);

  std::optional<SimulateResult> last_result;
  std::string timeline_title;
  int cases = 0;
  // Progress on stderr for sweeps that take more than a second (--quiet: none).
  std::vector<Collective> selector_collectives;  // the native and auto rows'
  if (native_row || auto_row)
    for (Collective c : collectives) add_unique(selector_collectives, c);
  const std::int64_t total = static_cast<std::int64_t>(
      (selected.size() + selector_collectives.size()) * procs_list.size() * size_list.size() * segment_list.size() *
      alphas.size() * betas.size() * gammas.size() * paps.size());
  patcoll::cli::Progress progress("patcoll-sim", total, !quiet, progress_interval);
  std::int64_t done = 0;
  // One case's Params, everything but the arrivals.
  auto case_params = [&](Collective collective, std::int64_t procs, std::int64_t size, std::int64_t segmentation,
                         double alpha, double beta, double gamma) {
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
    return params;
  };
  // "d" delays: the round time of one unsegmented message when no
  // segmentation is fixed, else of one segment.
  auto pattern_round_time = [&](const Params &params) {
    const double message_bytes = static_cast<double>(params.count * element_bytes);
    double segment_bytes = message_bytes;
    if (params.segment_count > 0) segment_bytes = message_bytes / static_cast<double>(params.segment_count);
    if (params.segment_elements > 0)
      segment_bytes = static_cast<double>(std::min(params.segment_elements, params.count) * element_bytes);
    return params.cost.round_time(segment_bytes);
  };
  // Every case of the sweep but the algorithm: P × size × segmentation ×
  // α × β × γ × pattern spec, in this order.
  auto for_each_case = [&](auto &&body) {
    for (std::int64_t procs : procs_list)
      for (std::int64_t size : size_list)
        for (std::int64_t segmentation : segment_list)
          for (double alpha : alphas)
            for (double beta : betas)
              for (double gamma : gammas)
                for (const PapSpec &pap_spec : paps) body(procs, size, segmentation, alpha, beta, gamma, pap_spec);
  };
  for (const Algorithm *algorithm : selected)
    for_each_case([&](std::int64_t procs, std::int64_t size, std::int64_t segmentation, double alpha, double beta,
                      double gamma, const PapSpec &pap_spec) {
      progress.step(done++);
      const Collective collective = algorithm->collective;
      Params params = case_params(collective, procs, size, segmentation, alpha, beta, gamma);
      const double round_time = pattern_round_time(params);

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
      const bool pap_aware = (algorithm->capabilities & Capability::pap_aware) || (algorithm->capabilities & Capability::reactive);
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
      const auto pap_list = make_paps(pap_spec, params.procs, max_delay, round_time, seed);
      for (std::size_t pap_index = 0; pap_index < pap_list.size(); ++pap_index) {
        params.arrivals = pap_list[pap_index];
        SimulateResult result;
        double build_seconds = 0, simulate_seconds = 0;
        std::string error = unsupported_reason(*algorithm, params);
        std::int64_t segments = 0;
        if (error.empty()) {
          segments = segments_used(*algorithm, params);
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
        Row row;
        row.collective = to_string(collective), row.algorithm = algorithm->name;
        row.procs = procs, row.root = root, row.count = params.count;
        row.bytes = params.count * element_bytes, row.element_bytes = element_bytes;
        row.segments = segments, row.segment_bytes = by_segment_bytes ? segmentation : 0;
        row.pattern = pap_spec.text, row.pattern_index = static_cast<std::int64_t>(pap_index);
        row.imbalance = imbalance_seconds, row.alpha = alpha, row.beta = beta, row.gamma = gamma;
        row.ports = to_string(options.ports);
        row.run_time = error.empty() ? result.run_time : NAN;
        row.avg_elapsed = error.empty() ? result.average_elapsed : NAN;
        row.max_elapsed = error.empty() ? result.max_elapsed : NAN;
        row.balanced_run_time = balanced, row.absorption = absorbed;
        row.normalized_absorption = balanced > 0 ? absorbed / balanced : NAN;
        row.messages = static_cast<std::int64_t>(result.messages);
        row.bytes_sent = static_cast<std::int64_t>(result.bytes);
        row.build = build_seconds, row.simulate = simulate_seconds, row.error = error;
        write_row(records, row);
        ++cases;
        if (error.empty()) {
          last_result = std::move(result);
          timeline_title = std::string(to_string(collective)) + " " + std::string(algorithm->name) +
                           ", P = " + std::to_string(procs) + ", m = " +
                           std::to_string(params.count * element_bytes) + " B, pattern " + pap_spec.text +
                           ", " + std::string(to_string(options.ports));
        }
      }
    });

  // The model's bound and tight bound (core/bound.hpp; for reduce and
  // allreduce `bound` is the latest arrival plus one transfer of the message
  // and one reduction of it, the "physical limit"; `tight_bound` the proved
  // limit over every group of late ranks, under this sweep's --ports;
  // patcoll-bench measures the same rows).
  for (const bool tight : {false, true})
  for (Collective collective : tight ? tight_rows : bound_rows)
    for (std::int64_t procs : procs_list)
      for (std::int64_t size : size_list)
        for (double alpha : alphas)
          for (double beta : betas)
            for (double gamma : gammas)
              for (const PapSpec &pap_spec : paps) {
                const std::int64_t count = by_count ? size : size / element_bytes;
                const CostModel cost{alpha, beta, gamma};
                const double round_time = cost.round_time(static_cast<double>(count * element_bytes));
                const auto pap_list = make_paps(pap_spec, static_cast<int>(procs), max_delay, round_time, seed);
                Params params;
                params.collective = collective, params.procs = static_cast<int>(procs), params.root = root;
                params.count = count, params.element_bytes = element_bytes, params.cost = cost;
                BoundCost bound_cost = BoundCost::model(cost);
                bound_cost.one_port = options.ports == PortModel::unidirectional;
                auto limit = [&](const Params &p) { return tight ? *tight_bound(p, bound_cost) : *bound(p, bound_cost); };
                const double balanced_run_time = limit(params).run_time;
                for (std::size_t pap_index = 0; pap_index < pap_list.size(); ++pap_index) {
                  params.arrivals = pap_list[pap_index];
                  const BoundTimes times = limit(params);
                  Row row;
                  row.collective = to_string(collective), row.algorithm = tight ? "tight_bound" : "bound";
                  row.procs = procs, row.root = root, row.count = count, row.bytes = count * element_bytes;
                  row.element_bytes = element_bytes, row.segments = 1;
                  row.pattern = pap_spec.text, row.pattern_index = static_cast<std::int64_t>(pap_index);
                  row.imbalance = imbalance(params.arrivals), row.alpha = alpha, row.beta = beta, row.gamma = gamma;
                  row.ports = to_string(options.ports);
                  row.run_time = times.run_time;
                  // bound: the run's end for every rank; tight_bound: the
                  // larger of the per-rank bounds and the run's end seen
                  // from the latest arrival.
                  row.max_elapsed = tight ? std::max(*std::max_element(times.elapsed.begin(), times.elapsed.end()),
                                                     times.run_time - imbalance(params.arrivals))
                                          : times.run_time;
                  row.avg_elapsed = times.average_elapsed, row.balanced_run_time = balanced_run_time;
                  write_row(records, row);
                }
              }

  // native: the best classic candidate of `auto` (core::classic_candidates,
  // as predict_candidates has it), standing for the MPI library's own.
  // auto: the library's selector on each pattern of a spec in turn, one
  // Selector per case, kept across the patterns of its spec as across the
  // calls of a program (hysteresis included); without measured feedback
  // (nothing is measured here) and deciding on every pattern (period 1).
  // It predicts with core's default simulator options, as the library
  // does; each row is its algorithm simulated with this sweep's options.
  for (Collective collective : selector_collectives)
    for_each_case([&](std::int64_t procs, std::int64_t size, std::int64_t segmentation, double alpha, double beta,
                      double gamma, const PapSpec &pap_spec) {
      progress.step(done++);
      Params params = case_params(collective, procs, size, segmentation, alpha, beta, gamma);
      const auto pap_list = make_paps(pap_spec, params.procs, max_delay, pattern_round_time(params), seed);
      SelectOptions select_options;
      select_options.feedback = false;
      select_options.period = 1;
      Selector selector(select_options);
      SimulateOptions case_options = options;
      case_options.record_timeline = !timeline_png.empty() || !timeline_csv.empty();
      // One algorithm on this pattern: its result, or the reason it has none.
      struct Run {
        const Algorithm *algorithm = nullptr;
        SimulateResult result;
        std::string error;
      };
      auto run_named = [&](std::string_view name) {
        Run r;
        r.algorithm = find_algorithm(collective, name);
        if (!r.algorithm) {
          r.error = "no " + std::string(to_string(collective)) + " algorithm '" + std::string(name) + "'";
          return r;
        }
        r.error = unsupported_reason(*r.algorithm, params);
        if (r.error.empty()) r.result = simulate(*r.algorithm, params, case_options), r.error = r.result.error;
        return r;
      };
      auto run_native = [&] {
        Run best;
        best.error = "no classic candidate can serve this case";
        for (std::string_view name : classic_candidates(params)) {
          Run r = run_named(name);
          if (r.error.empty() && (!best.error.empty() || r.result.run_time < best.result.run_time))
            best = std::move(r);
        }
        return best;
      };
      for (std::size_t pap_index = 0; pap_index < pap_list.size(); ++pap_index) {
        params.arrivals = pap_list[pap_index];
        for (const std::string_view row_name : {std::string_view("native"), std::string_view("auto")}) {
          if (!(row_name == "native" ? native_row : auto_row)) continue;
          std::string choice;
          if (row_name == "auto") choice = std::string(selector.select(params).name);
          Run r = row_name == "native" || choice == native_name ? run_native() : run_named(choice);
          const bool ok = r.error.empty();
          Row row;
          row.collective = to_string(collective), row.algorithm = std::string(row_name);
          row.choice = choice;
          row.procs = procs, row.root = root, row.count = params.count;
          row.bytes = params.count * element_bytes, row.element_bytes = element_bytes;
          row.segments = ok ? segments_used(*r.algorithm, params) : 0;
          row.segment_bytes = by_segment_bytes ? segmentation : 0;
          row.pattern = pap_spec.text, row.pattern_index = static_cast<std::int64_t>(pap_index);
          row.imbalance = imbalance(params.arrivals), row.alpha = alpha, row.beta = beta, row.gamma = gamma;
          row.ports = to_string(options.ports);
          row.run_time = ok ? r.result.run_time : NAN;
          row.avg_elapsed = ok ? r.result.average_elapsed : NAN;
          row.max_elapsed = ok ? r.result.max_elapsed : NAN;
          // Not measured for these rows: no balanced run, no build/simulate timing.
          row.balanced_run_time = row.absorption = row.normalized_absorption = NAN;
          row.build = row.simulate = NAN;
          row.messages = static_cast<std::int64_t>(r.result.messages);
          row.bytes_sent = static_cast<std::int64_t>(r.result.bytes);
          row.error = r.error;
          write_row(records, row);
          ++cases;
          if (ok) {
            timeline_title = std::string(to_string(collective)) + " " + std::string(row_name) + " (" +
                             std::string(r.algorithm->name) + "), P = " + std::to_string(procs) +
                             ", m = " + std::to_string(params.count * element_bytes) + " B, pattern " +
                             pap_spec.text + ", " + std::string(to_string(options.ports));
            last_result = std::move(r.result);
          }
        }
      }
    });
  records.header_only(kColumns);

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
    std::cerr << "patcoll-sim: out of memory (lower --procs, --size or --segments)\n";
    return 1;
  }
}
