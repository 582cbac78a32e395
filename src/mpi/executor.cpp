#include "executor.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/config.hpp"
#include "error.hpp"

namespace patcoll::mpi {

using core::Combine;
using core::OpKind;

namespace {

bool is_combining_recv(const core::Op &op) { return op.kind == OpKind::recv && op.combine != Combine::store; }

// set_combine_mode's override: -1 none (the configuration's PATCOLL_COMBINE),
// else 0 arrival, 1 wait.
std::atomic<int> g_combine_mode{-1};

}  // namespace

int combine_mode(CombineMode &out) {
  if (const int mode = g_combine_mode.load(std::memory_order_relaxed); mode >= 0) {
    out = mode == 1 ? CombineMode::wait : CombineMode::arrival;
    return MPI_SUCCESS;
  }
  namespace config = core::config;
  const auto settings = config::settings();
  const config::Value &value = (*settings)[config::Var::combine];
  if (!value.valid)  // strict: every start fails until it is fixed
    return fail(MPI_ERR_ARG, "PATCOLL_COMBINE='" + value.given + "' is neither arrival nor wait");
  out = value.text == "wait" ? CombineMode::wait : CombineMode::arrival;
  return MPI_SUCCESS;
}

void set_combine_mode(CombineMode mode) {
  g_combine_mode.store(mode == CombineMode::wait ? 1 : 0, std::memory_order_relaxed);
}

void reset_combine_mode() {
  core::config::reload();
  g_combine_mode.store(-1, std::memory_order_relaxed);
}

ProgramShape ProgramShape::of(const core::Program &program) {
  ProgramShape shape;
  for (const core::Step &step : program.steps) {
    std::int64_t staging = 0;
    std::size_t posted = 0;
    for (const core::Op &op : step.ops) {
      if (op.kind != OpKind::local) ++posted;
      if (is_combining_recv(op)) staging += op.dst.count;
      if (op.kind == OpKind::local && op.combine == Combine::right) staging = std::max(staging, op.dst.count);
      const std::int64_t count = op.kind == OpKind::recv ? op.dst.count : op.src.count;
      shape.largest = std::max(shape.largest, count);
    }
    shape.staging = std::max(shape.staging, staging);
    shape.max_requests = std::max(shape.max_requests, posted);
  }
  return shape;
}

Execution::~Execution() {
  if (active()) wait();
}

void *Execution::address(const core::Region &region) {
  void *base = nullptr;
  switch (region.buffer) {
    case core::Buffer::send: base = const_cast<void *>(buffers_.send); break;
    case core::Buffer::recv: base = buffers_.recv; break;
    case core::Buffer::scratch: base = workspace_->scratch.base(); break;
  }
  return context_.type.element(base, region.offset);
}

void Execution::note_error(int rc) {
  if (rc != MPI_SUCCESS && error_ == MPI_SUCCESS) error_ = rc;
}

int Execution::start(const core::Program &program, const ProgramShape &shape, const ExecutionBuffers &buffers,
                     const ExecutionContext &context, Workspace &workspace, std::size_t first_step) {
  if (active()) return fail(MPI_ERR_REQUEST, "the collective is still active");
  if (shape.largest > INT_MAX) return fail(MPI_ERR_COUNT, "a message of more than INT_MAX elements");
  if (int rc = combine_mode(mode_); rc != MPI_SUCCESS) return rc;
  int commutative = 1;
  if (context.op != MPI_OP_NULL) PATCOLL_MPI_CHECK(MPI_Op_commutative(context.op, &commutative));
  commutative_ = commutative != 0;
  program_ = &program;
  buffers_ = buffers;
  context_ = context;
  workspace_ = &workspace;
  step_ = first_step;
  in_step_ = false;
  error_ = MPI_SUCCESS;
  workspace.scratch.allocate(context.type, program.scratch_count);
  workspace.staging.allocate(context.type, shape.staging);
  if (workspace.requests.size() < shape.max_requests) {
    workspace.requests.resize(shape.max_requests, MPI_REQUEST_NULL);
    workspace.indices.resize(shape.max_requests);
    workspace.statuses.resize(shape.max_requests);
  }
  slots_.reserve(shape.max_requests);
  advance();
  return error_;
}

void Execution::run_locals(const core::Step &step) {
  const TypeInfo &type = context_.type;
  for (const core::Op &op : step.ops) {
    if (op.kind != OpKind::local || op.src.count == 0) continue;
    if (error_ != MPI_SUCCESS) return;  // draining: data no longer matters
    void *src = address(op.src), *dst = address(op.dst);
    const int n = static_cast<int>(op.src.count);
    switch (op.combine) {
      case Combine::store:
        note_error(copy_elements(type, src, dst, n, workspace_->pack));
        break;
      case Combine::left:  // dst = src ∘ dst
        if (int rc = MPI_Reduce_local(src, dst, n, type.type, context_.op); rc != MPI_SUCCESS)
          note_error(mpi_failure(rc, "MPI_Reduce_local"));
        break;
      case Combine::right: {  // dst = dst ∘ src, through staging
        void *tmp = workspace_->staging.base();
        int rc = copy_elements(type, src, tmp, n, workspace_->pack);
        if (rc == MPI_SUCCESS && (rc = MPI_Reduce_local(dst, tmp, n, type.type, context_.op)) != MPI_SUCCESS)
          rc = mpi_failure(rc, "MPI_Reduce_local");
        if (rc == MPI_SUCCESS) rc = copy_elements(type, tmp, dst, n, workspace_->pack);
        note_error(rc);
        break;
      }
    }
  }
}

void Execution::post(const core::Step &step) {
  const TypeInfo &type = context_.type;
  slots_.clear();
  barriers_.clear();
  posted_ = outstanding_ = unapplied_ = 0;
  dependencies_ = false;
  arrived_.clear();
  std::int64_t staging_offset = 0;
  for (const core::Op &op : step.ops) {
    if (op.kind == OpKind::local) continue;
    const bool is_send = op.kind == OpKind::send;
    const core::Region &region = is_send ? op.src : op.dst;
    Slot slot;
    slot.op = &op;
    char *memory = static_cast<char *>(address(region)) + type.true_lb;
    slot.lo = memory;
    slot.hi = memory + type.span_bytes(region.count);
    if (is_combining_recv(op)) {
      slot.staged = type.element(workspace_->staging.base(), staging_offset);
      staging_offset += region.count;
      ++unapplied_;
    }
    workspace_->requests[static_cast<std::size_t>(posted_)] = MPI_REQUEST_NULL;
    slots_.push_back(slot);
    ++posted_;
    ++outstanding_;
    dependencies_ = dependencies_ || op.after >= 0;
  }
  if (dependencies_) {  // the groups: what each still needs, and what waits for it
    group_left_.clear();
    for (std::vector<int> &w : waiting_) w.clear();
    auto grow = [&](int g) {
      if (static_cast<std::size_t>(g) >= group_left_.size()) group_left_.resize(static_cast<std::size_t>(g) + 1, 0);
      if (static_cast<std::size_t>(g) >= waiting_.size()) waiting_.resize(static_cast<std::size_t>(g) + 1);
    };
    for (int i = 0; i < posted_; ++i) {
      const core::Op &op = *slots_[static_cast<std::size_t>(i)].op;
      if (op.group >= 0) grow(op.group), ++group_left_[static_cast<std::size_t>(op.group)];
      if (op.after >= 0) grow(op.after), waiting_[static_cast<std::size_t>(op.after)].push_back(i);
    }
  }
  for (int i = 0; i < posted_; ++i)
    if (!dependencies_ || slots_[static_cast<std::size_t>(i)].op->after < 0) post_slot(i);
  if (dependencies_)  // a group of local ops only is complete at once
    for (std::size_t g = 0; g < group_left_.size(); ++g)
      if (group_left_[g] == 0)
        for (int d : waiting_[g]) post_slot(d);
}

void Execution::post_slot(int index) {
  Slot &slot = slots_[static_cast<std::size_t>(index)];
  const core::Op &op = *slot.op;
  const TypeInfo &type = context_.type;
  const bool is_send = op.kind == OpKind::send;
  const core::Region &region = is_send ? op.src : op.dst;
  const int n = static_cast<int>(region.count);
  void *target = slot.staged ? slot.staged : address(region);
  slot.posted = true;
  if (!is_combining_recv(op)) barriers_.push_back(index);
  MPI_Request &request = workspace_->requests[static_cast<std::size_t>(index)];
  if (op.tag < 0 || op.tag >= context_.tags) {
    note_error(fail(MPI_ERR_TAG, "the schedule uses tag " + std::to_string(op.tag) + " of a call that reserved " +
                                     std::to_string(context_.tags)));
    slot.done = true;
    --outstanding_;
    if (!is_combining_recv(op)) count_in_group(index);
    else if (dependencies_) arrived_.push_back(index);
    return;
  }
  const int tag = context_.tag + op.tag;
  const bool synchronous = is_send && (program_->synchronous_sends || op.synchronous);
  const int rc = !is_send     ? MPI_Irecv(target, n, type.type, op.peer, tag, context_.comm, &request)
                 : synchronous ? MPI_Issend(target, n, type.type, op.peer, tag, context_.comm, &request)
                               : MPI_Isend(target, n, type.type, op.peer, tag, context_.comm, &request);
  if (rc != MPI_SUCCESS) {
    note_error(mpi_failure(rc, !is_send ? "MPI_Irecv" : synchronous ? "MPI_Issend" : "MPI_Isend"));
    request = MPI_REQUEST_NULL;
    slot.done = true;
    --outstanding_;
    if (!is_combining_recv(op)) count_in_group(index);
    else if (dependencies_) arrived_.push_back(index);
  }
}

void Execution::count_in_group(int index) {
  if (!dependencies_) return;
  const int g = slots_[static_cast<std::size_t>(index)].op->group;
  if (g < 0 || --group_left_[static_cast<std::size_t>(g)] > 0) return;
  for (int d : waiting_[static_cast<std::size_t>(g)]) post_slot(d);
}

void Execution::apply(Slot &slot) {
  apply_data(slot);
  count_in_group(static_cast<int>(&slot - slots_.data()));
}

void Execution::apply_data(Slot &slot) {
  const core::Op &op = *slot.op;
  const int n = static_cast<int>(op.dst.count);
  slot.applied = true;
  --unapplied_;
  if (n == 0 || error_ != MPI_SUCCESS) return;
  void *dst = address(op.dst);
  const TypeInfo &type = context_.type;
  if (op.combine == Combine::left) {
    if (int rc = MPI_Reduce_local(slot.staged, dst, n, type.type, context_.op); rc != MPI_SUCCESS)
      note_error(mpi_failure(rc, "MPI_Reduce_local"));
    return;
  }
  if (int rc = MPI_Reduce_local(dst, slot.staged, n, type.type, context_.op); rc != MPI_SUCCESS) {
    note_error(mpi_failure(rc, "MPI_Reduce_local"));
    return;
  }
  note_error(copy_elements(type, slot.staged, dst, n, workspace_->pack));
}

void Execution::apply_ready_combines() {
  if (unapplied_ == 0) return;
  if (dependencies_) {  // commutative (the validator's rule): the arrived ones, as they came
    for (std::size_t k = 0; k < arrived_.size();) {
      Slot &slot = slots_[static_cast<std::size_t>(arrived_[k])];
      bool ready = true;
      for (std::size_t b = 0; b < barriers_.size();) {
        const Slot &barrier = slots_[static_cast<std::size_t>(barriers_[b])];
        if (barrier.done) {  // done for good: no longer a barrier
          barriers_[b] = barriers_.back();
          barriers_.pop_back();
          continue;
        }
        if (slot.lo < barrier.hi && barrier.lo < slot.hi) {
          ready = false;
          break;
        }
        ++b;
      }
      if (!ready) {
        ++k;
        continue;
      }
      arrived_[k] = arrived_.back();
      arrived_.pop_back();
      apply(slot);
    }
    return;
  }
  // After the step's wait, in op order (not where ops wait for groups:
  // those need their groups' combines as they come).
  if (mode_ == CombineMode::wait && !dependencies_ && outstanding_ > 0) return;
  auto overlaps = [](const char *lo, const char *hi, const Slot &other) { return lo < other.hi && other.lo < hi; };
  blocked_.clear();
  for (Slot &slot : slots_) {
    if (slot.applied || !is_combining_recv(*slot.op)) continue;
    bool ready = slot.done;
    if (ready && !commutative_)
      for (const auto &[lo, hi] : blocked_)
        if (overlaps(lo, hi, slot)) ready = false;
    if (ready)
      for (int b : barriers_) {
        const Slot &barrier = slots_[static_cast<std::size_t>(b)];
        if (!barrier.done && overlaps(barrier.lo, barrier.hi, slot)) ready = false;
      }
    if (ready) apply(slot);
    else if (!commutative_) blocked_.emplace_back(slot.lo, slot.hi);
    if (unapplied_ == 0) return;
  }
}

void Execution::complete_request(int index, const MPI_Status *status) {
  Slot &slot = slots_[static_cast<std::size_t>(index)];
  if (slot.done || !slot.posted) return;
  slot.done = true;
  --outstanding_;
  if (!is_combining_recv(*slot.op)) count_in_group(index);  // a combining recv counts once applied
  else if (dependencies_) arrived_.push_back(index);
  if (!status) return;
  if (status->MPI_ERROR != MPI_SUCCESS && status->MPI_ERROR != MPI_ERR_PENDING) {
    note_error(mpi_failure(status->MPI_ERROR, slot.op->kind == OpKind::send ? "a send" : "a receive"));
    return;
  }
  // A shorter message than the schedule's receive is legal point to point,
  // but in a collective it means the ranks passed different counts: an
  // error, not a result with elements missing.
  if (slot.op->kind == OpKind::send || error_ != MPI_SUCCESS) return;
  int received = 0;
  if (MPI_Get_count(status, context_.type.type, &received) == MPI_SUCCESS && received != MPI_UNDEFINED &&
      received < slot.op->dst.count)
    note_error(fail(MPI_ERR_TRUNCATE, "received " + std::to_string(received) + " elements from rank " +
                                          std::to_string(slot.op->peer) + " where the schedule expects " +
                                          std::to_string(slot.op->dst.count) +
                                          ": the ranks passed different counts or types"));
}

void Execution::complete_one_by_one() {
  for (int i = 0; i < posted_; ++i) {
    if (slots_[static_cast<std::size_t>(i)].done) continue;
    MPI_Request &request = workspace_->requests[static_cast<std::size_t>(i)];
    if (request != MPI_REQUEST_NULL) PMPI_Wait(&request, MPI_STATUS_IGNORE);
    complete_request(i, nullptr);
  }
}

int Execution::progress(bool block, bool &made_progress) {
  made_progress = false;
  if (outstanding_ == 0) return MPI_SUCCESS;
  if (mode_ == CombineMode::wait && !dependencies_) return progress_all(block, made_progress);
  Workspace &w = *workspace_;
  int count = 0;
  int rc;
  // A step with dependencies has many requests in flight and needs its
  // completions as they come: MPI_Waitsome, one pass over the requests for
  // all completions so far (one MPI_Waitany per completion passes over
  // them once per completion: owner_trees with 1 536 units at P = 4, about
  // 4 600 requests a rank, took 107 ms a call with Waitany and 56 ms with
  // Waitsome under Open MPI 4.1 on a 2-core VM). Under SimGrid SMPI, one
  // MPI_Waitany per completion: SimGrid 3.32's Waitsome tests every other
  // pending request and charges smpi/test of simulated time for each, a
  // cost the real call does not have.
#ifdef PATCOLL_SMPI
  const bool one = block && dependencies_;
#else
  const bool one = false;
#endif
  if (one) {
    int index = MPI_UNDEFINED;
    MPI_Status &status = w.statuses[0];
    rc = PMPI_Waitany(posted_, w.requests.data(), &index, &status);
    if (index != MPI_UNDEFINED) {  // that request completed, in error or not: its error rides in its status
      count = 1;
      w.indices[0] = index;
      if (rc != MPI_SUCCESS) {
        status.MPI_ERROR = rc;
        rc = MPI_ERR_IN_STATUS;
      }
    } else if (rc == MPI_SUCCESS) {
      count = MPI_UNDEFINED;
    }
  } else {
    rc = block ? PMPI_Waitsome(posted_, w.requests.data(), &count, w.indices.data(), w.statuses.data())
               : PMPI_Testsome(posted_, w.requests.data(), &count, w.indices.data(), w.statuses.data());
  }
  if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) {
    // Which requests completed is unknown: complete them one by one.
    note_error(mpi_failure(rc, one ? "MPI_Waitany" : block ? "MPI_Waitsome" : "MPI_Testsome"));
    complete_one_by_one();
    made_progress = true;
    return MPI_SUCCESS;
  }
  if (count == MPI_UNDEFINED) {  // no active request left
    for (int i = 0; i < posted_; ++i) complete_request(i, nullptr);
    made_progress = true;
    apply_ready_combines();
    // Ops still waiting now wait for a group that cannot complete (not a
    // Program the validator passes): an error, never a hang.
    if (dependencies_ && arrived_.empty())
      for (Slot &slot : slots_) {
        if (slot.posted) continue;
        note_error(fail(MPI_ERR_INTERN, "the schedule's ops wait for a group that never completes"));
        slot.posted = slot.done = true;
        --outstanding_;
        if (is_combining_recv(*slot.op)) slot.applied = true, --unapplied_;
      }
    return MPI_SUCCESS;
  }
  for (int k = 0; k < count; ++k) {
    const int index = w.indices[static_cast<std::size_t>(k)];
    MPI_Request &request = w.requests[static_cast<std::size_t>(index)];
    // A request completed in error is deallocated by MPI-4 implementations;
    // free it if this one did not.
    if (request != MPI_REQUEST_NULL) PMPI_Request_free(&request);
    MPI_Status &status = w.statuses[static_cast<std::size_t>(k)];
    if (rc != MPI_ERR_IN_STATUS) status.MPI_ERROR = MPI_SUCCESS;  // only set by MPI with MPI_ERR_IN_STATUS
    complete_request(index, &status);
  }
  made_progress = count > 0;
  return MPI_SUCCESS;
}

