// MPI_Alltoallv's start (prepare.hpp): the checks with the MPI standard's
// error classes, the selection and the Program, into a Run.
//
// The Program runs over packed logical buffers in bytes (core/layout.hpp):
// the rank's pairs back to back in rank order. A side whose datatype is
// dense and whose displacements are the packed ones (displs[i] = the sum
// of counts[j < i]) is used in place; any other is staged through a packed
// copy (packed before the run, the receive side unpacked after it).
// MPI_IN_PLACE as sendbuf: the data is taken from recvbuf (recvcounts,
// rdispls, recvtype) and replaced there.
//
// Every rank knows only its own row (what it sends) and column (what it
// receives) of the count matrix, so the Params' counts hold those and
// zeros elsewhere, which is all the builders of one rank read
// (builders/alltoall.hpp); the selection sees Params without counts
// (Params::count 0), the same on every rank, so every rank picks the same
// algorithm.
#include <climits>
#include <cstring>
#include <string>
#include <vector>

#include "core/algorithm.hpp"
#include "mpi/arguments.hpp"
#include "mpi/dispatch.hpp"
#include "mpi/error.hpp"
#include "mpi/prepare.hpp"
#include "mpi/signature.hpp"

namespace patcoll::mpi {
namespace {

// One side of the call: counts and displacements per rank, in elements of
// `type`.
struct Side {
  const char *name = "";  // "send" / "recv"
  const void *buffer = nullptr;
  const int *counts = nullptr;
  const int *displs = nullptr;
  TypeInfo type;
  std::int64_t elements = 0;  // the sum of the counts
  bool packed_layout = true;  // displs are the packed ones
};

int check_side(Side &side, int procs, const char *counts_name, const char *displs_name, const char *type_name,
               MPI_Datatype type) {
  if (!side.counts) return fail(MPI_ERR_ARG, std::string(counts_name) + " is NULL");
  if (!side.displs) return fail(MPI_ERR_ARG, std::string(displs_name) + " is NULL");
  if (int rc = check_type(type, type_name); rc != MPI_SUCCESS) return rc;
  if (int rc = TypeInfo::describe(type, side.type); rc != MPI_SUCCESS) return rc;
  std::int64_t sum = 0;
  for (int i = 0; i < procs; ++i) {
    if (side.counts[i] < 0)
      return fail(MPI_ERR_COUNT, std::string(counts_name) + "[" + std::to_string(i) + "] is negative (" +
                                     std::to_string(side.counts[i]) + ")");
    if (side.displs[i] != sum) side.packed_layout = side.packed_layout && side.counts[i] == 0;
    sum += side.counts[i];
  }
  if (sum > INT_MAX) return fail(MPI_ERR_COUNT, std::string("the sum of ") + counts_name + " exceeds INT_MAX");
  side.elements = sum;
  if (sum > 0 && side.buffer == nullptr && side.type.true_lb == 0)
    return fail(MPI_ERR_BUFFER, std::string(side.name) + "buf is NULL with counts summing to " + std::to_string(sum));
  return MPI_SUCCESS;
}

// [lowest, highest) byte addressed by a side (empty when no element is).
void side_span(const Side &side, int procs, const char *&low, const char *&high) {
  low = high = nullptr;
  for (int i = 0; i < procs; ++i) {
    if (side.counts[i] == 0) continue;
    const char *begin = static_cast<const char *>(side.buffer) + side.type.true_lb +
                        static_cast<MPI_Aint>(side.displs[i]) * side.type.extent;
    const char *end = begin + side.type.span_bytes(side.counts[i]);
    if (!low || begin < low) low = begin;
    if (!high || end > high) high = end;
  }
}

// Packs the side's pairs back to back into `packed`.
int pack_side(const Side &side, int procs, std::vector<char> &packed) {
  int bytes = 0;
  PATCOLL_MPI_CHECK(MPI_Pack_size(static_cast<int>(side.elements), side.type.type, MPI_COMM_SELF, &bytes));
  packed.resize(static_cast<std::size_t>(bytes) + 1);
  int position = 0;
  for (int i = 0; i < procs; ++i)
    if (side.counts[i] > 0)
      PATCOLL_MPI_CHECK(MPI_Pack(static_cast<const char *>(side.buffer) + static_cast<MPI_Aint>(side.displs[i]) * side.type.extent,
                                 side.counts[i], side.type.type, packed.data(), bytes, &position, MPI_COMM_SELF));
  return MPI_SUCCESS;
}

}  // namespace

const int *uniform_counts(MPI_Comm comm, int count) {
  thread_local std::vector<int> counts;
  int size = 1;
  MPI_Comm_size(comm, &size);
  counts.assign(static_cast<std::size_t>(size), count);
  return counts.data();
}

const int *uniform_displacements(MPI_Comm comm, int count) {
  thread_local std::vector<int> displs;
  int size = 1;
  MPI_Comm_size(comm, &size);
  displs.resize(static_cast<std::size_t>(size));
  for (int i = 0; i < size; ++i) displs[static_cast<std::size_t>(i)] = i * count;
  return displs.data();
}

int prepare_all_to_all_v(const NativeCall &c, const char *algorithm, Run &run) {
  CommState *state = nullptr;
  if (int rc = begin_call(c, run, state); rc != MPI_SUCCESS || !state) return rc;
  const int procs = state->size, rank = state->rank;
  const bool in_place = c.sendbuf == MPI_IN_PLACE;
  if (c.recvbuf == MPI_IN_PLACE) return fail(MPI_ERR_BUFFER, "recvbuf must not be MPI_IN_PLACE");
  Side recv;
  recv.name = "recv", recv.buffer = c.recvbuf, recv.counts = c.recvcounts, recv.displs = c.rdispls;
  if (int rc = check_side(recv, procs, "recvcounts", "rdispls", "recvtype", c.recvtype); rc != MPI_SUCCESS) return rc;
  Side send = recv;
  if (!in_place) {
    send = Side{};
    send.name = "send", send.buffer = c.sendbuf, send.counts = c.sendcounts, send.displs = c.sdispls;
    if (int rc = check_side(send, procs, "sendcounts", "sdispls", "sendtype", c.sendtype); rc != MPI_SUCCESS) return rc;
    const long long out = static_cast<long long>(send.counts[rank]) * send.type.size;
    const long long in = static_cast<long long>(recv.counts[rank]) * recv.type.size;
    if (out != in)
      return fail(MPI_ERR_TRUNCATE, "sendcounts[" + std::to_string(rank) + "]·size(sendtype) = " + std::to_string(out) +
                                        " bytes differs from recvcounts[" + std::to_string(rank) +
                                        "]·size(recvtype) = " + std::to_string(in) + " (type signatures do not match)");
    const char *send_low, *send_high, *recv_low, *recv_high;
    side_span(send, procs, send_low, send_high);
    side_span(recv, procs, recv_low, recv_high);
    if (send_low && recv_low && send_low < recv_high && recv_low < send_high)
      return fail(MPI_ERR_BUFFER, "sendbuf and recvbuf overlap (pass MPI_IN_PLACE as the standard asks for an "
                                  "in-place collective)");
  }

  // The selection: the same Params on every rank (no counts).
  core::Params params;
  if (int rc = call_params(*state, {c.collective, 0, 0, 1, true}, params); rc != MPI_SUCCESS) return rc;
  const Entry *entry = nullptr;
  if (int rc = select_run(*state, c.collective, algorithm, params, run, entry); rc != MPI_SUCCESS || !entry)
    return rc;
  bool declined = false;
  if (int rc = check_reactive_blocking(c.collective, *entry, run, declined); rc != MPI_SUCCESS || declined) return rc;
  CallTags tags;
  if (int rc = reserve_tags(*state, *entry, params, tags); rc != MPI_SUCCESS) return rc;

  // This rank's row and column of the count matrix, in bytes.
  const std::size_t n = static_cast<std::size_t>(procs);
  params.counts.assign(n * n, 0);
  bool any = false;
  for (int other = 0; other < procs; ++other) {
    const std::int64_t out = static_cast<std::int64_t>(send.counts[other]) * send.type.size;
    const std::int64_t in = static_cast<std::int64_t>(recv.counts[other]) * recv.type.size;
    params.counts[static_cast<std::size_t>(rank) * n + static_cast<std::size_t>(other)] = out;
    params.counts[static_cast<std::size_t>(other) * n + static_cast<std::size_t>(rank)] = in;
    any = any || out > 0 || in > 0;
  }
  // Nothing to move here (the others' pairs with this rank are empty too);
  // a reactive run still takes its place in the arrival order (the others
  // wait for its hello and notices: mpi/reactive.hpp).
  if (!any && !(entry->capabilities & core::reactive)) return MPI_SUCCESS;

  void *send_bytes = nullptr, *recv_bytes = nullptr;
  const bool stage_recv = !recv.type.dense || !recv.packed_layout;
  if (stage_recv) {
    if (in_place) {
      if (int rc = pack_side(recv, procs, run.whole_pack); rc != MPI_SUCCESS) return rc;
    } else {
      int bytes = 0;
      PATCOLL_MPI_CHECK(MPI_Pack_size(static_cast<int>(recv.elements), recv.type.type, MPI_COMM_SELF, &bytes));
      run.whole_pack.resize(static_cast<std::size_t>(bytes) + 1);
    }
    recv_bytes = run.whole_pack.data();
  } else {
    recv_bytes = static_cast<char *>(c.recvbuf) + recv.type.true_lb;
  }
  if (!in_place) {
    if (!send.type.dense || !send.packed_layout) {
      if (int rc = pack_side(send, procs, run.own_pack); rc != MPI_SUCCESS) return rc;
      send_bytes = run.own_pack.data();
    } else {
      send_bytes = const_cast<char *>(static_cast<const char *>(c.sendbuf)) + send.type.true_lb;
    }
  }
  run.buffers = ExecutionBuffers{in_place ? recv_bytes : send_bytes, recv_bytes};
  if (int rc = run_byte_program(*state, *entry, params, tags, run); rc != MPI_SUCCESS) return rc;
  if (stage_recv) {
    std::vector<int> counts(recv.counts, recv.counts + procs), displs(recv.displs, recv.displs + procs);
    run.finish = [data = run.whole_pack.data(), size = static_cast<int>(run.whole_pack.size()), recvbuf = c.recvbuf,
                  counts = std::move(counts), displs = std::move(displs), type = c.recvtype,
                  extent = recv.type.extent]() -> int {
      int position = 0;
      for (std::size_t i = 0; i < counts.size(); ++i)
        if (counts[i] > 0)
          PATCOLL_MPI_CHECK(MPI_Unpack(data, size, &position, static_cast<char *>(recvbuf) + static_cast<MPI_Aint>(displs[i]) * extent,
                                       counts[i], type, MPI_COMM_SELF));
      return MPI_SUCCESS;
    };
  }
  return MPI_SUCCESS;
}

}  // namespace patcoll::mpi
