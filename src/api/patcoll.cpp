// The C API of patcoll.h: argument checks with the MPI standard's error
// classes and the extern "C" functions. Selection, Params, PATs, the cost
// model, agreement and the Program cache are mpi/dispatch.hpp's.
#include "patcoll.h"

#include <cmath>
#include <climits>
#include <string>
#include <vector>

#include "api/arguments.hpp"
#include "core/algorithm.hpp"
#include "mpi/comm_cache.hpp"
#include "mpi/datatype.hpp"
#include "mpi/dispatch.hpp"
#include "mpi/error.hpp"
#include "mpi/executor.hpp"
#include "mpi/handle.hpp"
#include "mpi/op_check.hpp"
#include "mpi/registry.hpp"
#include "mpi/report.hpp"

namespace patcoll::mpi {
namespace {

using core::Collective;

bool parse_collective_name(const char *text, Collective &out) {
  return text && core::parse_collective(text, out);
}

// Checks shared by every collective; fills state, size and rank.
int common_checks(MPI_Comm comm, CommState *&state, bool &inter) {
  if (!mpi_usable()) return fail(MPI_ERR_OTHER, "MPI is not initialised or already finalised");
  if (comm == MPI_COMM_NULL) return fail(MPI_ERR_COMM, "the communicator is MPI_COMM_NULL");
  int flag = 0;
  PATCOLL_MPI_CHECK(MPI_Comm_test_inter(comm, &flag));
  inter = flag != 0;
  if (inter) return MPI_SUCCESS;
  if (int rc = comm_state(comm, state); rc != MPI_SUCCESS) return rc;
  state->mailbox->take(state->arrivals);  // the PAT runtime's newest vector, if any
  return MPI_SUCCESS;
}

// A reduction's start: the checks, the selection and the Program of the
// call, into `run` (handle.hpp), which the blocking call runs at once and a
// non-blocking or persistent one keeps.
int prepare_reduction(Collective collective, const char *algorithm, const void *sendbuf, void *recvbuf, int count,
                      MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, Run &run) {
  set_last_error({});
  run.kind = Run::Kind::nothing;
  run.native = NativeCall{collective, sendbuf, recvbuf, count, 0, datatype, MPI_DATATYPE_NULL, op, root, comm};
  CommState *state = nullptr;
  bool inter = false;
  if (int rc = common_checks(comm, state, inter); rc != MPI_SUCCESS) return rc;
  if (inter) {  // intercommunicators: the MPI library's own
    run.kind = Run::Kind::native;
    return MPI_SUCCESS;
  }
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
  if (recvbuf == MPI_IN_PLACE) return fail(MPI_ERR_BUFFER, "recvbuf must not be MPI_IN_PLACE");
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (in_place && !is_root) return fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is only allowed at the root");
  TypeInfo type;
  if (int rc = TypeInfo::describe(datatype, type); rc != MPI_SUCCESS) return rc;
  if (!in_place)
    if (int rc = check_buffer(sendbuf, count, type, "sendbuf"); rc != MPI_SUCCESS) return rc;
  if (is_root)
    if (int rc = check_buffer(recvbuf, count, type, "recvbuf"); rc != MPI_SUCCESS) return rc;

  int commutative = 1;
  PATCOLL_MPI_CHECK(MPI_Op_commutative(op, &commutative));
  core::Params params;
  if (int rc = call_params(*state, {collective, collective == Collective::reduce ? root : 0, count, type.size,
                                    commutative != 0},
                           params);
      rc != MPI_SUCCESS)
    return rc;

  const Entry *entry = nullptr;
  if (int rc = select(*state, collective, algorithm, params, entry); rc != MPI_SUCCESS) return rc;
  if (state->feedback.current.armed) run.measured = state;
  if (entry->native()) {
    run.kind = Run::Kind::native;
    return MPI_SUCCESS;
  }
  const int tag = state->next_tag();
  if (count == 0 || state->size == 1) {
    if (count > 0 && !in_place) {
      std::vector<char> pack;
      return copy_elements(type, sendbuf, recvbuf, count, pack);
    }
    return MPI_SUCCESS;
  }
  run.kind = Run::Kind::program;
  run.program = program(state->programs, state->rank, *entry, params);
  run.state = state;
  run.reusable = !(entry->restrictions & core::pap_aware);
  run.context = ExecutionContext{state->comm, tag, op, type};
  run.buffers = ExecutionBuffers{in_place ? recvbuf : sendbuf, recvbuf};
  return MPI_SUCCESS;
}

// A blocking call: prepared and run at once; `auto`'s feedback measures it
// from its entry (dispatch.hpp).
int run_measured(Run &run, double entry_time) {
  const int rc = run_blocking(run);
  if (rc == MPI_SUCCESS && run.measured) measure_blocking_call(*run.measured, entry_time);
  return rc;
}

int reduction(Collective collective, const char *algorithm, const void *sendbuf, void *recvbuf, int count,
              MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, const void *call_site) {
  const double entry_time = mpi_usable() ? MPI_Wtime() : 0;
  Run run;
  if (int rc = prepare_reduction(collective, algorithm, sendbuf, recvbuf, count, datatype, op, root, comm, run);
      rc != MPI_SUCCESS)
    return rc;
  const int rc = run_measured(run, entry_time);
  // Arrival report (mpi/report.hpp): recorded here unless the shim serves the call (it records it).
  if (rc == MPI_SUCCESS && report::library_records())
    report::record(comm, collective, call_site, report::reduction_bytes(count, datatype), entry_time, MPI_Wtime(),
                   report::served_by(comm, collective));
  return rc;
}

// Scatter and gather run in bytes: one IR element is one byte of a rank's
// block, so the send and receive datatypes may differ (matching
// signatures). A buffer whose datatype is not dense is packed before and
// unpacked after the run.
// `packed` holds the bytes of a non-dense buffer (kept in the Run while it
// is active; its heap storage does not move with the Run).
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

int prepare_movement(Collective collective, const char *algorithm, const void *sendbuf, int sendcount,
                     MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                     MPI_Comm comm, Run &run) {
  set_last_error({});
  run.kind = Run::Kind::nothing;
  run.native = NativeCall{collective, sendbuf, recvbuf, sendcount, recvcount, sendtype, recvtype, MPI_OP_NULL, root, comm};
  CommState *state = nullptr;
  bool inter = false;
  if (int rc = common_checks(comm, state, inter); rc != MPI_SUCCESS) return rc;
  auto native = [&] {
    run.kind = Run::Kind::native;
    return MPI_SUCCESS;
  };
  if (inter) return native();
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
  if (int rc = select(*state, collective, algorithm, params, entry); rc != MPI_SUCCESS) return rc;
  if (state->feedback.current.armed) run.measured = state;
  if (entry->native()) return native();
  const int tag = state->next_tag();
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
  TypeInfo bytes;
  if (int rc = TypeInfo::describe(MPI_BYTE, bytes); rc != MPI_SUCCESS) return rc;
  run.kind = Run::Kind::program;
  run.program = program(state->programs, state->rank, *entry, params);
  run.state = state;
  run.reusable = !(entry->restrictions & core::pap_aware) && run.own_pack.empty() && run.whole_pack.empty();
  run.context = ExecutionContext{state->comm, tag, MPI_OP_NULL, bytes};
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

int movement(Collective collective, const char *algorithm, const void *sendbuf, int sendcount,
             MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
             const void *call_site) {
  const double entry_time = mpi_usable() ? MPI_Wtime() : 0;
  Run run;
  if (int rc = prepare_movement(collective, algorithm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                root, comm, run);
      rc != MPI_SUCCESS)
    return rc;
  const int rc = run_measured(run, entry_time);
  // Arrival report (mpi/report.hpp): recorded here unless the shim serves the call (it records it).
  if (rc == MPI_SUCCESS && report::library_records())
    report::record(comm, collective, call_site,
                   report::movement_bytes(collective, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype),
                   entry_time, MPI_Wtime(), report::served_by(comm, collective));
  return rc;
}

}  // namespace

int prepare_call(const NativeCall &c, const char *algorithm, Run &run) {
  const UnmeasuredCall unmeasured;  // non-blocking and persistent starts (handles.cpp)
  if (c.collective == Collective::reduce || c.collective == Collective::allreduce)
    return prepare_reduction(c.collective, algorithm, c.sendbuf, c.recvbuf, c.sendcount, c.sendtype, c.op, c.root,
                             c.comm, run);
  return prepare_movement(c.collective, algorithm, c.sendbuf, c.sendcount, c.sendtype, c.recvbuf, c.recvcount,
                          c.recvtype, c.root, c.comm, run);
}

}  // namespace patcoll::mpi

using namespace patcoll::mpi;
using patcoll::core::Collective;

extern "C" {

int PAT_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm) {
  return reduction(Collective::reduce, nullptr, sendbuf, recvbuf, count, datatype, op, root, comm,
                   __builtin_return_address(0));
}
int PAT_Reduce_with(const char *algorithm, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, int root, MPI_Comm comm) {
  return reduction(Collective::reduce, algorithm, sendbuf, recvbuf, count, datatype, op, root, comm,
                   __builtin_return_address(0));
}
int PAT_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return reduction(Collective::allreduce, nullptr, sendbuf, recvbuf, count, datatype, op, 0, comm,
                   __builtin_return_address(0));
}
int PAT_Allreduce_with(const char *algorithm, const void *sendbuf, void *recvbuf, int count,
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return reduction(Collective::allreduce, algorithm, sendbuf, recvbuf, count, datatype, op, 0, comm,
                   __builtin_return_address(0));
}
int PAT_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return movement(Collective::scatter, nullptr, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                  __builtin_return_address(0));
}
int PAT_Scatter_with(const char *algorithm, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return movement(Collective::scatter, algorithm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                  comm, __builtin_return_address(0));
}
int PAT_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return movement(Collective::gather, nullptr, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                  __builtin_return_address(0));
}
int PAT_Gather_with(const char *algorithm, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return movement(Collective::gather, algorithm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                  comm, __builtin_return_address(0));
}

