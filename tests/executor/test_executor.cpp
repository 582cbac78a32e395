// MPI driver: the resumable executor (src/mpi/executor.hpp) run directly on
// hand-written Programs — what it promises beyond "the collectives give the
// right result" (that is the drivers of tests/mpi):
//   - combining receives are applied as they arrive for a commutative op,
//     and in op order for a non-commutative one; with PATCOLL_COMBINE=wait
//     only after the step's last request, in op order (a malformed value
//     is MPI_ERR_ARG before anything is posted);
//   - a combine waits for a send of the same step that reads its memory;
//   - start/test keep the position across calls; a Workspace is reused;
//   - ops that wait for a group (core/ir.hpp) are posted once it is
//     complete, not at the step's end; tags keep the channels apart;
//   - a failure (a truncated receive) mid-collective is returned on the
//     rank where it happened, every rank still completes the schedule's
//     communication, and the next collective on the communicator works.
// Runs at P = 2 (the failure cases; also under valgrind) and P >= 3.
#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "core/ir.hpp"
#include "mpi/executor.hpp"
#include "mpi_test.hpp"
#include "patcoll.h"
#include "relay_programs.hpp"

using namespace patcoll;
using core::Combine;
using core::Program;

namespace {

// Every combine the user ops below perform, in order: the first element of
// `in` (the sender's tag value).
std::vector<int> g_combines;

void logging_sum(void *in, void *inout, int *len, MPI_Datatype *) {
  auto *a = static_cast<int *>(in);
  auto *b = static_cast<int *>(inout);
  if (*len > 0) g_combines.push_back(a[0]);
  for (int i = 0; i < *len; ++i) b[i] += a[i];
}

// 2x2 integer matrices, a ∘ b = a·b (associative, not commutative).
void logging_matmul(void *in, void *inout, int *len, MPI_Datatype *) {
  auto *a = static_cast<int *>(in);
  auto *b = static_cast<int *>(inout);
  if (*len > 0) g_combines.push_back(a[0]);
  for (int i = 0; i < *len; ++i, a += 4, b += 4) {
    const int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                      a[2] * b[1] + a[3] * b[3]};
    std::memcpy(b, c, sizeof c);
  }
}

struct Fixture {
  MPI_Comm comm = MPI_COMM_NULL;  // a private duplicate that returns errors
  int rank = 0, size = 1;
  int tag = 100;
  Fixture() {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
  }
  ~Fixture() { MPI_Comm_free(&comm); }
  mpi::ExecutionContext context(MPI_Datatype type, MPI_Op op) {
    mpi::ExecutionContext c;
    c.comm = comm;
    c.tag = tag++;
    c.op = op;
    mpi::TypeInfo::describe(type, c.type);
    return c;
  }
  Program empty() const { return Program{rank, size, 0, {}}; }
};

int error_class(int rc) {
  int cls = rc;
  MPI_Error_class(rc, &cls);
  return cls;
}

