// Datatype glue: element addressing by extent, scratch allocation that
// respects true lower bound and extent, and element copies that work for
// derived (non-contiguous) datatypes.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "scratch_memory.hpp"

namespace patcoll::mpi {

struct TypeInfo {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Aint extent = 0;
  MPI_Aint true_lb = 0;
  MPI_Aint true_extent = 0;
  int size = 0;
  // Elements are back to back with no holes: copies are memcpy and the
  // data of n elements is size·n bytes starting at base + true_lb.
  bool dense = false;

  static int describe(MPI_Datatype, TypeInfo &out);

  char *element(void *base, std::int64_t index) const {
    return static_cast<char *>(base) + static_cast<MPI_Aint>(index) * extent;
  }
  // Bytes needed to hold n elements.
  std::size_t span_bytes(std::int64_t n) const {
    return n <= 0 ? 0 : static_cast<std::size_t>(true_extent + static_cast<MPI_Aint>(n - 1) * extent);
  }
};

// n elements of a type; base() is what MPI calls take. allocate() keeps
// the storage it has when it is large enough (a Workspace reused by the
// next call) and never fills it: the contents are undefined. The memory
// comes from allocate_scratch (scratch_memory.hpp).
class TypedScratch {
 public:
  void allocate(const TypeInfo &, std::int64_t elements);
  void *base() { return bytes_ == 0 ? nullptr : storage_.get() - info_true_lb_; }
  std::size_t capacity() const { return capacity_; }

 private:
  std::unique_ptr<char, ScratchDeleter> storage_;
  std::size_t capacity_ = 0, bytes_ = 0;
  MPI_Aint info_true_lb_ = 0;
};

// Copies n elements from src to dst (both described by `info`); `pack`
// is a reusable temporary for non-dense types.
int copy_elements(const TypeInfo &, const void *src, void *dst, std::int64_t n, std::vector<char> &pack);

}  // namespace patcoll::mpi
