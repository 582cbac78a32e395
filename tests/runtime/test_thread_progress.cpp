// The PAT runtime's thread alone progresses non-blocking and persistent
// collectives (issue 15 item 5; mpi/handle.hpp): a collective is started
// and then neither PAT_Test nor PAT_Wait is called; the handle is only
// looked at with mpi::Handle::peek(), which makes no MPI call and moves
// nothing. Facts checked, on every rank:
//   - without the runtime nothing moves the schedule between the start and
//     PAT_Wait (the position is the same before and after a pause), so the
//     check below can fail;
//   - with the runtime initialised the schedule completes by itself (its
//     last step done, advanced by the thread: thread_advances > 0), the
//     handle stays active until the application completes it, and PAT_Wait
//     then returns MPI_SUCCESS with the right result.
// No timed assertion: the thread is waited for (1 ms polls) up to a
// liveness cap of 120 s, far above anything a loaded machine needs; only
// reaching the cap fails. At P = 1 the collectives have no communication
// (nothing to progress): the driver runs at P = 2, 3 and 4.
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "mpi/handle.hpp"
#include "api/handles.hpp"
#include "mpi_test.hpp"
#include "patcoll.h"

namespace {

using patcoll::mpi::collective_of;
using patcoll::mpi::HandleProgress;

int g_rank = 0, g_size = 1;

HandleProgress peek(PAT_Handle handle) {
  patcoll::mpi::Handle *collective = collective_of(handle);
  return collective ? collective->peek() : HandleProgress{};
}

// One collective of the test: started into `handle`; `right()` checks the
// result after completion.
struct Case {
  std::string name;
  std::vector<float> send, recv;
  int count = 0;
};

int start(const std::string &collective, const char *algorithm, Case &c, bool persistent, PAT_Handle *handle) {
  const int n = c.count;
  float *s = c.send.data(), *r = c.recv.data();
  MPI_Comm comm = MPI_COMM_WORLD;
  int rc = MPI_ERR_OTHER;
  if (collective == "allreduce")
    rc = persistent ? PAT_Allreduce_init_with(algorithm, s, r, n, MPI_FLOAT, MPI_SUM, comm, MPI_INFO_NULL, handle)
                    : PAT_Iallreduce_with(algorithm, s, r, n, MPI_FLOAT, MPI_SUM, comm, handle);
  else if (collective == "reduce")
    rc = persistent ? PAT_Reduce_init_with(algorithm, s, r, n, MPI_FLOAT, MPI_SUM, 0, comm, MPI_INFO_NULL, handle)
                    : PAT_Ireduce_with(algorithm, s, r, n, MPI_FLOAT, MPI_SUM, 0, comm, handle);
  else if (collective == "scatter")
    rc = persistent ? PAT_Scatter_init_with(algorithm, s, n, MPI_FLOAT, r, n, MPI_FLOAT, 0, comm, MPI_INFO_NULL, handle)
                    : PAT_Iscatter_with(algorithm, s, n, MPI_FLOAT, r, n, MPI_FLOAT, 0, comm, handle);
  else if (collective == "gather")
    rc = persistent ? PAT_Gather_init_with(algorithm, s, n, MPI_FLOAT, r, n, MPI_FLOAT, 0, comm, MPI_INFO_NULL, handle)
                    : PAT_Igather_with(algorithm, s, n, MPI_FLOAT, r, n, MPI_FLOAT, 0, comm, handle);
  if (rc == MPI_SUCCESS && persistent) rc = PAT_Start(*handle);
  return rc;
}

// Rank r contributes (r + i) % 5 at element i; root 0.
Case make(const std::string &collective, int count) {
  Case c;
  c.count = count;
  c.send.resize(static_cast<std::size_t>(collective == "scatter" ? count * g_size : count));
  for (std::size_t i = 0; i < c.send.size(); ++i) c.send[i] = static_cast<float>((g_rank + i) % 5);
  c.recv.assign(static_cast<std::size_t>(collective == "gather" ? count * g_size : count), -1.0f);
  return c;
}

bool right(const std::string &collective, const Case &c) {
  for (std::size_t i = 0; i < c.recv.size(); ++i) {
    float expected = 0;
    if (collective == "allreduce" || (collective == "reduce" && g_rank == 0)) {
      for (int r = 0; r < g_size; ++r) expected += static_cast<float>((r + i) % 5);
    } else if (collective == "scatter") {
      expected = static_cast<float>((static_cast<std::size_t>(g_rank) * c.count + i) % 5);
    } else if (collective == "gather" && g_rank == 0) {
      expected = static_cast<float>((i / static_cast<std::size_t>(c.count) + i % c.count) % 5);
    } else {
      continue;
    }
    if (c.recv[i] != expected) return false;
  }
  return true;
}

void pause_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

// Without the runtime: the position does not move between start and wait.
void no_runtime_no_progress(patcoll::test::Suite &suite) {
  Case c = make("allreduce", 1000);
  PAT_Handle handle = nullptr;
  const int rc = start("allreduce", "ring", c, false, &handle);
  suite.check(rc == MPI_SUCCESS, "without the runtime: PAT_Iallreduce_with(ring) starts");
  const HandleProgress before = peek(handle);
  MPI_Barrier(MPI_COMM_WORLD);  // every rank has started: messages could flow
  pause_ms(50);
  const HandleProgress after = peek(handle);
  suite.check(before.active && !before.schedule_complete && !after.schedule_complete && after.step == before.step &&
                  after.thread_advances == 0,
              "without the runtime: nothing moves the schedule until PAT_Test/PAT_Wait (step " +
                  std::to_string(before.step) + " -> " + std::to_string(after.step) + ")");
  const int wait = rc == MPI_SUCCESS ? PAT_Wait(&handle) : rc;
  suite.check(wait == MPI_SUCCESS && right("allreduce", c), "without the runtime: PAT_Wait completes it, right result");
}

void thread_progresses(patcoll::test::Suite &suite, const std::string &collective, const char *algorithm, int count,
                       bool persistent) {
  Case c = make(collective, count);
  PAT_Handle handle = nullptr;
  const std::string what = std::string(persistent ? "persistent " : "non-blocking ") + collective + " " + algorithm +
                           " (" + std::to_string(count) + " floats): ";
  const int rc = start(collective, algorithm, c, persistent, &handle);
  suite.check(rc == MPI_SUCCESS, what + "starts");
  if (rc != MPI_SUCCESS) return;
  suite.check(collective_of(handle) != nullptr, what + "an executor collective");
  HandleProgress seen = peek(handle);
  const auto cap = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!seen.schedule_complete && std::chrono::steady_clock::now() < cap) {
    pause_ms(1);
    seen = peek(handle);
  }
  suite.check(seen.schedule_complete, what + "the schedule completes without PAT_Test/PAT_Wait (stopped at step " +
                                          std::to_string(seen.step) + ")");
  suite.check(seen.thread_advances > 0, what + "advanced by the runtime's thread (" +
                                            std::to_string(seen.thread_advances) + " advancing progress calls)");
  suite.check(seen.active, what + "still active until the application completes it");
  const int wait = PAT_Wait(&handle);
  suite.check(wait == MPI_SUCCESS, what + "PAT_Wait returned " + patcoll::test::error_class_name(wait));
  suite.check(right(collective, c), what + "right result");
  if (persistent) suite.check(PAT_Handle_free(&handle) == MPI_SUCCESS, what + "freed");
}

}  // namespace

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  int status = 0;
  {
    patcoll::test::Suite suite;
    suite.check(provided >= MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE provided (the runtime needs it)");
    suite.check(g_size >= 2, "at least 2 ranks (with 1 there is nothing to progress)");
    if (provided >= MPI_THREAD_MULTIPLE && g_size >= 2) {
      no_runtime_no_progress(suite);
      suite.check(PAT_Init(MPI_COMM_WORLD) == MPI_SUCCESS, "PAT_Init");
      for (bool persistent : {false, true}) {
        thread_progresses(suite, "allreduce", "ring", 1000, persistent);
        thread_progresses(suite, "reduce", "chain", 100000, persistent);
        thread_progresses(suite, "reduce", "clairvoyant", 5000, persistent);
        thread_progresses(suite, "scatter", "binomial", 300, persistent);
        thread_progresses(suite, "gather", "binomial", 300, persistent);
      }
      suite.check(PAT_Finalize() == MPI_SUCCESS, "PAT_Finalize");
    }
    status = suite.finish();
  }
  MPI_Finalize();
  return status;
}
