// The PAT runtime's background collectives ([PS] §3-4, Figs. 6, 8, 10,
// 12): PAT_Scatter_init / PAT_Gather_init with a catalogue row of the
// `background` capability (bsln, bsbn, bsls) on the runtime's communicator
// (src/api/handles.cpp) register a collective whose non-root (scatter) or
// root (gather) part the runtime's thread runs right after the exchange at
// the edge; PAT_Start arms it for the next edge, PAT_Wait / PAT_Run
// completes it (background.hpp). The Program and its Params come from the same
// dispatch path as the foreground collectives (mpi/dispatch.hpp): the
// configuration's segmentation, the communicator's cost model, core's PAT
// quantisation, and a Program cache per handle. docs/results/runtime.md.
#include <mpi.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "mpi/arguments.hpp"
#include "mpi/dispatch.hpp"
#include "mpi/error.hpp"
#include "mpi/executor.hpp"
#include "mpi/registry.hpp"
#include "patcoll.h"
#include "runtime.hpp"
#include "runtime/background.hpp"

namespace patcoll::runtime {

int run_program(Handle &h, std::uint64_t run, const std::vector<double> &arrivals, bool background) {
  const core::Params params =
      mpi::call_params({h.collective, h.root, h.block, 1, true}, h.size, arrivals, h.cost);
  const std::shared_ptr<mpi::CachedProgram> program = mpi::program(h.programs, h.rank, *h.entry, params);
  mpi::ExecutionBuffers buffers;
  const bool is_root = h.rank == h.root;
  if (h.collective == core::Collective::scatter) {
    buffers.send = is_root ? h.send : nullptr;
    buffers.recv = h.in_place ? static_cast<char *>(const_cast<void *>(h.send)) + h.block * h.root : h.recv;
  } else {
    // The gather root's own block may still be being computed: in the
    // background a stand-in is gathered, PAT_Run copies the real one.
    buffers.send = is_root && background ? h.stand_in.data() : h.send;
    buffers.recv = is_root ? h.recv : nullptr;
  }
  mpi::TypeInfo bytes;
  if (int rc = mpi::TypeInfo::describe(MPI_BYTE, bytes); rc != MPI_SUCCESS) return rc;
  mpi::ExecutionContext context{h.comm, static_cast<int>(run % static_cast<std::uint64_t>(h.tag_ub)), MPI_OP_NULL,
                                bytes};
  return mpi::run_cached(*program, buffers, context);
}

}  // namespace patcoll::runtime

using namespace patcoll::runtime;
namespace mpi = patcoll::mpi;
namespace core = patcoll::core;

