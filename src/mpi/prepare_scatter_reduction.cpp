// The start of MPI_Reduce_scatter_block and MPI_Reduce_scatter calls
// (prepare.hpp): the argument checks with the MPI standard's error
// classes, the selection and the Program, into a Run.
//
// The Program runs on elements of the datatype, as a reduction's does
// (derived datatypes included): every rank's send buffer holds the whole
// vector (the sum of the blocks), its receive buffer its block — rank r's
// block is recvcount elements (MPI_Reduce_scatter_block) or recvcounts[r]
// (MPI_Reduce_scatter), blocks in rank order, back to back
// (core/layout.hpp). MPI_IN_PLACE: the whole vector is in recvbuf and the
// rank's result goes to its start.
#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "core/algorithm.hpp"
#include "core/layout.hpp"
#include "mpi/arguments.hpp"
#include "mpi/dispatch.hpp"
#include "mpi/error.hpp"
#include "mpi/op_check.hpp"
#include "mpi/prepare.hpp"

namespace patcoll::mpi {
namespace {

int prepare(const NativeCall &c, const char *algorithm, Run &run, bool v_form) {
  CommState *state = nullptr;
  if (int rc = begin_call(c, run, state); rc != MPI_SUCCESS || !state) return rc;
  const int size = state->size, rank = state->rank;
  std::vector<std::int64_t> counts(static_cast<std::size_t>(size));
  if (v_form) {
    if (!c.recvcounts) return fail(MPI_ERR_ARG, "recvcounts is NULL");
    for (int r = 0; r < size; ++r) {
      if (c.recvcounts[r] < 0)
        return fail(MPI_ERR_COUNT, "recvcounts[" + std::to_string(r) + "] is negative (" +
                                       std::to_string(c.recvcounts[r]) + ")");
      counts[static_cast<std::size_t>(r)] = c.recvcounts[r];
    }
  } else {
    if (c.recvcount < 0) return fail(MPI_ERR_COUNT, "recvcount is negative (" + std::to_string(c.recvcount) + ")");
    std::fill(counts.begin(), counts.end(), c.recvcount);
  }
  std::int64_t whole = 0;
  for (std::int64_t n : counts) whole += n;
  const std::int64_t own = counts[static_cast<std::size_t>(rank)];
  if (whole > INT_MAX) return fail(MPI_ERR_COUNT, "the blocks add up to more than INT_MAX elements");
  if (int rc = check_type(c.sendtype, "datatype"); rc != MPI_SUCCESS) return rc;
  if (c.op == MPI_OP_NULL) return fail(MPI_ERR_OP, "op is MPI_OP_NULL");
  // Before any data moves: a pair MPI rejects would abort the job inside
  // MPI_Reduce_local (MPI_ERRORS_ARE_FATAL), for native as well.
  if (int rc = check_op_datatype(c.op, c.sendtype); rc != MPI_SUCCESS) return rc;
  if (c.recvbuf == MPI_IN_PLACE) return fail(MPI_ERR_BUFFER, "recvbuf must not be MPI_IN_PLACE");
  const bool in_place = c.sendbuf == MPI_IN_PLACE;
  TypeInfo type;
  if (int rc = TypeInfo::describe(c.sendtype, type); rc != MPI_SUCCESS) return rc;
  if (in_place) {
    if (int rc = check_buffer(c.recvbuf, static_cast<int>(whole), type, "recvbuf"); rc != MPI_SUCCESS) return rc;
  } else {
    if (int rc = check_buffer(c.sendbuf, static_cast<int>(whole), type, "sendbuf"); rc != MPI_SUCCESS) return rc;
    if (int rc = check_buffer(c.recvbuf, static_cast<int>(own), type, "recvbuf"); rc != MPI_SUCCESS) return rc;
    if (int rc = check_disjoint(c.sendbuf, whole, type, c.recvbuf, own, type); rc != MPI_SUCCESS) return rc;
  }

  int commutative = 1;
  PATCOLL_MPI_CHECK(MPI_Op_commutative(c.op, &commutative));
  // Params: elements. The uniform form's block is its `count`; the
  // v-form's blocks are Params::counts, its `count` the mean block (auto's
  // size rule).
  core::Params params;
  if (int rc = call_params(*state, {c.collective, 0, v_form ? (whole + size - 1) / size : c.recvcount, type.size,
                                    commutative != 0},
                           params);
      rc != MPI_SUCCESS)
    return rc;
  if (v_form) params.counts = counts;

  const Entry *entry = nullptr;
  if (int rc = select_run(*state, c.collective, algorithm, params, run, entry); rc != MPI_SUCCESS || !entry)
    return rc;
  CallTags tags;
  if (int rc = reserve_tags(*state, *entry, params, tags); rc != MPI_SUCCESS) return rc;
  if (whole == 0) return MPI_SUCCESS;
  if (size == 1) {
    if (own > 0 && !in_place) {
      std::vector<char> pack;
      return copy_elements(type, c.sendbuf, c.recvbuf, own, pack);
    }
    return MPI_SUCCESS;
  }
  run.kind = Run::Kind::program;
  run.program = program(state->programs, rank, *entry, params);
  run.state = state;
  run.reusable = !(entry->capabilities & core::pap_aware);
  run.context = ExecutionContext{state->comm, tags.first, c.op, type, tags.count};
  run.buffers = ExecutionBuffers{in_place ? c.recvbuf : c.sendbuf, c.recvbuf};
  return MPI_SUCCESS;
}

}  // namespace

int prepare_scatter_reduction(const NativeCall &c, const char *algorithm, Run &run) {
  return prepare(c, algorithm, run, false);
}

int prepare_scatter_reduction_v(const NativeCall &c, const char *algorithm, Run &run) {
  return prepare(c, algorithm, run, true);
}

}  // namespace patcoll::mpi
