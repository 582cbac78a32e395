// The background collectives (bsln/bsbn scatter, bsls/bsbn gather; [PS]
// Figs. 6, 8, 10, 12) driven by the PAT runtime, all cases in one mpirun:
// correct data and completion when nobody, a non-root or the root arrives
// late, for eager (1 int) and rendezvous-sized (1.2 MB) blocks, roots 0
// and P-1; the data the foreground part reads is the data of PAT_Run time
// (buffers refilled after the edge); iterations without an edge; misuse;
// a background name off the runtime's communicator (or before PAT_Init) is
// its base as an ordinary persistent collective in the foreground.
#include <mpi.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "mpi_test.hpp"
#include "patcoll.h"

namespace {

int g_rank = 0, g_size = 1;

void sleep_ms(double ms) { std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms)); }

int value(int iteration, int rank, int i) { return 1000003 * iteration + 7919 * rank + i; }

// Waits for `count` tokens of value `expected` on MPI_COMM_WORLD (tag 99;
// stale tokens of an earlier, failed case are dropped); false after 10 s.
bool wait_tokens(int count, int expected) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (count > 0) {
    int token = -1, done = 0;
    MPI_Request request;
    MPI_Irecv(&token, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &request);
    while (!done && std::chrono::steady_clock::now() < deadline) {
      MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (!done) sleep_ms(0.5);
    }
    if (!done) {
      MPI_Cancel(&request);
      MPI_Wait(&request, MPI_STATUS_IGNORE);
      return false;
    }
    if (token == expected) --count;
  }
  return true;
}

int g_case = 0;  // counts run_case calls (the same on every rank)

enum Late { nobody, non_root, root_late };
const char *late_name(Late late) { return late == nobody ? "nobody" : late == non_root ? "a non-root" : "the root"; }

// One collective per iteration with a phase before it; true when every
// iteration delivered the right data.
bool run_case(bool scatter, const char *algorithm, int block, int root, Late late, bool with_edge, int iterations) {
  ++g_case;
  const int late_rank = late == root_late ? root : late == non_root ? (root + g_size - 1) % g_size : -1;
  std::vector<int> whole(static_cast<std::size_t>(block) * static_cast<std::size_t>(g_size), -1);
  std::vector<int> own(static_cast<std::size_t>(block), -1);
  PAT_Handle handle = nullptr;
  int rc = scatter ? PAT_Scatter_init_with(algorithm, whole.data(), block, MPI_INT, own.data(), block, MPI_INT, root,
                                      MPI_COMM_WORLD, MPI_INFO_NULL, &handle)
                   : PAT_Gather_init_with(algorithm, own.data(), block, MPI_INT, whole.data(), block, MPI_INT, root,
                                     MPI_COMM_WORLD, MPI_INFO_NULL, &handle);
  if (rc != MPI_SUCCESS) {
    std::printf("rank %d: init: %s\n", g_rank, PAT_Last_error());
    return false;
  }
  bool ok = true;
  for (int it = 0; it < iterations; ++it) {
    // Stale contents before the phase; the real data is produced after the
    // edge, as a computation would.
    std::fill(whole.begin(), whole.end(), -1);
    std::fill(own.begin(), own.end(), -1);
    ok = PAT_Start(handle) == MPI_SUCCESS && ok;
    ok = PAT_ProcessingStart() == MPI_SUCCESS && ok;
    const double compute = 2.0 + (g_rank == late_rank ? 25.0 : 0.0);
    sleep_ms(compute / 2);
    if (with_edge) ok = PAT_Edge(0.5) == MPI_SUCCESS && ok;
    // Handshake cases (see the file comment): who waits inside its phase.
    const bool handshake = with_edge && block >= 100000 && g_size > 1 &&
                           ((scatter && late == non_root) || (!scatter && late == root_late));
    if (handshake && g_rank == late_rank) {
      if (!wait_tokens(scatter ? 1 : g_size - 1, 1000 * g_case + it)) {
        std::printf("rank %d: %s %s: the others' PAT_Run did not finish while this rank computed\n", g_rank,
                    scatter ? "scatter" : "gather", algorithm);
        ok = false;
      }
    } else {
      sleep_ms(compute / 2);
    }
    if (scatter && g_rank == root)
      for (int r = 0; r < g_size; ++r)
        for (int i = 0; i < block; ++i) whole[static_cast<std::size_t>(r * block + i)] = value(it, r, i);
    if (!scatter)
      for (int i = 0; i < block; ++i) own[static_cast<std::size_t>(i)] = value(it, g_rank, i);
    ok = PAT_ProcessingEnd() == MPI_SUCCESS && ok;
    rc = PAT_Run(handle);
    if (rc != MPI_SUCCESS) {
      std::printf("rank %d: PAT_Run: %s\n", g_rank, PAT_Last_error());
      ok = false;
      continue;
    }
    const bool token_sender = scatter ? g_rank == root : g_rank != root;
    if (handshake && token_sender) {
      int token = 1000 * g_case + it;
      MPI_Send(&token, 1, MPI_INT, late_rank, 99, MPI_COMM_WORLD);
    }
    if (scatter) {
      for (int i = 0; i < block; ++i) ok = ok && own[static_cast<std::size_t>(i)] == value(it, g_rank, i);
    } else if (g_rank == root) {
      for (int r = 0; r < g_size; ++r)
        for (int i = 0; i < block; ++i) ok = ok && whole[static_cast<std::size_t>(r * block + i)] == value(it, r, i);
    }
  }
  ok = PAT_Handle_free(&handle) == MPI_SUCCESS && handle == nullptr && ok;
  return ok;
}

