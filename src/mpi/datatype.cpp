#include "datatype.hpp"

#include <climits>
#include <cstring>

#include "error.hpp"

namespace patcoll::mpi {

int TypeInfo::describe(MPI_Datatype type, TypeInfo &out) {
  out.type = type;
  MPI_Aint lb = 0;
  PATCOLL_MPI_CHECK(MPI_Type_get_extent(type, &lb, &out.extent));
  PATCOLL_MPI_CHECK(MPI_Type_get_true_extent(type, &out.true_lb, &out.true_extent));
  PATCOLL_MPI_CHECK(MPI_Type_size(type, &out.size));
  out.dense = out.size == out.extent && out.true_extent == out.size;
  return MPI_SUCCESS;
}

void TypedScratch::allocate(const TypeInfo &info, std::int64_t elements) {
  bytes_ = info.span_bytes(elements);
  if (bytes_ > capacity_) {
    storage_.reset(allocate_scratch(bytes_));  // uninitialised on purpose: see executor.hpp
    capacity_ = bytes_;
  }
  info_true_lb_ = info.true_lb;
}

int copy_elements(const TypeInfo &info, const void *src, void *dst, std::int64_t n, std::vector<char> &pack) {
  if (n <= 0 || src == dst) return MPI_SUCCESS;
  if (info.dense) {
    std::memmove(static_cast<char *>(dst) + info.true_lb, static_cast<const char *>(src) + info.true_lb,
                 static_cast<std::size_t>(n) * static_cast<std::size_t>(info.size));
    return MPI_SUCCESS;
  }
  if (n > INT_MAX) return fail(MPI_ERR_COUNT, "copy of more than INT_MAX elements of a derived datatype");
  int bytes = 0;
  PATCOLL_MPI_CHECK(MPI_Pack_size(static_cast<int>(n), info.type, MPI_COMM_SELF, &bytes));
  if (pack.size() < static_cast<std::size_t>(bytes)) pack.resize(static_cast<std::size_t>(bytes));
  int position = 0;
  PATCOLL_MPI_CHECK(MPI_Pack(src, static_cast<int>(n), info.type, pack.data(), bytes, &position, MPI_COMM_SELF));
  position = 0;
  PATCOLL_MPI_CHECK(MPI_Unpack(pack.data(), bytes, &position, dst, static_cast<int>(n), info.type, MPI_COMM_SELF));
  return MPI_SUCCESS;
}

}  // namespace patcoll::mpi
