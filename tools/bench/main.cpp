// patcoll-bench — compares the registered algorithms of a collective with
// the MPI library's own (`native`) under a chosen arrival pattern, in one
// run, interleaved per iteration in a rotating order (A B C, B C A, …) so that
// machine drift and position in the iteration hit every algorithm alike. Definitions follow BENCHMARKS.md and docs/results/bench.md:
// every rank delays itself by its arrival time a_i, runs the collective and
// measures its own elapsed time e_i; the run time is
// r = max_i(a_i + e_i) − min(a) ([M] Algorithm 2) after a double barrier, or
// max_i(f_i) − min_i(entry_i) on a synchronised clock in window mode.
//
//   patcoll-bench --list
//   mpirun -np 8 patcoll-bench --coll reduce,allreduce --count 1M
//          --pattern one-late --max-delay 20ms --iters 20 --out r.jsonl
//
// Exit codes: 0 all results correct, 1 some result wrong, 2 bad input
// (one line on stderr from rank 0; every rank exits).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "core/bound.hpp"
#include "core/ir.hpp"
#include "core/json.hpp"
#include "mpi/registry.hpp"
#include "mpi/call.hpp"
#include "patcoll.h"
#include "pat_source.hpp"
#include "bound.hpp"
#include "core/traits.hpp"
#include "cli.hpp"
#include "model.hpp"
#include "patterns.hpp"
#include "stats.hpp"

