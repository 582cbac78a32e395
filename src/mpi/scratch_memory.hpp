// Where the executor's scratch memory (TypedScratch) comes from: one
// definition per build, chosen by CMake, never by #ifdef in the library.
//   src/mpi/scratch_memory.cpp   every MPI build: operator new[]
//   smpi/scratch_memory.cpp      the SimGrid SMPI variant (PATCOLL_SMPI=ON):
//                                malloc as smpicxx rewrites it, so with
//                                smpi/auto-shared-malloc-thresh set
//                                (scripts/smpi.sh --shared-malloc) large
//                                scratch of all simulated ranks shares one
//                                physical copy (P = 1024, docs/results/smpi.md)
// The memory is uninitialised (executor.hpp says why that is safe).
#pragma once

#include <cstddef>

namespace patcoll::mpi {

char *allocate_scratch(std::size_t bytes);  // throws std::bad_alloc
void free_scratch(char *memory) noexcept;

struct ScratchDeleter {
  void operator()(char *memory) const noexcept { free_scratch(memory); }
};

}  // namespace patcoll::mpi
