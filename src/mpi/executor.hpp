// The one MPI executor: runs a core::Program with MPI_Isend/MPI_Irecv and
// MPI_Reduce_local. It is resumable: an Execution is started, then driven
// by test() (never blocks) or wait() (blocks) until the Program's last step
// completes, keeping its position, its requests and its memory in between;
// the blocking collectives, the non-blocking and persistent ones and the
// PAT runtime's background parts all run through it.
//
// Step semantics (core/ir.hpp): local ops in order; every send and recv
// posted in op order; the step ends when all have completed and every
// combining recv has been applied. Combining receives are applied *as they
// arrive* (MPI_Waitsome / MPI_Testsome), overlapping the step's other
// transfers — what the simulator's `combine_on_arrival` models — with the
// result of the IR's "after the wait, in op order" rule:
//   - a combine into memory that a send of the same step still reads, or
//     that a store-recv of the same step still writes, waits for that op;
//   - for a non-commutative op, combines into overlapping memory are
//     applied in op order (the validator's rank-order proof assumes it);
//     for a commutative op they are applied in arrival order (the same
//     contributions, so the validator's proof holds; floating-point sums
//     may then differ in the last bits from run to run, as MPI allows).
// Overlap is decided on addresses, so MPI_IN_PLACE aliasing is covered.
//
// PATCOLL_COMBINE=wait switches combining on arrival off (for measuring
// what it gains, docs/results/executor.md): each step then completes its requests
// with one MPI_Waitall / MPI_Testall and applies its combining recvs after
// it, in op order — the IR's phase 4 as written, the executor before
// 48d1c3e, what `patcoll-sim --no-overlap` models. `arrival` (the default)
// is the behaviour above. Read once per process; any other value makes
// every start fail with MPI_ERR_ARG.
//
// Memory: the scratch buffer, the staging for combining receives, the
// request and status arrays live in a Workspace that the caller keeps
// (with the cached Program: no allocation and no zero fill per call; the
// validator proves that no Program combines or reads scratch it has not
// written, so no algorithm needs zeros).
//
// Errors: the first failure (a post, a request completing in error, e.g. a
// truncated receive, a local combine) is remembered and returned at the end,
// but the Execution keeps running the schedule's communication without
// combining ("draining"), so every posted request is completed before the
// Workspace or the user's buffers can go away and the peers — and the next
// collective on the communicator — are not left waiting for messages that
// never come. The results of a failed collective are undefined.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "core/ir.hpp"
#include "datatype.hpp"

namespace patcoll::mpi {

enum class CombineMode : std::uint8_t { arrival, wait };
// The process's mode (PATCOLL_COMBINE of the configuration registry,
// core/config.hpp; set_combine_mode overrides it, for tests and benchmarks). MPI_SUCCESS, or MPI_ERR_ARG for a malformed value.
int combine_mode(CombineMode &out);
void set_combine_mode(CombineMode);
// Drops the override and re-reads the configuration (core::config::reload,
// so a PATCOLL_COMBINE changed with setenv applies at the next start).
void reset_combine_mode();

struct ExecutionBuffers {
  const void *send = nullptr;  // the user's send buffer (never written)
  void *recv = nullptr;        // the user's receive buffer
};

struct ExecutionContext {
  MPI_Comm comm = MPI_COMM_NULL;  // patcoll's private duplicate
  int tag = 0;                    // this call's tag: an op's Op::tag t is MPI tag `tag + t`
  MPI_Op op = MPI_OP_NULL;        // MPI_OP_NULL for scatter/gather
  TypeInfo type;
  int tags = 1;                   // the tags reserved for the call from `tag` on: Op::tag < tags
};

// What a Program needs besides the user's buffers, computed once per
// Program (O(ops)).
struct ProgramShape {
  std::int64_t staging = 0;      // elements of staging (combining recvs of one step, or a `right` local op)
  std::size_t max_requests = 0;  // sends + recvs of the largest step
  std::int64_t largest = 0;      // elements of the largest op (MPI counts are int)

