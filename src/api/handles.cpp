// The C API of non-blocking and persistent collectives (patcoll.h): PAT_I*,
// PAT_*_init, PAT_Start, PAT_Wait, PAT_Test, PAT_Handle_free, PAT_Run.
// A PAT_Handle is either a collective run by the executor or the MPI library
// (mpi/handle.hpp: the same checks, selection and Program as the blocking
// call), or one of the PAT runtime's background collectives
// (runtime/background.hpp: bsln, bsbn, bsls), which are persistent
// collectives of the same API.
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "mpi/error.hpp"
#include "mpi/call.hpp"
#include "mpi/handle.hpp"
#include "patcoll.h"
#include "runtime/background.hpp"

struct PAT_Handle_s {
  std::unique_ptr<patcoll::mpi::Handle> collective;  // null for a background collective
  void *background = nullptr;
};

namespace {

using patcoll::core::Collective;
using patcoll::mpi::fail;
using patcoll::mpi::NativeCall;
using patcoll::mpi::Run;

std::mutex g_mutex;
std::set<PAT_Handle_s *> g_live;  // handles not yet freed

PAT_Handle_s *live(PAT_Handle handle) {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_live.count(handle) ? handle : nullptr;
}

PAT_Handle publish(std::unique_ptr<PAT_Handle_s> handle) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_live.insert(handle.get());
  return handle.release();
}

void destroy(PAT_Handle handle) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_live.erase(handle);
  }
  delete handle;
}

}  // namespace

patcoll::mpi::Handle *patcoll::mpi::collective_of(PAT_Handle_s *handle) {
  PAT_Handle_s *h = live(handle);
  return h ? h->collective.get() : nullptr;
}

namespace {

// The MPI-4 way to name the algorithm of a persistent collective: the info
// key "patcoll_algorithm".
std::string info_algorithm(MPI_Info info) {
  if (info == MPI_INFO_NULL) return {};
  char value[MPI_MAX_INFO_VAL + 1] = {0};
  int found = 0;
  if (MPI_Info_get(info, "patcoll_algorithm", MPI_MAX_INFO_VAL, value, &found) != MPI_SUCCESS || !found) return {};
  return value;
}

int start_nonblocking(const NativeCall &call, const char *algorithm, PAT_Handle *handle) {
  patcoll::mpi::set_last_error({});
  if (!handle) return fail(MPI_ERR_ARG, "handle is NULL");
  *handle = nullptr;
  const std::string name = algorithm ? algorithm : "";
  auto h = std::make_unique<PAT_Handle_s>();
  h->collective = std::make_unique<patcoll::mpi::Handle>(
      false, [call, name](Run &run) { return patcoll::mpi::prepare_call(call, name.c_str(), run); });
  if (int rc = h->collective->start(); rc != MPI_SUCCESS) return rc;
  *handle = publish(std::move(h));
  return MPI_SUCCESS;
}

int init_persistent(const NativeCall &call, const char *algorithm, MPI_Info info, PAT_Handle *handle) {
  patcoll::mpi::set_last_error({});
  if (!handle) return fail(MPI_ERR_ARG, "handle is NULL");
  *handle = nullptr;
  const std::string name = algorithm && *algorithm ? std::string(algorithm) : info_algorithm(info);
  auto h = std::make_unique<PAT_Handle_s>();
  if (patcoll::runtime::is_background_algorithm(call.collective, name)) {
    if (int rc = patcoll::runtime::background_init(call.collective, name.c_str(), call.sendbuf, call.sendcount,
                                                   call.sendtype, call.recvbuf, call.recvcount, call.recvtype,
                                                   call.root, call.comm, &h->background);
        rc != MPI_SUCCESS)
      return rc;
    *handle = publish(std::move(h));
    return MPI_SUCCESS;
  }
  // Checked, selected and built now, like the first call (collective: every
  // rank takes a tag); each start then reuses that Program with a new tag,
  // or prepares again when the algorithm follows the PAT vector.
  auto first = std::make_shared<Run>();
  if (int rc = patcoll::mpi::prepare_call(call, name.c_str(), *first); rc != MPI_SUCCESS) return rc;
  auto used = std::make_shared<bool>(false);
  h->collective = std::make_unique<patcoll::mpi::Handle>(true, [call, name, first, used](Run &run) -> int {
    if (!*used) {  // the first start runs what init prepared (its tag)
      *used = true;
      if (first->kind != Run::Kind::nothing) {
        run = *first;
        return MPI_SUCCESS;
      }
    } else if (first->reusable) {
      run = *first;
      run.context.tag = first->state->next_tag();
      return MPI_SUCCESS;
    }
    return patcoll::mpi::prepare_call(call, name.c_str(), run);
  });
  *handle = publish(std::move(h));
  return MPI_SUCCESS;
}

NativeCall reduction_call(Collective collective, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                          MPI_Op op, int root, MPI_Comm comm) {
  return NativeCall{collective, sendbuf, recvbuf, count, 0, datatype, MPI_DATATYPE_NULL, op, root, comm};
}

NativeCall movement_call(Collective collective, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return NativeCall{collective, sendbuf, recvbuf, sendcount, recvcount, sendtype, recvtype, MPI_OP_NULL, root, comm};
}

int not_live(const char *call) {
  return fail(MPI_ERR_REQUEST, std::string(call) + ": not a live PAT_Handle (freed, or never created)");
}

}  // namespace

