// Scratch memory of the SimGrid SMPI variant: replaces
// src/mpi/scratch_memory.cpp when PATCOLL_SMPI=ON (CMakeLists.txt).
//
// smpicxx compiles every file with smpi_helpers.h, which turns malloc/free
// into SMPI's interceptors: an allocation of at least
// smpi/auto-shared-malloc-thresh bytes (scripts/smpi.sh --shared-malloc)
// is backed by one physical block shared by all simulated ranks, and SMPI
// skips copying shared data in messages. The contents are then garbage
// (every rank writes the same memory), so results are meaningless and the
// bench runs with --no-check; below the threshold, or without it, this is
// plain malloc and results stay exact (the smpi-compare ctest checks them).
#include <cstdlib>
#include <new>

#include "../src/mpi/scratch_memory.hpp"

namespace patcoll::mpi {

char *allocate_scratch(std::size_t bytes) {
  void *memory = malloc(bytes == 0 ? 1 : bytes);
  if (memory == nullptr) throw std::bad_alloc();
  return static_cast<char *>(memory);
}

void free_scratch(char *memory) noexcept {
  if (memory != nullptr) free(memory);
}

}  // namespace patcoll::mpi
