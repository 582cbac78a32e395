#include "handle.hpp"

#include <atomic>
#include <set>

#include "dispatch.hpp"
#include "error.hpp"
#include "reactive.hpp"
#include "signature.hpp"

namespace patcoll::mpi {
namespace {

std::mutex g_active_mutex;
std::set<Handle *> g_active;
std::atomic<void (*)()> g_start_listener{nullptr};

void track(Handle *handle, bool active) {
  std::lock_guard<std::mutex> lock(g_active_mutex);
  if (active) g_active.insert(handle);
  else g_active.erase(handle);
}

}  // namespace

int native_blocking(const NativeCall &c) {
  switch (c.collective) {
#define PATCOLL_COLLECTIVE(name, Name, NAME, kind) \
  case core::Collective::name:                     \
    return PMPI_##Name(PATCOLL_PMPI_ARGS_##kind(c));
#include "core/collectives.def"
#undef PATCOLL_COLLECTIVE
  }
  return MPI_ERR_INTERN;
}

int native_start(const NativeCall &c, MPI_Request *request) {
  switch (c.collective) {
#define PATCOLL_COLLECTIVE(name, Name, NAME, kind) \
  case core::Collective::name:                     \
    return PMPI_I##name(PATCOLL_PMPI_ARGS_##kind(c), request);
#include "core/collectives.def"
#undef PATCOLL_COLLECTIVE
  }
  return MPI_ERR_INTERN;
}

int native_init(const NativeCall &c, MPI_Info info, MPI_Request *request) {
#if MPI_VERSION >= 4
  switch (c.collective) {
#define PATCOLL_COLLECTIVE(name, Name, NAME, kind) \
  case core::Collective::name:                     \
    return PMPI_##Name##_init(PATCOLL_PMPI_ARGS_##kind(c), info, request);
#include "core/collectives.def"
#undef PATCOLL_COLLECTIVE
  }
  return MPI_ERR_INTERN;
#else
  (void)c, (void)info, (void)request;
  return fail(MPI_ERR_UNSUPPORTED_OPERATION, "the MPI library has no persistent collectives (MPI-4)");
#endif
}

int run_blocking(Run &run) {
  switch (run.kind) {
    case Run::Kind::nothing:
      return MPI_SUCCESS;
    case Run::Kind::native:
      return native_blocking(run.native);
    case Run::Kind::program: {
      int rc = run_cached(*run.program, run.buffers, run.context);
      if (rc == MPI_SUCCESS && run.finish) rc = run.finish();
      return rc;
    }
    case Run::Kind::reactive: {
      int rc = run_reactive(*run.state, *run.reactive, run.params, run.buffers, run.context);
      if (rc == MPI_SUCCESS && run.finish) rc = run.finish();
      return rc;
    }
  }
  return MPI_ERR_INTERN;
}

Handle::~Handle() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (active_) {
      if (run_.kind == Run::Kind::native) PMPI_Wait(&request_, MPI_STATUS_IGNORE);
      if (run_.kind == Run::Kind::program) execution_.wait();
      if (workspace_) run_.program->release(std::move(workspace_));
      active_ = false;
    }
  }
  track(this, false);
}

bool Handle::active() {
  std::lock_guard<std::mutex> lock(mutex_);
  return active_;
}

int Handle::start() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (active_) return fail(MPI_ERR_REQUEST, "PAT_Start: the collective is still active (PAT_Wait or PAT_Test first)");
  Run run;
  if (int rc = prepare_(run); rc != MPI_SUCCESS) return rc;
  run_ = std::move(run);
  rc_ = MPI_SUCCESS;
  thread_advances_ = 0;
  switch (run_.kind) {
    case Run::Kind::nothing:
      break;
    case Run::Kind::native:
      if (int rc = native_start(run_.native, &request_); rc != MPI_SUCCESS) return rc;
      break;
    case Run::Kind::reactive:  // prepare_reduction and prepare_broadcast refuse it before
      return fail(MPI_ERR_ARG, "a reactive algorithm serves blocking calls only");
    case Run::Kind::program: {
      workspace_ = run_.program->acquire();
      rc_ = execution_.start(run_.program->program, run_.program->shape, run_.buffers, run_.context, *workspace_);
      if (rc_ != MPI_SUCCESS && !execution_.active()) {  // refused before anything was posted
        run_.program->release(std::move(workspace_));
        return rc_;
      }
      break;
    }
  }
  active_ = true;
  track(this, true);
  if (void (*listener)() = g_start_listener.load()) listener();
  return MPI_SUCCESS;
}