namespace {

using patcoll::core::Collective;
namespace bench = patcoll::bench;
namespace core = patcoll::core;

const char *const kUsage =
    "usage: mpirun -np P patcoll-bench [--coll reduce|allreduce|scatter|gather|bcast|allgather|allgatherv|alltoall|alltoallv|\n"
    "  reduce_scatter_block|reduce_scatter[,...]]\n  [--alg all|NAME[,NAME...]]"
    "  [--size BYTES[,...] | --count N[,...]] [--dtype float|double|int|long] [--op sum|prod|max|min|band|bor|bxor]\n"
    "  [--root R] [--iters N] [--warmup N] [--pattern NAME[:DELAY[:ARG]]] [--max-delay D] [--seed N]\n"
    "  [--procs P] [--model FILE] [--delay sleep|busy] [--sync barrier|window] [--window D]\n"
    "  [--pat-source oracle|none|runtime|history] [--edge FRACTION (runtime source, default 0.5)]\n"
    "  [--history-window K (history source, default 5)] [--baseline NAME] [--out FILE] [--json | --csv]\n"
    "  [--no-check] [--quiet] [--allow-single-process] | --list | --help | --version\n"
    "Sizes: --size LIST (message size in bytes, OSU/IMB style; e.g. 4K:16M:x4) or --count LIST (elements);\n"
    "  K/M/G = 2^10/2^20/2^30, ranges a:b:xK or a:b:+K.\n"
    "Patterns: none, one-late:D[:RANK], rand-late:D, alternating:D, linear:D, normal:D, gamma:D[:SHAPE],\n"
    "  bernoulli:D[:P], trace:FILE (one line per measured call, P values in seconds); D a duration (20ms, 1.5s,\n"
    "  300us; a bare number is seconds). With --max-delay D the delay is given apart: one-late[:RANK].\n"
    "--procs P: refuse to run unless mpirun started P processes. --model FILE: the cost model (patcoll-calibrate\n"
    "  --out) PAP-aware algorithms and auto use. Output: a table (times in microseconds; e min/avg/max are\n"
    "  medians over iterations of the min/avg/max over ranks of each rank's elapsed time), or --csv (the same\n"
    "  rows as CSV) or --json (the JSON lines --out FILE writes, on stdout).\n"
    "Older spellings: --collective, --algorithms/--algorithm, --bytes, --pap, --output/-o.\n"
    "Without mpirun (one process) nothing can be compared: refused unless --allow-single-process.\n"
    "Bad input: one line on stderr from rank 0, exit 2.\n";

struct Options {
  std::vector<Collective> collectives{Collective::reduce, Collective::allreduce};
  std::vector<std::string> algorithms;  // empty: all
  std::vector<long long> counts{1 << 20};
  std::string dtype = "float";
  std::string op = "sum";
  int root = 0;
  int iterations = 10;
  int warmup = 2;
  std::string pattern_text = "none";
  bench::PatternSpec pattern;
  double max_delay = 0.0;
  unsigned long long seed = 1;
  bool busy = false;
  bool window = false;
  double window_size = 0;  // 0: automatic
  std::string pat_source = "oracle";
  double edge = 0.5;        // runtime source: PAT_Edge at this fraction of the emulated computation
  int history_window = 5;   // history source: iterations averaged
  std::string baseline = "native";
  std::string out;
  bool check = true;
  bool quiet = false;
  int procs = 0;            // --procs: must be the communicator's size (0: not given)
  std::string model;        // --model FILE: the cost model for PAP-aware and auto (PAT_Set_cost_model)
  std::string format;       // "json": the records on stdout; "csv": the summary as CSV; "": the table
  bool allow_single_process = false;  // compare even at P = 1 (no mpirun)
  std::vector<long long> bytes;       // --bytes: sizes in bytes (resolved into counts)
};

using patcoll::cli::split;

// ---- command line: the tools' shared flag table and parsers
// (tools/common/cli.hpp: the same names, aliases, suffixes and error words
// in every tool), in throwing mode: the verdict is said after MPI_Init,
// by rank 0 only ---------------------------------------------------------------

// --bytes (OSU/IMB style: message sizes in bytes, ranges a:b:xK) becomes
// element counts once --dtype is known; a size that is not a whole number
// of elements is refused.
std::string resolve_bytes(const std::vector<long long> &bytes, int element_size, std::vector<long long> &counts) {
  if (bytes.empty()) return {};
  counts.clear();
  for (long long b : bytes) {
    if (b % element_size != 0)
      return "--size: " + std::to_string(b) + " bytes is not a whole number of " + std::to_string(element_size) +
             "-byte elements";
    counts.push_back(b / element_size);
  }
  return {};
}

// Returns "" or the problem with the command line.
std::string parse(int argc, char **argv, Options &o, bool &list) {
  namespace flags = patcoll::cli::flags;
  using patcoll::cli::Flag;
  patcoll::cli::Arguments args(
      "patcoll-bench", kUsage, argc, argv,
      {flags::coll, flags::alg, flags::procs, flags::count, flags::size, flags::root, flags::pattern,
       flags::max_delay, flags::seed, flags::model, flags::out, flags::json, flags::csv, flags::quiet, flags::list,
       Flag{"--dtype", "", true}, Flag{"--op", "", true}, Flag{"--iters", "", true}, Flag{"--warmup", "", true},
       Flag{"--delay", "", true}, Flag{"--sync", "", true}, Flag{"--window", "", true},
       Flag{"--pat-source", "", true}, Flag{"--edge", "", true}, Flag{"--history-window", "", true},
       Flag{"--baseline", "", true}, Flag{"--no-check", "", false}, Flag{"--allow-single-process", "", false}});
  args.throw_on_error();
  bool max_delay_given = false;
  std::string pattern_flag = "--pattern";
  try {
    std::string flag;
    while (args.next(flag)) {
      if (flag == "--list") list = true;
      else if (flag == "--no-check") o.check = false;
      else if (flag == "--quiet") o.quiet = true;
      else if (flag == "--allow-single-process") o.allow_single_process = true;
      else if (flag == "--json") o.format = "json";
      else if (flag == "--csv") o.format = "csv";
      else if (flag == "--coll") {
        o.collectives.clear();
        for (const auto &c : split(args.value())) {
          Collective parsed;
          if (!patcoll::core::parse_collective(c, parsed)) args.fail_value(patcoll::cli::unknown_collective(c));
          o.collectives.push_back(parsed);
        }
      } else if (flag == "--alg") {
        const std::string value = args.value();
        o.algorithms.clear();
        if (value != "all") o.algorithms = split(value);
        for (const auto &a : o.algorithms)
          if (a.empty()) args.fail_value("empty algorithm name in '" + value + "'");
      } else if (flag == "--procs") {
        std::vector<std::int64_t> procs;
        if (std::string e = patcoll::cli::parse_procs(args.value(), procs, true); !e.empty()) args.fail_value(e);
        o.procs = static_cast<int>(procs.front());
      } else if (flag == "--count" || flag == "--size") {
        std::vector<std::int64_t> values;
        if (std::string e = patcoll::cli::parse_size_list(args.value(), values, 0, 0x7fffffff); !e.empty())
          args.fail_value(e);
        (flag == "--count" ? o.counts : o.bytes).assign(values.begin(), values.end());
        if (flag == "--count") o.bytes.clear();
      } else if (flag == "--dtype") {
        const std::string value = args.value();
        if (value != "float" && value != "double" && value != "int" && value != "long")
          args.fail_value("unknown datatype '" + value + "' (float, double, int, long)");
        o.dtype = value;
      } else if (flag == "--op") {
        const std::string value = args.value();
        if (value != "sum" && value != "prod" && value != "max" && value != "min" && value != "band" &&
            value != "bor" && value != "bxor")
          args.fail_value("unknown op '" + value + "' (sum, prod, max, min, band, bor, bxor)");
        o.op = value;
      } else if (flag == "--root") {
        o.root = static_cast<int>(args.integer(0, 1 << 30));
      } else if (flag == "--iters") {
        o.iterations = static_cast<int>(args.integer(1, 1 << 30));
      } else if (flag == "--warmup") {
        o.warmup = static_cast<int>(args.integer(0, 1 << 30));
      } else if (flag == "--pattern") {
        o.pattern_text = args.value();
        pattern_flag = args.spelled();
      } else if (flag == "--max-delay") {
        o.max_delay = args.seconds();
        max_delay_given = true;
      } else if (flag == "--seed") {
        o.seed = static_cast<unsigned long long>(args.integer(0, std::int64_t{1} << 62));
      } else if (flag == "--model") {
        o.model = args.value();
      } else if (flag == "--delay") {
        const std::string value = args.value();
        if (value != "sleep" && value != "busy") args.fail_value("unknown delay '" + value + "' (sleep, busy)");
        o.busy = value == "busy";
      } else if (flag == "--sync") {
        const std::string value = args.value();
        if (value != "barrier" && value != "window") args.fail_value("unknown sync '" + value + "' (barrier, window)");
        o.window = value == "window";
      } else if (flag == "--window") {
        o.window_size = args.seconds();
        if (!(o.window_size > 0)) args.fail_value("the window must be positive");
      } else if (flag == "--pat-source") {
        const std::string value = args.value();
        bench::PatSourceKind kind;
        if (!bench::parse_pat_source(value, kind))
          args.fail_value("unknown PAT source '" + value + "' (oracle, none, runtime, history)");
        o.pat_source = value;
      } else if (flag == "--edge") {
        const std::string value = args.value();
        if (!patcoll::cli::parse_real(value, o.edge).empty() || !(o.edge > 0 && o.edge <= 1))
          args.fail_value("bad edge '" + value + "' (a fraction in (0, 1])");
      } else if (flag == "--history-window") {
        o.history_window = static_cast<int>(args.integer(1, 1000));
      } else if (flag == "--baseline") {
        o.baseline = args.value();
      } else if (flag == "--out") {
        o.out = args.value();
      }
    }
  } catch (const patcoll::cli::BadArguments &bad) {
    return bad.message;
  }
  if (std::string e = bench::parse_pattern_flag(o.pattern_text, max_delay_given, o.pattern); !e.empty())
    return pattern_flag + ": " + e;
  if (std::string e = bench::pattern_delay(o.pattern, o.max_delay, -1, o.max_delay); !e.empty())
    return pattern_flag + ": " + e;
  if ((o.op == "band" || o.op == "bor" || o.op == "bxor") && (o.dtype == "float" || o.dtype == "double"))
    return "--op: " + o.op + " needs an integer --dtype (int, long)";
  const int element_size = o.dtype == "double" ? 8 : o.dtype == "long" ? static_cast<int>(sizeof(long)) : 4;
  return resolve_bytes(o.bytes, element_size, o.counts);
}

// "reduce,allreduce": the chosen collectives, for messages.
std::string collective_names(const Options &o) {
  std::string names;
  for (Collective c : o.collectives) names += (names.empty() ? "" : ",") + std::string(patcoll::core::to_string(c));
  return names;
}

// ---- data -----------------------------------------------------------------

struct Type {
  MPI_Datatype mpi;
  int size;
  bool floating;
};

Type type_of(const std::string &name) {
  if (name == "double") return {MPI_DOUBLE, 8, true};
  if (name == "int") return {MPI_INT, 4, false};
  if (name == "long") return {MPI_LONG, static_cast<int>(sizeof(long)), false};
  return {MPI_FLOAT, 4, true};
}

MPI_Op op_of(const std::string &name) {
  if (name == "prod") return MPI_PROD;
  if (name == "max") return MPI_MAX;
  if (name == "min") return MPI_MIN;
  if (name == "band") return MPI_BAND;
  if (name == "bor") return MPI_BOR;
  if (name == "bxor") return MPI_BXOR;
  return MPI_SUM;
}

// Small integers: sums exact in every type; products of 1s and 2s.
template <class T>
void fill_typed(T *data, std::size_t n, int rank, bool product) {
  for (std::size_t i = 0; i < n; ++i)
    data[i] = product ? static_cast<T>((rank < 20 && (rank + i) % 3 == 0) ? 2 : 1)
                      : static_cast<T>((static_cast<std::size_t>(rank) * 7 + i * 3) % 11);
}

// The data buffers come from malloc: compiled with smpicxx (SimGrid SMPI)
// that is SMPI's, so scripts/smpi.sh --shared-malloc can back large buffers
// of all simulated ranks with one physical copy (P = 1024, docs/results/smpi.md);
// elsewhere it is plain malloc.
template <class T>
struct MallocAllocator {
  using value_type = T;
  MallocAllocator() = default;
  template <class U>
  MallocAllocator(const MallocAllocator<U> &) {}
  T *allocate(std::size_t n) {
    void *memory = malloc(n * sizeof(T));
    if (!memory) throw std::bad_alloc();
    return static_cast<T *>(memory);
  }
  void deallocate(T *memory, std::size_t) { free(memory); }
  friend bool operator==(const MallocAllocator &, const MallocAllocator &) { return true; }
};
using Bytes = std::vector<unsigned char, MallocAllocator<unsigned char>>;

void fill(const Type &t, Bytes &buffer, int rank, bool product) {
  const std::size_t n = buffer.size() / static_cast<std::size_t>(t.size);
  if (t.mpi == MPI_DOUBLE) fill_typed(reinterpret_cast<double *>(buffer.data()), n, rank, product);
  else if (t.mpi == MPI_INT) fill_typed(reinterpret_cast<int *>(buffer.data()), n, rank, product);
  else if (t.mpi == MPI_LONG) fill_typed(reinterpret_cast<long *>(buffer.data()), n, rank, product);
  else fill_typed(reinterpret_cast<float *>(buffer.data()), n, rank, product);
}

template <class T>
bool same_typed(const T *got, const T *want, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      const T tolerance = static_cast<T>(1e-5) * std::max(static_cast<T>(1), std::fabs(want[i]));
      if (!(std::fabs(got[i] - want[i]) <= tolerance)) return false;
    } else if (got[i] != want[i]) {
      return false;
    }
  }
  return true;
}

