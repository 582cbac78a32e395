// Scratch memory of every MPI build except the SMPI variant
// (scratch_memory.hpp; smpi/scratch_memory.cpp replaces this file there).
#include "scratch_memory.hpp"

namespace patcoll::mpi {

char *allocate_scratch(std::size_t bytes) { return new char[bytes]; }

void free_scratch(char *memory) noexcept { delete[] memory; }

}  // namespace patcoll::mpi
