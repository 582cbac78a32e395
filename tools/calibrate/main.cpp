// patcoll-calibrate — measures the Hockney cost model of the communicator
// and writes it as a PATCOLL_MODEL file.
//   α: one round of an 8-byte ring exchange in which every rank sends and
//      receives at once (the slowest rank's time) — the round latency of
//      the collective algorithms' model, contention and scheduling included;
//   β: the slope of that round time between 8 B and --bytes;
//   γ: MPI_Reduce_local(MPI_SUM) on floats on every rank at once, seconds
//      per byte (slowest rank).
// Each is the median of --repetitions measurements. With one rank α and β
// cannot be measured: it refuses (exit 2) rather than write the built-in
// values as if measured.
//
//   mpirun -np 2 patcoll-calibrate --out model.txt
//   PATCOLL_MODEL=model.txt mpirun -np 8 my_program
#include <mpi.h>

#include <algorithm>
#include <utility>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli.hpp"
#include "core/cost.hpp"

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Median time of one round in which EVERY rank sends `bytes` to its right
// neighbour and receives from its left one (slowest rank per round). This
// is the round of Clairvoyant's model with all processes communicating at
// once, so it includes contention and, on oversubscribed cores, the
// scheduling delay — a two-rank ping-pong with idle neighbours does not.
double ring_round(int rank, int size, int bytes, int repetitions) {
  std::vector<char> out(static_cast<std::size_t>(std::max(bytes, 1))), in(out.size());
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  std::vector<double> times;
  for (int r = 0; r < repetitions + 2; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    MPI_Sendrecv(out.data(), bytes, MPI_BYTE, right, 0, in.data(), bytes, MPI_BYTE, left, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    double mine = MPI_Wtime() - start, slowest = 0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (r >= 2) times.push_back(slowest);
  }
  return median(times);
}

double reduce_local_per_byte(int count, int repetitions) {
  std::vector<float> in(static_cast<std::size_t>(count), 1.0f), inout(static_cast<std::size_t>(count), 2.0f);
  std::vector<double> times;
  for (int r = 0; r < repetitions + 2; ++r) {
    const double start = MPI_Wtime();
    MPI_Reduce_local(in.data(), inout.data(), count, MPI_FLOAT, MPI_SUM);
    if (r >= 2) times.push_back(MPI_Wtime() - start);
  }
  return median(times) / (static_cast<double>(count) * sizeof(float));
}

}  // namespace

const char *const kUsage =
    "usage: mpirun -np P patcoll-calibrate [--out FILE] [--size BYTES] [--repetitions N] | --help | --version\n"
    "Measures the Hockney model (alpha, beta, gamma) on P >= 2 processes and writes a PATCOLL_MODEL file,\n"
    "which patcoll-sim, patcoll-sched and patcoll-bench read with --model FILE.\n"
    "  --out FILE         the model file (default patcoll-model.txt; --output, -o)\n"
    "  --size BYTES       large message for beta, 1K .. 1G (K/M/G = 2^10/2^20/2^30; default 1M; --bytes)\n"
    "  --repetitions N    measurements per value, 1 .. 100000 (default 50); the median is kept\n"
    "Bad input: one line on stderr, exit code 2. With one process alpha and beta cannot be measured:\n"
    "refused (exit 2), nothing written.\n";

int main(int argc, char **argv) {
  std::string out = "patcoll-model.txt";
  int bytes = 1 << 20, repetitions = 50;
  {  // before MPI_Init: every rank says it and exits (tools/common/cli.hpp)
    namespace flags = patcoll::cli::flags;
    patcoll::cli::Arguments arguments("patcoll-calibrate", kUsage, argc, argv,
                                      {flags::out, flags::size, patcoll::cli::Flag{"--repetitions", "", true}});
    std::string flag;
    while (arguments.next(flag)) {
      if (flag == "--out") out = arguments.value();
      else if (flag == "--size") bytes = static_cast<int>(arguments.size(1024, 1 << 30));
      else if (flag == "--repetitions") repetitions = static_cast<int>(arguments.integer(1, 100000));
    }
  }
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {  // the built-in alpha/beta would look measured: write nothing
    if (rank == 0)
      std::fprintf(stderr, "patcoll-calibrate: 1 process: alpha and beta need at least 2 (mpirun -np 2 or more); "
                           "nothing written\n");
    MPI_Finalize();
    return 2;
  }
  patcoll::core::CostModel model;
  {
    const double small = ring_round(rank, size, 8, repetitions);
    const double large = ring_round(rank, size, bytes, repetitions);
    model.alpha = small;
    model.beta = (large - small) / (bytes - 8);
  }
  const double gamma = reduce_local_per_byte(bytes / static_cast<int>(sizeof(float)), repetitions);
  MPI_Bcast(&model.alpha, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Bcast(&model.beta, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Reduce(&gamma, &model.gamma, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  // The library takes only positive values (docs/results/agreement.md): a slope lost
  // in the noise is written as a tiny positive value, and said so.
  if (rank == 0) {
    for (auto [name, value] : {std::pair<const char *, double *>{"beta", &model.beta}, {"gamma", &model.gamma}})
      if (!(*value > 0)) {
        std::fprintf(stderr, "patcoll-calibrate: %s measured as %g (noise); written as 1e-13\n", name, *value);
        *value = 1e-13;
      }
  }
  int status = 0;
  if (rank == 0) {
    const std::string text = patcoll::core::format_cost_model(model);
    std::fputs(text.c_str(), stdout);
    if (FILE *f = std::fopen(out.c_str(), "w")) {
      std::fputs(text.c_str(), f);
      std::fclose(f);
      std::printf("# written to %s (use PATCOLL_MODEL=%s)\n", out.c_str(), out.c_str());
    } else {
      std::fprintf(stderr, "patcoll-calibrate: cannot write %s\n", out.c_str());
      status = 1;
    }
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return status;
}