// Exact for integers, relative tolerance for floating point.
bool same(const Type &t, const unsigned char *got, const unsigned char *want, std::size_t n) {
  if (t.mpi == MPI_DOUBLE) return same_typed(reinterpret_cast<const double *>(got), reinterpret_cast<const double *>(want), n);
  if (t.mpi == MPI_INT) return same_typed(reinterpret_cast<const int *>(got), reinterpret_cast<const int *>(want), n);
  if (t.mpi == MPI_LONG) return same_typed(reinterpret_cast<const long *>(got), reinterpret_cast<const long *>(want), n);
  return same_typed(reinterpret_cast<const float *>(got), reinterpret_cast<const float *>(want), n);
}

// Any collective by algorithm name: every rank passes `count` elements
// (per rank for scatter/gather), through the C API's one call path.
int run_collective(Collective c, const std::string &algorithm, const void *send, void *recv, int count,
                   const Type &t, MPI_Op op, int root) {
  return patcoll::mpi::blocking_call(
      patcoll::mpi::uniform_call(c, send, recv, count, t.mpi, op, root, MPI_COMM_WORLD), algorithm.c_str(),
      __builtin_return_address(0), patcoll::mpi::Caller::api);
}

// ---- time -----------------------------------------------------------------

// MPI_Wtime on rank 0's clock: offset estimated by ping-pong (the sample
// with the smallest round trip wins, SKaMPI/ReproMPI style); drift is
// ignored, the clocks are re-synchronised for every (collective, count).
struct Clock {
  double offset = 0;  // local − rank 0
  double now() const { return MPI_Wtime() - offset; }

