// What `auto` costs when it reads the arrival pattern (docs/selection.md):
// one cache miss of core::Selector::select, i.e. every candidate built and
// simulated on a one-late PAT vector, against a cache hit, and a cache hit
// with the measured feedback's bookkeeping (record: docs/adaptive.md).
#include <benchmark/benchmark.h>

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
BENCHMARK_MAIN();
