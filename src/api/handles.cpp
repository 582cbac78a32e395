// The C API of non-blocking and persistent collectives (patcoll.h): PAT_I*,
// PAT_*_init, PAT_Start, PAT_Wait, PAT_Test, PAT_Handle_free, PAT_Run.
// A PAT_Handle is one kind of object, a collective request, whatever runs
// it: the executor or the MPI library (mpi/handle.hpp: the same checks,
// selection and Program as the blocking call), or, for a catalogue row
// with the `background` capability initialised as a persistent collective
// on the PAT runtime's communicator, the runtime's thread and the caller
// (runtime/background.hpp). Anywhere else a background row is an ordinary
// executor collective running its base's Program (core/catalog.cpp).
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "mpi/error.hpp"
#include "api/handles.hpp"
#include "mpi/call.hpp"
#include "mpi/handle.hpp"
#include "mpi/signature.hpp"
#include "patcoll.h"
#include "runtime/background.hpp"

// The request behind a PAT_Handle. Each call of the API is one virtual
// call; what is common (liveness, freeing a completed non-blocking
// request) is done once, by the API functions below.
struct PAT_Handle_s {
  virtual ~PAT_Handle_s() = default;
  virtual bool persistent() const = 0;
  virtual int start() = 0;                // PAT_Start, and PAT_I*'s first start
  virtual int wait() = 0;                 // completes the active run (none: MPI_SUCCESS)
  virtual int test(bool &complete) = 0;   // progresses it without blocking
  virtual int release() = 0;              // PAT_Handle_free: refuses an active request
  virtual int run() = 0;                  // PAT_Run: start unless started, then wait
};

namespace {

// A collective run by the executor or the MPI library.
struct ExecutorRequest final : PAT_Handle_s {
  explicit ExecutorRequest(bool persistent, patcoll::mpi::Handle::Prepare prepare)
      : collective(persistent, std::move(prepare)) {}
  bool persistent() const override { return collective.persistent(); }
  int start() override { return collective.start(); }
  int wait() override { return collective.wait(); }
  int test(bool &complete) override { return collective.test(complete); }
  int release() override {
    if (collective.active())
      return patcoll::mpi::fail(MPI_ERR_OTHER,
                                "PAT_Handle_free: the collective is active (PAT_Wait or PAT_Test it first)");
    return MPI_SUCCESS;
  }
  int run() override {
    if (!collective.active())
      if (int rc = collective.start(); rc != MPI_SUCCESS) return rc;
    return collective.wait();
  }
  patcoll::mpi::Handle collective;
};

// One of the PAT runtime's background collectives (always persistent).
struct BackgroundRequest final : PAT_Handle_s {
  explicit BackgroundRequest(void *handle) : background(handle) {}
  bool persistent() const override { return true; }
  int start() override { return patcoll::runtime::background_start(background); }
  int wait() override {
    return patcoll::runtime::background_started(background) ? patcoll::runtime::background_run(background)
                                                            : MPI_SUCCESS;
  }
  int test(bool &complete) override {
    complete = true;
    if (!patcoll::runtime::background_started(background)) return MPI_SUCCESS;
    if (patcoll::runtime::background_part_pending(background)) {
      complete = false;
      return MPI_SUCCESS;
    }
    return patcoll::runtime::background_run(background);
  }
  int release() override { return patcoll::runtime::background_free(background); }
  int run() override { return patcoll::runtime::background_run(background); }
  void *background;
};

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
  auto *h = dynamic_cast<ExecutorRequest *>(live(handle));
  return h ? &h->collective : nullptr;
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
  auto h = std::make_unique<ExecutorRequest>(
      false, [call, name](Run &run) { return patcoll::mpi::prepare_call(call, name.c_str(), run); });
  if (int rc = h->start(); rc != MPI_SUCCESS) return rc;
  *handle = publish(std::move(h));
  return MPI_SUCCESS;
}