void *patcoll::runtime::background_of(PAT_Handle handle) {
  PAT_Handle_s *h = live(handle);
  return h ? h->background : nullptr;
}

extern "C" {

int PAT_Ireduce_with(const char *algorithm, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm, PAT_Handle *handle) {
  return start_nonblocking(reduction_call(Collective::reduce, sendbuf, recvbuf, count, datatype, op, root, comm),
                           algorithm, handle);
}
int PAT_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm, PAT_Handle *handle) {
  return PAT_Ireduce_with(nullptr, sendbuf, recvbuf, count, datatype, op, root, comm, handle);
}
int PAT_Iallreduce_with(const char *algorithm, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, PAT_Handle *handle) {
  return start_nonblocking(reduction_call(Collective::allreduce, sendbuf, recvbuf, count, datatype, op, 0, comm),
                           algorithm, handle);
}
int PAT_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   PAT_Handle *handle) {
  return PAT_Iallreduce_with(nullptr, sendbuf, recvbuf, count, datatype, op, comm, handle);
}
int PAT_Iscatter_with(const char *algorithm, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, PAT_Handle *handle) {
  return start_nonblocking(
      movement_call(Collective::scatter, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
      algorithm, handle);
}
int PAT_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, PAT_Handle *handle) {
  return PAT_Iscatter_with(nullptr, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, handle);
}
int PAT_Igather_with(const char *algorithm, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, PAT_Handle *handle) {
  return start_nonblocking(
      movement_call(Collective::gather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
      algorithm, handle);
}
int PAT_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, PAT_Handle *handle) {
  return PAT_Igather_with(nullptr, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, handle);
}

int PAT_Reduce_init_with(const char *algorithm, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, int root, MPI_Comm comm, MPI_Info info, PAT_Handle *handle) {
  return init_persistent(reduction_call(Collective::reduce, sendbuf, recvbuf, count, datatype, op, root, comm),
                         algorithm, info, handle);
}
int PAT_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                    MPI_Comm comm, MPI_Info info, PAT_Handle *handle) {
  return PAT_Reduce_init_with(nullptr, sendbuf, recvbuf, count, datatype, op, root, comm, info, handle);
}
int PAT_Allreduce_init_with(const char *algorithm, const void *sendbuf, void *recvbuf, int count,
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, PAT_Handle *handle) {
  return init_persistent(reduction_call(Collective::allreduce, sendbuf, recvbuf, count, datatype, op, 0, comm),
                         algorithm, info, handle);
}
int PAT_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                       MPI_Info info, PAT_Handle *handle) {
  return PAT_Allreduce_init_with(nullptr, sendbuf, recvbuf, count, datatype, op, comm, info, handle);
}
int PAT_Scatter_init_with(const char *algorithm, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                          void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                          PAT_Handle *handle) {
  return init_persistent(
      movement_call(Collective::scatter, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
      algorithm, info, handle);
}
int PAT_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, PAT_Handle *handle) {
  return PAT_Scatter_init_with(nullptr, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info,
                               handle);
}
int PAT_Gather_init_with(const char *algorithm, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                         PAT_Handle *handle) {
  return init_persistent(
      movement_call(Collective::gather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
      algorithm, info, handle);
}
int PAT_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, PAT_Handle *handle) {
  return PAT_Gather_init_with(nullptr, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info,
                              handle);
}

