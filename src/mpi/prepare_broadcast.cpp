// The start of an MPI_Bcast (prepare.hpp): its checks, the selection and
// the Program.
//
// A broadcast moves bytes as scatter and gather do: one IR element is one
// byte of the buffer (Params::count = count · the type's size, element
// size 1), so the executor sends MPI_BYTE. A buffer whose datatype is not
// dense is packed (the root's, before the run) into a contiguous copy and
// unpacked after it (every other rank's). MPI_Bcast has no MPI_IN_PLACE.
// Checks: MPI_ERR_ROOT for a root outside the communicator, MPI_ERR_COUNT
// for a negative count, MPI_ERR_TYPE for an invalid or uncommitted
// datatype, MPI_ERR_BUFFER for a null buffer that would be addressed.
// A reactive algorithm (bcast/reactive) runs through mpi/reactive.hpp,
// blocking calls only.
#include <string>

#include "core/algorithm.hpp"
#include "mpi/arguments.hpp"
#include "mpi/dispatch.hpp"
#include "mpi/error.hpp"
#include "mpi/prepare.hpp"
#include "mpi/registry.hpp"

namespace patcoll::mpi {

int prepare_broadcast(const NativeCall &c, const char *algorithm, Run &run) {
  CommState *state = nullptr;
  if (int rc = begin_call(c, run, state); rc != MPI_SUCCESS || !state) return rc;
  const int root = c.root, count = c.recvcount;
  void *buffer = c.recvbuf;
  if (root < 0 || root >= state->size)
    return fail(MPI_ERR_ROOT, "root " + std::to_string(root) + " is not a rank of a communicator of size " +
                                  std::to_string(state->size));
  if (count < 0) return fail(MPI_ERR_COUNT, "count is negative (" + std::to_string(count) + ")");
  if (int rc = check_type(c.recvtype, "datatype"); rc != MPI_SUCCESS) return rc;
  TypeInfo type;
  if (int rc = TypeInfo::describe(c.recvtype, type); rc != MPI_SUCCESS) return rc;
  if (buffer == MPI_IN_PLACE) return fail(MPI_ERR_BUFFER, "buffer must not be MPI_IN_PLACE");
  if (int rc = check_buffer(buffer, count, type, "buffer"); rc != MPI_SUCCESS) return rc;
  const bool is_root = state->rank == root;
  const long long bytes = static_cast<long long>(count) * type.size;

  core::Params params;
  if (int rc = call_params(*state, {c.collective, root, bytes, 1, true}, params); rc != MPI_SUCCESS) return rc;
  const Entry *entry = nullptr;
  if (int rc = select_run(*state, c.collective, algorithm, params, run, entry); rc != MPI_SUCCESS || !entry)
    return rc;
  bool declined = false;
  if (int rc = check_reactive_blocking(c.collective, *entry, run, declined); rc != MPI_SUCCESS || declined) return rc;
  CallTags tags;
  if (int rc = reserve_tags(*state, *entry, params, tags); rc != MPI_SUCCESS) return rc;
  if (bytes == 0 || state->size == 1) return MPI_SUCCESS;

  void *bytes_view = nullptr;
  if (int rc = pack_view(buffer, count, type, run.own_pack, bytes_view, is_root); rc != MPI_SUCCESS) return rc;
  run.buffers = ExecutionBuffers{bytes_view, bytes_view};
  if (int rc = run_byte_program(*state, *entry, params, tags, run); rc != MPI_SUCCESS) return rc;
  if (!is_root && !type.dense) {
    // The received bytes are unpacked into the user's buffer once complete.
    run.finish = [data = run.own_pack.data(), size = static_cast<int>(run.own_pack.size()), buffer, count,
                  datatype = type.type]() -> int {
      int position = 0;
      PATCOLL_MPI_CHECK(MPI_Unpack(data, size, &position, buffer, count, datatype, MPI_COMM_SELF));
      return MPI_SUCCESS;
    };
  }
  return MPI_SUCCESS;
}

}  // namespace patcoll::mpi