// Rank 0 receives one value from each of ranks 1 and 2 and combines both
// into recv[0]; rank 1 sends only after rank 0 told it to (a plain message
// on MPI_COMM_WORLD), so rank 2's contribution is there first. With
// CombineMode::wait rank 2's value waits for rank 1's, then op order.
void arrival_order(test::Suite &suite, Fixture &f, bool commutative, mpi::CombineMode mode) {
  if (f.size < 3) return;
  mpi::set_combine_mode(mode);
  const bool on_arrival = mode == mpi::CombineMode::arrival;
  MPI_Op op;
  MPI_Op_create(commutative ? logging_sum : logging_matmul, commutative, &op);
  MPI_Datatype matrix;
  MPI_Type_contiguous(4, MPI_INT, &matrix);
  MPI_Type_commit(&matrix);
  const MPI_Datatype type = commutative ? MPI_INT : matrix;
  // Rank r contributes r + 10 (sum), or the matrix Mr = [[r+2, 1], [0, 1]].
  std::vector<int> send = commutative ? std::vector<int>{f.rank + 10, 0, 0, 0} : std::vector<int>{f.rank + 2, 1, 0, 1};
  std::vector<int> recv(4, 0);
  Program program = f.empty();
  if (f.rank == 0) {
    core::add_step(program, {core::copy_op(core::send_buf(0, 1), core::recv_buf(0, 1))});
    // `left`: MPI_Reduce_local(message, recv), so the ops log the sender.
    core::add_step(program, {core::recv_op(1, core::recv_buf(0, 1), Combine::left),
                             core::recv_op(2, core::recv_buf(0, 1), Combine::left)});
  } else if (f.rank <= 2) {
    core::add_step(program, {core::send_op(0, core::send_buf(0, 1))});
  }
  mpi::ExecutionContext context = f.context(type, op);
  mpi::Workspace workspace;
  const mpi::ProgramShape shape = mpi::ProgramShape::of(program);
  g_combines.clear();
  const std::string what = std::string(on_arrival ? "" : "PATCOLL_COMBINE=wait, ") +
                           (commutative ? "commutative op: " : "non-commutative op: ");
  int rc = MPI_SUCCESS;
  if (f.rank == 0) {
    mpi::Execution execution;
    rc = execution.start(program, shape, {send.data(), recv.data()}, context, workspace);
    bool complete = false;
    if (commutative && on_arrival) {
      // Rank 2's value is combined while rank 1's has not even been sent.
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (rc == MPI_SUCCESS && g_combines.empty() && std::chrono::steady_clock::now() < deadline) {
        rc = execution.test(complete);
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      suite.check(g_combines == std::vector<int>{12}, what + "the first arrival is combined before the second is sent");
    } else {
      for (int i = 0; i < 200 && rc == MPI_SUCCESS; ++i) {
        rc = execution.test(complete);
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      suite.check(g_combines.empty(), what + "rank 2's contribution is not combined before rank 1's");
      suite.check(!complete, what + "not complete before rank 1 sent");
    }
    int go = 1;
    MPI_Send(&go, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS) rc = execution.wait();
  } else if (f.rank <= 2) {
    if (f.rank == 1) MPI_Recv(&recv[0], 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    rc = mpi::execute(program, shape, {send.data(), recv.data()}, context, workspace);
  }
  suite.check(rc == MPI_SUCCESS, what + "returned " + test::error_class_name(rc));
  if (f.rank == 0) {
    if (commutative && on_arrival) {
      suite.check(g_combines == std::vector<int>{12, 11}, what + "combined in arrival order (rank 2, then rank 1)");
      suite.check(recv[0] == 10 + 11 + 12, what + "sum");
    } else if (commutative) {
      suite.check(g_combines == std::vector<int>{11, 12}, what + "combined in op order (rank 1, then rank 2)");
      suite.check(recv[0] == 10 + 11 + 12, what + "sum");
    } else {
      suite.check(g_combines == std::vector<int>{3, 4}, what + "combined in op order (rank 1, then rank 2)");
      // recv = M2·(M1·M0): [[4,1],[0,1]]·[[3,1],[0,1]]·[[2,1],[0,1]] = [[24,17],[0,1]].
      suite.check(recv == std::vector<int>{24, 17, 0, 1}, what + "product M2·M1·M0");
    }
  }
  MPI_Type_free(&matrix);
  MPI_Op_free(&op);
  mpi::set_combine_mode(mpi::CombineMode::arrival);
}

// PATCOLL_COMBINE other than arrival|wait: every start fails with
// MPI_ERR_ARG, nothing posted, buffers untouched; a valid value works again.
void malformed_combine_mode(test::Suite &suite, Fixture &f) {
  Program program = f.empty();
  const int peer = f.rank ^ 1;
  if (peer < f.size) core::add_step(program, {core::send_op(peer, core::send_buf(0, 1)), core::recv_op(peer, core::recv_buf(0, 1))});
  std::vector<int> send{f.rank}, recv{-7};
  for (const char *value : {"bogus", "wait", "arrival"}) {
    setenv("PATCOLL_COMBINE", value, 1);
    mpi::reset_combine_mode();
    mpi::Execution execution;
    mpi::Workspace workspace;
    const int rc = execution.start(program, mpi::ProgramShape::of(program), {send.data(), recv.data()},
                                   f.context(MPI_INT, MPI_SUM), workspace);
    const std::string what = std::string("PATCOLL_COMBINE=") + value + ": ";
    if (std::string(value) == "bogus") {
      suite.check(error_class(rc) == MPI_ERR_ARG, what + "start returned " + test::error_class_name(rc));
      suite.check(!execution.active() && recv[0] == -7, what + "nothing started, receive buffer untouched");
    } else {
      const int rc2 = rc == MPI_SUCCESS ? execution.wait() : rc;
      suite.check(rc2 == MPI_SUCCESS, what + "returned " + test::error_class_name(rc2));
      suite.check(recv[0] == (peer < f.size ? peer : -7), what + "exchanged");
    }
    recv[0] = -7;
  }
  unsetenv("PATCOLL_COMBINE");
  mpi::reset_combine_mode();
}

// Recursive-doubling shape in place at rank 0: one step sends the whole
// buffer to rank 1 and combines rank 1's whole buffer into it. Rank 1
// posts its receive only after rank 0 has had its message for a while, so
// rank 0's (rendezvous-sized) send is still reading the buffer when the
// message to combine is complete: the combine must wait for the send.
void combine_waits_for_send(test::Suite &suite, Fixture &f) {
  if (f.size < 2) return;
  const int n = 1 << 16;  // far above the eager limit
  std::vector<int> data(n, f.rank + 1), got(n, 0);
  mpi::ExecutionContext context = f.context(MPI_INT, MPI_SUM);
  if (f.rank == 0) {
    Program program = f.empty();
    core::add_step(program, {core::send_op(1, core::recv_buf(0, n)), core::recv_op(1, core::recv_buf(0, n), Combine::right)});
    mpi::Workspace workspace;
    mpi::Execution execution;
    int rc = execution.start(program, mpi::ProgramShape::of(program), {data.data(), data.data()}, context, workspace);
    bool complete = false;
    for (int i = 0; i < 200 && rc == MPI_SUCCESS; ++i) {
      rc = execution.test(complete);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    int go = 1;
    MPI_Send(&go, 1, MPI_INT, 1, 8, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS) rc = execution.wait();
    suite.check(rc == MPI_SUCCESS, "in-place exchange returned " + test::error_class_name(rc));
    bool all = true;
    for (int v : data) all = all && v == 3;
    suite.check(all, "in-place exchange: rank 0 holds 1 + 2");
  } else if (f.rank == 1) {
    Program send = f.empty(), receive = f.empty();
    core::add_step(send, {core::send_op(0, core::send_buf(0, n))});
    core::add_step(receive, {core::recv_op(0, core::recv_buf(0, n))});
    int rc = mpi::execute(send, {data.data(), nullptr}, context);
    int go = 0;
    MPI_Recv(&go, 1, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS) rc = mpi::execute(receive, {nullptr, got.data()}, context);
    suite.check(rc == MPI_SUCCESS, "in-place exchange returned " + test::error_class_name(rc));
    bool all = true;
    for (int v : got) all = all && v == 1;
    suite.check(all, "in-place exchange: rank 1 got rank 0's buffer as it was before the combine");
  }
}

// A chain of 64 steps run with start and then test() until complete, the
// same Workspace used twice: same result, storage not reallocated.
void resumable_and_reused(test::Suite &suite, Fixture &f) {
  const int segments = 64, width = 32;
  Program program = f.empty();
  program.scratch_count = segments * width;
  for (int k = 0; k < segments; ++k) {
    std::vector<core::Op> ops{core::copy_op(core::send_buf(k * width, width), core::scratch_buf(k * width, width))};
    if (f.rank > 0) ops.push_back(core::recv_op(f.rank - 1, core::scratch_buf(k * width, width), Combine::left));
    core::add_step(program, std::move(ops));
    std::vector<core::Op> forward;
    if (f.rank + 1 < f.size) forward.push_back(core::send_op(f.rank + 1, core::scratch_buf(k * width, width)));
    else forward.push_back(core::copy_op(core::scratch_buf(k * width, width), core::recv_buf(k * width, width)));
    core::add_step(program, std::move(forward));
  }
  const mpi::ProgramShape shape = mpi::ProgramShape::of(program);
  mpi::Workspace workspace;
  void *first_scratch = nullptr;
  for (int round = 0; round < 2; ++round) {
    std::vector<int> send(segments * width), recv(segments * width, -1);
    for (int i = 0; i < segments * width; ++i) send[i] = (i % 7) + f.rank + round;
    mpi::ExecutionContext context = f.context(MPI_INT, MPI_SUM);
    mpi::Execution execution;
    int rc = execution.start(program, shape, {send.data(), recv.data()}, context, workspace);
    bool complete = !execution.active();
    long long polls = 0;
    while (rc == MPI_SUCCESS && !complete) {
      rc = execution.test(complete);
      ++polls;
    }
    suite.check(rc == MPI_SUCCESS, "chain by test(): returned " + test::error_class_name(rc));
    suite.check(!execution.active(), "chain by test(): inactive once complete");
    if (f.rank == f.size - 1) {
      bool right = true;
      for (int i = 0; i < segments * width; ++i) {
        long long expected = 0;
        for (int r = 0; r < f.size; ++r) expected += (i % 7) + r + round;
        right = right && recv[i] == expected;
      }
      suite.check(right, "chain by test(): the last rank holds the sum of every segment");
    }
    if (round == 0) first_scratch = workspace.scratch.base();
    else suite.check(workspace.scratch.base() == first_scratch, "a reused Workspace keeps its scratch storage");
  }
}

// Rank 1 sends 8 ints where rank 0 expects 4 (MPI_ERR_TRUNCATE at rank 0,
// step 0); both then exchange a second message in step 1 and rank 1 waits
// for rank 0's in step 2. Rank 0 reports the truncation, rank 1 completes
// normally (rank 0 kept executing the schedule's communication).
void truncated_receive(test::Suite &suite, Fixture &f) {
  if (f.size < 2) return;
  // MPICH 4.0 raises an error found by MPI_Waitsome (MPI_ERR_IN_STATUS) on
  // MPI_COMM_WORLD's error handler, not on the request's communicator
  // (MPI-3.1 leaves this to the implementation; MPI-4 says the request's):
  // a program that wants the error code there sets MPI_ERRORS_RETURN on
  // MPI_COMM_WORLD too (docs/results/executor.md). Open MPI uses the request's.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  std::vector<int> send(16), recv(16, 0);
  for (int i = 0; i < 16; ++i) send[i] = 100 * f.rank + i;
  Program program = f.empty();
  if (f.rank == 0) {
    core::add_step(program, {core::recv_op(1, core::recv_buf(0, 4)), core::send_op(1, core::send_buf(0, 4))});
    core::add_step(program, {core::recv_op(1, core::recv_buf(4, 4), Combine::left)});
    core::add_step(program, {core::send_op(1, core::send_buf(8, 4))});
  } else if (f.rank == 1) {
    core::add_step(program, {core::send_op(0, core::send_buf(0, 8)), core::recv_op(0, core::recv_buf(0, 4))});
    core::add_step(program, {core::send_op(0, core::send_buf(4, 4))});
    core::add_step(program, {core::recv_op(0, core::recv_buf(4, 4))});
  }
  for (int round = 0; round < 3; ++round) {  // repeated: no request or state is left behind
    mpi::ExecutionContext context = f.context(MPI_INT, MPI_SUM);
    const int rc = mpi::execute(program, {send.data(), recv.data()}, context);
    const std::string what = "truncated receive (round " + std::to_string(round) + "): ";
    if (f.rank == 0)
      suite.check(error_class(rc) == MPI_ERR_TRUNCATE, what + "rank 0 returned " + test::error_class_name(rc));
    if (f.rank == 1) {
      suite.check(rc == MPI_SUCCESS, what + "rank 1 returned " + test::error_class_name(rc));
      suite.check(recv[4] == 8 && recv[7] == 11, what + "rank 1 got rank 0's later message");
    }
    // The next collective on the communicator works, through patcoll.
    for (const char *algorithm : {"ring", "recursive_doubling", "linear_tree"}) {
      std::vector<int> in(37, f.rank + 1), out(37, 0);
      const int rc2 = PAT_Allreduce_with(algorithm, in.data(), out.data(), 37, MPI_INT, MPI_SUM, f.comm);
      bool right = rc2 == MPI_SUCCESS;
      for (int v : out) right = right && v == f.size * (f.size + 1) / 2;
      suite.check(right, what + "the next PAT_Allreduce (" + algorithm + ") on the communicator");
    }
  }
}

// Tags, groups and dependencies (core/ir.hpp): the one-step owner-trees
// allreduce of tests/unit/relay_programs.hpp gives MPI_Allreduce's sum,
// in place too, whatever the units and window, in both combine modes.
void owner_trees(test::Suite &suite, Fixture &f) {
  for (int units : {1, f.size, 3 * f.size + 1})
    for (int window : {1, 4})
      for (int count : {0, 1, 1000})
        for (bool in_place : {false, true}) {
          core::Params params;
          params.collective = core::Collective::allreduce;
          params.procs = f.size;
          params.count = count;
          const Program program = relay_programs::allreduce_owner_trees(params, f.rank, units, window);
          std::vector<int> send(static_cast<std::size_t>(count)), recv(static_cast<std::size_t>(count), -1);
          for (int i = 0; i < count; ++i) send[static_cast<std::size_t>(i)] = 1000 * f.rank + i;
          if (in_place) recv = send;
          mpi::ExecutionContext context = f.context(MPI_INT, MPI_SUM);
          context.tags = units + 1;
          f.tag += units;  // the tags this call used
          const int rc = mpi::execute(program, {in_place ? recv.data() : send.data(), recv.data()}, context);
          bool right = rc == MPI_SUCCESS;
          for (int i = 0; i < count && right; ++i) right = recv[static_cast<std::size_t>(i)] == 1000 * f.size * (f.size - 1) / 2 + f.size * i;
          suite.check(right, "owner trees: units " + std::to_string(units) + " window " + std::to_string(window) + " count " +
                                 std::to_string(count) + (in_place ? " in place" : "") + ": " + test::error_class_name(rc));
        }
}

// A forward waits for its group only: rank 1 relays rank 0's message to
// rank 2 in the step where it also receives rank 3's, and rank 3 sends
// only once rank 2 has the relayed message (told on MPI_COMM_WORLD). An
// executor that waited for the whole step before forwarding would hang.
void forward_before_the_step_ends(test::Suite &suite, Fixture &f) {
  if (f.size < 4) return;
  std::vector<int> send(4, f.rank), recv(8, -1);
  Program program = f.empty();
  program.scratch_count = 0;
  if (f.rank == 0) core::add_step(program, {core::send_op(1, core::send_buf(0, 4))});
  if (f.rank == 1)
    core::add_step(program, {core::tagged(core::recv_op(0, core::recv_buf(0, 4)), 0, 0),
                             core::recv_op(3, core::recv_buf(4, 4)),
                             core::tagged(core::send_op(2, core::recv_buf(0, 4)), 0, -1, 0)});
  if (f.rank == 2) core::add_step(program, {core::recv_op(1, core::recv_buf(0, 4))});
  if (f.rank == 3) core::add_step(program, {core::send_op(1, core::send_buf(0, 4))});
  mpi::ExecutionContext context = f.context(MPI_INT, MPI_SUM);
  int rc = MPI_SUCCESS;
  if (f.rank == 3) {
    int go = 0;
    MPI_Recv(&go, 1, MPI_INT, 2, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  if (f.rank <= 3) rc = mpi::execute(program, {send.data(), recv.data()}, context);
  if (f.rank == 2) {
    int go = 1;
    MPI_Send(&go, 1, MPI_INT, 3, 77, MPI_COMM_WORLD);
    suite.check(rc == MPI_SUCCESS && recv[0] == 0 && recv[3] == 0, "the relayed message came before the step's other one");
  }
  if (f.rank == 1) suite.check(rc == MPI_SUCCESS && recv[4] == 3, "the relay's step ends with the late message");
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rc;
  {
    test::Suite suite;
    Fixture f;
    for (mpi::CombineMode mode : {mpi::CombineMode::arrival, mpi::CombineMode::wait}) {
      arrival_order(suite, f, true, mode);
      arrival_order(suite, f, false, mode);
    }
    combine_waits_for_send(suite, f);
    malformed_combine_mode(suite, f);
    for (mpi::CombineMode mode : {mpi::CombineMode::arrival, mpi::CombineMode::wait}) {
      // (MPI_Waitsome / MPI_Testsome, then MPI_Waitall / MPI_Testall)
      mpi::set_combine_mode(mode);
      resumable_and_reused(suite, f);
      truncated_receive(suite, f);
    }
    for (mpi::CombineMode mode : {mpi::CombineMode::arrival, mpi::CombineMode::wait}) {
      mpi::set_combine_mode(mode);
      owner_trees(suite, f);
    }
    mpi::set_combine_mode(mpi::CombineMode::arrival);
    forward_before_the_step_ends(suite, f);
    rc = suite.finish();
  }
  MPI_Finalize();
  return rc;
}
