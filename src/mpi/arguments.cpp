#include "arguments.hpp"

#include <string>

#include "mpi/error.hpp"

namespace patcoll::mpi {

int check_type(MPI_Datatype type, const char *which) {
  if (type == MPI_DATATYPE_NULL) return fail(MPI_ERR_TYPE, std::string(which) + " is MPI_DATATYPE_NULL");
  return MPI_SUCCESS;
}

int check_buffer(const void *buffer, int count, const TypeInfo &type, const char *which) {
  if (buffer == nullptr && count > 0 && type.true_lb == 0)
    return fail(MPI_ERR_BUFFER, std::string(which) + " is NULL with a count of " + std::to_string(count));
  return MPI_SUCCESS;
}

int check_disjoint(const void *a, std::int64_t a_count, const TypeInfo &a_type, const void *b, std::int64_t b_count,
                   const TypeInfo &b_type) {
  if (!a || !b || a_count <= 0 || b_count <= 0) return MPI_SUCCESS;
  const char *a_begin = static_cast<const char *>(a) + a_type.true_lb;
  const char *b_begin = static_cast<const char *>(b) + b_type.true_lb;
  const char *a_end = a_begin + a_type.span_bytes(a_count), *b_end = b_begin + b_type.span_bytes(b_count);
  if (a_begin < b_end && b_begin < a_end)
    return fail(MPI_ERR_BUFFER, "sendbuf and recvbuf overlap (pass MPI_IN_PLACE as the standard asks for an "
                                "in-place collective)");
  return MPI_SUCCESS;
}

int check_movement(core::Collective collective, int rank, int size, const void *sendbuf, int sendcount,
                   MPI_Datatype sendtype, const void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                   MovementArguments &out) {
  if (root < 0 || root >= size)
    return fail(MPI_ERR_ROOT, "root " + std::to_string(root) + " is not a rank of a communicator of size " +
                                  std::to_string(size));
  MovementArguments &a = out;
  a.scatter = collective == core::Collective::scatter;
  a.is_root = rank == root;
  const bool own_in_place = a.scatter ? recvbuf == MPI_IN_PLACE : sendbuf == MPI_IN_PLACE;
  a.in_place = a.is_root && own_in_place;
  a.own_buffer = a.scatter ? recvbuf : sendbuf;
  a.own_count = a.scatter ? recvcount : sendcount;
  const MPI_Datatype own_type = a.scatter ? recvtype : sendtype;
  a.whole_buffer = a.scatter ? sendbuf : recvbuf;
  a.whole_count = a.scatter ? sendcount : recvcount;
  const MPI_Datatype whole_type = a.scatter ? sendtype : recvtype;
  if (!a.is_root && own_in_place) return fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is only allowed at the root");

  if (!a.in_place) {
    if (a.own_count < 0) return fail(MPI_ERR_COUNT, "count is negative (" + std::to_string(a.own_count) + ")");
    if (int rc = check_type(own_type, a.scatter ? "recvtype" : "sendtype"); rc != MPI_SUCCESS) return rc;
    if (int rc = TypeInfo::describe(own_type, a.own); rc != MPI_SUCCESS) return rc;
    if (int rc = check_buffer(a.own_buffer, a.own_count, a.own, a.scatter ? "recvbuf" : "sendbuf"); rc != MPI_SUCCESS)
      return rc;
  }
  if (a.is_root) {
    if (a.whole_count < 0) return fail(MPI_ERR_COUNT, "count is negative (" + std::to_string(a.whole_count) + ")");
    if (int rc = check_type(whole_type, a.scatter ? "sendtype" : "recvtype"); rc != MPI_SUCCESS) return rc;
    if (int rc = TypeInfo::describe(whole_type, a.whole); rc != MPI_SUCCESS) return rc;
    if (int rc = check_buffer(a.whole_buffer, a.whole_count, a.whole, a.scatter ? "sendbuf" : "recvbuf");
        rc != MPI_SUCCESS)
      return rc;
    if (!a.in_place)
      if (int rc = check_disjoint(a.own_buffer, a.own_count, a.own, a.whole_buffer, std::int64_t{a.whole_count} * size, a.whole);
          rc != MPI_SUCCESS)
        return rc;
    if (!a.in_place &&
        static_cast<long long>(a.whole_count) * a.whole.size != static_cast<long long>(a.own_count) * a.own.size)
      return fail(MPI_ERR_TRUNCATE,
                  "the root's send and receive blocks have different sizes (type signatures do not match)");
  }
  // The root's whole side defines the block; the others use their own side
  // (a mismatch then shows as MPI_ERR_TRUNCATE from MPI).
  a.block = a.is_root ? static_cast<long long>(a.whole_count) * a.whole.size
                      : static_cast<long long>(a.own_count) * a.own.size;
  return MPI_SUCCESS;
}

}  // namespace patcoll::mpi