namespace {

int movement_init(core::Collective collective, const char *algorithm, const void *sendbuf, int sendcount,
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  void **handle) {
  const bool scatter = collective == core::Collective::scatter;
  const char *call = scatter ? "PAT_Scatter_init" : "PAT_Gather_init";
  mpi::set_last_error({});
  if (!handle) return mpi::fail(MPI_ERR_ARG, std::string(call) + ": handle is NULL");
  *handle = nullptr;
  const std::string name = algorithm ? algorithm : "";
  // A catalogue row with the background capability (by name or alias); it
  // builds its base's Program (core/catalog.cpp).
  const mpi::Entry *entry = mpi::find_entry(collective, name);
  if (!entry || !(entry->capabilities & core::background)) {
    std::string known;
    for (const mpi::Entry &e : mpi::entries(collective))
      if (e.capabilities & core::background) known += (known.empty() ? "" : ", ") + std::string(e.name);
    return mpi::fail(MPI_ERR_ARG, std::string(call) + ": unknown background algorithm '" + name + "' (" + known + ")");
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  Runtime *rt = g_runtime;
  if (!rt) return not_initialised(call);
  if (rt->processing) return mpi::fail(MPI_ERR_OTHER, std::string(call) + ": call it outside a phase");
  if (comm == MPI_COMM_NULL) return mpi::fail(MPI_ERR_COMM, std::string(call) + ": the communicator is MPI_COMM_NULL");
  int same = MPI_UNEQUAL;
  PATCOLL_MPI_CHECK(MPI_Comm_compare(comm, rt->user, &same));
  if (same != MPI_IDENT && same != MPI_CONGRUENT)
    return mpi::fail(MPI_ERR_COMM, std::string(call) + ": comm must be the communicator given to PAT_Init");
  // The segmentation and join rule the Programs will be built with (read
  // once per process, core/config.hpp): malformed is MPI_ERR_ARG here, as
  // at every foreground call.
  if (int rc = mpi::check_schedule_configuration(); rc != MPI_SUCCESS)
    return mpi::fail(rc, std::string(call) + ": " + mpi::last_error());
  auto h = std::make_unique<Handle>();
  h->collective = collective;
  h->entry = entry;
  h->size = rt->size;
  h->rank = rt->rank;
  mpi::MovementArguments args;
  if (int rc = mpi::check_movement(collective, h->rank, h->size, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                   recvtype, root, args);
      rc != MPI_SUCCESS)
    return mpi::fail(rc, std::string(call) + ": " + mpi::last_error());
  h->root = root;
  const bool is_root = args.is_root;
  h->in_place = args.in_place;
  if (h->in_place && !scatter)
    return mpi::fail(MPI_ERR_BUFFER, std::string(call) + ": MPI_IN_PLACE is not supported by the background gathers");
  // The executor addresses the user's bytes directly: contiguous types only.
  if ((!h->in_place && !args.own.dense) || (is_root && !args.whole.dense))
    return mpi::fail(MPI_ERR_TYPE, std::string(call) + ": background collectives need contiguous datatypes");
  h->block = args.block;
  const MPI_Aint own_lb = args.own.true_lb, whole_lb = args.whole.true_lb;
  char *own = static_cast<char *>(const_cast<void *>(scatter ? static_cast<const void *>(recvbuf) : sendbuf));
  char *whole = static_cast<char *>(const_cast<void *>(scatter ? sendbuf : static_cast<const void *>(recvbuf)));
  if (scatter) {
    h->send = is_root ? whole + whole_lb : nullptr;
    h->recv = h->in_place ? nullptr : own + own_lb;
  } else {
    h->send = own + own_lb;
    h->recv = is_root ? whole + whole_lb : nullptr;
  }
  h->background_part = scatter ? !is_root : is_root;
  if (!scatter && is_root) h->stand_in.assign(static_cast<std::size_t>(std::max(0LL, h->block)), 0);
  h->cost = mpi::cost_model(*rt->state);
  PATCOLL_MPI_CHECK(MPI_Comm_dup(rt->comm, &h->comm));
  MPI_Comm_set_errhandler(h->comm, MPI_ERRORS_RETURN);
  int *tag_ub = nullptr, found = 0;
  if (MPI_Comm_get_attr(h->comm, MPI_TAG_UB, &tag_ub, &found) == MPI_SUCCESS && found && tag_ub && *tag_ub > 0)
    h->tag_ub = *tag_ub;
  {
    std::lock_guard<std::mutex> handles_lock(rt->mutex);
    rt->handles.insert(h.get());
  }
  *handle = h.release();
  return MPI_SUCCESS;
}

// The handle, if it is one of the runtime's; g_mutex held.
Handle *live_handle(Runtime *rt, void *handle) {
  auto *h = reinterpret_cast<Handle *>(handle);
  std::lock_guard<std::mutex> lock(rt->mutex);
  return rt->handles.count(h) ? h : nullptr;
}

}  // namespace

namespace patcoll::runtime {

bool is_background_algorithm(core::Collective collective, std::string_view name) {
  const mpi::Entry *entry = mpi::find_entry(collective, name);
  return entry && (entry->capabilities & core::background);
}

bool runtime_communicator(MPI_Comm comm) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const Runtime *rt = g_runtime;
  if (!rt || comm == MPI_COMM_NULL) return false;
  int same = MPI_UNEQUAL;
  if (MPI_Comm_compare(comm, rt->user, &same) != MPI_SUCCESS) return false;
  return same == MPI_IDENT || same == MPI_CONGRUENT;
}

int background_init(core::Collective collective, const char *algorithm, const void *sendbuf, int sendcount,
                    MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                    MPI_Comm comm, void **handle) {
  return movement_init(collective, algorithm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                       handle);
}

namespace {
// `read(handle)` under both locks when `handle` is a live handle of the
// running runtime; false otherwise.
template <class Read>
bool read_live_handle(void *handle, Read read) {
  std::lock_guard<std::mutex> lock(g_mutex);
  Runtime *rt = g_runtime;
  if (!rt) return false;
  Handle *h = live_handle(rt, handle);
  if (!h) return false;
  std::lock_guard<std::mutex> handle_lock(rt->mutex);
  return read(*h);
}
}  // namespace

bool background_started(void *handle) {
  return read_live_handle(handle, [](const Handle &h) { return h.started; });
}

bool background_part_pending(void *handle) {
  return read_live_handle(handle, [](const Handle &h) { return h.pending != 0; });
}

bool background_cache_counts(void *handle, std::uint64_t &hits, std::uint64_t &misses) {
  return read_live_handle(handle, [&](const Handle &h) {
    hits = h.programs.hits();
    misses = h.programs.misses();
    return true;
  });
}

int background_run(void *handle) {
  mpi::set_last_error({});
  Runtime *rt = nullptr;
  Handle *h = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    rt = g_runtime;
    if (!rt) return not_initialised("PAT_Run");
    h = live_handle(rt, handle);
    if (!h) return mpi::fail(MPI_ERR_REQUEST, "PAT_Run: not a live background collective");
  }
  bool ran_in_background = false;
  int rc = MPI_SUCCESS;
  std::uint64_t run = 0;
  std::vector<double> arrivals;
  {
    std::unique_lock<std::mutex> lock(rt->mutex);
    rt->cv.wait(lock, [&] { return h->pending == 0; });
    ran_in_background = h->background_done;
    h->background_done = false;
    rc = h->background_rc;
    run = h->runs;
    arrivals = h->arrivals;
  }
  if (!ran_in_background) {
    if (h->block > 0) rc = run_program(*h, run, arrivals, false);
  } else if (rc == MPI_SUCCESS && h->collective == core::Collective::gather && h->block > 0) {
    std::memcpy(static_cast<char *>(h->recv) + h->block * h->root, h->send, static_cast<std::size_t>(h->block));
  }
  {
    std::lock_guard<std::mutex> lock(rt->mutex);
    ++h->runs;
    h->started = false;
  }
  // Served by this row, in the background or not (PAT_Get_last_algorithm
  // on the runtime's communicator); the caller's thread, like the
  // foreground dispatch.
  rt->state->last_algorithm[static_cast<std::size_t>(h->collective)] = h->entry->name;
  if (rc != MPI_SUCCESS) return mpi::mpi_failure(rc, "PAT_Run");
  return MPI_SUCCESS;
}