int init_persistent(const NativeCall &call, const char *algorithm, MPI_Info info, PAT_Handle *handle) {
  patcoll::mpi::set_last_error({});
  if (!handle) return fail(MPI_ERR_ARG, "handle is NULL");
  *handle = nullptr;
  const std::string name = algorithm && *algorithm ? std::string(algorithm) : info_algorithm(info);
  // A background row on the runtime's communicator: the runtime's
  // collective. Anywhere else (no runtime, another communicator) it is its
  // base in the foreground, prepared below like any other name.
  if (patcoll::runtime::is_background_algorithm(call.collective, name) &&
      patcoll::runtime::runtime_communicator(call.comm)) {
    void *background = nullptr;
    if (int rc = patcoll::runtime::background_init(call.collective, name.c_str(), call.sendbuf, call.sendcount,
                                                   call.sendtype, call.recvbuf, call.recvcount, call.recvtype,
                                                   call.root, call.comm, &background);
        rc != MPI_SUCCESS)
      return rc;
    *handle = publish(std::make_unique<BackgroundRequest>(background));
    return MPI_SUCCESS;
  }
  patcoll::mpi::Handle::Prepare prepare;
  if (int rc = patcoll::mpi::persistent_preparation(call, name, prepare); rc != MPI_SUCCESS) return rc;
  auto h = std::make_unique<ExecutorRequest>(true, std::move(prepare));
  *handle = publish(std::move(h));
  return MPI_SUCCESS;
}

int not_live(const char *call) {
  return fail(MPI_ERR_REQUEST, std::string(call) + ": not a live PAT_Handle (freed, or never created)");
}

}  // namespace

void *patcoll::runtime::background_of(PAT_Handle handle) {
  auto *h = dynamic_cast<BackgroundRequest *>(live(handle));
  return h ? h->background : nullptr;
}

extern "C" {

// PAT_I<Coll>, PAT_I<Coll>_with, PAT_<Coll>_init and PAT_<Coll>_init_with of
// every collective (core/collectives.def, signatures in mpi/signature.hpp).
#define PATCOLL_COLLECTIVE(name, Name, NAME, kind)                                                            \
  int PAT_I##name##_with(const char *algorithm, PATCOLL_PARAMS_##kind, PAT_Handle *handle) {                  \
    return start_nonblocking(PATCOLL_CALL_##kind(Collective::name), algorithm, handle);                       \
  }                                                                                                           \
  int PAT_I##name(PATCOLL_PARAMS_##kind, PAT_Handle *handle) {                                                \
    return start_nonblocking(PATCOLL_CALL_##kind(Collective::name), nullptr, handle);                         \
  }                                                                                                           \
  int PAT_##Name##_init_with(const char *algorithm, PATCOLL_PARAMS_##kind, MPI_Info info, PAT_Handle *handle) { \
    return init_persistent(PATCOLL_CALL_##kind(Collective::name), algorithm, info, handle);                   \
  }                                                                                                           \
  int PAT_##Name##_init(PATCOLL_PARAMS_##kind, MPI_Info info, PAT_Handle *handle) {                           \
    return init_persistent(PATCOLL_CALL_##kind(Collective::name), nullptr, info, handle);                     \
  }
#include "core/collectives.def"
#undef PATCOLL_COLLECTIVE

int PAT_Start(PAT_Handle handle) {
  patcoll::mpi::set_last_error({});
  PAT_Handle_s *h = live(handle);
  if (!h) return not_live("PAT_Start");
  if (!h->persistent())
    return fail(MPI_ERR_REQUEST, "PAT_Start: a non-blocking collective's handle is not persistent");
  return h->start();
}

int PAT_Wait(PAT_Handle *handle) {
  patcoll::mpi::set_last_error({});
  if (!handle) return fail(MPI_ERR_ARG, "PAT_Wait: handle is NULL");
  if (*handle == nullptr) return MPI_SUCCESS;  // like MPI_REQUEST_NULL
  PAT_Handle_s *h = live(*handle);
  if (!h) return not_live("PAT_Wait");
  const int rc = h->wait();
  if (!h->persistent()) {
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
  bool complete = false;
  const int rc = h->test(complete);
  *flag = complete ? 1 : 0;
  if (complete && !h->persistent()) {
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
  if (int rc = h->release(); rc != MPI_SUCCESS) return rc;
  destroy(h);
  *handle = nullptr;
  return MPI_SUCCESS;
}

int PAT_Run(PAT_Handle handle) {
  patcoll::mpi::set_last_error({});
  PAT_Handle_s *h = live(handle);
  if (!h) return not_live("PAT_Run");
  if (!h->persistent()) return fail(MPI_ERR_REQUEST, "PAT_Run: not a persistent collective");
  return h->run();
}

}  // extern "C"
