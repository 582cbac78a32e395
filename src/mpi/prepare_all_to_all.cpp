// MPI_Alltoall's start (prepare.hpp): the checks with the MPI standard's
// error classes, the selection and the Program, into a Run.
//
// An all-to-all moves bytes like scatter and gather: one IR element is one
// byte of a pair, so the send and the receive datatypes may differ as long
// as their signatures match. A buffer whose datatype is not dense is
// packed before the run (pack_view) and the receive side unpacked after.
// MPI_IN_PLACE as sendbuf: the data is taken from recvbuf (recvcount,
// recvtype) and replaced there; sendcount and sendtype are not looked at.
#include <climits>
#include <string>

#include "core/algorithm.hpp"
#include "mpi/arguments.hpp"
#include "mpi/dispatch.hpp"
#include "mpi/error.hpp"
#include "mpi/prepare.hpp"

namespace patcoll::mpi {

int prepare_all_to_all(const NativeCall &c, const char *algorithm, Run &run) {
  CommState *state = nullptr;
  if (int rc = begin_call(c, run, state); rc != MPI_SUCCESS || !state) return rc;
  const int procs = state->size;
  const bool in_place = c.sendbuf == MPI_IN_PLACE;
  if (c.recvbuf == MPI_IN_PLACE) return fail(MPI_ERR_BUFFER, "recvbuf must not be MPI_IN_PLACE");
  if (c.recvcount < 0) return fail(MPI_ERR_COUNT, "recvcount is negative (" + std::to_string(c.recvcount) + ")");
  if (int rc = check_type(c.recvtype, "recvtype"); rc != MPI_SUCCESS) return rc;
  TypeInfo recv, send;
  if (int rc = TypeInfo::describe(c.recvtype, recv); rc != MPI_SUCCESS) return rc;
  const std::int64_t recv_elements = static_cast<std::int64_t>(c.recvcount) * procs;
  if (recv_elements > INT_MAX) return fail(MPI_ERR_COUNT, "recvcount × communicator size exceeds INT_MAX");
  if (int rc = check_buffer(c.recvbuf, c.recvcount, recv, "recvbuf"); rc != MPI_SUCCESS) return rc;
  if (!in_place) {
    if (c.sendcount < 0) return fail(MPI_ERR_COUNT, "sendcount is negative (" + std::to_string(c.sendcount) + ")");
    if (int rc = check_type(c.sendtype, "sendtype"); rc != MPI_SUCCESS) return rc;
    if (int rc = TypeInfo::describe(c.sendtype, send); rc != MPI_SUCCESS) return rc;
    if (static_cast<std::int64_t>(c.sendcount) * procs > INT_MAX)
      return fail(MPI_ERR_COUNT, "sendcount × communicator size exceeds INT_MAX");
    if (int rc = check_buffer(c.sendbuf, c.sendcount, send, "sendbuf"); rc != MPI_SUCCESS) return rc;
    if (static_cast<long long>(c.sendcount) * send.size != static_cast<long long>(c.recvcount) * recv.size)
      return fail(MPI_ERR_TRUNCATE, "sendcount·size(sendtype) = " + std::to_string(static_cast<long long>(c.sendcount) * send.size) +
                                        " bytes differs from recvcount·size(recvtype) = " +
                                        std::to_string(static_cast<long long>(c.recvcount) * recv.size) +
                                        " (type signatures do not match)");
    if (int rc = check_disjoint(c.sendbuf, static_cast<std::int64_t>(c.sendcount) * procs, send, c.recvbuf, recv_elements, recv);
        rc != MPI_SUCCESS)
      return rc;
  }
  const long long pair = static_cast<long long>(c.recvcount) * recv.size;  // bytes of one pair

  core::Params params;
  if (int rc = call_params(*state, {c.collective, 0, pair, 1, true}, params); rc != MPI_SUCCESS) return rc;
  const Entry *entry = nullptr;
  if (int rc = select_run(*state, c.collective, algorithm, params, run, entry); rc != MPI_SUCCESS || !entry)
    return rc;
  bool declined = false;
  if (int rc = check_reactive_blocking(c.collective, *entry, run, declined); rc != MPI_SUCCESS || declined) return rc;
  CallTags tags;
  if (int rc = reserve_tags(*state, *entry, params, tags); rc != MPI_SUCCESS) return rc;
  if (pair == 0) return MPI_SUCCESS;

  void *send_bytes = nullptr, *recv_bytes = nullptr;
  if (!in_place)
    if (int rc = pack_view(c.sendbuf, c.sendcount * procs, send, run.own_pack, send_bytes, true); rc != MPI_SUCCESS)
      return rc;
  if (int rc = pack_view(c.recvbuf, static_cast<int>(recv_elements), recv, run.whole_pack, recv_bytes, in_place);
      rc != MPI_SUCCESS)
    return rc;
  run.buffers = ExecutionBuffers{in_place ? recv_bytes : send_bytes, recv_bytes};
  if (int rc = run_byte_program(*state, *entry, params, tags, run); rc != MPI_SUCCESS) return rc;
  if (!recv.dense) {
    run.finish = [data = run.whole_pack.data(), size = static_cast<int>(run.whole_pack.size()), recvbuf = c.recvbuf,
                  count = static_cast<int>(recv_elements), type = c.recvtype]() -> int {
      int position = 0;
      PATCOLL_MPI_CHECK(MPI_Unpack(data, size, &position, recvbuf, count, type, MPI_COMM_SELF));
      return MPI_SUCCESS;
    };
  }
  return MPI_SUCCESS;
}

}  // namespace patcoll::mpi