int Handle::complete_run() {
  if (rc_ == MPI_SUCCESS && run_.finish) rc_ = run_.finish();
  if (workspace_) run_.program->release(std::move(workspace_));
  active_ = false;
  track(this, false);
  const int rc = rc_;
  rc_ = MPI_SUCCESS;
  run_ = Run{};
  return rc;
}

int Handle::test_locked(bool &complete) {
  complete = true;
  if (!active_) return MPI_SUCCESS;  // an inactive persistent collective tests complete (MPI)
  switch (run_.kind) {
    case Run::Kind::nothing:
      break;
    case Run::Kind::native: {
      int flag = 0;
      if (int rc = PMPI_Test(&request_, &flag, MPI_STATUS_IGNORE); rc != MPI_SUCCESS) {
        if (rc_ == MPI_SUCCESS) rc_ = mpi_failure(rc, "MPI_Test");
        flag = 1;
      }
      complete = flag != 0;
      break;
    }
    case Run::Kind::reactive:
      complete = true;
      break;
    case Run::Kind::program: {
      const int rc = execution_.test(complete);
      if (complete && rc != MPI_SUCCESS && rc_ == MPI_SUCCESS) rc_ = rc;
      break;
    }
  }
  return complete ? complete_run() : MPI_SUCCESS;
}

int Handle::test(bool &complete) {
  std::lock_guard<std::mutex> lock(mutex_);
  return test_locked(complete);
}

int Handle::wait() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!active_) return MPI_SUCCESS;
  if (run_.kind == Run::Kind::native) {
    if (int rc = PMPI_Wait(&request_, MPI_STATUS_IGNORE); rc != MPI_SUCCESS && rc_ == MPI_SUCCESS)
      rc_ = mpi_failure(rc, "MPI_Wait");
  }
  if (run_.kind == Run::Kind::program) {
    const int rc = execution_.wait();
    if (rc != MPI_SUCCESS && rc_ == MPI_SUCCESS) rc_ = rc;
  }
  return complete_run();
}

void Handle::progress() {
  std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
  if (!lock.owns_lock() || !active_ || run_.kind != Run::Kind::program) return;
  // Completion (finish, release, the return code) is left to PAT_Test /
  // PAT_Wait on the application's thread: only the schedule advances here.
  if (!execution_.active()) return;  // schedule complete, waiting for PAT_Test / PAT_Wait
  const std::size_t before = execution_.position();
  bool complete = false;
  const int rc = execution_.test(complete);
  if (complete && rc != MPI_SUCCESS && rc_ == MPI_SUCCESS) rc_ = rc;
  if (complete || execution_.position() != before) ++thread_advances_;
}

HandleProgress Handle::peek() {
  std::lock_guard<std::mutex> lock(mutex_);
  HandleProgress p;
  p.active = active_;
  if (active_ && run_.kind == Run::Kind::program) {
    p.schedule_complete = !execution_.active();
    p.step = execution_.position();
  }
  p.thread_advances = thread_advances_;
  return p;
}

void set_start_listener(void (*listener)()) { g_start_listener.store(listener); }

bool any_active_handles() {
  std::lock_guard<std::mutex> lock(g_active_mutex);
  return !g_active.empty();
}

void progress_active_handles() {
  std::lock_guard<std::mutex> lock(g_active_mutex);
  for (Handle *handle : g_active) handle->progress();
}

}  // namespace patcoll::mpi