int background_start(void *handle) {
  mpi::set_last_error({});
  std::lock_guard<std::mutex> lock(g_mutex);
  Runtime *rt = g_runtime;
  if (!rt) return not_initialised("PAT_Start");
  Handle *h = live_handle(rt, handle);
  if (!h) return mpi::fail(MPI_ERR_REQUEST, "PAT_Start: not a live background collective");
  if (rt->edge_seen && rt->processing)
    return mpi::fail(MPI_ERR_OTHER, "PAT_Start: call it before the phase's edge");
  std::lock_guard<std::mutex> handle_lock(rt->mutex);
  if (h->started) return mpi::fail(MPI_ERR_OTHER, "PAT_Start: already started (PAT_Run first)");
  h->cost = mpi::cost_model(*rt->state);  // PAT_Set_cost_model since the init applies
  h->started = true;
  return MPI_SUCCESS;
}

int background_free(void *handle) {
  mpi::set_last_error({});
  std::lock_guard<std::mutex> lock(g_mutex);
  Runtime *rt = g_runtime;
  if (!rt) return not_initialised("PAT_Handle_free");
  Handle *h = live_handle(rt, handle);
  if (!h) return mpi::fail(MPI_ERR_REQUEST, "PAT_Handle_free: not a live background collective");
  {
    std::unique_lock<std::mutex> wait_lock(rt->mutex);
    rt->cv.wait(wait_lock, [&] { return h->pending == 0; });
    if (h->started) return mpi::fail(MPI_ERR_OTHER, "PAT_Handle_free: the collective is started; call PAT_Run first");
    rt->handles.erase(h);
  }
  int rc = MPI_Comm_free(&h->comm);
  delete h;
  if (rc != MPI_SUCCESS) return mpi::mpi_failure(rc, "PAT_Handle_free: MPI_Comm_free");
  return MPI_SUCCESS;
}

}  // namespace patcoll::runtime
