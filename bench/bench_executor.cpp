// patcoll-bench-executor: what the executor costs and gains, measured under
// mpirun (docs/results/executor.md, issue 15 items 1-2). Two modes:
//
//   combine   every segmented algorithm run with combining on arrival and
//             with combining after the step's wait (mpi::CombineMode, the
//             switch PATCOLL_COMBINE sets), interleaved per iteration (the
//             order of the two alternates), so both see the same machine;
//             per iteration the run time r = max_i(a_i + t_i) after a
//             double barrier ([M] Algorithm 2), rank P-1 optionally late
//             by --late SECONDS. Reports medians, the IQR, and the median
//             and IQR of the per-iteration ratio wait / arrival.
//   overhead  per-call time of small messages (--bytes, default 8, 64, 512,
//             4096 B) for every collective: the MPI library's call (`MPI`),
//             patcoll's `native` entry (dispatch only), every patcoll
//             algorithm blocking, and the non-blocking (`I:`, PAT_I*_with +
//             PAT_Wait) and persistent (`P:`, PAT_*_init_with once, then
//             PAT_Start + PAT_Wait) paths of the classic small-message
//             algorithm and of native. A repetition times --calls
//             back-to-back calls between barriers (the slowest rank's
//             mean); repetitions are interleaved over the variants.
//             Reports the median per-call µs, the IQR, and the median of
//             the per-repetition difference to `MPI`.
//
// Every variant's result is checked once against the expected values
// (integers in floats: exact), so a fast wrong path cannot look good.
// Timings are benchmarks: name the machine and its load beside them.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "mpi/executor.hpp"
#include "patcoll.h"
#include "stats.hpp"