bool last_algorithm_is(const char *collective, const std::string &name) {
  const char *last = nullptr;
  return PAT_Get_last_algorithm(MPI_COMM_WORLD, collective, &last) == MPI_SUCCESS && last && name == last;
}

// A persistent scatter by `algorithm` on `comm` run twice with PAT_Start /
// PAT_Wait (no edge involved): every rank's block each time, and
// PAT_Get_last_algorithm names `algorithm`. At P = 1 every communicator is
// congruent to the runtime's, so the handle is the runtime's collective
// (it runs in the foreground without an edge and records the last
// algorithm on the runtime's communicator, not on `comm`): data only.
bool foreground_scatter(const char *algorithm, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int block = 3, root = size - 1;
  std::vector<int> whole(static_cast<std::size_t>(block * size)), own(block, -1);
  PAT_Handle handle = nullptr;
  bool ok = PAT_Scatter_init_with(algorithm, whole.data(), block, MPI_INT, own.data(), block, MPI_INT, root, comm,
                                  MPI_INFO_NULL, &handle) == MPI_SUCCESS;
  for (int iteration = 0; iteration < 2 && ok; ++iteration) {
    for (std::size_t i = 0; i < whole.size(); ++i) whole[i] = value(iteration, 0, static_cast<int>(i));
    ok = PAT_Start(handle) == MPI_SUCCESS && PAT_Wait(&handle) == MPI_SUCCESS;
    for (int i = 0; i < block && ok; ++i) ok = own[static_cast<std::size_t>(i)] == value(iteration, 0, rank * block + i);
  }
  const char *last = nullptr;
  if (g_size > 1)
    ok = ok && PAT_Get_last_algorithm(comm, "scatter", &last) == MPI_SUCCESS && last && std::string(last) == algorithm;
  if (handle) ok = PAT_Handle_free(&handle) == MPI_SUCCESS && ok;
  return ok;
}

}  // namespace

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  patcoll::test::Suite suite;
  if (provided < MPI_THREAD_MULTIPLE) {
    if (g_rank == 0) std::printf("MPI_THREAD_MULTIPLE not provided; background tests skipped\n");
    const int status = suite.finish();
    MPI_Finalize();
    return status;
  }
  int x = 0;
  PAT_Handle handle = nullptr;
  suite.check(foreground_scatter("bsln", MPI_COMM_WORLD),
              "bsln before PAT_Init is a persistent slin in the foreground: scatters, reported as bsln");
  suite.check(PAT_Init(MPI_COMM_WORLD) == MPI_SUCCESS, "PAT_Init succeeds");
  // Separate buffers: overlapping ones are MPI_ERR_BUFFER before the name is looked at.
  std::vector<int> all(static_cast<std::size_t>(g_size), 0);
  suite.check(PAT_Scatter_init_with("no_such", all.data(), 1, MPI_INT, &x, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                                    &handle) == MPI_ERR_ARG,
              "an unknown algorithm name is MPI_ERR_ARG for PAT_Scatter_init");
  suite.check(PAT_Gather_init_with("bsln", &x, 1, MPI_INT, all.data(), 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &handle) == MPI_ERR_ARG,
              "bsln is not a gather");
  suite.check(foreground_scatter("bsbn", MPI_COMM_SELF),
              "bsbn on a communicator other than the runtime's (P > 1) is a persistent sbn in the foreground");
  MPI_Comm split = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, g_rank % 2, g_rank, &split);
  suite.check(foreground_scatter("bsln", split),
              "bsln on a split of the runtime's communicator (P > 1) is a persistent slin in the foreground");
  MPI_Comm_free(&split);
  PAT_ProcessingStart();
  suite.check(PAT_Scatter_init_with("bsln", &x, 1, MPI_INT, &x, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &handle) == MPI_ERR_OTHER,
              "PAT_Scatter_init inside a phase is MPI_ERR_OTHER");
  PAT_ProcessingEnd();

  for (const bool scatter : {true, false})
    for (const char *algorithm : {scatter ? "bsln" : "bsls", "bsbn"})
      for (const int block : {1, 300000})
        for (const int root : {0, g_size - 1})
          for (const Late late : {nobody, non_root, root_late}) {
            const std::string what = std::string(scatter ? "scatter " : "gather ") + algorithm + ", block " +
                                     std::to_string(block) + " ints, root " + (root == 0 ? "0" : "P-1") + ", " +
                                     late_name(late) + " late: correct and finishes";
            suite.check(run_case(scatter, algorithm, block, root, late, true, 2), what);
          }
  suite.check(last_algorithm_is("gather", "bsbn"), "PAT_Get_last_algorithm names the background row that ran last (gather bsbn)");
  suite.check(run_case(true, "bsbn", 1000, 0, non_root, false, 2), "scatter bsbn without edges runs in the foreground");
  suite.check(run_case(false, "bsls", 1000, 0, root_late, false, 2), "gather bsls without edges runs in the foreground");
  suite.check(last_algorithm_is("scatter", "bsbn") && last_algorithm_is("gather", "bsls"),
              "PAT_Get_last_algorithm names a background row run in the foreground (scatter bsbn, gather bsls)");

  // Misuse around handles.
  std::vector<int> buffer(static_cast<std::size_t>(g_size), 0);
  suite.check(PAT_Gather_init_with("bsbn", &x, 1, MPI_INT, buffer.data(), 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &handle) ==
                  MPI_SUCCESS,
              "PAT_Gather_init succeeds");
  suite.check(PAT_Finalize() == MPI_ERR_OTHER, "PAT_Finalize with a live handle is MPI_ERR_OTHER");
  suite.check(PAT_Start(handle) == MPI_SUCCESS, "PAT_Start succeeds");
  suite.check(PAT_Start(handle) == MPI_ERR_OTHER, "PAT_Start twice is MPI_ERR_OTHER");
  suite.check(PAT_Handle_free(&handle) == MPI_ERR_OTHER, "PAT_Handle_free of a started handle is MPI_ERR_OTHER");
  PAT_ProcessingStart();
  buffer.assign(static_cast<std::size_t>(g_size), -1);
  x = 40 + g_rank;
  suite.check(PAT_Edge(0.5) == MPI_SUCCESS, "PAT_Edge with a started handle succeeds");
  PAT_ProcessingEnd();
  PAT_ProcessingStart();
  suite.check(PAT_Edge(0.5) == MPI_ERR_OTHER, "PAT_Edge while a started handle awaits PAT_Run is MPI_ERR_OTHER");
  PAT_ProcessingEnd();
  bool gathered = PAT_Run(handle) == MPI_SUCCESS;
  for (int r = 0; r < g_size && g_rank == 0; ++r) gathered = gathered && buffer[static_cast<std::size_t>(r)] == 40 + r;
  suite.check(gathered, "PAT_Run after the refused edge gathers correctly");
  // A handle that is not started does nothing at an edge and runs in the foreground.
  PAT_ProcessingStart();
  suite.check(PAT_Edge(0.5) == MPI_SUCCESS, "PAT_Edge with an idle handle succeeds");
  x = 50 + g_rank;
  PAT_ProcessingEnd();
  gathered = PAT_Run(handle) == MPI_SUCCESS;
  for (int r = 0; r < g_size && g_rank == 0; ++r) gathered = gathered && buffer[static_cast<std::size_t>(r)] == 50 + r;
  suite.check(gathered, "PAT_Run of a handle not started gathers in the foreground");
  PAT_Handle stale = handle;
  suite.check(PAT_Handle_free(&handle) == MPI_SUCCESS, "PAT_Handle_free succeeds");
  suite.check(PAT_Run(stale) == MPI_ERR_REQUEST, "PAT_Run on a freed handle is MPI_ERR_REQUEST");
  suite.check(PAT_Handle_free(&stale) == MPI_ERR_REQUEST, "PAT_Handle_free twice is MPI_ERR_REQUEST");
  suite.check(PAT_Finalize() == MPI_SUCCESS, "PAT_Finalize after freeing the handles succeeds");
  const int status = suite.finish();
  MPI_Finalize();
  return status;
}
