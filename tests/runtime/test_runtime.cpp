// The PAT runtime under MPI_THREAD_MULTIPLE, all cases in one mpirun:
// misuse error codes, estimation accuracy with sleep-emulated computation
// of known length, the exchange (every rank gets the same relative vector,
// equal to the ranks' own predictions), the predictors, collectives fed by
// the runtime, and clean shutdown and re-initialisation.
//
// Accuracy bound checked: sleeping never undershoots, so with an edge at
// 50% of a phase of two sleeps of h the prediction is at least 2h; its
// error (the difference of the two halves' oversleep) is only required to
// stay below the measured length itself (a gross-error check, not a timing
// claim: the measured accuracy is in docs/results/runtime.md).
// The order check compares only the earliest and the latest rank (45 ms
// apart), not neighbours. The lower bound holds in every iteration (sleeps
// never undershoot); the gross-error and order checks, which a loaded
// machine (valgrind, a busy CI runner) can break by oversleeping one rank
// by tens of ms, must hold in at least one of the four iterations: a broken
// predictor or exchange fails them in all four.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <dirent.h>
#include <string>
#include <thread>
#include <vector>

#include "mpi_test.hpp"
#include "patcoll.h"

namespace {

int g_rank = 0, g_size = 1;

void sleep_ms(double ms) { std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms)); }

int thread_count() {
  int n = 0;
  if (DIR *d = opendir("/proc/self/task")) {
    while (dirent *e = readdir(d))
      if (e->d_name[0] != '.') ++n;
    closedir(d);
  }
  return n;
}

// One phase of `total_ms` emulated computation with the edge at 50%.
bool phase(double total_ms) {
  bool ok = PAT_ProcessingStart() == MPI_SUCCESS;
  sleep_ms(total_ms / 2);
  ok = ok && PAT_Edge(0.5) == MPI_SUCCESS;
  sleep_ms(total_ms / 2);
  return ok && PAT_ProcessingEnd() == MPI_SUCCESS;
}

bool scatter_correct(const char *algorithm, int root, int block) {
  std::vector<int> send(static_cast<std::size_t>(block * g_size)), recv(static_cast<std::size_t>(block), -1);
  for (int i = 0; i < block * g_size; ++i) send[static_cast<std::size_t>(i)] = 7 * i + 3;
  const int rc = algorithm ? PAT_Scatter_with(algorithm, send.data(), block, MPI_INT, recv.data(), block, MPI_INT, root,
                                              MPI_COMM_WORLD)
                           : PAT_Scatter(send.data(), block, MPI_INT, recv.data(), block, MPI_INT, root, MPI_COMM_WORLD);
  bool ok = rc == MPI_SUCCESS;
  for (int i = 0; i < block; ++i) ok = ok && recv[static_cast<std::size_t>(i)] == 7 * (g_rank * block + i) + 3;
  return ok;
}