namespace {

using patcoll::bench::median;
using patcoll::bench::quantile;

enum class Coll { reduce, allreduce, scatter, gather };

const char *name_of(Coll c) {
  switch (c) {
    case Coll::reduce: return "reduce";
    case Coll::allreduce: return "allreduce";
    case Coll::scatter: return "scatter";
    case Coll::gather: return "gather";
  }
  return "?";
}

bool parse_coll(const std::string &text, Coll &out) {
  for (Coll c : {Coll::reduce, Coll::allreduce, Coll::scatter, Coll::gather})
    if (text == name_of(c)) {
      out = c;
      return true;
    }
  return false;
}

struct World {
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0, size = 1;
};

// Buffers of one (collective, count): count floats per rank (per block for
// scatter/gather), rank r contributes (r + i) % 7 at element i.
struct Buffers {
  Coll coll;
  int count;
  std::vector<float> send, recv;
  Buffers(Coll c, int n, const World &w) : coll(c), count(n) {
    const bool rooted_block = c == Coll::scatter;
    send.resize(static_cast<std::size_t>(rooted_block ? n * w.size : n));
    for (std::size_t i = 0; i < send.size(); ++i) send[i] = static_cast<float>((w.rank + i) % 7);
    recv.assign(static_cast<std::size_t>(c == Coll::gather ? n * w.size : n), -1.0f);
  }
  // The result of the last call is what the collective must give.
  bool right(const World &w) const {
    for (std::size_t i = 0; i < recv.size(); ++i) {
      float expected = 0;
      switch (coll) {
        case Coll::reduce:
          if (w.rank != 0) return true;
          [[fallthrough]];
        case Coll::allreduce:
          for (int r = 0; r < w.size; ++r) expected += static_cast<float>((r + i) % 7);
          break;
        case Coll::scatter:  // root 0's block `rank`
          expected = static_cast<float>((static_cast<std::size_t>(w.rank) * count + i) % 7);
          break;
        case Coll::gather:
          if (w.rank != 0) return true;
          expected = static_cast<float>((i / static_cast<std::size_t>(count) + i % count) % 7);
          break;
      }
      if (recv[i] != expected) return false;
    }
    return true;
  }
};

int blocking(Coll c, const char *alg, Buffers &b, MPI_Comm comm) {
  float *s = b.send.data(), *r = b.recv.data();
  const int n = b.count;
  if (!alg) {  // the MPI library
    switch (c) {
      case Coll::reduce: return MPI_Reduce(s, r, n, MPI_FLOAT, MPI_SUM, 0, comm);
      case Coll::allreduce: return MPI_Allreduce(s, r, n, MPI_FLOAT, MPI_SUM, comm);
      case Coll::scatter: return MPI_Scatter(s, n, MPI_FLOAT, r, n, MPI_FLOAT, 0, comm);
      case Coll::gather: return MPI_Gather(s, n, MPI_FLOAT, r, n, MPI_FLOAT, 0, comm);
    }
  }
  switch (c) {
    case Coll::reduce: return PAT_Reduce_with(alg, s, r, n, MPI_FLOAT, MPI_SUM, 0, comm);
    case Coll::allreduce: return PAT_Allreduce_with(alg, s, r, n, MPI_FLOAT, MPI_SUM, comm);
    case Coll::scatter: return PAT_Scatter_with(alg, s, n, MPI_FLOAT, r, n, MPI_FLOAT, 0, comm);
    case Coll::gather: return PAT_Gather_with(alg, s, n, MPI_FLOAT, r, n, MPI_FLOAT, 0, comm);
  }
  return MPI_ERR_OTHER;
}

int nonblocking(Coll c, const char *alg, Buffers &b, MPI_Comm comm) {
  float *s = b.send.data(), *r = b.recv.data();
  const int n = b.count;
  PAT_Handle h = nullptr;
  int rc = MPI_ERR_OTHER;
  switch (c) {
    case Coll::reduce: rc = PAT_Ireduce_with(alg, s, r, n, MPI_FLOAT, MPI_SUM, 0, comm, &h); break;
    case Coll::allreduce: rc = PAT_Iallreduce_with(alg, s, r, n, MPI_FLOAT, MPI_SUM, comm, &h); break;
    case Coll::scatter: rc = PAT_Iscatter_with(alg, s, n, MPI_FLOAT, r, n, MPI_FLOAT, 0, comm, &h); break;
    case Coll::gather: rc = PAT_Igather_with(alg, s, n, MPI_FLOAT, r, n, MPI_FLOAT, 0, comm, &h); break;
  }
  return rc == MPI_SUCCESS ? PAT_Wait(&h) : rc;
}

int persistent_init(Coll c, const char *alg, Buffers &b, MPI_Comm comm, PAT_Handle *h) {
  float *s = b.send.data(), *r = b.recv.data();
  const int n = b.count;
  switch (c) {
    case Coll::reduce: return PAT_Reduce_init_with(alg, s, r, n, MPI_FLOAT, MPI_SUM, 0, comm, MPI_INFO_NULL, h);
    case Coll::allreduce: return PAT_Allreduce_init_with(alg, s, r, n, MPI_FLOAT, MPI_SUM, comm, MPI_INFO_NULL, h);
    case Coll::scatter: return PAT_Scatter_init_with(alg, s, n, MPI_FLOAT, r, n, MPI_FLOAT, 0, comm, MPI_INFO_NULL, h);
    case Coll::gather: return PAT_Gather_init_with(alg, s, n, MPI_FLOAT, r, n, MPI_FLOAT, 0, comm, MPI_INFO_NULL, h);
  }
  return MPI_ERR_OTHER;
}

std::vector<std::string> algorithms_of(Coll c) {
  switch (c) {
    case Coll::reduce:
      return {"native", "linear", "chain", "binary", "binomial", "ring", "rabenseifner", "radix_k", "clairvoyant",
              "uni_greedy", "bi_greedy"};
    case Coll::allreduce:
      return {"native", "ring", "rabenseifner", "recursive_doubling", "linear_tree", "slt", "prr", "clairvoyant"};
    case Coll::scatter: return {"native", "linear", "binomial", "slin", "sbn"};
    case Coll::gather: return {"native", "linear", "linear_sync", "binomial", "sls", "sbn"};
  }
  return {};
}

// The classic small-message algorithm of each collective (the I:/P: rows).
const char *small_message_algorithm(Coll c) {
  switch (c) {
    case Coll::reduce: return "binomial";
    case Coll::allreduce: return "recursive_doubling";
    case Coll::scatter:
    case Coll::gather: return "binomial";
  }
  return "";
}

struct Summary {
  double med = 0, q1 = 0, q3 = 0;
};
Summary summarise(const std::vector<double> &v) { return {median(v), quantile(v, 0.25), quantile(v, 0.75)}; }

void double_barrier(MPI_Comm comm) {
  MPI_Barrier(comm);
  MPI_Barrier(comm);
}

double slowest(double mine, MPI_Comm comm) {
  double all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, comm);
  return all;
}

// ---- combine ---------------------------------------------------------------

struct CombineCase {
  Coll coll;
  std::string alg;
};

