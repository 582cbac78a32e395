// The C API of patcoll.h: the extern "C" functions of the blocking
// collectives and the settings. Every call goes through mpi/call.hpp's one
// path (checks, history, selection, run).
#include "patcoll.h"

#include <cmath>
#include <climits>
#include <string>
#include <vector>

#include "mpi/call.hpp"
#include "mpi/signature.hpp"
#include "core/algorithm.hpp"
#include "mpi/comm_cache.hpp"
#include "mpi/datatype.hpp"
#include "mpi/dispatch.hpp"
#include "mpi/error.hpp"
#include "mpi/executor.hpp"
#include "mpi/handle.hpp"
#include "mpi/op_check.hpp"
#include "mpi/registry.hpp"

namespace patcoll::mpi {
namespace {

using core::Collective;

bool parse_collective_name(const char *text, Collective &out) {
  return text && core::parse_collective(text, out);
}

}  // namespace
}  // namespace patcoll::mpi

using namespace patcoll::mpi;
using patcoll::core::Collective;

extern "C" {

// PAT_<Coll> and PAT_<Coll>_with of every collective (core/collectives.def,
// signatures in mpi/signature.hpp). The caller's return address is the call
// site whose arrival history the call joins (PATCOLL_PATS=history).
#define PATCOLL_COLLECTIVE(name, Name, NAME, kind)                                                      \
  int PAT_##Name(PATCOLL_PARAMS_##kind) {                                                               \
    return blocking_call(PATCOLL_CALL_##kind(Collective::name), nullptr, __builtin_return_address(0),   \
                         Caller::api);                                                                  \
  }                                                                                                     \
  int PAT_##Name##_with(const char *algorithm, PATCOLL_PARAMS_##kind) {                                 \
    return blocking_call(PATCOLL_CALL_##kind(Collective::name), algorithm, __builtin_return_address(0), \
                         Caller::api);                                                                  \
  }
#include "core/collectives.def"
#undef PATCOLL_COLLECTIVE

int PAT_Set_algorithm(MPI_Comm comm, const char *collective, const char *name) {
  set_last_error({});
  Collective c;
  if (!parse_collective_name(collective, c))
    return fail(MPI_ERR_ARG, std::string("unknown collective '") + (collective ? collective : "(null)") + "'");
  const std::string value = name ? name : "";
  if (!value.empty() && value != "auto" && !find_entry(c, value))
    return fail(MPI_ERR_ARG, "unknown " + std::string(patcoll::core::to_string(c)) + " algorithm '" + value + "'");
  if (comm == MPI_COMM_NULL) {
    process_defaults().algorithm[static_cast<int>(c)] = value;
    return MPI_SUCCESS;
  }
  if (!mpi_usable()) return fail(MPI_ERR_OTHER, "MPI is not initialised or already finalised");
  CommState *state = nullptr;
  if (int rc = comm_state(comm, state); rc != MPI_SUCCESS) return rc;
  state->algorithm[static_cast<int>(c)] = value;
  return MPI_SUCCESS;
}

int PAT_Set_arrivals(MPI_Comm comm, const double *arrivals) {
  set_last_error({});
  if (!mpi_usable()) return fail(MPI_ERR_OTHER, "MPI is not initialised or already finalised");
  if (comm == MPI_COMM_NULL) return fail(MPI_ERR_COMM, "the communicator is MPI_COMM_NULL");
  CommState *state = nullptr;
  if (int rc = comm_state(comm, state); rc != MPI_SUCCESS) return rc;
  std::string invalid;
  const std::size_t n = arrivals ? static_cast<std::size_t>(state->size) : 0;
  for (std::size_t i = 0; i < n && invalid.empty(); ++i)
    if (!std::isfinite(arrivals[i]) || std::fabs(arrivals[i]) > 1e9)
      invalid = "arrival time of rank " + std::to_string(i) + " is not a finite number of seconds";
  if (int rc = agree_across_ranks(*state, invalid.empty() ? hash_values(arrivals, n) : 0, invalid, "the PAT vector");
      rc != MPI_SUCCESS)
    return rc;
  if (arrivals) state->arrivals.assign(arrivals, arrivals + state->size);
  else state->arrivals.clear();
  return MPI_SUCCESS;
}

int PAT_Set_cost_model(MPI_Comm comm, double alpha, double beta, double gamma) {
  set_last_error({});
  patcoll::core::CostModel model{alpha, beta, gamma};
  const std::string invalid = patcoll::core::check_cost_model(model);
  if (comm == MPI_COMM_NULL) {  // this process only: nothing to agree with
    if (!invalid.empty()) return fail(MPI_ERR_ARG, "cost model: " + invalid);
    process_defaults().cost = model;
    return MPI_SUCCESS;
  }
  if (!mpi_usable()) return fail(MPI_ERR_OTHER, "MPI is not initialised or already finalised");
  CommState *state = nullptr;
  if (int rc = comm_state(comm, state); rc != MPI_SUCCESS) return rc;
  const double values[3] = {alpha, beta, gamma};
  if (int rc = agree_across_ranks(*state, invalid.empty() ? hash_values(values, 3) : 0,
                                  invalid.empty() ? invalid : "cost model: " + invalid, "the cost model");
      rc != MPI_SUCCESS)
    return rc;
  state->cost = model;
  return MPI_SUCCESS;
}

int PAT_Algorithm_count(const char *collective) {
  Collective c;
  if (!parse_collective_name(collective, c)) return -1;
  return static_cast<int>(entries(c).size());
}

const char *PAT_Algorithm_name(const char *collective, int index) {
  Collective c;
  if (!parse_collective_name(collective, c)) return nullptr;
  const auto &list = entries(c);
  if (index < 0 || index >= static_cast<int>(list.size())) return nullptr;
  return list[static_cast<std::size_t>(index)].name.data();
}

int PAT_Get_last_algorithm(MPI_Comm comm, const char *collective, const char **name) {
  Collective c;
  if (!parse_collective_name(collective, c)) return fail(MPI_ERR_ARG, "unknown collective");
  if (!name) return fail(MPI_ERR_ARG, "name is NULL");
  if (comm == MPI_COMM_NULL) return fail(MPI_ERR_COMM, "the communicator is MPI_COMM_NULL");
  if (!mpi_usable()) return fail(MPI_ERR_OTHER, "MPI is not initialised or already finalised");
  CommState *state = nullptr;
  if (int rc = existing_comm_state(comm, state); rc != MPI_SUCCESS) return rc;
  const std::string_view last = state ? state->last_algorithm[static_cast<std::size_t>(c)] : std::string_view();
  *name = last.empty() ? nullptr : last.data();
  return MPI_SUCCESS;
}

const char *PAT_Last_error(void) { return last_error().c_str(); }

int PAT_Get_version(int *major, int *minor, int *patch) {
  if (major) *major = PATCOLL_VERSION_MAJOR;
  if (minor) *minor = PATCOLL_VERSION_MINOR;
  if (patch) *patch = PATCOLL_VERSION_PATCH;
  return MPI_SUCCESS;
}

}  // extern "C"
