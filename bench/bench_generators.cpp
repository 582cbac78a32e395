// Schedule generator benchmarks: [PO] Table 1 (P = N ∈ {4, …, 512}, uniform
// and skewed arrivals, linear / pairing heaps / segment tree), growth of the
// segment-tree generator with P and N, and the greedy generators.
//
// Instances ([PO] §5.7): uniform — arrivals uniform in [0, P + 0.1], d
// uniform in [0.001, 1], random root; skewed — everyone at 0 except P − 1
// at N, root 0, d uniform in [0.001, 1]. Each benchmark cycles through 16
// fixed instances (seeded), so one iteration = one instance; the reported
// time is the mean per instance over the same instances for every
// generator. Use --benchmark_repetitions for spread (median, cv).
// Counters: rounds (mean schedule length), peak_kib (peak heap bytes while
// generating minus the schedule returned, i.e. the generator's working
// memory).
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <random>

#include "core/generators/clairvoyant.hpp"
#include "core/generators/greedy.hpp"

using namespace patcoll::core;

// --- heap accounting -------------------------------------------------------
namespace {
std::atomic<long long> g_live{0}, g_peak{0};
void note_alloc(std::size_t n) {
  const long long live = g_live += static_cast<long long>(n);
  long long peak = g_peak.load();
  while (live > peak && !g_peak.compare_exchange_weak(peak, live)) {
  }
}
}  // namespace
void *operator new(std::size_t n) {
  void *p = std::malloc(n + 16);
  if (!p) throw std::bad_alloc();
  *static_cast<std::size_t *>(p) = n;
  note_alloc(n);
  return static_cast<char *>(p) + 16;
}
void operator delete(void *p) noexcept {
  if (!p) return;
  char *base = static_cast<char *>(p) - 16;
  g_live -= static_cast<long long>(*reinterpret_cast<std::size_t *>(base));
  std::free(base);
}
void operator delete(void *p, std::size_t) noexcept { operator delete(p); }

namespace {

std::size_t schedule_bytes(const Schedule &s) {
  std::size_t bytes = s.ranks.capacity() * sizeof(RankSchedule);
  for (const RankSchedule &r : s.ranks) bytes += (r.recv.capacity() + r.send.capacity()) * sizeof(Transfer);
  return bytes;
}

enum Pattern { uniform = 0, skewed = 1, balanced = 2 };

std::vector<ClairvoyantInput> instances(int procs, int segments, int pattern, int count = 16) {
  std::mt19937_64 rng(1000003ull * procs + 7919ull * segments + pattern);
  std::uniform_real_distribution<double> round_time(0.001, 1.0);
  std::vector<ClairvoyantInput> out;
  for (int k = 0; k < count; ++k) {
    ClairvoyantInput in;
    in.procs = procs;
    in.segments = segments;
    in.round_time = pattern == balanced ? 1.0 : round_time(rng);
    if (pattern == uniform) {
      std::uniform_real_distribution<double> arrival(0.0, procs + 0.1);
      for (int p = 0; p < procs; ++p) in.arrivals.push_back(arrival(rng));
      in.root = std::uniform_int_distribution<int>(0, procs - 1)(rng);
    } else if (pattern == skewed) {
      in.arrivals.assign(procs, 0.0);
      in.arrivals[procs - 1] = segments;
      in.root = 0;
    }
    out.push_back(std::move(in));
  }
  return out;
}

template <Schedule (*Generate)(const ClairvoyantInput &)>
void BM_Clairvoyant(benchmark::State &state) {
  const int procs = static_cast<int>(state.range(0)), segments = static_cast<int>(state.range(1));
  const auto inputs = instances(procs, segments, static_cast<int>(state.range(2)));
  std::size_t k = 0;
  double rounds = 0, peak = 0;
  long long n = 0;
  for (auto _ : state) {
    const ClairvoyantInput &in = inputs[k++ % inputs.size()];
    const long long before = g_live.load();
    g_peak = before;
    Schedule s = Generate(in);
    peak = std::max(peak, static_cast<double>(g_peak.load() - before) - static_cast<double>(schedule_bytes(s)));
    rounds += s.rounds;
    ++n;
    benchmark::DoNotOptimize(s);
  }
  state.counters["rounds"] = rounds / static_cast<double>(n);
  state.counters["peak_kib"] = peak / 1024.0;
}

// [PO] Table 1. Every generator runs exactly the same instances: a fixed
// number of iterations, a multiple of the instance cycle for small P, the
// first 4 for P = 256 and 2 for P = 512 (pairing heaps take seconds there).
template <Schedule (*Generate)(const ClairvoyantInput &)>
void table1(const char *name, bool slow) {
  for (int pattern : {uniform, skewed})
    for (int p = 4; p <= 512; p *= 2) {
      auto *b = benchmark::RegisterBenchmark(name, BM_Clairvoyant<Generate>)
                    ->Args({p, p, pattern})
                    ->Iterations(p >= 512 ? 2 : p >= 256 ? 4 : p >= 64 ? 16 : 256)
                    ->Unit(benchmark::kMillisecond);
      if (slow && p >= 512) b->Repetitions(1);  // pairing heaps: ~10-25 s per instance
    }
}
[[maybe_unused]] const bool registered = [] {
  table1<clairvoyant_segtree>("table1/segtree", false);
  table1<clairvoyant_linear>("table1/linear", false);
  table1<clairvoyant_pairing>("table1/pairing", true);
  return true;
}();

// Growth of the segment tree generator with P (N = 128) and N (P = 512).
// Exactly one pass over the 16 instances per repetition, so that every
// repetition (and every build being compared) runs the same instances.
BENCHMARK(BM_Clairvoyant<clairvoyant_segtree>)
    ->Name("growth/segtree")
    ->Apply([](auto *b) {
      for (int pattern : {uniform, balanced}) {
        for (int p = 256; p <= 4096; p *= 2) b->Args({p, 128, pattern});
        for (int n = 64; n <= 1024; n *= 2) b->Args({512, n, pattern});
      }
    })
    ->Iterations(16)
    ->Unit(benchmark::kMillisecond);

template <Schedule (*Generate)(const GreedyInput &)>
void BM_Greedy(benchmark::State &state) {
  GreedyInput in;
  in.procs = static_cast<int>(state.range(0));
  in.segments = static_cast<int>(state.range(1));
  in.alpha = 2.66e-6, in.beta = 4.8179e-10, in.gamma = 1.6654e-10;
  in.segment_bytes = 4096;
  if (state.range(2) == uniform) {
    std::mt19937_64 rng(42);
    std::uniform_real_distribution<double> arrival(0.0, 1e-3);
    for (int p = 0; p < in.procs; ++p) in.arrivals.push_back(arrival(rng));
  }
  double completion = 0;
  for (auto _ : state) {
    Schedule s = Generate(in);
    completion = s.completion_time;
    benchmark::DoNotOptimize(s);
  }
  state.counters["completion_us"] = completion * 1e6;
}
BENCHMARK(BM_Greedy<uni_greedy>)->Name("greedy/uni")->Args({1024, 256, balanced})->Args({1024, 256, uniform})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Greedy<bi_greedy>)->Name("greedy/bi")->Args({1024, 256, balanced})->Args({1024, 256, uniform})->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
