// MPI driver: every PAP-aware algorithm (Clairvoyant, greedy, slt, prr,
// sorted scatter/gather) with PAT vectors that are WRONG — the real
// arrival delays, injected with sleeps, differ from the vector given to
// PAT_Set_arrivals. Results must stay exact and nothing may hang; wrong
// predictions only cost time. Also: segment counts from 1 to more than the
// element count, roots ≠ 0, and every rank generating the same schedule
// (determinism across ranks).
#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/algorithm.hpp"
#include "core/ir.hpp"
#include "mpi/registry.hpp"
#include "mpi_test.hpp"
#include "patcoll.h"

using patcoll::core::Collective;

namespace {

std::uint64_t fingerprint(const std::vector<patcoll::core::Program> &programs) {
  const std::string text = patcoll::core::to_json(programs);
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

int run(Collective c, const std::string &algorithm, const std::vector<int> &send, std::vector<int> &recv, int count,
        int root) {
  return patcoll::test::run_int(c, algorithm, send.data(), recv.data(), count, root, MPI_COMM_WORLD);
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int status;
  {
    patcoll::test::Suite suite;
    std::mt19937_64 shared(2024);              // identical on every rank: PATs, roots, counts
    std::mt19937_64 own(77 + 1000003ull * rank);  // per rank: the real delays
    for (Collective c : {Collective::reduce, Collective::allreduce, Collective::scatter, Collective::gather,
                         Collective::bcast}) {
      for (const auto &entry : patcoll::mpi::entries(c)) {
        if (!(entry.capabilities & patcoll::core::pap_aware)) continue;
        const std::string algorithm(entry.name);
        const int trials = size > 8 ? 3 : 6;  // P = 16 oversubscribes 2 cores 8-fold
        for (int trial = 0; trial < trials; ++trial) {
          const int counts[] = {1, 7, 1000, 4096};
          const int count = counts[shared() % 4];
          const int root = static_cast<int>(shared() % static_cast<std::uint64_t>(size));
          // Segment counts 1, a few, and more than the element count.
          const int segments[] = {1, 3, count + 5};
          const std::string segment_count = std::to_string(segments[trial % 3]);
          patcoll::test::set_configuration("PATCOLL_SEGMENTS", segment_count.c_str());
          std::vector<double> predicted(static_cast<std::size_t>(size));
          std::uniform_real_distribution<double> pat(0.0, 3e-3);
          for (double &p : predicted) p = pat(shared);
          PAT_Set_arrivals(MPI_COMM_WORLD, predicted.data());

          const bool movement = c == Collective::scatter || c == Collective::gather;
          const std::size_t whole = static_cast<std::size_t>(count) * (movement ? size : 1);
          std::vector<int> send(c == Collective::gather ? count : whole), expected(whole, -1), got(whole, -1);
          for (std::size_t i = 0; i < send.size(); ++i) send[i] = rank * 1000 + static_cast<int>(i % 997);
          int rc = run(c, "native", send, expected, count, root);
          suite.check(rc == MPI_SUCCESS, "native failed");

          // The real arrival: a delay unrelated to the prediction.
          MPI_Barrier(MPI_COMM_WORLD);
          std::this_thread::sleep_for(std::chrono::microseconds(own() % 3000));
          rc = run(c, algorithm, send, got, count, root);
          const std::string what = std::string(patcoll::core::to_string(c)) + " " + algorithm + " count=" +
                                   std::to_string(count) + " root=" + std::to_string(root) + " segments=" +
                                   segment_count + " P=" + std::to_string(size);
          suite.check(rc == MPI_SUCCESS, what + ": returned " + patcoll::test::error_class_name(rc) + " " + PAT_Last_error());
          const bool has_result =
              c == Collective::allreduce || c == Collective::scatter || c == Collective::bcast || rank == root;
          const std::size_t compared = c == Collective::scatter ? static_cast<std::size_t>(count) : whole;
          if (has_result)
            suite.check(std::equal(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(compared), expected.begin()),
                        what + ": result differs from native under wrong PATs");

          // Determinism: every rank generates the same programs from the same inputs.
          if (entry.capabilities & patcoll::core::schedule_based) {
            patcoll::core::Params params;
            params.collective = c;
            params.procs = size;
            params.root = root;
            params.count = count;
            params.segment_count = segments[trial % 3];
            params.arrivals = predicted;
            const std::uint64_t mine = fingerprint(patcoll::core::build_all(*entry.algorithm, params));
            std::vector<std::uint64_t> all(static_cast<std::size_t>(size));
            MPI_Allgather(&mine, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
            bool same = true;
            for (std::uint64_t h : all) same &= h == mine;
            suite.check(same, what + ": ranks generated different schedules");
          }
        }
      }
    }
    patcoll::test::set_configuration("PATCOLL_SEGMENTS", nullptr);
    PAT_Set_arrivals(MPI_COMM_WORLD, nullptr);
    status = suite.finish();
  }
  MPI_Finalize();
  return status;
}