  static ProgramShape of(const core::Program &);
};

// Memory of one execution at a time; reused by the next one (grows, never
// shrinks, never zero-filled).
struct Workspace {
  TypedScratch scratch, staging;
  std::vector<MPI_Request> requests;
  std::vector<int> indices;
  std::vector<MPI_Status> statuses;
  std::vector<char> pack;
};

class Execution {
 public:
  Execution() = default;
  Execution(const Execution &) = delete;
  Execution &operator=(const Execution &) = delete;
  ~Execution();  // an active execution is driven to completion (never leaves requests behind)

  // Begins running `program`: its first steps run up to the first one that
  // waits on communication. `program`, `buffers`' storage and `workspace`
  // must stay valid until the execution is complete. Returns MPI_SUCCESS or
  // the first error so far (the execution then drains; see above).
  // `first_step` > 0 continues a Program whose earlier steps an earlier
  // execution with the same workspace ran (a reactive Program whose peers
  // became known: core/builders/reactive.hpp); its scratch is kept.
  int start(const core::Program &program, const ProgramShape &shape, const ExecutionBuffers &buffers,
            const ExecutionContext &context, Workspace &workspace, std::size_t first_step = 0);
  // Progress without blocking; `complete` tells whether the last step is
  // done. Returns the first error once complete (MPI_SUCCESS before).
  int test(bool &complete);
  // Blocks until complete; returns MPI_SUCCESS or the first error.
  int wait();
  bool active() const { return program_ != nullptr; }
  std::size_t position() const { return step_; }  // the step being run (steps.size() once complete)

 private:
  struct Slot {
    const core::Op *op = nullptr;
    void *staged = nullptr;                 // combining recv: where it lands
    const char *lo = nullptr, *hi = nullptr; // the bytes the op reads (send) or writes (recv)
    bool done = false, applied = false;
    bool posted = false;                    // false while it waits for its group (Op::after)
  };

  void *address(const core::Region &region);
  void note_error(int rc);
  void run_locals(const core::Step &step);
  void post(const core::Step &step);
  // Posts slot `index` (MPI_Isend / MPI_Issend / MPI_Irecv).
  void post_slot(int index);
  // Slot `index` is complete (and applied): counts it in its group, and
  // posts what waits for a group that is then complete.
  void count_in_group(int index);
  // Marks request `index` complete; `status` may carry an error.
  void complete_request(int index, const MPI_Status *status);
  // Applies the combining recvs whose turn it is (see the rules above).
  void apply_ready_combines();
  void apply(Slot &slot);       // the data, then its group
  void apply_data(Slot &slot);
  // Advances through steps while the current one is finished (running
  // the next one's local ops and posting its messages); returns when a step
  // waits on communication or the Program is complete.
  void advance();
  // One MPI_Waitsome/MPI_Testsome over the current step's requests
  // (CombineMode::wait: one MPI_Waitall/MPI_Testall).
  int progress(bool block, bool &made_progress);
  int progress_all(bool block, bool &made_progress);
  void complete_one_by_one();

  const core::Program *program_ = nullptr;
  ExecutionBuffers buffers_;
  ExecutionContext context_;
  Workspace *workspace_ = nullptr;
  bool commutative_ = true;
  CombineMode mode_ = CombineMode::arrival;
  std::size_t step_ = 0;
  bool in_step_ = false;  // step_'s ops are posted
  int posted_ = 0;       // requests of the current step
  int outstanding_ = 0;  // of them not yet complete
  int unapplied_ = 0;    // combining recvs of the current step not yet applied
  int error_ = MPI_SUCCESS;
  std::vector<Slot> slots_;
  std::vector<int> barriers_;  // slots (sends and store recvs) a combine may have to wait for
  // A step whose ops wait for groups (core/ir.hpp): per group, its slots
  // not yet complete (and applied) and the slots that wait for it.
  bool dependencies_ = false;
  std::vector<int> group_left_;
  std::vector<int> arrived_;  // combining recvs in, not yet applied (dependencies_ only)
  std::vector<std::vector<int>> waiting_;
  std::vector<std::pair<const char *, const char *>> blocked_;  // scratch of apply_ready_combines
};

// Runs `program` to completion with a workspace of its own (tests, tools).
int execute(const core::Program &, const ExecutionBuffers &, const ExecutionContext &);
// The same with a kept workspace and a precomputed shape.
int execute(const core::Program &, const ProgramShape &, const ExecutionBuffers &, const ExecutionContext &,
            Workspace &, std::size_t first_step = 0);

}  // namespace patcoll::mpi