int PAT_Set_algorithm(MPI_Comm comm, const char *collective, const char *name) {
  set_last_error({});
  Collective c;
  if (!parse_collective_name(collective, c))
    return fail(MPI_ERR_ARG, std::string("unknown collective '") + (collective ? collective : "(null)") + "'");
  const std::string value = name ? name : "";
  if (!value.empty() && value != "auto" && !find_entry(c, value))
    return fail(MPI_ERR_ARG, "unknown " + std::string(patcoll::core::to_string(c)) + " algorithm '" + value + "'");
  if (comm == MPI_COMM_NULL) {
    process_defaults().algorithm[static_cast<int>(c)] = value;
    return MPI_SUCCESS;
  }
  if (!mpi_usable()) return fail(MPI_ERR_OTHER, "MPI is not initialised or already finalised");
  CommState *state = nullptr;
  if (int rc = comm_state(comm, state); rc != MPI_SUCCESS) return rc;
  state->algorithm[static_cast<int>(c)] = value;
  return MPI_SUCCESS;
}

int PAT_Set_arrivals(MPI_Comm comm, const double *arrivals) {
  set_last_error({});
  if (!mpi_usable()) return fail(MPI_ERR_OTHER, "MPI is not initialised or already finalised");
  if (comm == MPI_COMM_NULL) return fail(MPI_ERR_COMM, "the communicator is MPI_COMM_NULL");
  CommState *state = nullptr;
  if (int rc = comm_state(comm, state); rc != MPI_SUCCESS) return rc;
  std::string invalid;
  const std::size_t n = arrivals ? static_cast<std::size_t>(state->size) : 0;
  for (std::size_t i = 0; i < n && invalid.empty(); ++i)
    if (!std::isfinite(arrivals[i]) || std::fabs(arrivals[i]) > 1e9)
      invalid = "arrival time of rank " + std::to_string(i) + " is not a finite number of seconds";
  if (int rc = agree_across_ranks(*state, invalid.empty() ? hash_values(arrivals, n) : 0, invalid, "the PAT vector");
      rc != MPI_SUCCESS)
    return rc;
  if (arrivals) state->arrivals.assign(arrivals, arrivals + state->size);
  else state->arrivals.clear();
  return MPI_SUCCESS;
}

