// patcoll-bench — compares every registered algorithm of a collective with
// the MPI library's own (`native`) under a chosen arrival pattern, in one
// run, interleaved per iteration (A B C A B C …) so that machine drift hits
// every algorithm alike. Definitions follow docs/ and BENCHMARKS.md:
// after a double barrier every rank delays itself by its arrival time a_i,
// runs the collective and measures its own elapsed time e_i; the run time
// is r = max_i(a_i + e_i) − min(a) ([M] Algorithm 2).
//
//   patcoll-bench --list
//   mpirun -np 8 patcoll-bench --coll reduce,allreduce --count 1M \
//          --pattern one-late --max-delay 20ms --iters 20
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/ir.hpp"
#include "mpi/registry.hpp"
#include "patcoll.h"

namespace {

using patcoll::core::Collective;

struct Options {
  std::vector<Collective> collectives{Collective::reduce, Collective::allreduce};
  std::vector<std::string> algorithms;  // empty: all
  std::vector<long long> counts{1 << 20};
  int root = 0;
  int iterations = 10;
  int warmup = 2;
  std::string pattern = "none";
  int late_rank = -1;
  double max_delay = 0.0;
  unsigned seed = 1;
  bool check = true;
  std::string pat_source = "oracle";
};

std::vector<std::string> split(const std::string &text, char by = ',') {
  std::vector<std::string> out;
  std::string item;
  for (char c : text) {
    if (c == by) {
      out.push_back(item);
      item.clear();
    } else {
      item += c;
    }
  }
  out.push_back(item);
  return out;
}

bool parse_count(const std::string &text, long long &out) {
  char *end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || value < 0) return false;
  double scale = 1;
  const std::string suffix(end);
  if (suffix == "K" || suffix == "k") scale = 1024;
  else if (suffix == "M" || suffix == "m") scale = 1024 * 1024;
  else if (suffix == "G" || suffix == "g") scale = 1024.0 * 1024 * 1024;
  else if (!suffix.empty()) return false;
  out = static_cast<long long>(value * scale);
  return true;
}

bool parse_seconds(const std::string &text, double &out) {
  char *end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !(value >= 0)) return false;
  const std::string suffix(end);
  if (suffix.empty() || suffix == "s") out = value;
  else if (suffix == "ms") out = value * 1e-3;
  else if (suffix == "us") out = value * 1e-6;
  else return false;
  return true;
}

// Returns "" or the problem with the command line.
std::string parse(int argc, char **argv, Options &o, bool &list) {
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--list") {
      list = true;
      continue;
    }
    if (flag == "--no-check") {
      o.check = false;
      continue;
    }
    if (i + 1 >= argc) return flag + " needs a value";
    const std::string value = argv[++i];
    if (flag == "--coll") {
      o.collectives.clear();
      for (const auto &c : split(value)) {
        Collective parsed;
        if (!patcoll::core::parse_collective(c, parsed)) return "unknown collective '" + c + "'";
        o.collectives.push_back(parsed);
      }
    } else if (flag == "--alg") {
      o.algorithms.clear();
      if (value != "all") o.algorithms = split(value);
    } else if (flag == "--count") {
      o.counts.clear();
      for (const auto &c : split(value)) {
        long long n;
        if (!parse_count(c, n) || n > 0x7fffffff) return "bad count '" + c + "'";
        o.counts.push_back(n);
      }
    } else if (flag == "--root") {
      o.root = std::atoi(value.c_str());
    } else if (flag == "--iters") {
      o.iterations = std::atoi(value.c_str());
      if (o.iterations < 1) return "--iters must be at least 1";
    } else if (flag == "--warmup") {
      o.warmup = std::atoi(value.c_str());
      if (o.warmup < 0) return "--warmup must not be negative";
    } else if (flag == "--pattern") {
      const auto parts = split(value, ':');
      o.pattern = parts[0];
      if (o.pattern != "none" && o.pattern != "one-late" && o.pattern != "rand-late")
        return "unknown pattern '" + value + "' (none, one-late[:rank], rand-late)";
      if (o.pattern == "one-late" && parts.size() > 1) o.late_rank = std::atoi(parts[1].c_str());
    } else if (flag == "--max-delay") {
      if (!parse_seconds(value, o.max_delay)) return "bad delay '" + value + "' (seconds; ms/us suffixes)";
    } else if (flag == "--seed") {
      o.seed = static_cast<unsigned>(std::strtoul(value.c_str(), nullptr, 10));
    } else if (flag == "--pat-source") {
      if (value != "oracle" && value != "none") return "unknown PAT source '" + value + "' (oracle, none)";
      o.pat_source = value;
    } else {
      return "unknown flag " + flag;
    }
  }
  return {};
}

// The arrival pattern of one iteration (seconds), identical on all ranks.
std::vector<double> arrivals(const Options &o, int procs, std::mt19937_64 &rng) {
  std::vector<double> a(static_cast<std::size_t>(procs), 0.0);
  if (o.pattern == "one-late") {
    const int late = o.late_rank >= 0 ? o.late_rank % procs : procs - 1;
    a[static_cast<std::size_t>(late)] = o.max_delay;
  } else if (o.pattern == "rand-late") {
    std::uniform_real_distribution<double> d(0.0, o.max_delay);
    for (double &x : a) x = d(rng);
  }
  return a;
}

