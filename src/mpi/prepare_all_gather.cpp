// The start of MPI_Allgather and MPI_Allgatherv calls (prepare.hpp): the
// argument checks with the MPI standard's error classes, the selection and
// the Program, into a Run.
//
// The Program moves bytes, as scatter and gather do: one IR element is one
// byte, block r of the logical receive buffer is rank r's block, packed in
// rank order (core/layout.hpp), and the send and receive datatypes may
// differ as long as their signatures match. A receive buffer whose
// datatype is not dense — or, for MPI_Allgatherv, whose displacements are
// not the packed ones (displs[r] = recvcounts[0] + … + recvcounts[r−1]) —
// is staged through a packed copy: the Program runs on the copy, and the
// blocks are unpacked to their displacements once the run is complete. A
// non-dense send buffer is packed before the run. MPI_IN_PLACE: the rank's
// block already sits in recvbuf (at displs[rank] for MPI_Allgatherv).
#include <string>
#include <vector>

#include "core/algorithm.hpp"
#include "core/layout.hpp"
#include "mpi/arguments.hpp"
#include "mpi/dispatch.hpp"
#include "mpi/error.hpp"
#include "mpi/prepare.hpp"

namespace patcoll::mpi {
namespace {

using core::Collective;

int prepare(const NativeCall &c, const char *algorithm, Run &run, bool v_form) {
  CommState *state = nullptr;
  if (int rc = begin_call(c, run, state); rc != MPI_SUCCESS || !state) return rc;
  const int size = state->size, rank = state->rank;
  const bool in_place = c.sendbuf == MPI_IN_PLACE;
  if (c.recvbuf == MPI_IN_PLACE) return fail(MPI_ERR_BUFFER, "recvbuf must not be MPI_IN_PLACE");

  // The receive side: every rank's block count (elements of recvtype) and
  // displacement.
  std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
  if (v_form) {
    if (!c.recvcounts) return fail(MPI_ERR_ARG, "recvcounts is NULL");
    if (!c.rdispls) return fail(MPI_ERR_ARG, "displs is NULL");
    for (int r = 0; r < size; ++r) {
      if (c.recvcounts[r] < 0)
        return fail(MPI_ERR_COUNT, "recvcounts[" + std::to_string(r) + "] is negative (" +
                                       std::to_string(c.recvcounts[r]) + ")");
      counts[static_cast<std::size_t>(r)] = c.recvcounts[r];
      displs[static_cast<std::size_t>(r)] = c.rdispls[r];
    }
  } else {
    if (c.recvcount < 0) return fail(MPI_ERR_COUNT, "recvcount is negative (" + std::to_string(c.recvcount) + ")");
    for (int r = 0; r < size; ++r) {
      counts[static_cast<std::size_t>(r)] = c.recvcount;
      displs[static_cast<std::size_t>(r)] = r * c.recvcount;
    }
  }
  if (int rc = check_type(c.recvtype, "recvtype"); rc != MPI_SUCCESS) return rc;
  TypeInfo recv;
  if (int rc = TypeInfo::describe(c.recvtype, recv); rc != MPI_SUCCESS) return rc;
  std::int64_t lowest = 0, highest = 0, elements = 0;  // the receive buffer's span, in elements
  bool packed_layout = true;
  for (int r = 0; r < size; ++r) {
    const std::int64_t n = counts[static_cast<std::size_t>(r)], d = displs[static_cast<std::size_t>(r)];
    if (n > 0) {
      lowest = std::min(lowest, d);
      highest = std::max(highest, d + n);
    }
    if (n > 0 && d != elements) packed_layout = false;
    elements += n;
  }
  if (int rc = check_buffer(c.recvbuf, static_cast<int>(std::min<std::int64_t>(highest, INT32_MAX)), recv, "recvbuf");
      rc != MPI_SUCCESS)
    return rc;
  TypeInfo send;
  const std::int64_t own = counts[static_cast<std::size_t>(rank)];
  if (!in_place) {
    if (c.sendcount < 0) return fail(MPI_ERR_COUNT, "sendcount is negative (" + std::to_string(c.sendcount) + ")");
    if (int rc = check_type(c.sendtype, "sendtype"); rc != MPI_SUCCESS) return rc;
    if (int rc = TypeInfo::describe(c.sendtype, send); rc != MPI_SUCCESS) return rc;
    if (int rc = check_buffer(c.sendbuf, c.sendcount, send, "sendbuf"); rc != MPI_SUCCESS) return rc;
    if (static_cast<std::int64_t>(c.sendcount) * send.size != own * recv.size)
      return fail(MPI_ERR_TRUNCATE, "sendcount·size(sendtype) = " +
                                        std::to_string(static_cast<std::int64_t>(c.sendcount) * send.size) +
                                        " bytes, but this rank's block of recvbuf holds " +
                                        std::to_string(own * recv.size) + " (type signatures do not match)");
    if (lowest >= 0)
      if (int rc = check_disjoint(c.sendbuf, c.sendcount, send, c.recvbuf, highest, recv); rc != MPI_SUCCESS)
        return rc;
  }

  // Params: bytes. The uniform form's block is its `count`; the v-form's
  // blocks are Params::counts, its `count` the mean block (auto's size rule).
  const std::int64_t block = static_cast<std::int64_t>(c.recvcount) * recv.size;
  const std::int64_t whole_bytes = elements * recv.size;
  core::Params params;
  if (int rc = call_params(*state, {c.collective, 0, v_form ? (whole_bytes + size - 1) / size : block, 1, true},
                           params);
      rc != MPI_SUCCESS)
    return rc;
  if (v_form) {
    params.counts.resize(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r)
      params.counts[static_cast<std::size_t>(r)] = static_cast<std::int64_t>(counts[static_cast<std::size_t>(r)]) * recv.size;
  }

  const Entry *entry = nullptr;
  if (int rc = select_run(*state, c.collective, algorithm, params, run, entry); rc != MPI_SUCCESS || !entry)
    return rc;
  CallTags tags;
  if (int rc = reserve_tags(*state, *entry, params, tags); rc != MPI_SUCCESS) return rc;
  if (whole_bytes == 0) return MPI_SUCCESS;

  // The receive side in bytes: the user's buffer when dense and packed,
  // else a packed copy (the own block copied in for MPI_IN_PLACE).
  void *whole = nullptr;
  const bool staged = !recv.dense || !packed_layout;
  const std::int64_t own_offset = core::block_offset(params, rank);
  if (!staged) {
    whole = static_cast<char *>(c.recvbuf) + recv.true_lb;
  } else {
    run.whole_pack.resize(static_cast<std::size_t>(whole_bytes));
    whole = run.whole_pack.data();
    if (in_place && own > 0) {
      int position = static_cast<int>(own_offset);
      PATCOLL_MPI_CHECK(MPI_Pack(recv.element(c.recvbuf, displs[static_cast<std::size_t>(rank)]), static_cast<int>(own),
                                 c.recvtype, run.whole_pack.data(), static_cast<int>(whole_bytes), &position,
                                 MPI_COMM_SELF));
    }
    run.finish = [data = run.whole_pack.data(), whole_bytes, counts, displs, recvbuf = c.recvbuf, recv,
                  offsets = core::prefix_offsets(params.counts.empty() ? std::vector<std::int64_t>(
                                                                             static_cast<std::size_t>(size), block)
                                                                       : params.counts)]() -> int {
      for (std::size_t r = 0; r < counts.size(); ++r) {
        if (counts[r] == 0) continue;
        int position = static_cast<int>(offsets[r]);
        PATCOLL_MPI_CHECK(MPI_Unpack(data, static_cast<int>(whole_bytes), &position, recv.element(recvbuf, displs[r]),
                                     counts[r], recv.type, MPI_COMM_SELF));
      }
      return MPI_SUCCESS;
    };
  }
  void *own_bytes = nullptr;
  if (!in_place && c.sendcount > 0)
    if (int rc = pack_view(c.sendbuf, c.sendcount, send, run.own_pack, own_bytes, true); rc != MPI_SUCCESS) return rc;
  run.buffers.send = in_place ? static_cast<char *>(whole) + own_offset : own_bytes;
  run.buffers.recv = whole;
  if (int rc = run_byte_program(*state, *entry, params, tags, run); rc != MPI_SUCCESS) return rc;
  return MPI_SUCCESS;
}

}  // namespace

int prepare_all_gather(const NativeCall &c, const char *algorithm, Run &run) {
  return prepare(c, algorithm, run, false);
}

int prepare_all_gather_v(const NativeCall &c, const char *algorithm, Run &run) {
  return prepare(c, algorithm, run, true);
}

}  // namespace patcoll::mpi
