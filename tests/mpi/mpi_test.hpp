// Shared harness of the MPI test drivers: many cases inside one mpirun,
// failures collected on every rank, one closing line "N passed, M failed"
// printed by rank 0 and a non-zero exit code when anything failed.
#pragma once

#include <mpi.h>

#include <functional>
#include <string>
#include <vector>

#include "core/ir.hpp"
#include "patcoll.h"

namespace patcoll::test {

class Suite {
 public:
  explicit Suite(MPI_Comm comm = MPI_COMM_WORLD);
  // Records a case; `ok` is this rank's verdict. Cases are counted once
  // (the verdict is agreed over all ranks at finish()).
  void check(bool ok, const std::string &what);
  int finish();  // prints the summary on rank 0; returns the exit code

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  long long passed_ = 0, failed_ = 0;
  int printed_ = 0;
};

// The standard sweep of a case matrix: `matrix(comm, only_large)` over
// MPI_COMM_WORLD and a parity split (odd sizes when P is odd), then once
// more on MPI_COMM_WORLD with 64-byte segments so multi-segment paths run.
void sweep_communicators(const std::function<void(MPI_Comm, bool)> &matrix);

// Sets (value != nullptr) or unsets a PATCOLL_* variable between cases and
// makes the library re-read its configuration (read once otherwise).
// sweep_communicators and set_configuration are mpi_test_config.cpp's (the
// drivers linked with patcoll_internal).
void set_configuration(const char *name, const char *value);

// The algorithms registered for `collective`, native first.
std::vector<std::string> algorithms_of(const char *collective);

std::string error_class_name(int code);

// Checks a call that returned `rc`: MPI_ERR_ARG where `refused` (a
// reactive algorithm through a non-blocking or persistent call), else
// success; false when its buffers are not to be compared.
bool check_call(Suite &suite, bool refused, int rc, const std::string &what);

// Reactive algorithms under changing arrival orders: odd iterations give
// `comm` a PAT vector that predicts rank (iteration / 2) mod P first and
// rank 0 last, so the coordinator of the algorithms that hand out an
// order (core::reactive_coordinator) moves off rank 0 and the real order
// differs from the predicted one; even iterations clear it (rank 0
// coordinates). Collective over `comm`.
void predict_reactive_coordinator(Suite &suite, MPI_Comm comm, int iteration);

// The algorithm that served `collective`'s last call on `comm`
// (PAT_Get_last_algorithm): "(none)" before any, "error" on failure.
std::string last_algorithm(MPI_Comm comm, const char *collective);
// True when `text` (at most 63 characters) is the same on every rank of
// `comm` (collective: one PMPI_Allgather).
bool same_on_every_rank(MPI_Comm comm, const std::string &text);

// One blocking collective by algorithm name on MPI_INT (reduce/allreduce
// with MPI_SUM): `count` elements, per rank for scatter and gather, per pair
// for alltoall(v) (packed), per block for reduce_scatter(_block) (`send`
// holds P blocks); bcast: the root's `send` into every rank's `recv`.
int run_int(core::Collective c, const std::string &algorithm, const int *send, int *recv, int count, int root,
            MPI_Comm comm);

// How a driver calls the collectives: blocking (PAT_Reduce_with & co.),
// non-blocking (PAT_Ireduce_with & co., then PAT_Test / PAT_Wait) or
// persistent (PAT_Reduce_init_with & co., PAT_Start, PAT_Test / PAT_Wait,
// PAT_Handle_free). The drivers run their whole matrix through each.
enum class Path { blocking, nonblocking, persistent };
inline const char *to_string(Path path) {
  return path == Path::blocking ? "" : path == Path::nonblocking ? " [non-blocking]" : " [persistent]";
}
// The paths a suite driver runs: all three, or the one its command line
// names (--path blocking|nonblocking|persistent), so one driver can be
// split into three test entries (tests/mpi/CMakeLists.txt does under
// MPICH). Anything else on the command line: an empty list (the driver
// then fails).
std::vector<Path> paths_from_arguments(int argc, char **argv);

// Completes a started non-blocking handle: two PAT_Test calls, then
// PAT_Wait. Returns the code of the call that completed it; MPI_ERR_INTERN
// when the handle was not set to NULL on completion.
int complete_nonblocking(PAT_Handle &handle);
// Starts a persistent handle made by *_init, completes it like the above
// and frees it. MPI_ERR_INTERN when PAT_Handle_free fails.
int run_persistent(PAT_Handle &handle);

}  // namespace patcoll::test