  void synchronise(int rank, int procs) {
    constexpr int kRounds = 20;
    offset = 0;
    for (int peer = 1; peer < procs; ++peer) {
      if (rank == 0) {
        double best_rtt = 1e30, best_offset = 0;
        for (int k = 0; k < kRounds; ++k) {
          double remote = 0;
          const double sent = MPI_Wtime();
          MPI_Send(&sent, 1, MPI_DOUBLE, peer, 77, MPI_COMM_WORLD);
          MPI_Recv(&remote, 1, MPI_DOUBLE, peer, 78, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          const double received = MPI_Wtime();
          if (received - sent < best_rtt) {
            best_rtt = received - sent;
            best_offset = remote - 0.5 * (sent + received);
          }
        }
        MPI_Send(&best_offset, 1, MPI_DOUBLE, peer, 79, MPI_COMM_WORLD);
      } else if (rank == peer) {
        for (int k = 0; k < kRounds; ++k) {
          double sent = 0;
          MPI_Recv(&sent, 1, MPI_DOUBLE, 0, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          const double mine = MPI_Wtime();
          MPI_Send(&mine, 1, MPI_DOUBLE, 0, 78, MPI_COMM_WORLD);
        }
        MPI_Recv(&offset, 1, MPI_DOUBLE, 0, 79, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
    }
  }
};

void wait_until(const Clock &clock, double target, bool busy) {
  if (!busy) {
    const double left = target - clock.now();
    if (left > 2e-4) std::this_thread::sleep_for(std::chrono::duration<double>(left - 1e-4));
  }
  // Oversubscribed ranks must not spin each other off the cores.
  while (clock.now() < target)
    if (!busy) std::this_thread::yield();
}

// The PAT vector the library holds after a call: the runtime's newest
// exchange, or what the source set (empty: none).
std::vector<double> held_pats(const bench::PatSource &source, int procs) {
  if (source.kind() != bench::PatSourceKind::runtime) return source.current();
  std::vector<double> pats(static_cast<std::size_t>(procs));
  if (PAT_Get_arrivals(pats.data()) != MPI_SUCCESS) pats.clear();
  return pats;
}

// ---- output ---------------------------------------------------------------

using patcoll::cli::json_string;

std::string json_list(const double *values, int n) {
  std::string out = "[";
  char buf[32];
  for (int i = 0; i < n; ++i) {
    std::snprintf(buf, sizeof buf, "%s%.9g", i ? "," : "", values[i]);
    out += buf;
  }
  return out + "]";
}

std::string human_bytes(double bytes) {
  char buf[32];
  if (bytes >= 1024.0 * 1024) std::snprintf(buf, sizeof buf, "%.3g MiB", bytes / (1024.0 * 1024));
  else if (bytes >= 1024) std::snprintf(buf, sizeof buf, "%.3g KiB", bytes / 1024);
  else std::snprintf(buf, sizeof buf, "%.0f B", bytes);
  return buf;
}

// Per (algorithm, iteration) values each rank records, gathered at the end.
enum Field { kElapsed, kOk, kEntry, kExit, kMissed, kFields };

struct Series {
  std::string name;
  bool skipped = false;
  std::string reason;
  std::vector<double> run_time, avg_elapsed;  // valid measured iterations
  std::vector<double> min_elapsed, max_elapsed;  // over ranks, per valid iteration
  std::string note;  // printed instead of ok/WRONG (the bound row)
  int dropped = 0;
  bool correct = true;
};

// The summary table of one (collective, size): OSU/IMB conventions where
// users expect them (size in bytes with the element count beside it, times
// in microseconds, min/avg/max over ranks) and the statistics of
// BENCHMARKS.md (median run time r with its bootstrap 95% CI, ratio of
// medians to the baseline, permutation-test p-value, repetitions).
void print_summary(const Options &options, Collective c, int count, const Type &type, int procs, double max_delay,
                   double window, const std::vector<Series> &series) {
  const bool movement = !patcoll::core::traits(c).combines;  // counts per rank
  const bool pairs = c == Collective::alltoall || c == Collective::alltoallv;
  const std::string cname(patcoll::core::to_string(c));
  const Series *base = nullptr;
  for (const Series &s : series)
    if (s.name == options.baseline && !s.skipped && !s.run_time.empty()) base = &s;
  const double base_median = base ? bench::median(base->run_time) : 0;
  const std::string root_text = !patcoll::core::traits(c).rooted ? "" : ", root " + std::to_string(options.root);
  const long long bytes = static_cast<long long>(count) * type.size;
  if (options.format == "csv") {  // the table's rows as CSV, units in the header
    static bool header = true;
    if (header)
      std::printf("collective,algorithm,procs,bytes,count,dtype,pattern,max_delay_us,reps,median_run_time_us,"
                  "ci_low_us,ci_high_us,min_elapsed_us,avg_elapsed_us,max_elapsed_us,ratio_to_baseline,baseline,p,"
                  "result\n");
    header = false;
    for (const Series &s : series) {
      std::printf("%s,%s,%d,%lld,%d,%s,%s,%.6g,%zu,", cname.c_str(), s.name.c_str(), procs, bytes, count,
                  options.dtype.c_str(), options.pattern_text.c_str(), max_delay * 1e6, s.run_time.size());
      if (s.skipped || s.run_time.empty()) {
        std::printf(",,,,,,,%s,,%s\n", options.baseline.c_str(), s.skipped ? "skipped" : "no valid repetitions");
        continue;
      }
      const double m = bench::median(s.run_time);
      const auto ci = bench::bootstrap_median_ci(s.run_time, 0.95, 2000, options.seed);
      std::printf("%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,", m * 1e6, ci.low * 1e6, ci.high * 1e6,
                  bench::median(s.min_elapsed) * 1e6, bench::median(s.avg_elapsed) * 1e6,
                  bench::median(s.max_elapsed) * 1e6);
      if (base && base_median > 0) std::printf("%.4f", m / base_median);
      std::printf(",%s,", options.baseline.c_str());
      if (base && base_median > 0 && &s != base)
        std::printf("%.4f", bench::permutation_test_median_ratio(s.run_time, base->run_time, 10000, options.seed));
      std::printf(",%s\n", !s.note.empty() ? s.name.c_str() : !s.correct ? "WRONG" : options.check ? "ok" : "unchecked");
    }
    return;
  }
  std::printf("\n%s, %lld bytes = %d x %s (%s)%s%s%s, %d ranks; pattern %s, max delay %.6g us; sync %s, delay %s, "
              "PAT %s; %d iterations (+%d warm-up)\n",
              cname.c_str(), bytes, count, options.dtype.c_str(), human_bytes(static_cast<double>(bytes)).c_str(),
              pairs ? " per pair" : movement ? " per rank" : "", movement ? "" : (", " + options.op).c_str(), root_text.c_str(), procs,
              options.pattern_text.c_str(), max_delay * 1e6, options.window ? "window" : "barrier",
              options.busy ? "busy" : "sleep", options.pat_source.c_str(), options.iterations, options.warmup);
  if (!options.check) std::printf("results not checked against native (--no-check)\n");
  if (options.window) std::printf("window %.6g us per measurement\n", window * 1e6);
  std::printf("%12s %10s %-20s %5s %14s %27s %32s %9s %8s  %s\n", "size [B]", "count", "algorithm", "reps",
              "median r [us]", "95% CI of median r [us]", "e min / avg / max [us]",
              ("/" + options.baseline).substr(0, 9).c_str(), "p", "result");
  for (const Series &s : series) {
    if (s.skipped) {
      std::printf("%12lld %10d %-20s skipped: %s\n", bytes, count, s.name.c_str(), s.reason.c_str());
      continue;
    }
    char ratio[32] = "-", p[32] = "-", reps[16];
    std::snprintf(reps, sizeof reps, "%zu", s.run_time.size());
    const std::string dropped = s.dropped ? " (" + std::to_string(s.dropped) + " missed windows dropped)" : "";
    if (s.run_time.empty()) {
      std::printf("%12lld %10d %-20s %5s  no valid repetitions%s\n", bytes, count, s.name.c_str(), reps,
                  dropped.c_str());
      continue;
    }
    const double m = bench::median(s.run_time);
    const auto ci = bench::bootstrap_median_ci(s.run_time, 0.95, 2000, options.seed);
    if (base && base_median > 0) {
      std::snprintf(ratio, sizeof ratio, "%.3f", m / base_median);
      if (&s != base)
        std::snprintf(p, sizeof p, "%.4f",
                      bench::permutation_test_median_ratio(s.run_time, base->run_time, 10000, options.seed));
    }
    char elapsed[64];
    std::snprintf(elapsed, sizeof elapsed, "%.1f / %.1f / %.1f", bench::median(s.min_elapsed) * 1e6,
                  bench::median(s.avg_elapsed) * 1e6, bench::median(s.max_elapsed) * 1e6);
    std::printf("%12lld %10d %-20s %5s %14.1f  [%11.1f, %11.1f] %32s %9s %8s  %s%s\n", bytes, count, s.name.c_str(),
                reps, m * 1e6, ci.low * 1e6, ci.high * 1e6, elapsed, ratio, p,
                !s.note.empty() ? s.note.c_str() : !s.correct ? "WRONG" : options.check ? "ok" : "unchecked",
                dropped.c_str());
  }
}

}  // namespace

int main(int argc, char **argv) {
  Options options;
  bool list = false;
  const std::string error = parse(argc, argv, options, list);
  if (list && error.empty()) {  // no MPI needed
    std::fputs(patcoll::mpi::list_lines().c_str(), stdout);
    return 0;
  }
  bench::PatSourceKind source_kind = bench::PatSourceKind::oracle;
  bench::parse_pat_source(options.pat_source, source_kind);
  // The runtime's background thread needs MPI_THREAD_MULTIPLE.
  int provided = MPI_THREAD_SINGLE;
  if (source_kind == bench::PatSourceKind::runtime) MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  else MPI_Init(&argc, &argv);
  int rank = 0, procs = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &procs);
  // Every rank reaches the same verdict (same arguments, or a broadcast
  // one), so every rank leaves without waiting for the others.
  auto die = [&](const std::string &message) {
    if (rank == 0) std::fprintf(stderr, "patcoll-bench: %s\n", message.c_str());
    MPI_Finalize();
    return 2;
  };
  if (!error.empty()) return die(error);
  if (procs == 1 && !options.allow_single_process)
    return die("1 process (started without mpirun?): nothing to compare; run under mpirun -np P with P >= 2, "
               "or pass --allow-single-process");
  if (source_kind == bench::PatSourceKind::runtime && provided < MPI_THREAD_MULTIPLE)
    return die("--pat-source runtime needs MPI_THREAD_MULTIPLE, which this MPI library does not provide");
  if (source_kind == bench::PatSourceKind::runtime && options.window)
    return die("--pat-source runtime needs --sync barrier (the edge is placed inside the emulated computation)");
  if (options.procs > 0 && options.procs != procs)
    return die("--procs: " + std::to_string(options.procs) + " processes asked for, mpirun started " +
               std::to_string(procs));
  if (std::string e = patcoll::cli::root_problem(options.root, procs); !e.empty()) return die("--root: " + e);
  // --model: rank 0 reads it (core's parser), every rank sets it.
  if (!options.model.empty()) {
    patcoll::core::CostModel model;
    std::string problem;
    if (rank == 0) problem = patcoll::cli::load_model(options.model, model);
    int length = static_cast<int>(problem.size());
    MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
    problem.resize(static_cast<std::size_t>(length));
    MPI_Bcast(problem.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (!problem.empty()) return die("--model: " + problem);
    double values[3] = {model.alpha, model.beta, model.gamma};
    MPI_Bcast(values, 3, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (PAT_Set_cost_model(MPI_COMM_WORLD, values[0], values[1], values[2]) != MPI_SUCCESS)
      return die("--model: " + std::string(PAT_Last_error()));
  }

  // Algorithms: each named one must exist in at least one chosen collective.
  auto known = [](Collective c, const std::string &name) {
    return name == "auto" || patcoll::mpi::find_entry(c, name) != nullptr;
  };
  for (const std::string &wanted : options.algorithms) {
    bool anywhere = false;
    for (Collective c : options.collectives) anywhere |= known(c, wanted);
    if (!anywhere) return die("--alg: " + patcoll::cli::unknown_algorithm(wanted, collective_names(options)));
  }
  {
    bool anywhere = false;
    for (Collective c : options.collectives) anywhere |= known(c, options.baseline);
    if (!anywhere)
      return die("--baseline: " + patcoll::cli::unknown_algorithm(options.baseline, collective_names(options)));
  }
  // An alias (bnom, ...) names its canonical row from here on (records, summary).
  auto canonical = [&](std::string &name) {
    for (Collective c : options.collectives)
      if (const patcoll::mpi::Entry *e = patcoll::mpi::find_entry(c, name)) return void(name = std::string(e->name));
  };
  for (std::string &wanted : options.algorithms) canonical(wanted);
  canonical(options.baseline);

  // The trace is read by rank 0 and broadcast, with its verdict.
  std::vector<std::vector<double>> trace;
  if (options.pattern.kind == bench::PatternKind::trace) {
    std::string problem;
    if (rank == 0) problem = bench::load_trace(options.pattern.trace_file, procs, trace);
    int lines = static_cast<int>(trace.size()), length = static_cast<int>(problem.size());
    MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
    problem.resize(static_cast<std::size_t>(length));
    MPI_Bcast(problem.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (!problem.empty()) return die("--pattern: " + problem);
    MPI_Bcast(&lines, 1, MPI_INT, 0, MPI_COMM_WORLD);
    trace.resize(static_cast<std::size_t>(lines), std::vector<double>(static_cast<std::size_t>(procs)));
    for (auto &pap : trace) MPI_Bcast(pap.data(), procs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  }
  if (std::string e = bench::check_pattern(options.pattern, procs, options.iterations, trace.size()); !e.empty())
    return die("--pattern: " + e);

  std::FILE *out = nullptr;
  {
    int opened = 1;
    if (rank == 0 && !options.out.empty()) opened = (out = std::fopen(options.out.c_str(), "w")) != nullptr;
    else if (rank == 0 && options.format == "json") out = stdout;  // --json: the records on stdout
    MPI_Bcast(&opened, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!opened) return die("--out: cannot write '" + options.out + "'");
  }

  const Type type = type_of(options.dtype);
  const MPI_Op op = op_of(options.op);
  const bool product = options.op == "prod";
  bench::PatternGenerator generator(options.pattern, procs, options.max_delay, options.seed, trace);
  bench::PatSource source(source_kind, options.edge, options.history_window, MPI_COMM_WORLD);
  if (std::string e = source.start(); !e.empty()) return die(e);
  Clock clock;
  bool all_correct = true;
  const double started = MPI_Wtime();
  double last_progress = started;

  for (Collective c : options.collectives) {
    const std::string cname(patcoll::core::to_string(c));
    std::vector<std::string> names;
    for (const auto &e : patcoll::mpi::entries(c))
      if (options.algorithms.empty() ||
          std::find(options.algorithms.begin(), options.algorithms.end(), e.name) != options.algorithms.end())
        names.emplace_back(e.name);
    for (const auto &wanted : options.algorithms)
      if (wanted == "auto") names.push_back("auto");
    if (known(c, options.baseline) && std::find(names.begin(), names.end(), options.baseline) == names.end())
      names.insert(names.begin(), options.baseline);
    if (names.empty()) continue;

    for (long long count64 : options.counts) {
      const int count = static_cast<int>(count64);
      // Buffer sizes from the collective's traits row (every rank sized as
      // the root: any rank may be the root).
      const patcoll::core::CollectiveTraits &traits = patcoll::core::traits(c);
      const bool is_root = rank == options.root;
      auto elements_of = [&](patcoll::core::Buffer buffer, bool root_side) {
        return static_cast<std::size_t>(traits.elements(buffer, root_side, count, procs));
      };
      const std::size_t send_elements = std::max(elements_of(patcoll::core::Buffer::send, true),
                                                 elements_of(patcoll::core::Buffer::send, false));
      const std::size_t recv_elements = std::max(elements_of(patcoll::core::Buffer::recv, true),
                                                 elements_of(patcoll::core::Buffer::recv, false));
      // A broadcast's data starts in the root's recv buffer (traits'
      // initial_in): `send` holds it, copied in before every call.
      const bool broadcast = traits.initial_in == patcoll::core::Buffer::recv;
      Bytes send(std::max<std::size_t>((broadcast ? recv_elements : send_elements) * static_cast<std::size_t>(type.size), 1));
      Bytes recv(std::max<std::size_t>(recv_elements * static_cast<std::size_t>(type.size), 1)), expected(recv.size());
      fill(type, send, rank, product);
      auto load_root = [&](Bytes &buffer) {
        if (broadcast && is_root) std::memcpy(buffer.data(), send.data(), buffer.size());
      };
      load_root(expected);
      const bool has_result = traits.result_at == patcoll::core::Ranks::every || is_root;
      const std::size_t result_elements = elements_of(patcoll::core::Buffer::recv, is_root);
      const std::size_t bytes_whole = std::max(send_elements, recv_elements) * static_cast<std::size_t>(type.size);

      // Reference result (unless --no-check: at P = 1024 under SMPI native
      // is the slowest run) and probe: every algorithm once, untimed. An
      // algorithm that refuses these parameters (restrictions) is skipped.
      PAT_Set_arrivals(MPI_COMM_WORLD, nullptr);
      if (options.check)
        if (int rc = run_collective(c, "native", send.data(), expected.data(), count, type, op, options.root);
            rc != MPI_SUCCESS)
          return die("native " + cname + " failed: " + PAT_Last_error());
      std::vector<Series> series;
      double slowest_probe = 0;
      for (const std::string &name : names) {
        Series s;
        s.name = name;
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        load_root(recv);
        const int rc = run_collective(c, name, send.data(), recv.data(), count, type, op, options.root);
        slowest_probe = std::max(slowest_probe, MPI_Wtime() - t0);
        int ok = rc == MPI_SUCCESS, every = 0;
        MPI_Allreduce(&ok, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (!every) {
          s.skipped = true;
          s.reason = ok ? "refused on another rank" : PAT_Last_error();
        }
        series.push_back(std::move(s));
      }
      double window = options.window_size;
      if (options.window) {
        MPI_Allreduce(MPI_IN_PLACE, &slowest_probe, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        // Generous: on an oversubscribed machine a rank can lose the CPU for
        // milliseconds; --window overrides.
        if (window <= 0) window = 2 * (generator.max_delay() + 2 * slowest_probe) + 20e-3;
        clock.synchronise(rank, procs);
      }

      const int total = options.warmup + options.iterations;
      const std::size_t algs = series.size();
      std::vector<double> local(static_cast<std::size_t>(total) * algs * kFields, 0.0);
      std::vector<std::vector<double>> paps(static_cast<std::size_t>(total));
      // Rank 0: the PAT vector the library held for each call (what PAP-aware
      // algorithms and `auto` saw), per (iteration, algorithm).
      std::vector<std::vector<double>> held(rank == 0 ? static_cast<std::size_t>(total) * algs : 0);
      std::vector<std::string> chosen(rank == 0 ? static_cast<std::size_t>(total) * algs : 0);  // auto's choice
      // The `bound` row (core/bound.hpp) of every collective that has one,
      // from probes measured every iteration (bound.hpp). Not in window
      // mode: there every algorithm realises its own arrivals.
      const bool bounded = core::has_bound(c) && !options.window;
      std::vector<bench::BoundProbe> probes(static_cast<std::size_t>(total));
      std::vector<unsigned char> probe_scratch(bounded ? std::max<std::size_t>(bytes_whole, 1) : 0);
      // The probe's elements (core::bound_probe_elements: the message, an
      // all-to-all rank's P − 1 pairs, or an allgather's whole result, which
      // its bound's late receive needs; BoundCost::measured scales down
      // only), from the send buffer or, when larger, the expected result.
      int probe_count = count;
      {
        core::Params shape;
        shape.collective = c, shape.procs = procs, shape.count = count;
        probe_count = static_cast<int>(core::bound_probe_elements(shape));
      }
      const bool probe_whole = static_cast<std::size_t>(probe_count) * static_cast<std::size_t>(type.size) > send.size();
      double window_start = 0;
      if (options.window) {
        window_start = clock.now() + 0.01;
        MPI_Bcast(&window_start, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
      }
      for (int it = 0; it < total; ++it) {
        const bool warm = it < options.warmup;
        // Rank 0 draws the PAP, everyone gets the same; shifted to min 0.
        std::vector<double> pap(static_cast<std::size_t>(procs));
        if (rank == 0) pap = generator.next(warm ? it : it - options.warmup);
        MPI_Bcast(pap.data(), procs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        const double lowest = *std::min_element(pap.begin(), pap.end());
        for (double &a : pap) a -= lowest;
        paps[static_cast<std::size_t>(it)] = pap;
        source.before_iteration(pap);
        const double mine = pap[static_cast<std::size_t>(rank)];
        double measured_delay = 0;  // barrier exit to entry, of the iteration's first call
        bool measured = false;
        // The order rotates every iteration (A B C, B C A, C A B, …): the
        // first call after the PAP broadcast and the bound probe runs in
        // different conditions from the others (on an oversubscribed machine,
        // 1.1-1.4x for the same algorithm), so no algorithm keeps one position.
        for (std::size_t j = 0; j < algs; ++j) {
          const std::size_t k = (j + static_cast<std::size_t>(it)) % algs;
          Series &s = series[k];
          double *slot = &local[((static_cast<std::size_t>(it) * algs) + k) * kFields];
          if (s.skipped) continue;
          if (options.check) std::memset(recv.data(), 0xff, recv.size());
          load_root(recv);
          double entry;
          if (options.window) {
            const double start = window_start + static_cast<double>(static_cast<std::size_t>(it) * algs + j) * window;
            slot[kMissed] = clock.now() > start ? 1.0 : 0.0;
            wait_until(clock, start, false);  // sleep to the window, then the delay
            wait_until(clock, start + mine, options.busy);
            entry = clock.now();
            if (!measured) measured_delay = entry - start, measured = true;
          } else {
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Barrier(MPI_COMM_WORLD);
            const double released = MPI_Wtime();
            source.compute(mine, options.busy);
            entry = MPI_Wtime();
            if (!measured) measured_delay = entry - released, measured = true;
          }
          const int rc = run_collective(c, s.name, send.data(), recv.data(), count, type, op, options.root);
          const double exit = options.window ? clock.now() : MPI_Wtime();
          bool ok = rc == MPI_SUCCESS;
          if (ok && options.check && has_result)
            ok = same(type, recv.data(), expected.data(), result_elements);
          if (rank == 0) {
            held[static_cast<std::size_t>(it) * algs + k] = held_pats(source, procs);
            const char *served = nullptr;
            if (s.name == "auto" && PAT_Get_last_algorithm(MPI_COMM_WORLD, cname.c_str(), &served) == MPI_SUCCESS &&
                served)
              chosen[static_cast<std::size_t>(it) * algs + k] = served;
          }
          slot[kElapsed] = exit - entry;
          slot[kOk] = ok ? 1.0 : 0.0;
          slot[kEntry] = entry;
          slot[kExit] = exit;
        }
        source.after_iteration(measured_delay);
        if (bounded)
          probes[static_cast<std::size_t>(it)] =
              bench::measure_bound_probe(MPI_COMM_WORLD, probe_whole ? expected.data() : send.data(),
                                         probe_scratch.data(), probe_count, type.mpi, op);
        const double now = MPI_Wtime();
        if (rank == 0 && !options.quiet && now - started > 3.0 && now - last_progress > 2.0) {
          last_progress = now;
          std::fprintf(stderr, "patcoll-bench: %s count %d: iteration %d/%d%s, %.0f s elapsed\n", cname.c_str(),
                       count, it + 1, total, warm ? " (warm-up)" : "", now - started);
        }
      }

      // Gather every rank's records at rank 0.
      std::vector<double> all(rank == 0 ? local.size() * static_cast<std::size_t>(procs) : 0);
      MPI_Gather(local.data(), static_cast<int>(local.size()), MPI_DOUBLE, all.data(), static_cast<int>(local.size()),
                 MPI_DOUBLE, 0, MPI_COMM_WORLD);
      int every_ok = 1;
      if (rank == 0) {
        auto at = [&](int r, int it, std::size_t k, int field) {
          return all[static_cast<std::size_t>(r) * local.size() + ((static_cast<std::size_t>(it) * algs) + k) * kFields +
                     static_cast<std::size_t>(field)];
        };
        std::vector<double> elapsed(static_cast<std::size_t>(procs)), arrivals(static_cast<std::size_t>(procs));
        for (int it = options.warmup; it < total; ++it) {
          const auto &pap = paps[static_cast<std::size_t>(it)];
          for (std::size_t k = 0; k < algs; ++k) {
            Series &s = series[k];
            if (s.skipped) continue;
            bool ok = true, missed = false;
            double finish = -1e300, first = 1e300, latest = -1e300, sum = 0, fastest = 1e300, slowest = 0;
            for (int r = 0; r < procs; ++r) {
              const double e = at(r, it, k, kElapsed);
              elapsed[static_cast<std::size_t>(r)] = e;
              sum += e;
              fastest = std::min(fastest, e);
              slowest = std::max(slowest, e);
              ok &= at(r, it, k, kOk) != 0;
              missed |= at(r, it, k, kMissed) != 0;
              if (options.window) {
                arrivals[static_cast<std::size_t>(r)] = at(r, it, k, kEntry);
                first = std::min(first, at(r, it, k, kEntry));
                latest = std::max(latest, at(r, it, k, kExit));
              } else {
                finish = std::max(finish, pap[static_cast<std::size_t>(r)] + e);
              }
            }
            // Barrier: r = max(a_i + e_i) − min(a), min(a) = 0 after the shift.
            const double run_time = options.window ? latest - first : finish;
            const double avg_elapsed = sum / procs;
            if (!ok) s.correct = false;
            if (missed) ++s.dropped;
            else {
              s.run_time.push_back(run_time);
              s.avg_elapsed.push_back(avg_elapsed);
              s.min_elapsed.push_back(fastest);
              s.max_elapsed.push_back(slowest);
            }
            if (out) {
              std::string line = "{\"collective\":" + json_string(cname) + ",\"algorithm\":" + json_string(s.name);
              char buf[512];
              std::snprintf(buf, sizeof buf,
                            ",\"count\":%d,\"bytes\":%lld,\"procs\":%d,\"dtype\":\"%s\",\"op\":\"%s\",\"root\":%d",
                            count, static_cast<long long>(count) * type.size, procs, options.dtype.c_str(),
                            options.op.c_str(), options.root);
              line += buf;
              line += ",\"pattern\":" + json_string(options.pattern_text);
              std::snprintf(buf, sizeof buf,
                            ",\"max_delay_s\":%.9g,\"seed\":%llu,\"sync\":\"%s\",\"delay\":\"%s\",\"pat_source\":\"%s\","
                            "\"iteration\":%d,\"run_time_s\":%.9g,\"avg_elapsed_s\":%.9g,"
                            "\"min_elapsed_s\":%.9g,\"max_elapsed_s\":%.9g",
                            generator.max_delay(), options.seed, options.window ? "window" : "barrier",
                            options.busy ? "busy" : "sleep", options.pat_source.c_str(), it - options.warmup,
                            run_time, avg_elapsed, fastest, slowest);
              line += buf;
              line += ",\"arrivals_s\":" + json_list(pap.data(), procs);
              if (options.window) {
                double error = 0;  // realised vs intended PAP
                for (int r = 0; r < procs; ++r) {
                  double &a = arrivals[static_cast<std::size_t>(r)];
                  a -= first;
                  error = std::max(error, std::fabs(a - pap[static_cast<std::size_t>(r)]));
                }
                line += ",\"measured_arrivals_s\":" + json_list(arrivals.data(), procs);
                std::snprintf(buf, sizeof buf, ",\"arrival_error_s\":%.9g", error);
                line += buf;
              }
              if (const std::string &name = chosen[static_cast<std::size_t>(it) * algs + k]; !name.empty())
                line += ",\"chosen\":" + json_string(name);
              if (const auto &h = held[static_cast<std::size_t>(it) * algs + k]; !h.empty())
                line += ",\"pats_s\":" + json_list(h.data(), procs);
              line += ",\"elapsed_s\":" + json_list(elapsed.data(), procs);
              line += std::string(",\"window_missed\":") + (missed ? "true" : "false");
              line += std::string(",\"correct\":") + (ok ? "true" : "false") + "}\n";
              std::fputs(line.c_str(), out);
            }
          }
        }
        // The `bound` and `tight_bound` rows from the same probes (the
        // tight bound full duplex: it then also holds for one port).
        Series bound_series, tight_series;
        bound_series.name = "bound";
        const bool scatters = c == Collective::reduce_scatter_block || c == Collective::reduce_scatter;
        bound_series.note = scatters ? "(each rank's arrival + transfer of its other ranks' blocks)"
                            : patcoll::core::traits(c).combines ? "(latest arrival + transfer + reduce_local)"
                            : c == Collective::bcast              ? "(max(arrival, root's arrival) + transfer)"
                                                                  : "(each rank's arrival + its P-1 pairs' transfer)";
        tight_series.name = "tight_bound";
        tight_series.note = "(proved over every group of late ranks)";
        for (int it = options.warmup; bounded && it < total; ++it) {
          const auto &probe = probes[static_cast<std::size_t>(it)];
          core::Params bound_params;
          bound_params.collective = c, bound_params.procs = procs, bound_params.root = options.root;
          bound_params.count = count, bound_params.element_bytes = type.size;
          bound_params.arrivals = paps[static_cast<std::size_t>(it)];
          const double probe_bytes = static_cast<double>(probe_count) * static_cast<double>(type.size);
          const core::BoundCost measured =
              core::BoundCost::measured(probe.transfer, probe.reduce_local, probe_bytes);
          for (const bool tight : {false, true}) {
            Series &rows = tight ? tight_series : bound_series;
            const core::BoundTimes b = tight ? *core::tight_bound(bound_params, measured)
                                             : *core::bound(bound_params, measured);
            rows.run_time.push_back(b.run_time);
            rows.avg_elapsed.push_back(b.average_elapsed);
            rows.min_elapsed.push_back(*std::min_element(b.elapsed.begin(), b.elapsed.end()));
            rows.max_elapsed.push_back(*std::max_element(b.elapsed.begin(), b.elapsed.end()));
            if (out)
              std::fprintf(out,
                           "{\"collective\":%s,\"algorithm\":\"%s\",\"count\":%d,\"bytes\":%lld,\"procs\":%d,"
                           "\"pattern\":%s,\"max_delay_s\":%.9g,\"iteration\":%d,\"run_time_s\":%.9g,"
                           "\"avg_elapsed_s\":%.9g,\"arrivals_s\":%s,\"elapsed_s\":%s,\"transfer_s\":%.9g,"
                           "\"reduce_local_s\":%.9g,\"min_elapsed_s\":%.9g,\"max_elapsed_s\":%.9g,\"dtype\":\"%s\",\"op\":\"%s\",\"root\":%d,\"seed\":%llu,"
                           "\"sync\":\"barrier\",\"delay\":\"%s\",\"pat_source\":\"%s\",\"correct\":true}\n",
                           json_string(cname).c_str(), rows.name.c_str(), count, static_cast<long long>(count) * type.size,
                           procs, json_string(options.pattern_text).c_str(), generator.max_delay(), it - options.warmup,
                           b.run_time, b.average_elapsed,
                           json_list(paps[static_cast<std::size_t>(it)].data(), procs).c_str(),
                           json_list(b.elapsed.data(), procs).c_str(), probe.transfer, probe.reduce_local,
                           rows.min_elapsed.back(), rows.max_elapsed.back(),
                           options.dtype.c_str(), options.op.c_str(), options.root, options.seed,
                           options.busy ? "busy" : "sleep", options.pat_source.c_str());
          }
        }
        if (bounded) series.push_back(bound_series), series.push_back(tight_series);
        if (out) std::fflush(out);

        if (options.format != "json")
          print_summary(options, c, count, type, procs, generator.max_delay(), window, series);
        std::fflush(stdout);
        for (const Series &s : series) every_ok &= s.correct ? 1 : 0;
      }
      MPI_Bcast(&every_ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
      if (!every_ok) all_correct = false;
    }
  }
  if (out && out != stdout) std::fclose(out);
  if (std::string e = source.stop(); !e.empty() && rank == 0) std::fprintf(stderr, "patcoll-bench: %s\n", e.c_str());
  MPI_Finalize();
  return all_correct ? 0 : 1;
}