int PAT_Set_cost_model(MPI_Comm comm, double alpha, double beta, double gamma) {
  set_last_error({});
  patcoll::core::CostModel model{alpha, beta, gamma};
  const std::string invalid = patcoll::core::check_cost_model(model);
  if (comm == MPI_COMM_NULL) {  // this process only: nothing to agree with
    if (!invalid.empty()) return fail(MPI_ERR_ARG, "cost model: " + invalid);
    process_defaults().cost = model;
    return MPI_SUCCESS;
  }
  if (!mpi_usable()) return fail(MPI_ERR_OTHER, "MPI is not initialised or already finalised");
  CommState *state = nullptr;
  if (int rc = comm_state(comm, state); rc != MPI_SUCCESS) return rc;
  const double values[3] = {alpha, beta, gamma};
  if (int rc = agree_across_ranks(*state, invalid.empty() ? hash_values(values, 3) : 0,
                                  invalid.empty() ? invalid : "cost model: " + invalid, "the cost model");
      rc != MPI_SUCCESS)
    return rc;
  state->cost = model;
  return MPI_SUCCESS;
}

int PAT_Algorithm_count(const char *collective) {
  Collective c;
  if (!parse_collective_name(collective, c)) return -1;
  return static_cast<int>(entries(c).size());
}

const char *PAT_Algorithm_name(const char *collective, int index) {
  Collective c;
  if (!parse_collective_name(collective, c)) return nullptr;
  const auto &list = entries(c);
  if (index < 0 || index >= static_cast<int>(list.size())) return nullptr;
  return list[static_cast<std::size_t>(index)].name.data();
}

int PAT_Get_last_algorithm(MPI_Comm comm, const char *collective, const char **name) {
  Collective c;
  if (!parse_collective_name(collective, c)) return fail(MPI_ERR_ARG, "unknown collective");
  if (!name) return fail(MPI_ERR_ARG, "name is NULL");
  if (comm == MPI_COMM_NULL) return fail(MPI_ERR_COMM, "the communicator is MPI_COMM_NULL");
  if (!mpi_usable()) return fail(MPI_ERR_OTHER, "MPI is not initialised or already finalised");
  CommState *state = nullptr;
  if (int rc = existing_comm_state(comm, state); rc != MPI_SUCCESS) return rc;
  const std::string_view last = state ? state->last_algorithm[static_cast<std::size_t>(c)] : std::string_view();
  *name = last.empty() ? nullptr : last.data();
  return MPI_SUCCESS;
}

const char *PAT_Last_error(void) { return last_error().c_str(); }

int PAT_Get_version(int *major, int *minor, int *patch) {
  if (major) *major = PATCOLL_VERSION_MAJOR;
  if (minor) *minor = PATCOLL_VERSION_MINOR;
  if (patch) *patch = PATCOLL_VERSION_PATCH;
  return MPI_SUCCESS;
}

}  // extern "C"