int Execution::progress_all(bool block, bool &made_progress) {
  Workspace &w = *workspace_;
  int all = 1;
  const int rc = block ? PMPI_Waitall(posted_, w.requests.data(), w.statuses.data())
                       : PMPI_Testall(posted_, w.requests.data(), &all, w.statuses.data());
  if (rc == MPI_SUCCESS) {
    if (!all) return MPI_SUCCESS;
    for (int i = 0; i < posted_; ++i) {
      w.statuses[static_cast<std::size_t>(i)].MPI_ERROR = MPI_SUCCESS;  // only set by MPI with MPI_ERR_IN_STATUS
      complete_request(i, &w.statuses[static_cast<std::size_t>(i)]);
    }
    made_progress = true;
    return MPI_SUCCESS;
  }
  if (rc != MPI_ERR_IN_STATUS) {
    note_error(mpi_failure(rc, block ? "MPI_Waitall" : "MPI_Testall"));
    complete_one_by_one();
    made_progress = true;
    return MPI_SUCCESS;
  }
  // Each status says whether its request failed, completed or is pending.
  for (int i = 0; i < posted_; ++i) {
    const MPI_Status &status = w.statuses[static_cast<std::size_t>(i)];
    if (slots_[static_cast<std::size_t>(i)].done || status.MPI_ERROR == MPI_ERR_PENDING) continue;
    MPI_Request &request = w.requests[static_cast<std::size_t>(i)];
    if (request != MPI_REQUEST_NULL) PMPI_Request_free(&request);
    complete_request(i, &status);
    made_progress = true;
  }
  return MPI_SUCCESS;
}