int PAT_Start(PAT_Handle handle) {
  patcoll::mpi::set_last_error({});
  PAT_Handle_s *h = live(handle);
  if (!h) return not_live("PAT_Start");
  if (h->background) return patcoll::runtime::background_start(h->background);
  if (!h->collective->persistent())
    return fail(MPI_ERR_REQUEST, "PAT_Start: a non-blocking collective's handle is not persistent");
  return h->collective->start();
}

int PAT_Wait(PAT_Handle *handle) {
  patcoll::mpi::set_last_error({});
  if (!handle) return fail(MPI_ERR_ARG, "PAT_Wait: handle is NULL");
  if (*handle == nullptr) return MPI_SUCCESS;  // like MPI_REQUEST_NULL
  PAT_Handle_s *h = live(*handle);
  if (!h) return not_live("PAT_Wait");
  if (h->background)
    return patcoll::runtime::background_started(h->background) ? patcoll::runtime::background_run(h->background)
                                                                : MPI_SUCCESS;
  const int rc = h->collective->wait();
  if (!h->collective->persistent()) {
    destroy(h);
    *handle = nullptr;
  }
  return rc;
}

int PAT_Test(PAT_Handle *handle, int *flag) {
  patcoll::mpi::set_last_error({});
  if (!handle || !flag) return fail(MPI_ERR_ARG, "PAT_Test: handle or flag is NULL");
  *flag = 1;
  if (*handle == nullptr) return MPI_SUCCESS;
  PAT_Handle_s *h = live(*handle);
  if (!h) return not_live("PAT_Test");
  if (h->background) {
    if (!patcoll::runtime::background_started(h->background)) return MPI_SUCCESS;
    if (patcoll::runtime::background_part_pending(h->background)) {
      *flag = 0;
      return MPI_SUCCESS;
    }
    return patcoll::runtime::background_run(h->background);
  }
  bool complete = false;
  const int rc = h->collective->test(complete);
  *flag = complete ? 1 : 0;
  if (complete && !h->collective->persistent()) {
    destroy(h);
    *handle = nullptr;
  }
  return rc;
}

int PAT_Handle_free(PAT_Handle *handle) {
  patcoll::mpi::set_last_error({});
  if (!handle) return fail(MPI_ERR_ARG, "PAT_Handle_free: handle is NULL");
  PAT_Handle_s *h = live(*handle);
  if (!h) return not_live("PAT_Handle_free");
  if (h->background) {
    if (int rc = patcoll::runtime::background_free(h->background); rc != MPI_SUCCESS) return rc;
  } else if (h->collective->active()) {
    return fail(MPI_ERR_OTHER, "PAT_Handle_free: the collective is active (PAT_Wait or PAT_Test it first)");
  }
  destroy(h);
  *handle = nullptr;
  return MPI_SUCCESS;
}

int PAT_Run(PAT_Handle handle) {
  patcoll::mpi::set_last_error({});
  PAT_Handle_s *h = live(handle);
  if (!h) return not_live("PAT_Run");
  if (h->background) return patcoll::runtime::background_run(h->background);
  if (!h->collective->persistent()) return fail(MPI_ERR_REQUEST, "PAT_Run: not a persistent collective");
  if (!h->collective->active())
    if (int rc = h->collective->start(); rc != MPI_SUCCESS) return rc;
  return h->collective->wait();
}

}  // extern "C"
