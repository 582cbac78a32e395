#include "executor.hpp"

#include <algorithm>
#include <climits>
#include <vector>

#include "error.hpp"

namespace patcoll::mpi {
namespace {

using core::Combine;
using core::OpKind;

class Run {
 public:
  Run(const core::Program &program, const ExecutionBuffers &buffers, const ExecutionContext &context)
      : program_(program), buffers_(buffers), context_(context), type_(context.type) {}

  int operator()() {
    std::int64_t staging = 0;
    std::size_t requests = 0;
    for (const core::Step &step : program_.steps) {
      std::int64_t need = 0;
      std::size_t posted = 0;
      for (const core::Op &op : step.ops) {
        if (op.kind != OpKind::local) ++posted;
        if (op.kind == OpKind::recv && op.combine != Combine::store) need += op.dst.count;
        if (op.kind == OpKind::local && op.combine == Combine::right) need = std::max(need, op.dst.count);
      }
      staging = std::max(staging, need);
      requests = std::max(requests, posted);
    }
    scratch_.allocate(type_, program_.scratch_count);
    staging_.allocate(type_, staging);
    requests_.resize(requests);
    pending_.reserve(requests);

    for (const core::Step &step : program_.steps)
      if (int rc = run_step(step); rc != MPI_SUCCESS) return rc;
    return MPI_SUCCESS;
  }

 private:
  void *address(const core::Region &region) {
    void *base = nullptr;
    switch (region.buffer) {
      case core::Buffer::send: base = const_cast<void *>(buffers_.send); break;
      case core::Buffer::recv: base = buffers_.recv; break;
      case core::Buffer::scratch: base = scratch_.base(); break;
    }
    return type_.element(base, region.offset);
  }

  int check_count(std::int64_t count) const {
    if (count > INT_MAX) return fail(MPI_ERR_COUNT, "a message of more than INT_MAX elements");
    return MPI_SUCCESS;
  }

  int run_step(const core::Step &step) {
    // 1. Local ops, in order.
    for (const core::Op &op : step.ops) {
      if (op.kind != OpKind::local) continue;
      void *src = address(op.src), *dst = address(op.dst);
      const std::int64_t n = op.src.count;
      if (n == 0) continue;
      if (int rc = check_count(n); rc != MPI_SUCCESS) return rc;
      switch (op.combine) {
        case Combine::store:
          if (int rc = copy_elements(type_, src, dst, n, pack_); rc != MPI_SUCCESS) return rc;
          break;
        case Combine::left:  // dst = src ∘ dst
          PATCOLL_MPI_CHECK(MPI_Reduce_local(src, dst, static_cast<int>(n), type_.type, context_.op));
          break;
        case Combine::right: {  // dst = dst ∘ src, through staging
          void *tmp = staging_.base();
          if (int rc = copy_elements(type_, src, tmp, n, pack_); rc != MPI_SUCCESS) return rc;
          PATCOLL_MPI_CHECK(MPI_Reduce_local(dst, tmp, static_cast<int>(n), type_.type, context_.op));
          if (int rc = copy_elements(type_, tmp, dst, n, pack_); rc != MPI_SUCCESS) return rc;
          break;
        }
      }
    }
    // 2. Post receives and sends in op order.
    int posted = 0;
    std::int64_t staging_offset = 0;
    pending_.clear();
    for (const core::Op &op : step.ops) {
      if (op.kind == OpKind::local) continue;
      const core::Region &region = op.kind == OpKind::send ? op.src : op.dst;
      if (int rc = check_count(region.count); rc != MPI_SUCCESS) return rc;
      const int n = static_cast<int>(region.count);
      if (op.kind == OpKind::send) {
        PATCOLL_MPI_CHECK(MPI_Isend(address(region), n, type_.type, op.peer, context_.tag, context_.comm,
                                    &requests_[posted++]));
        continue;
      }
      void *target = address(region);
      if (op.combine != Combine::store) {
        target = type_.element(staging_.base(), staging_offset);
        pending_.push_back({&op, target});
        staging_offset += region.count;
      }
      PATCOLL_MPI_CHECK(MPI_Irecv(target, n, type_.type, op.peer, context_.tag, context_.comm, &requests_[posted++]));
    }
    // 3. Wait.
    if (posted) PATCOLL_MPI_CHECK(MPI_Waitall(posted, requests_.data(), MPI_STATUSES_IGNORE));
    // 4. Apply combining receives in op order.
    for (const Pending &p : pending_) {
      const int n = static_cast<int>(p.op->dst.count);
      if (n == 0) continue;
      void *dst = address(p.op->dst);
      if (p.op->combine == Combine::left) {
        PATCOLL_MPI_CHECK(MPI_Reduce_local(p.staged, dst, n, type_.type, context_.op));
      } else {
        PATCOLL_MPI_CHECK(MPI_Reduce_local(dst, p.staged, n, type_.type, context_.op));
        if (int rc = copy_elements(type_, p.staged, dst, n, pack_); rc != MPI_SUCCESS) return rc;
      }
    }
    return MPI_SUCCESS;
  }

  struct Pending {
    const core::Op *op;
    void *staged;
  };

  const core::Program &program_;
  ExecutionBuffers buffers_;
  const ExecutionContext &context_;
  const TypeInfo &type_;
  TypedScratch scratch_, staging_;
  std::vector<MPI_Request> requests_;
  std::vector<Pending> pending_;
  std::vector<char> pack_;
};

}  // namespace

int execute(const core::Program &program, const ExecutionBuffers &buffers, const ExecutionContext &context) {
  return Run(program, buffers, context)();
}

}  // namespace patcoll::mpi