int run_combine(const World &w, const std::vector<CombineCase> &cases, long long bytes, int iters, int warmup,
                double late) {
  using patcoll::mpi::CombineMode;
  const int count = static_cast<int>(std::max<long long>(1, bytes / 4));
  if (w.rank == 0)
    std::printf("# combine on arrival vs after the wait: P = %d, %lld B (float sum), %d iterations (+%d warm-up), "
                "rank P-1 late by %g s\n# run time r in microseconds: median [IQR]; ratio = wait / arrival per "
                "iteration: median [IQR]\n%-10s %-14s %24s %24s %22s\n",
                w.size, bytes, iters, warmup, late, "collective", "algorithm", "arrival r (us)", "wait r (us)",
                "ratio wait/arrival");
  int failures = 0;
  for (const CombineCase &c : cases) {
    Buffers b(c.coll, count, w);
    std::vector<double> times[2], ratio;
    bool ok = true;
    for (int it = -warmup; it < iters && ok; ++it) {
      double r[2] = {0, 0};
      for (int k = 0; k < 2; ++k) {
        const int m = (it + k) % 2 == 0 ? 0 : 1;  // alternate which mode goes first
        patcoll::mpi::set_combine_mode(m == 0 ? CombineMode::arrival : CombineMode::wait);
        std::fill(b.recv.begin(), b.recv.end(), -1.0f);
        double_barrier(w.comm);
        const double t0 = MPI_Wtime();
        if (late > 0 && w.rank == w.size - 1) std::this_thread::sleep_for(std::chrono::duration<double>(late));
        const int rc = blocking(c.coll, c.alg.c_str(), b, w.comm);
        const double t = MPI_Wtime() - t0;
        int good = rc == MPI_SUCCESS && b.right(w) ? 1 : 0, all = 0;
        MPI_Allreduce(&good, &all, 1, MPI_INT, MPI_MIN, w.comm);
        if (!all) ok = false;
        r[m] = slowest(t, w.comm);
      }
      if (it >= 0) {
        times[0].push_back(r[0] * 1e6);
        times[1].push_back(r[1] * 1e6);
        ratio.push_back(r[1] / r[0]);
      }
    }
    patcoll::mpi::set_combine_mode(CombineMode::arrival);
    if (!ok) {
      ++failures;
      if (w.rank == 0) std::printf("%-10s %-14s FAILED (error or wrong result)\n", name_of(c.coll), c.alg.c_str());
      continue;
    }
    if (w.rank == 0) {
      const Summary a = summarise(times[0]), x = summarise(times[1]), q = summarise(ratio);
      std::printf("%-10s %-14s %10.0f [%5.0f-%5.0f] %10.0f [%5.0f-%5.0f] %8.3f [%5.3f-%5.3f]\n", name_of(c.coll),
                  c.alg.c_str(), a.med, a.q1, a.q3, x.med, x.q1, x.q3, q.med, q.q1, q.q3);
      std::fflush(stdout);
    }
  }
  return failures;
}

// ---- overhead --------------------------------------------------------------

struct Variant {
  std::string label;  // MPI, native, <alg>, I:<alg>, P:<alg>
  std::function<int()> call;
  PAT_Handle persistent = nullptr;
};

int run_overhead(const World &w, const std::vector<Coll> &colls, const std::vector<long long> &sizes, int reps,
                 int calls) {
  if (w.rank == 0)
    std::printf("# per-call time: P = %d, float sum, %d repetitions of %d back-to-back calls, interleaved\n"
                "# us per call: median [IQR] over repetitions; minus MPI = median of the per-repetition difference\n"
                "%-10s %6s %-22s %22s %12s\n",
                w.size, reps, calls, "collective", "bytes", "variant", "us/call", "minus MPI");
  int failures = 0;
  for (Coll c : colls)
    for (long long bytes : sizes) {
      const int count = static_cast<int>(std::max<long long>(1, bytes / 4));
      Buffers b(c, count, w);
      std::vector<Variant> variants;
      variants.push_back({"MPI", [&] { return blocking(c, nullptr, b, w.comm); }});
      for (const std::string &alg : algorithms_of(c))
        variants.push_back({alg, [&, alg] { return blocking(c, alg.c_str(), b, w.comm); }});
      for (const char *alg : {"native", small_message_algorithm(c)}) {
        variants.push_back({std::string("I:") + alg, [&, alg] { return nonblocking(c, alg, b, w.comm); }});
        Variant p{std::string("P:") + alg, nullptr};
        const int rc = persistent_init(c, alg, b, w.comm, &p.persistent);
        if (rc != MPI_SUCCESS) {
          if (w.rank == 0) std::printf("%-10s %6lld %-22s init failed (%d)\n", name_of(c), bytes, p.label.c_str(), rc);
          ++failures;
          continue;
        }
        PAT_Handle h = p.persistent;
        p.call = [h]() mutable {
          const int rc = PAT_Start(h);
          return rc == MPI_SUCCESS ? PAT_Wait(&h) : rc;
        };
        variants.push_back(std::move(p));
      }
      // Check each once (and warm its cache), then time.
      std::vector<bool> usable(variants.size(), true);
      for (std::size_t v = 0; v < variants.size(); ++v) {
        std::fill(b.recv.begin(), b.recv.end(), -1.0f);
        int good = variants[v].call() == MPI_SUCCESS && b.right(w) ? 1 : 0, all = 0;
        MPI_Allreduce(&good, &all, 1, MPI_INT, MPI_MIN, w.comm);
        if (!all) {
          usable[v] = false;
          ++failures;
          if (w.rank == 0)
            std::printf("%-10s %6lld %-22s FAILED (error or wrong result)\n", name_of(c), bytes,
                        variants[v].label.c_str());
        }
      }
      std::vector<std::vector<double>> per_call(variants.size());
      for (int rep = 0; rep < reps; ++rep)
        for (std::size_t v = 0; v < variants.size(); ++v) {
          if (!usable[v]) continue;
          double_barrier(w.comm);
          const double t0 = MPI_Wtime();
          for (int k = 0; k < calls; ++k) variants[v].call();
          per_call[v].push_back(slowest((MPI_Wtime() - t0) / calls, w.comm) * 1e6);
        }
      if (w.rank == 0)
        for (std::size_t v = 0; v < variants.size(); ++v) {
          if (!usable[v]) continue;
          const Summary s = summarise(per_call[v]);
          std::vector<double> diff;
          for (int rep = 0; rep < reps; ++rep) diff.push_back(per_call[v][rep] - per_call[0][rep]);
          std::printf("%-10s %6lld %-22s %8.1f [%6.1f-%6.1f] %+10.1f\n", name_of(c), bytes, variants[v].label.c_str(),
                      s.med, s.q1, s.q3, v == 0 ? 0.0 : median(diff));
        }
      if (w.rank == 0) std::fflush(stdout);
      for (Variant &v : variants)
        if (v.persistent) PAT_Handle_free(&v.persistent);
    }
  return failures;
}

