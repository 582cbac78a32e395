// What the arrival report (PATCOLL_REPORT, mpi/report.hpp) costs per call
// and in memory (docs/guide/profile.md, "Cost"). Run under mpirun with
// PATCOLL_REPORT set (the report it writes is the measurement's by-product):
//
//   mpirun -np 2 -x PATCOLL_REPORT=/tmp/cost.json patcoll-bench-report [blocks] [calls] [memory_calls] [sizes]
//
// 1. Interleaved in one run, blocks of `calls` 8-byte MPI_SUM allreduces on
//    MPI_COMM_WORLD: A = PMPI_Allreduce alone, B = the same call recorded as
//    the shim records it (report::record after it), A B B A ...; per
//    block the median-free mean per call, then the median and quartiles of
//    the blocks and of the per-pair difference B - A.
// 2. Memory: `memory_calls` recorded calls (record() alone, no
//    communication) spread over 4 call sites and `sizes` message sizes; the
//    recorder's bytes (report::memory_bytes) and the process's peak
//    resident memory.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "mpi/report.hpp"

namespace {

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

long peak_resident_kib() {
  std::FILE *f = std::fopen("/proc/self/status", "r");
  char line[256];
  long kib = -1;
  while (f && std::fgets(line, sizeof line, f))
    if (std::strncmp(line, "VmHWM:", 6) == 0) kib = std::atol(line + 6);
  if (f) std::fclose(f);
  return kib;
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  namespace report = patcoll::mpi::report;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int blocks = argc > 1 ? std::atoi(argv[1]) : 40;
  const int calls = argc > 2 ? std::atoi(argv[2]) : 2000;
  const long memory_calls = argc > 3 ? std::atol(argv[3]) : 1000000;
  const long sizes = argc > 4 ? std::atol(argv[4]) : 16;
  if (!report::enabled()) {
    if (rank == 0) std::fprintf(stderr, "patcoll-bench-report: set PATCOLL_REPORT (mpirun -x PATCOLL_REPORT=FILE)\n");
    MPI_Finalize();
    return 2;
  }
  double x = 1, y = 0;
  const void *site = reinterpret_cast<const void *>(&main);
  report::CommRecord *cached = nullptr;  // as the communicator's state keeps it
  auto block = [&](bool recorded) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (int k = 0; k < calls; ++k) {
      if (recorded) {
        const double entry = MPI_Wtime();
        if (PMPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS)
          report::record(&cached, MPI_COMM_WORLD, patcoll::core::Collective::allreduce, site, 8, entry, MPI_Wtime(),
                         "native");
      } else {
        PMPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      }
    }
    double t = (MPI_Wtime() - t0) / calls;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return t;
  };
  block(false), block(true);  // warm-up
  std::vector<double> plain, recorded, difference;
  for (int b = 0; b < blocks; ++b) {
    const bool recorded_first = b % 2 == 1;  // A B B A ...
    const double first = block(recorded_first), second = block(!recorded_first);
    const double a = recorded_first ? second : first, r = recorded_first ? first : second;
    plain.push_back(a);
    recorded.push_back(r);
    difference.push_back(r - a);
  }
  if (rank == 0) {
    auto line = [](const char *what, const std::vector<double> &v) {
      std::printf("%-44s median %8.3f us  p25 %8.3f  p75 %8.3f  (%zu blocks)\n", what, 1e6 * quantile(v, 0.5),
                  1e6 * quantile(v, 0.25), 1e6 * quantile(v, 0.75), v.size());
    };
    line("PMPI_Allreduce 8 B", plain);
    line("PMPI_Allreduce 8 B, recorded (shim's path)", recorded);
    line("recorded - plain, per block pair", difference);
  }

  // Memory: record() alone over 4 call sites x `sizes` sizes.
  const double t0 = MPI_Wtime();
  for (long k = 0; k < memory_calls; ++k) {
    const double t = t0 + 1e-6 * static_cast<double>(k);
    report::record(&cached, MPI_COMM_WORLD, patcoll::core::Collective::reduce,
                   reinterpret_cast<const void *>(reinterpret_cast<std::uintptr_t>(site) + 16 * (k % 4)),
                   8 * (1 + (k / 4) % sizes), t, t + 1e-6, "native");
  }
  const double per_call = (MPI_Wtime() - t0) / static_cast<double>(std::max(1L, memory_calls));
  const std::size_t bytes = report::memory_bytes();
  const long peak = peak_resident_kib();
  if (rank == 0)
    std::printf("record() alone: %.1f ns per call; after %ld more calls over 4 sites x %ld sizes: recorder %.2f MiB, "
                "peak resident %.1f MiB\n",
                1e9 * per_call, memory_calls, sizes, static_cast<double>(bytes) / (1 << 20),
                static_cast<double>(peak) / 1024);
  MPI_Finalize();
  return 0;
}
