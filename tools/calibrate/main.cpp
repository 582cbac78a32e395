// patcoll-calibrate — measures the Hockney cost model of the communicator
// and writes it as a PATCOLL_MODEL file.
//   α: one round of an 8-byte ring exchange in which every rank sends and
//      receives at once (the slowest rank's time) — the round latency of
//      the collective algorithms' model, contention and scheduling included;
//   β: the slope of that round time between 8 B and --bytes;
//   γ: MPI_Reduce_local(MPI_SUM) on floats on every rank at once, seconds
//      per byte (slowest rank).
// Each is the median of --repetitions measurements. With one rank only γ
// is measured and α, β keep the built-in values.
//
//   mpirun -np 2 patcoll-calibrate --out model.txt
//   PATCOLL_MODEL=model.txt mpirun -np 8 my_program
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

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

int main(int argc, char **argv) {
  std::string out = "patcoll-model.txt";
  int bytes = 1 << 20, repetitions = 50;
  std::string error;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) {
      error = flag + " needs a value";
      break;
    }
    const std::string value = argv[++i];
    if (flag == "--out") out = value;
    else if (flag == "--bytes") bytes = std::atoi(value.c_str());
    else if (flag == "--repetitions") repetitions = std::atoi(value.c_str());
    else error = "unknown flag " + flag + " (--out FILE, --bytes N, --repetitions N)";
  }
  if (error.empty() && (bytes < 1024 || repetitions < 1)) error = "--bytes must be at least 1024 and --repetitions at least 1";
  if (!error.empty()) {  // before MPI_Init: every rank says it and exits
    std::fprintf(stderr, "patcoll-calibrate: %s\n", error.c_str());
    return 2;
  }
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  patcoll::core::CostModel model;
  if (size >= 2) {
    const double small = ring_round(rank, size, 8, repetitions);
    const double large = ring_round(rank, size, bytes, repetitions);
    model.alpha = small;
    model.beta = std::max(0.0, (large - small) / (bytes - 8));
  }
  const double gamma = reduce_local_per_byte(bytes / static_cast<int>(sizeof(float)), repetitions);
  MPI_Bcast(&model.alpha, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Bcast(&model.beta, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Reduce(&gamma, &model.gamma, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
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