void delay(double seconds) {
  if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Series {
  std::string name;
  std::vector<double> run_time, avg_elapsed;
  bool correct = true;
};

int run_collective(Collective c, const std::string &algorithm, const float *send, float *recv, int count, int root) {
  switch (c) {
    case Collective::reduce: return PAT_Reduce_with(algorithm.c_str(), send, recv, count, MPI_FLOAT, MPI_SUM, root, MPI_COMM_WORLD);
    case Collective::allreduce: return PAT_Allreduce_with(algorithm.c_str(), send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    case Collective::scatter: return PAT_Scatter_with(algorithm.c_str(), send, count, MPI_FLOAT, recv, count, MPI_FLOAT, root, MPI_COMM_WORLD);
    case Collective::gather: return PAT_Gather_with(algorithm.c_str(), send, count, MPI_FLOAT, recv, count, MPI_FLOAT, root, MPI_COMM_WORLD);
  }
  return MPI_ERR_ARG;
}

}  // namespace

int main(int argc, char **argv) {
  Options options;
  bool list = false;
  const std::string error = parse(argc, argv, options, list);
  if (list) {  // no MPI needed
    std::fputs(patcoll::mpi::list_lines().c_str(), stdout);
    return 0;
  }
  MPI_Init(&argc, &argv);
  int rank = 0, procs = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &procs);
  auto die = [&](const std::string &message) {
    if (rank == 0) std::fprintf(stderr, "patcoll-bench: %s\n", message.c_str());
    MPI_Finalize();
    return 2;
  };
  if (!error.empty()) return die(error);
  if (options.root < 0 || options.root >= procs) return die("--root out of range");

  std::mt19937_64 rng(options.seed);
  for (Collective c : options.collectives) {
    std::vector<std::string> names;
    for (const auto &e : patcoll::mpi::entries(c))
      if (options.algorithms.empty() || std::find(options.algorithms.begin(), options.algorithms.end(), e.name) != options.algorithms.end())
        names.emplace_back(e.name);
    for (const auto &wanted : options.algorithms)
      if (!patcoll::mpi::find_entry(c, wanted)) return die("unknown " + std::string(patcoll::core::to_string(c)) + " algorithm '" + wanted + "'");
    for (long long count64 : options.counts) {
      const int count = static_cast<int>(count64);
      const bool movement = c == Collective::scatter || c == Collective::gather;
      const std::size_t whole = static_cast<std::size_t>(count) * (movement ? procs : 1);
      std::vector<float> send(movement && c == Collective::gather ? count : whole), recv(whole), expected(whole);
      for (std::size_t i = 0; i < send.size(); ++i) send[i] = static_cast<float>((rank * 7 + i * 3) % 11);
      std::vector<Series> series;
      for (const auto &n : names) series.push_back({n, {}, {}, true});
      // Reference result.
      run_collective(c, "native", send.data(), expected.data(), count, options.root);
      const int total = options.warmup + options.iterations;
      for (int it = 0; it < total; ++it) {
        const auto pattern = arrivals(options, procs, rng);
        if (options.pat_source == "oracle") PAT_Set_arrivals(MPI_COMM_WORLD, pattern.data());
        for (Series &s : series) {
          std::fill(recv.begin(), recv.end(), -1.0f);
          MPI_Barrier(MPI_COMM_WORLD);
          MPI_Barrier(MPI_COMM_WORLD);
          delay(pattern[static_cast<std::size_t>(rank)]);
          const double start = MPI_Wtime();
          const int rc = run_collective(c, s.name, send.data(), recv.data(), count, options.root);
          const double elapsed = MPI_Wtime() - start;
          bool ok = rc == MPI_SUCCESS;
          const bool has_result = c == Collective::allreduce || c == Collective::scatter || rank == options.root;
          if (ok && options.check && has_result) {
            for (std::size_t i = 0; i < (c == Collective::scatter ? static_cast<std::size_t>(count) : whole) && ok; ++i)
              ok = std::fabs(recv[i] - expected[i]) <= 1e-4f * std::max(1.0f, std::fabs(expected[i]));
          }
          double finish = pattern[static_cast<std::size_t>(rank)] + elapsed, run_time = 0, elapsed_sum = 0;
          int all_ok = ok, every_ok = 0;
          MPI_Reduce(&finish, &run_time, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
          MPI_Reduce(&elapsed, &elapsed_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
          MPI_Allreduce(&all_ok, &every_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
          if (!every_ok) s.correct = false;
          if (it >= options.warmup) {
            s.run_time.push_back(run_time - *std::min_element(pattern.begin(), pattern.end()));
            s.avg_elapsed.push_back(elapsed_sum / procs);
          }
        }
      }
      if (rank == 0) {
        double baseline = 0;
        for (const Series &s : series)
          if (s.name == "native") baseline = median(s.run_time);
        std::printf("\n%s of %d floats on %d ranks, pattern %s, max delay %.3g s, %d iterations\n",
                    std::string(patcoll::core::to_string(c)).c_str(), count, procs, options.pattern.c_str(),
                    options.max_delay, options.iterations);
        std::printf("%-20s %14s %14s %14s %14s %10s  %s\n", "algorithm", "median r [s]", "min r [s]", "max r [s]",
                    "median e [s]", "vs native", "result");
        for (const Series &s : series) {
          const double m = median(s.run_time);
          std::printf("%-20s %14.6f %14.6f %14.6f %14.6f %10.3f  %s\n", s.name.c_str(), m,
                      *std::min_element(s.run_time.begin(), s.run_time.end()),
                      *std::max_element(s.run_time.begin(), s.run_time.end()), median(s.avg_elapsed),
                      baseline > 0 ? m / baseline : 0.0, s.correct ? "ok" : "WRONG");
        }
        std::fflush(stdout);
      }
      bool all_correct = true;
      for (const Series &s : series) all_correct &= s.correct;
      if (!all_correct) {
        MPI_Finalize();
        return 1;
      }
    }
  }
  MPI_Finalize();
  return 0;
}
