// The one path of every patcoll collective call, from the C API
// (src/api/) and the preload shim (src/preload/) alike: the argument checks
// with the MPI standard's error classes, the history PATs of the call's
// collective and call site, the selection, the Program and the run
// (dispatch.hpp does Params, selection and the cache).
//
// Arguments are checked only where MPI says they are significant (a
// reduce's recvbuf at the non-roots, a scatter's sendbuf at the non-roots
// are not looked at), and buffers that overlap without MPI_IN_PLACE are
// MPI_ERR_BUFFER. The shim declines a call (the MPI library serves it) only
// on facts every rank sees alike: an intercommunicator, or an algorithm
// whose restrictions the call's op, counts or configuration do not meet.
// Any other error, before or during execution, is returned; nothing is
// retried on some ranks.
#include "call.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "core/algorithm.hpp"
#include "mpi/arguments.hpp"
#include "mpi/call_history.hpp"
#include "mpi/comm_cache.hpp"
#include "mpi/datatype.hpp"
#include "mpi/dispatch.hpp"
#include "mpi/error.hpp"
#include "mpi/executor.hpp"
#include "mpi/op_check.hpp"
#include "mpi/prepare.hpp"
#include "mpi/registry.hpp"
#include "mpi/report.hpp"
#include "mpi/signature.hpp"