std::vector<std::string> split(const std::string &text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    out.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

int usage(const World &w) {
  if (w.rank == 0)
    std::fprintf(stderr,
                 "usage: mpirun -np P patcoll-bench-executor combine [--cases coll:alg,...] [--bytes B] [--iters N]\n"
                 "         [--warmup N] [--late SECONDS]\n"
                 "       mpirun -np P patcoll-bench-executor overhead [--colls reduce,...] [--bytes B,B,...]\n"
                 "         [--reps N] [--calls N]\n");
  return 2;
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  World w;
  MPI_Comm_rank(w.comm, &w.rank);
  MPI_Comm_size(w.comm, &w.size);
  int rc = 0;
  const std::string mode = argc > 1 ? argv[1] : "";
  std::vector<CombineCase> cases;
  for (const char *a : {"chain", "binary", "clairvoyant", "uni_greedy", "bi_greedy"})
    cases.push_back({Coll::reduce, a});
  for (const char *a : {"ring", "prr", "clairvoyant"}) cases.push_back({Coll::allreduce, a});
  std::vector<Coll> colls{Coll::reduce, Coll::allreduce, Coll::scatter, Coll::gather};
  std::vector<long long> sizes;
  int iters = 21, warmup = 2, reps = 11, calls = 50;
  double late = 0;
  bool bad = mode != "combine" && mode != "overhead";
  for (int i = 2; i < argc && !bad; ++i) {
    const std::string arg = argv[i];
    const char *value = i + 1 < argc ? argv[i + 1] : nullptr;
    if (!value) {
      bad = true;
      break;
    }
    ++i;
    if (arg == "--cases") {
      cases.clear();
      for (const std::string &item : split(value)) {
        const std::size_t colon = item.find(':');
        CombineCase c;
        if (colon == std::string::npos || !parse_coll(item.substr(0, colon), c.coll)) bad = true;
        else c.alg = item.substr(colon + 1);
        cases.push_back(c);
      }
    } else if (arg == "--colls") {
      colls.clear();
      for (const std::string &item : split(value)) {
        Coll c;
        if (!parse_coll(item, c)) bad = true;
        colls.push_back(c);
      }
    } else if (arg == "--bytes") {
      sizes.clear();
      for (const std::string &item : split(value)) sizes.push_back(std::atoll(item.c_str()));
    } else if (arg == "--iters") {
      iters = std::atoi(value);
    } else if (arg == "--warmup") {
      warmup = std::atoi(value);
    } else if (arg == "--reps") {
      reps = std::atoi(value);
    } else if (arg == "--calls") {
      calls = std::atoi(value);
    } else if (arg == "--late") {
      late = std::atof(value);
    } else {
      bad = true;
    }
  }
  for (long long s : sizes) bad = bad || s <= 0;
  bad = bad || iters < 1 || warmup < 0 || reps < 1 || calls < 1 || late < 0;
  if (bad) {
    rc = usage(w);
  } else if (mode == "combine") {
    rc = run_combine(w, cases, sizes.empty() ? 1LL << 20 : sizes.front(), iters, warmup, late) ? 1 : 0;
  } else {
    if (sizes.empty()) sizes = {8, 64, 512, 4096};
    rc = run_overhead(w, colls, sizes, reps, calls) ? 1 : 0;
  }
  MPI_Finalize();
  return rc;
}