void Execution::advance() {
  for (;;) {
    if (in_step_) {
      apply_ready_combines();
      if (outstanding_ > 0 || unapplied_ > 0) return;
      in_step_ = false;
      ++step_;
    }
    if (step_ >= program_->steps.size()) {
      program_ = nullptr;  // complete
      return;
    }
    const core::Step &step = program_->steps[step_];
    run_locals(step);
    post(step);
    in_step_ = true;
  }
}

int Execution::test(bool &complete) {
  while (active()) {
    bool made = false;
    progress(false, made);
    advance();
    if (!made) break;
  }
  complete = !active();
  return complete ? error_ : MPI_SUCCESS;
}

int Execution::wait() {
  while (active()) {
    bool made = false;
    progress(true, made);
    advance();
  }
  return error_;
}

int execute(const core::Program &program, const ProgramShape &shape, const ExecutionBuffers &buffers,
            const ExecutionContext &context, Workspace &workspace, std::size_t first_step) {
  Execution execution;
  if (int rc = execution.start(program, shape, buffers, context, workspace, first_step);
      rc != MPI_SUCCESS && !execution.active())
    return rc;
  return execution.wait();
}

int execute(const core::Program &program, const ExecutionBuffers &buffers, const ExecutionContext &context) {
  Workspace workspace;
  return execute(program, ProgramShape::of(program), buffers, context, workspace);
}

}  // namespace patcoll::mpi
