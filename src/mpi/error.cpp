#include "error.hpp"

namespace patcoll::mpi {
namespace {
thread_local std::string g_last_error;
}

void set_last_error(std::string message) { g_last_error = std::move(message); }
const std::string &last_error() { return g_last_error; }

int fail(int code, std::string message) {
  g_last_error = std::move(message);
  return code;
}

int mpi_failure(int code, const char *what) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) length = 0;
  g_last_error = std::string(what) + " failed: " + std::string(text, static_cast<std::size_t>(length));
  return code;
}

bool mpi_usable() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

}  // namespace patcoll::mpi