namespace patcoll::mpi {

using core::Collective;

// Checks shared by every collective; fills state, size and rank.
int begin_call(const NativeCall &call, Run &run, CommState *&state) {
  set_last_error({});
  run.kind = Run::Kind::nothing;
  run.native = call;
  state = nullptr;
  if (!mpi_usable()) return fail(MPI_ERR_OTHER, "MPI is not initialised or already finalised");
  if (call.comm == MPI_COMM_NULL) return fail(MPI_ERR_COMM, "the communicator is MPI_COMM_NULL");
  bool inter = false;
  if (int rc = intra_comm_state(call.comm, state, inter); rc != MPI_SUCCESS) return rc;
  if (inter) {  // intercommunicators: the MPI library's own
    state = nullptr;
    run.kind = Run::Kind::native;
    return MPI_SUCCESS;
  }
  state->mailbox->take(state->arrivals);  // the PAT runtime's newest vector, if any
  return MPI_SUCCESS;
}

int select_run(CommState &state, Collective collective, const char *algorithm, const core::Params &params, Run &run,
               const Entry *&entry) {
  entry = nullptr;
  const Entry *chosen = nullptr;
  if (int rc = select(state, collective, algorithm, params, chosen); rc != MPI_SUCCESS) return rc;
  if (state.feedback.current.armed) run.measured = &state;
  if (chosen->native()) {
    run.kind = Run::Kind::native;
    return MPI_SUCCESS;
  }
  entry = chosen;
  return MPI_SUCCESS;
}

int check_reactive_blocking(Collective collective, const Entry &entry, Run &run, bool &declined) {
  declined = false;
  if (!(entry.capabilities & core::reactive) || !unmeasured_call_open()) return MPI_SUCCESS;
  const std::string reason = std::string(core::to_string(collective)) + " algorithm '" + std::string(entry.name) +
                             "' reacts to the arrival order at run time and serves blocking calls only "
                             "(not non-blocking or persistent ones)";
  if (CallContext *context = current_call(); context && context->shim) {  // every rank declines alike
    context->declined = reason;
    run.kind = Run::Kind::native;
    declined = true;
    return MPI_SUCCESS;
  }
  return fail(MPI_ERR_ARG, reason);
}

int reserve_tags(CommState &state, const Entry &entry, const core::Params &params, CallTags &tags) {
  tags.count = entry.native() ? 1 : core::tags_of(*entry.algorithm, params);
  if (tags.count < 1 || tags.count > state.tag_space())
    return fail(MPI_ERR_ARG, std::string(entry.name) + " needs " + std::to_string(tags.count) +
                                 " tags per call; this communicator's MPI_TAG_UB leaves " +
                                 std::to_string(state.tag_space()));
  tags.first = state.next_tags(tags.count);
  return MPI_SUCCESS;
}

int run_byte_program(CommState &state, const Entry &entry, const core::Params &params, CallTags tags, Run &run) {
  TypeInfo bytes;
  if (int rc = TypeInfo::describe(MPI_BYTE, bytes); rc != MPI_SUCCESS) return rc;
  if (entry.capabilities & core::reactive) {  // blocking (mpi/reactive.hpp)
    run.kind = Run::Kind::reactive;
    run.reactive = entry.algorithm;
    run.params = params;
    run.state = &state;
    run.context = ExecutionContext{state.comm, tags.first, MPI_OP_NULL, bytes, tags.count};
    return MPI_SUCCESS;
  }
  run.kind = Run::Kind::program;
  run.program = program(state.programs, state.rank, entry, params);
  run.state = &state;
  run.reusable = !(entry.capabilities & core::pap_aware) && run.own_pack.empty() && run.whole_pack.empty();
  run.context = ExecutionContext{state.comm, tags.first, MPI_OP_NULL, bytes, tags.count};
  return MPI_SUCCESS;
}

namespace {

// A reduction's start: the checks, the selection and the Program of the
// call, into `run` (handle.hpp), which the blocking call runs at once and a
// non-blocking or persistent one keeps.
int prepare_reduction(Collective collective, const char *algorithm, const void *sendbuf, void *recvbuf, int count,
                      MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, Run &run) {
  CommState *state = nullptr;
  if (int rc = begin_call(NativeCall{collective, sendbuf, recvbuf, count, 0, datatype, MPI_DATATYPE_NULL, op, root, comm},
                          run, state);
      rc != MPI_SUCCESS || !state)
    return rc;
  const bool is_root = collective == Collective::allreduce || state->rank == root;
  if (count < 0) return fail(MPI_ERR_COUNT, "count is negative (" + std::to_string(count) + ")");
  if (int rc = check_type(datatype, "datatype"); rc != MPI_SUCCESS) return rc;
  if (op == MPI_OP_NULL) return fail(MPI_ERR_OP, "op is MPI_OP_NULL");
  // Before any data moves: a pair MPI rejects would abort the job inside
  // MPI_Reduce_local (MPI_ERRORS_ARE_FATAL), for native as well.
  if (int rc = check_op_datatype(op, datatype); rc != MPI_SUCCESS) return rc;
  if (collective == Collective::reduce && (root < 0 || root >= state->size))
    return fail(MPI_ERR_ROOT, "root " + std::to_string(root) + " is not a rank of a communicator of size " +
                                  std::to_string(state->size));
  // recvbuf is significant at the root only (a reduce's non-roots may pass
  // anything, MPI_IN_PLACE included).
  if (is_root && recvbuf == MPI_IN_PLACE) return fail(MPI_ERR_BUFFER, "recvbuf must not be MPI_IN_PLACE");
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (in_place && !is_root) return fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is only allowed at the root");
  TypeInfo type;
  if (int rc = TypeInfo::describe(datatype, type); rc != MPI_SUCCESS) return rc;
  if (!in_place)
    if (int rc = check_buffer(sendbuf, count, type, "sendbuf"); rc != MPI_SUCCESS) return rc;
  if (is_root)
    if (int rc = check_buffer(recvbuf, count, type, "recvbuf"); rc != MPI_SUCCESS) return rc;
  if (is_root && !in_place)
    if (int rc = check_disjoint(sendbuf, count, type, recvbuf, count, type); rc != MPI_SUCCESS) return rc;

  int commutative = 1;
  PATCOLL_MPI_CHECK(MPI_Op_commutative(op, &commutative));
  core::Params params;
  if (int rc = call_params(*state, {collective, collective == Collective::reduce ? root : 0, count, type.size,
                                    commutative != 0},
                           params);
      rc != MPI_SUCCESS)
    return rc;

  const Entry *entry = nullptr;
  if (int rc = select_run(*state, collective, algorithm, params, run, entry); rc != MPI_SUCCESS || !entry)
    return rc;
  bool declined = false;
  if (int rc = check_reactive_blocking(collective, *entry, run, declined); rc != MPI_SUCCESS || declined) return rc;
  CallTags tags;
  if (int rc = reserve_tags(*state, *entry, params, tags); rc != MPI_SUCCESS) return rc;
  if (count == 0 || state->size == 1) {
    if (count > 0 && !in_place) {
      std::vector<char> pack;
      return copy_elements(type, sendbuf, recvbuf, count, pack);
    }
    return MPI_SUCCESS;
  }
  if (entry->capabilities & core::reactive) {
    run.kind = Run::Kind::reactive;
    run.reactive = entry->algorithm;
    run.params = params;
    run.state = state;
    run.context = ExecutionContext{state->comm, tags.first, op, type, tags.count};
    run.buffers = ExecutionBuffers{in_place ? recvbuf : sendbuf, recvbuf};
    return MPI_SUCCESS;
  }
  run.kind = Run::Kind::program;
  run.program = program(state->programs, state->rank, *entry, params);
  run.state = state;
  run.reusable = !(entry->capabilities & core::pap_aware);
  run.context = ExecutionContext{state->comm, tags.first, op, type, tags.count};
  run.buffers = ExecutionBuffers{in_place ? recvbuf : sendbuf, recvbuf};
  return MPI_SUCCESS;
}


}  // namespace

int pack_view(const void *buffer, int count, const TypeInfo &type, std::vector<char> &packed, void *&bytes_out,
              bool copy_in) {
  if (type.dense) {
    bytes_out = const_cast<char *>(static_cast<const char *>(buffer)) + type.true_lb;
    return MPI_SUCCESS;
  }
  int bytes = 0;
  PATCOLL_MPI_CHECK(MPI_Pack_size(count, type.type, MPI_COMM_SELF, &bytes));
  packed.resize(static_cast<std::size_t>(bytes));
  bytes_out = packed.data();
  if (copy_in) {
    int position = 0;
    PATCOLL_MPI_CHECK(MPI_Pack(buffer, count, type.type, packed.data(), bytes, &position, MPI_COMM_SELF));
  }
  return MPI_SUCCESS;
}

namespace {

int prepare_movement(Collective collective, const char *algorithm, const void *sendbuf, int sendcount,
                     MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                     MPI_Comm comm, Run &run) {
  CommState *state = nullptr;
  if (int rc = begin_call(
          NativeCall{collective, sendbuf, recvbuf, sendcount, recvcount, sendtype, recvtype, MPI_OP_NULL, root, comm},
          run, state);
      rc != MPI_SUCCESS || !state)
    return rc;
  MovementArguments args;
  if (int rc = check_movement(collective, state->rank, state->size, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                              recvtype, root, args);
      rc != MPI_SUCCESS)
    return rc;
  const bool is_root = args.is_root, scatter = args.scatter, in_place = args.in_place;
  const long long block = args.block;
  const TypeInfo &own = args.own, &whole = args.whole;
  const void *own_buffer = args.own_buffer, *whole_buffer = args.whole_buffer;
  const int own_count = args.own_count, whole_count = args.whole_count;

  core::Params params;
  if (int rc = call_params(*state, {collective, root, block, 1, true}, params); rc != MPI_SUCCESS) return rc;

  const Entry *entry = nullptr;
  if (int rc = select_run(*state, collective, algorithm, params, run, entry); rc != MPI_SUCCESS || !entry)
    return rc;
  CallTags tags;
  if (int rc = reserve_tags(*state, *entry, params, tags); rc != MPI_SUCCESS) return rc;
  if (block == 0) return MPI_SUCCESS;

  void *own_bytes = nullptr, *whole_bytes = nullptr;
  if (!in_place)
    if (int rc = pack_view(own_buffer, own_count, own, run.own_pack, own_bytes, !scatter); rc != MPI_SUCCESS) return rc;
  if (is_root)
    if (int rc = pack_view(whole_buffer, whole_count * state->size, whole, run.whole_pack, whole_bytes,
                           scatter || in_place);
        rc != MPI_SUCCESS)
      return rc;
  ExecutionBuffers &buffers = run.buffers;
  if (scatter) {
    buffers.send = whole_bytes;
    buffers.recv = in_place ? static_cast<char *>(whole_bytes) + block * root : own_bytes;
  } else {
    buffers.send = in_place ? static_cast<char *>(whole_bytes) + block * root : own_bytes;
    buffers.recv = whole_bytes;
  }
  if (int rc = run_byte_program(*state, *entry, params, tags, run); rc != MPI_SUCCESS) return rc;
  // The received bytes of a non-dense buffer are unpacked once complete.
  const bool unpack_own = scatter && !in_place && !own.dense && own_count > 0;
  const bool unpack_whole = !scatter && is_root && !whole.dense && whole_count > 0;
  if (unpack_own || unpack_whole) {
    const std::vector<char> &packed = unpack_own ? run.own_pack : run.whole_pack;
    run.finish = [data = packed.data(), size = static_cast<int>(packed.size()), recvbuf,
                  count = unpack_own ? own_count : whole_count * state->size,
                  type = unpack_own ? own.type : whole.type]() -> int {
      int position = 0;
      PATCOLL_MPI_CHECK(MPI_Unpack(data, size, &position, recvbuf, count, type, MPI_COMM_SELF));
      return MPI_SUCCESS;
    };
  }
  return MPI_SUCCESS;
}

// Bytes per rank of a call, for the arrival report.
std::int64_t call_bytes(const NativeCall &c) {
  if (c.collective == Collective::reduce || c.collective == Collective::allreduce)
    return report::reduction_bytes(c.sendcount, c.sendtype);
  if (c.collective == Collective::reduce_scatter_block || c.collective == Collective::reduce_scatter) {
    int size = 0;  // the rank's whole vector
    if (MPI_Comm_size(c.comm, &size) != MPI_SUCCESS) return -1;
    std::int64_t elements = 0;
    for (int i = 0; i < size; ++i) elements += c.recvcounts ? c.recvcounts[i] : c.recvcount;
    return elements * std::max<std::int64_t>(report::reduction_bytes(1, c.sendtype), 0);
  }
  if (c.collective == Collective::allgatherv && c.sendbuf == MPI_IN_PLACE && c.recvcounts) {
    int rank = 0;  // in place: the rank's own block of recvbuf
    PMPI_Comm_rank(c.comm, &rank);
    return report::reduction_bytes(c.recvcounts[rank], c.recvtype);
  }
  if (c.recvcounts && c.rdispls) {  // the v-forms: what the rank receives
    int size = 0;
    if (MPI_Comm_size(c.comm, &size) != MPI_SUCCESS) return -1;
    std::int64_t elements = 0;
    for (int i = 0; i < size; ++i) elements += c.recvcounts[i];
    return elements * std::max<std::int64_t>(report::reduction_bytes(1, c.recvtype), 0);
  }
  return report::movement_bytes(c.collective, c.sendbuf, c.sendcount, c.sendtype, c.recvbuf, c.recvcount,
                                c.recvtype);
}

int prepare(const NativeCall &c, const char *algorithm, Run &run) {
  switch (c.collective) {
#define PATCOLL_COLLECTIVE(name, Name, NAME, kind) \
  case Collective::name:                           \
    return prepare_##kind(c, algorithm, run);
#include "core/collectives.def"
#undef PATCOLL_COLLECTIVE
  }
  return fail(MPI_ERR_INTERN, "no preparation for this collective");
}

}  // namespace

int prepare_rooted_reduction(const NativeCall &c, const char *algorithm, Run &run) {
  return prepare_reduction(c.collective, algorithm, c.sendbuf, c.recvbuf, c.sendcount, c.sendtype, c.op, c.root,
                           c.comm, run);
}
int prepare_reduction(const NativeCall &c, const char *algorithm, Run &run) {
  return prepare_reduction(c.collective, algorithm, c.sendbuf, c.recvbuf, c.sendcount, c.sendtype, c.op, c.root,
                           c.comm, run);
}
int prepare_rooted_movement(const NativeCall &c, const char *algorithm, Run &run) {
  return prepare_movement(c.collective, algorithm, c.sendbuf, c.sendcount, c.sendtype, c.recvbuf, c.recvcount,
                          c.recvtype, c.root, c.comm, run);
}

NativeCall uniform_v_call(NativeCall call) {
  thread_local std::vector<int> counts, displs;
  int size = 1;
  if (call.comm != MPI_COMM_NULL) PMPI_Comm_size(call.comm, &size);
  counts.assign(static_cast<std::size_t>(size), call.recvcount);
  displs.resize(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) displs[static_cast<std::size_t>(r)] = r * call.recvcount;
  call.recvcounts = counts.data();
  call.rdispls = displs.data();
  return call;
}

NativeCall uniform_call(Collective collective, const void *send, void *recv, int count, MPI_Datatype type, MPI_Op op,
                        int root, MPI_Comm comm) {
  switch (collective) {
#define PATCOLL_COLLECTIVE(name, Name, NAME, kind) \
  case Collective::name:                           \
    return PATCOLL_UNIFORM_##kind(Collective::name);
#include "core/collectives.def"
#undef PATCOLL_COLLECTIVE
  }
  return {};
}

int prepare_call(const NativeCall &c, const char *algorithm, Run &run) {
  const UnmeasuredCall unmeasured;  // non-blocking and persistent starts (handles.cpp)
  return prepare(c, algorithm, run);
}

int persistent_preparation(const NativeCall &call, const std::string &algorithm, Handle::Prepare &prepare) {
  auto first = std::make_shared<Run>();
  if (int rc = prepare_call(call, algorithm.c_str(), *first); rc != MPI_SUCCESS) return rc;
  auto used = std::make_shared<bool>(false);
  prepare = [call, algorithm, first, used](Run &run) -> int {
    if (!*used) {  // the first start runs what init prepared (its tag)
      *used = true;
      if (first->kind != Run::Kind::nothing) {
        run = *first;
        return MPI_SUCCESS;
      }
    } else if (first->reusable) {
      run = *first;
      run.context.tag = first->state->next_tags(run.context.tags);
      return MPI_SUCCESS;
    }
    return prepare_call(call, algorithm.c_str(), run);
  };
  return MPI_SUCCESS;
}

int blocking_call(const NativeCall &call, const char *algorithm, const void *site, Caller caller,
                  CallOutcome *outcome) {
  const bool usable = mpi_usable();
  const double entry = usable ? MPI_Wtime() : 0;
  CallContext context;
  context.shim = caller == Caller::shim;
  const bool native = context.shim && !(algorithm && *algorithm);
  CommState *state = nullptr;
  CallHistory *history = nullptr;
  if (usable && call.comm != MPI_COMM_NULL && (context.shim || history_options().enabled || report::enabled())) {
    bool inter = false;
    if (int rc = intra_comm_state(call.comm, state, inter); rc != MPI_SUCCESS) return rc;
    if (state) {
      if ((history = state->history.get())) {
        history->enter(call.collective, site, entry);
        context.history_arrivals = &history->arrivals();
      }
    }
  }
  const CallScope scope(context);
  Run run;
  int rc = MPI_SUCCESS;
  if (native) {
    run.kind = Run::Kind::native;
    run.native = call;
  } else {
    rc = prepare(call, algorithm, run);
  }
  if (rc == MPI_SUCCESS) {
    rc = run_blocking(run);
    if (rc == MPI_SUCCESS && run.measured) measure_blocking_call(*run.measured, entry);
  }
  if (history) history->exit();
  std::string_view served = "native";
  if (!native && state && rc == MPI_SUCCESS)
    served = state->last_algorithm[static_cast<std::size_t>(call.collective)];
  // The arrival report: every blocking call once, whoever served it.
  if (rc == MPI_SUCCESS && usable && report::enabled())
    report::record(state ? &state->report : nullptr, call.comm, call.collective, site, call_bytes(call), entry,
                   MPI_Wtime(), served);
  if (outcome) {
    outcome->state = state;
    outcome->served = served;
    outcome->declined = std::move(context.declined);
    outcome->configuration = context.configuration_error;
  }
  return rc;
}

}  // namespace patcoll::mpi
