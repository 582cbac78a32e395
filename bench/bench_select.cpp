// What `auto` costs when it reads the arrival pattern (docs/results/selection.md):
// one cache miss of core::Selector::select, i.e. every candidate built and
// simulated on a one-late PAT vector, against a cache hit, and a cache hit
// with the measured feedback's bookkeeping (record: docs/results/adaptive.md), and
// a new vector filed under its family by scanning the cache.
#include <benchmark/benchmark.h>

#include <algorithm>

#include "core/select.hpp"

namespace {

using patcoll::core::Collective;
using patcoll::core::Params;
using patcoll::core::SelectOptions;
using patcoll::core::Selector;

Params one_late(Collective collective, int procs, std::int64_t bytes, double delay) {
  Params p;
  p.collective = collective;
  p.procs = procs;
  p.count = bytes / 4;
  p.element_bytes = 4;
  p.arrivals.assign(procs, 0.0);
  p.arrivals[procs - 1] = delay;
  return p;
}

// args: collective (0 reduce, 1 allreduce), P, bytes
void BM_SelectMiss(benchmark::State &state) {
  const Collective c = state.range(0) == 0 ? Collective::reduce : Collective::allreduce;
  Params p = one_late(c, static_cast<int>(state.range(1)), state.range(2), 0.01);
  std::int64_t k = 0;
  Selector selector(SelectOptions{.cache_entries = 1});
  for (auto _ : state) {
    p.arrivals[p.procs - 1] = 0.01 * static_cast<double>(1 + (k++ % 64));  // a new vector every time
    benchmark::DoNotOptimize(selector.select(p));
  }
}
void BM_SelectHit(benchmark::State &state) {
  const Collective c = state.range(0) == 0 ? Collective::reduce : Collective::allreduce;
  Params p = one_late(c, static_cast<int>(state.range(1)), state.range(2), 0.01);
  Selector selector;
  selector.select(p);
  for (auto _ : state) benchmark::DoNotOptimize(selector.select(p));
}

// A hit plus the record of its measurement, as every measured call does.
void BM_SelectHitRecord(benchmark::State &state) {
  const Collective c = state.range(0) == 0 ? Collective::reduce : Collective::allreduce;
  Params p = one_late(c, static_cast<int>(state.range(1)), state.range(2), 0.01);
  Selector selector;
  selector.select(p);
  for (auto _ : state) {
    const patcoll::core::Selection s = selector.select(p);
    benchmark::DoNotOptimize(selector.record(s.pattern, s.name, 1e-3));
  }
}

// A family hit plus record (docs/results/adaptive.md): the cache holds 64 one-late
// patterns of the shape, far apart; every call's vector is new (the late
// rank one quantum off the first pattern's) and is matched to that pattern
// by scanning the cache.
void BM_SelectFamilyHitRecord(benchmark::State &state) {
  const Collective c = state.range(0) == 0 ? Collective::reduce : Collective::allreduce;
  Params p = one_late(c, static_cast<int>(state.range(1)), state.range(2), 0.01);
  Selector selector(SelectOptions{.period = 1});
  Params balanced = p;
  balanced.arrivals.clear();
  double best = 1e300;
  for (const auto &q : patcoll::core::predict_candidates(balanced))
    if (!q.pap_aware) best = std::min(best, q.seconds);
  const double quantum = selector.options().quantum_fraction * best;
  for (int k = 63; k >= 0; --k) {  // the first pattern last: most recently used
    p.arrivals[p.procs - 1] = 10 * quantum * (1 + k);
    selector.select(p);
  }
  const double first = 10 * quantum;
  std::int64_t k = 0;
  for (auto _ : state) {
    p.arrivals[p.procs - 1] = first + (k++ % 2 ? 1 : -1) * quantum;  // never the cached vector itself
    const patcoll::core::Selection s = selector.select(p);
    benchmark::DoNotOptimize(selector.record(s.pattern, s.name, 1e-3));
  }
  if (selector.simulations() != 64) state.SkipWithError("a family member was simulated");
}

void sizes(benchmark::internal::Benchmark *b) {
  for (int c : {0, 1})
    for (int procs : {8, 48, 128})
      for (std::int64_t bytes : {std::int64_t{16} << 10, std::int64_t{1} << 20, std::int64_t{16} << 20})
        b->Args({c, procs, bytes});
  b->Unit(benchmark::kMicrosecond);
}

}  // namespace

BENCHMARK(BM_SelectMiss)->Apply(sizes);
BENCHMARK(BM_SelectHit)->Apply(sizes);
BENCHMARK(BM_SelectHitRecord)->Apply(sizes);
BENCHMARK(BM_SelectFamilyHitRecord)->Args({0, 8, 1 << 20})->Args({0, 48, 1 << 20})->Args({0, 128, 1 << 20})
    ->Args({1, 8, 1 << 20})->Args({1, 48, 1 << 20})->Args({1, 128, 1 << 20})->Unit(benchmark::kMicrosecond);
BENCHMARK_MAIN();