bool allreduce_correct(const char *algorithm, int count) {
  std::vector<double> send(static_cast<std::size_t>(count)), recv(static_cast<std::size_t>(count), -1);
  for (int i = 0; i < count; ++i) send[static_cast<std::size_t>(i)] = g_rank + i;
  const int rc = PAT_Allreduce_with(algorithm, send.data(), recv.data(), count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  bool ok = rc == MPI_SUCCESS;
  for (int i = 0; i < count; ++i)
    ok = ok && recv[static_cast<std::size_t>(i)] == static_cast<double>(g_size) * (g_size - 1) / 2 + g_size * i;
  return ok;
}

bool same_on_all_ranks(const std::vector<double> &v) {
  std::vector<double> root = v;
  MPI_Bcast(root.data(), static_cast<int>(root.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return root == v;
}

}  // namespace

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  patcoll::test::Suite suite;
  if (provided < MPI_THREAD_MULTIPLE) {
    if (g_rank == 0) std::printf("MPI_THREAD_MULTIPLE not provided; runtime tests skipped\n");
    suite.check(PAT_Init(MPI_COMM_WORLD) == MPI_ERR_OTHER, "PAT_Init without MPI_THREAD_MULTIPLE is MPI_ERR_OTHER");
    const int status = suite.finish();
    MPI_Finalize();
    return status;
  }
  const std::size_t P = static_cast<std::size_t>(g_size);
  double predicted = 0, measured = 0;
  std::vector<double> arrivals(P, -1.0);

  // --- misuse before PAT_Init ---------------------------------------------
  suite.check(PAT_ProcessingStart() == MPI_ERR_OTHER, "PAT_ProcessingStart before PAT_Init is MPI_ERR_OTHER");
  suite.check(PAT_Edge(0.5) == MPI_ERR_OTHER, "PAT_Edge before PAT_Init is MPI_ERR_OTHER");
  suite.check(std::strstr(PAT_Last_error(), "PAT_Init") != nullptr, "PAT_Edge before PAT_Init says to call PAT_Init");
  suite.check(PAT_ProcessingEnd() == MPI_ERR_OTHER, "PAT_ProcessingEnd before PAT_Init is MPI_ERR_OTHER");
  suite.check(PAT_Finalize() == MPI_ERR_OTHER, "PAT_Finalize before PAT_Init is MPI_ERR_OTHER");
  suite.check(PAT_Get_arrivals(arrivals.data()) == MPI_ERR_OTHER, "PAT_Get_arrivals before PAT_Init is MPI_ERR_OTHER");
  suite.check(scatter_correct("slin", 0, 5), "PAP-aware scatter works without PAT_Init");
  suite.check(PAT_Init(MPI_COMM_NULL) == MPI_ERR_COMM, "PAT_Init(MPI_COMM_NULL) is MPI_ERR_COMM");
  suite.check(PAT_Set_predictor("bogus") == MPI_ERR_ARG, "an unknown predictor is MPI_ERR_ARG");

  // --- init, double init, phase misuse -----------------------------------
  const int threads_before = thread_count();
  suite.check(PAT_Init(MPI_COMM_WORLD) == MPI_SUCCESS, "PAT_Init succeeds under MPI_THREAD_MULTIPLE");
  int flag = 0;
  suite.check(PAT_Initialized(&flag) == MPI_SUCCESS && flag == 1, "PAT_Initialized reports the runtime");
  suite.check(PAT_Init(MPI_COMM_WORLD) == MPI_ERR_OTHER, "PAT_Init twice is MPI_ERR_OTHER");
  suite.check(std::strstr(PAT_Last_error(), "already") != nullptr, "PAT_Init twice says already initialised");
  suite.check(PAT_Get_arrivals(arrivals.data()) == MPI_SUCCESS &&
                  std::all_of(arrivals.begin(), arrivals.end(), [](double a) { return a == 0.0; }),
              "before the first exchange the PAT vector is all zeros");
  suite.check(PAT_Edge(0.5) == MPI_ERR_OTHER, "PAT_Edge before PAT_ProcessingStart is MPI_ERR_OTHER");
  suite.check(PAT_ProcessingEnd() == MPI_ERR_OTHER, "PAT_ProcessingEnd before PAT_ProcessingStart is MPI_ERR_OTHER");
  suite.check(PAT_ProcessingStart() == MPI_SUCCESS, "PAT_ProcessingStart succeeds");
  suite.check(PAT_ProcessingStart() == MPI_ERR_OTHER, "PAT_ProcessingStart twice is MPI_ERR_OTHER");
  suite.check(PAT_Edge(0.0) == MPI_ERR_ARG, "PAT_Edge(0) is MPI_ERR_ARG");
  suite.check(PAT_Edge(1.5) == MPI_ERR_ARG, "PAT_Edge(1.5) is MPI_ERR_ARG");
  suite.check(PAT_Edge(std::nan("")) == MPI_ERR_ARG, "PAT_Edge(NaN) is MPI_ERR_ARG");
  suite.check(PAT_Edge(0.5) == MPI_SUCCESS, "PAT_Edge inside a phase succeeds");
  suite.check(PAT_Edge(0.7) == MPI_ERR_OTHER, "a second PAT_Edge in a phase is MPI_ERR_OTHER");
  suite.check(PAT_ProcessingEnd() == MPI_SUCCESS, "PAT_ProcessingEnd succeeds");
  suite.check(scatter_correct("slin", 0, 4), "scatter after a phase with an edge is correct");

  // --- estimation accuracy and exchange (edge extrapolation) --------------
  suite.check(PAT_Set_predictor("edge") == MPI_SUCCESS, "PAT_Set_predictor(edge) succeeds");
  const double total_ms = 20.0 + (g_size > 1 ? 45.0 * g_rank / (g_size - 1) : 0.0);  // 20 .. 65 ms
  bool lower = true, bounds = false, exact_exchange = true, same = true, zero_min = true, order = false;
  for (int iteration = 0; iteration < 4; ++iteration) {
    MPI_Barrier(MPI_COMM_WORLD);
    phase(total_ms);
    PAT_Get_prediction(&predicted, &measured);
    const double err_ms = (predicted - measured) * 1e3;
    // The error is the difference of two oversleeps: a few ms on an idle
    // machine, but unbounded under load (valgrind, a saturated CI runner).
    // Only a gross error fails: more than the phase's own measured length.
    const bool above = predicted * 1e3 >= total_ms - 1e-6;
    const bool close = std::fabs(err_ms) < std::max(15.0, measured * 1e3);
    lower = lower && above;
    // Every rank must agree on whether this iteration counts.
    int close_all = close ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &close_all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    bounds = bounds || close_all == 1;
    if (!above || !close)
      std::printf("rank %d iteration %d: predicted %.3f ms, measured %.3f ms, known %.1f ms\n", g_rank, iteration,
                  predicted * 1e3, measured * 1e3, total_ms);
    PAT_Get_arrivals(arrivals.data());
    std::vector<double> own(P);
    MPI_Allgather(&predicted, 1, MPI_DOUBLE, own.data(), 1, MPI_DOUBLE, MPI_COMM_WORLD);
    const double earliest = *std::min_element(own.begin(), own.end());
    for (std::size_t i = 0; i < P; ++i) exact_exchange = exact_exchange && arrivals[i] == own[i] - earliest;
    same = same && same_on_all_ranks(arrivals);
    zero_min = zero_min && *std::min_element(arrivals.begin(), arrivals.end()) == 0.0;
    order = order || g_size == 1 || arrivals[P - 1] > arrivals[0] + 0.010;
    suite.check(scatter_correct("slin", iteration % g_size, 6), "slin scatter with the runtime's PATs is correct");
    suite.check(allreduce_correct("slt", 100), "slt allreduce with the runtime's PATs is correct");
  }
  suite.check(lower, "edge prediction is at least the known length in every iteration");
  suite.check(bounds, "edge prediction is off by less than the measured length (in at least one of 4 iterations)");
  suite.check(exact_exchange, "the exchanged vector is every rank's own prediction minus the earliest");
  suite.check(same, "every rank gets the same PAT vector");
  suite.check(zero_min, "the earliest arrival of the PAT vector is 0");
  suite.check(order, "the rank computing 45 ms longer is predicted more than 10 ms later (in at least one of 4 iterations)");

  // --- last value and moving average -------------------------------------
  suite.check(PAT_Set_predictor("last") == MPI_SUCCESS, "PAT_Set_predictor(last) succeeds");
  phase(10);
  PAT_Get_prediction(&predicted, &measured);
  const double first = measured;
  phase(25);
  PAT_Get_prediction(&predicted, &measured);
  suite.check(predicted == first, "last: the prediction is the previous phase's measured length");
  suite.check(PAT_Set_predictor("sma:3") == MPI_SUCCESS, "PAT_Set_predictor(sma:3) succeeds");
  std::vector<double> lengths;
  bool sma = true;
  for (int i = 0; i < 5; ++i) {
    phase(8 + 4 * i);
    PAT_Get_prediction(&predicted, &measured);
    if (!lengths.empty()) {
      const std::size_t k = std::min<std::size_t>(3, lengths.size());
      double sum = 0;
      for (std::size_t j = lengths.size() - k; j < lengths.size(); ++j) sum += lengths[j];
      sma = sma && std::fabs(predicted - sum / static_cast<double>(k)) < 1e-12;
    }
    lengths.push_back(measured);
    PAT_Get_arrivals(arrivals.data());
    sma = sma && scatter_correct("slin", 0, 3);
  }
  suite.check(sma, "sma:3: the prediction is the mean of the last (up to) 3 measured lengths");
  PAT_Set_predictor("edge");

  // --- PAT_UseAlg, collectives fed without waiting for PAT_Get_arrivals ---
  suite.check(PAT_UseAlg("scatter", "slin") == MPI_SUCCESS, "PAT_UseAlg(scatter, slin) succeeds");
  suite.check(PAT_UseAlg("scatter", "nonsense") == MPI_ERR_ARG, "PAT_UseAlg with an unknown name is MPI_ERR_ARG");
  bool loop = true;
  for (int iteration = 0; iteration < 6; ++iteration) {
    loop = phase(2.0 + ((g_rank + iteration) % 3) * 4.0) && loop;
    loop = scatter_correct(nullptr, (iteration * 3) % g_size, 257) && loop;  // the edge's vector, straight away
    loop = allreduce_correct("prr", 1000) && loop;
  }
  suite.check(loop, "an iterative loop with imbalanced phases and PAP-aware collectives is correct");
  // An edge at 100% right before the collective: the collective waits for the exchange.
  bool late_edge = PAT_ProcessingStart() == MPI_SUCCESS;
  sleep_ms(2.0 * g_rank);
  late_edge = late_edge && PAT_Edge(1.0) == MPI_SUCCESS && PAT_ProcessingEnd() == MPI_SUCCESS;
  late_edge = late_edge && scatter_correct(nullptr, 0, 64);
  suite.check(late_edge, "a collective right after an edge at 100% is correct");

  // --- shutdown ------------------------------------------------------------
  suite.check(PAT_Finalize() == MPI_SUCCESS, "PAT_Finalize succeeds");
  suite.check(PAT_Finalize() == MPI_ERR_OTHER, "PAT_Finalize twice is MPI_ERR_OTHER");
  suite.check(PAT_Initialized(&flag) == MPI_SUCCESS && flag == 0, "the runtime is gone after PAT_Finalize");
  suite.check(thread_count() == threads_before, "PAT_Finalize leaves no thread behind");
  suite.check(PAT_Edge(0.5) == MPI_ERR_OTHER, "PAT_Edge after PAT_Finalize is MPI_ERR_OTHER");
  suite.check(scatter_correct("slin", 0, 5), "collectives work after PAT_Finalize");
  // Re-initialisation, and a runtime left running into MPI_Finalize (the
  // finalize hook must stop it).
  suite.check(PAT_Init(MPI_COMM_WORLD) == MPI_SUCCESS, "PAT_Init after PAT_Finalize succeeds");
  suite.check(phase(4) && scatter_correct("slin", 0, 5), "a phase after re-initialisation works");
  // After re-initialisation the collectives still wait for the newest
  // exchange: PAP-aware trees (sbn, slt) right after an edge at 100 %.
  bool reinit = true;
  for (int iteration = 0; iteration < 3; ++iteration) {
    reinit = PAT_ProcessingStart() == MPI_SUCCESS && reinit;
    sleep_ms(1.0 + 3.0 * ((g_rank + iteration) % g_size));
    reinit = PAT_Edge(1.0) == MPI_SUCCESS && PAT_ProcessingEnd() == MPI_SUCCESS && reinit;
    reinit = scatter_correct("sbn", iteration % g_size, 33) && reinit;
    reinit = allreduce_correct("slt", 77) && reinit;
  }
  suite.check(reinit, "after re-initialisation, PAP-aware trees right after an edge at 100% are correct");
  const int status = suite.finish();
  MPI_Finalize();
  return status;
}
