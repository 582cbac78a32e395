// Every name of the catalogue - each algorithm's canonical name, each of
// its aliases, the background rows - is reachable through every entry
// point of the library, in one mpirun: PAT_<Coll>_with, PAT_Set_algorithm
// on the communicator and for the process, PATCOLL_<COLL>, and the
// non-blocking and persistent calls. Each call gives MPI's result, and
// PAT_Get_last_algorithm reports the canonical name (a background row's
// own name: without the PAT runtime it runs its base in the foreground).
// Unknown names and another collective's aliases are MPI_ERR_ARG.
#include <mpi.h>

#include <string>
#include <vector>

#include "core/algorithm.hpp"
#include "core/traits.hpp"
#include "mpi/registry.hpp"
#include "mpi_test.hpp"
#include "patcoll.h"

namespace {

using patcoll::core::Collective;
using patcoll::test::Suite;

int g_rank = 0, g_size = 1;
constexpr int kCount = 5;

enum class Route { with, set_comm, set_process, environment, nonblocking, persistent };
const char *to_string(Route route) {
  switch (route) {
    case Route::with: return "PAT_<Coll>_with";
    case Route::set_comm: return "PAT_Set_algorithm(comm)";
    case Route::set_process: return "PAT_Set_algorithm(MPI_COMM_NULL)";
    case Route::environment: return "PATCOLL_<COLL>";
    case Route::nonblocking: return "PAT_I<Coll>_with";
    case Route::persistent: return "PAT_<Coll>_init_with";
  }
  return "?";
}

const char *environment_name(Collective c) {
  switch (c) {
    case Collective::reduce: return "PATCOLL_REDUCE";
    case Collective::allreduce: return "PATCOLL_ALLREDUCE";
    case Collective::scatter: return "PATCOLL_SCATTER";
    case Collective::gather: return "PATCOLL_GATHER";
    case Collective::bcast: return "PATCOLL_BCAST";
    case Collective::alltoall: return "PATCOLL_ALLTOALL";
    case Collective::alltoallv: return "PATCOLL_ALLTOALLV";
    case Collective::allgather: return "PATCOLL_ALLGATHER";
    case Collective::allgatherv: return "PATCOLL_ALLGATHERV";
    case Collective::reduce_scatter_block: return "PATCOLL_REDUCE_SCATTER_BLOCK";
    case Collective::reduce_scatter: return "PATCOLL_REDUCE_SCATTER";
  }
  return "";
}

// allgatherv's arguments for kCount elements per rank, packed.
const int *v_counts() {
  static std::vector<int> counts;
  counts.assign(static_cast<std::size_t>(g_size), kCount);
  return counts.data();
}
const int *v_displs() {
  static std::vector<int> displs;
  displs.resize(static_cast<std::size_t>(g_size));
  for (int r = 0; r < g_size; ++r) displs[static_cast<std::size_t>(r)] = r * kCount;
  return displs.data();
}

// One call of collective `c` by `name` through `route` on MPI_INT, root
// P-1: send/recv laid out as the collective needs.
int call(Collective c, Route route, const char *name, const int *send, int *recv, MPI_Comm comm) {
  const int root = g_size - 1;
  // alltoallv: kCount per pair, packed.
  std::vector<int> counts(static_cast<std::size_t>(g_size), kCount), displs(static_cast<std::size_t>(g_size));
  for (int r = 0; r < g_size; ++r) displs[static_cast<std::size_t>(r)] = r * kCount;
  const int *vc = counts.data(), *vd = displs.data();
  const char *explicit_name = route == Route::with || route == Route::nonblocking || route == Route::persistent ? name
                                                                                                                : nullptr;
  if (route == Route::nonblocking) {
    PAT_Handle handle = nullptr;
    int rc = MPI_ERR_ARG;
    switch (c) {
      case Collective::reduce: rc = PAT_Ireduce_with(name, send, recv, kCount, MPI_INT, MPI_SUM, root, comm, &handle); break;
      case Collective::allreduce: rc = PAT_Iallreduce_with(name, send, recv, kCount, MPI_INT, MPI_SUM, comm, &handle); break;
      case Collective::scatter:
        rc = PAT_Iscatter_with(name, send, kCount, MPI_INT, recv, kCount, MPI_INT, root, comm, &handle);
        break;
      case Collective::gather:
        rc = PAT_Igather_with(name, send, kCount, MPI_INT, recv, kCount, MPI_INT, root, comm, &handle);
        break;
      case Collective::bcast: rc = PAT_Ibcast_with(name, recv, kCount, MPI_INT, root, comm, &handle); break;
      case Collective::alltoall:
        rc = PAT_Ialltoall_with(name, send, kCount, MPI_INT, recv, kCount, MPI_INT, comm, &handle);
        break;
      case Collective::alltoallv:
        rc = PAT_Ialltoallv_with(name, send, vc, vd, MPI_INT, recv, vc, vd, MPI_INT, comm, &handle);
        break;
      case Collective::allgather:
        rc = PAT_Iallgather_with(name, send, kCount, MPI_INT, recv, kCount, MPI_INT, comm, &handle);
        break;
      case Collective::allgatherv:
        rc = PAT_Iallgatherv_with(name, send, kCount, MPI_INT, recv, v_counts(), v_displs(), MPI_INT, comm, &handle);
        break;
      case Collective::reduce_scatter_block:
        rc = PAT_Ireduce_scatter_block_with(name, send, recv, kCount, MPI_INT, MPI_SUM, comm, &handle);
        break;
      case Collective::reduce_scatter:
        rc = PAT_Ireduce_scatter_with(name, send, recv, v_counts(), MPI_INT, MPI_SUM, comm, &handle);
        break;
    }
    if (rc != MPI_SUCCESS) return rc;
    return patcoll::test::complete_nonblocking(handle);
  }
  if (route == Route::persistent) {
    PAT_Handle handle = nullptr;
    int rc = MPI_ERR_ARG;
    switch (c) {
      case Collective::reduce:
        rc = PAT_Reduce_init_with(name, send, recv, kCount, MPI_INT, MPI_SUM, root, comm, MPI_INFO_NULL, &handle);
        break;
      case Collective::allreduce:
        rc = PAT_Allreduce_init_with(name, send, recv, kCount, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &handle);
        break;
      case Collective::scatter:
        rc = PAT_Scatter_init_with(name, send, kCount, MPI_INT, recv, kCount, MPI_INT, root, comm, MPI_INFO_NULL,
                                   &handle);
        break;
      case Collective::gather:
        rc = PAT_Gather_init_with(name, send, kCount, MPI_INT, recv, kCount, MPI_INT, root, comm, MPI_INFO_NULL,
                                  &handle);
        break;
      case Collective::bcast:
        rc = PAT_Bcast_init_with(name, recv, kCount, MPI_INT, root, comm, MPI_INFO_NULL, &handle);
        break;
      case Collective::alltoall:
        rc = PAT_Alltoall_init_with(name, send, kCount, MPI_INT, recv, kCount, MPI_INT, comm, MPI_INFO_NULL, &handle);
        break;
      case Collective::alltoallv:
        rc = PAT_Alltoallv_init_with(name, send, vc, vd, MPI_INT, recv, vc, vd, MPI_INT, comm, MPI_INFO_NULL, &handle);
        break;
      case Collective::allgather:
        rc = PAT_Allgather_init_with(name, send, kCount, MPI_INT, recv, kCount, MPI_INT, comm, MPI_INFO_NULL, &handle);
        break;
      case Collective::allgatherv:
        rc = PAT_Allgatherv_init_with(name, send, kCount, MPI_INT, recv, v_counts(), v_displs(), MPI_INT, comm,
                                      MPI_INFO_NULL, &handle);
        break;
      case Collective::reduce_scatter_block:
        rc = PAT_Reduce_scatter_block_init_with(name, send, recv, kCount, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL,
                                                &handle);
        break;
      case Collective::reduce_scatter:
        rc = PAT_Reduce_scatter_init_with(name, send, recv, v_counts(), MPI_INT, MPI_SUM, comm, MPI_INFO_NULL,
                                          &handle);
        break;
    }
    if (rc != MPI_SUCCESS) return rc;
    return patcoll::test::run_persistent(handle);
  }
  switch (c) {
    case Collective::reduce:
      return explicit_name ? PAT_Reduce_with(name, send, recv, kCount, MPI_INT, MPI_SUM, root, comm)
                           : PAT_Reduce(send, recv, kCount, MPI_INT, MPI_SUM, root, comm);
    case Collective::allreduce:
      return explicit_name ? PAT_Allreduce_with(name, send, recv, kCount, MPI_INT, MPI_SUM, comm)
                           : PAT_Allreduce(send, recv, kCount, MPI_INT, MPI_SUM, comm);
    case Collective::scatter:
      return explicit_name ? PAT_Scatter_with(name, send, kCount, MPI_INT, recv, kCount, MPI_INT, root, comm)
                           : PAT_Scatter(send, kCount, MPI_INT, recv, kCount, MPI_INT, root, comm);
    case Collective::gather:
      return explicit_name ? PAT_Gather_with(name, send, kCount, MPI_INT, recv, kCount, MPI_INT, root, comm)
                           : PAT_Gather(send, kCount, MPI_INT, recv, kCount, MPI_INT, root, comm);
    case Collective::bcast:
      return explicit_name ? PAT_Bcast_with(name, recv, kCount, MPI_INT, root, comm)
                           : PAT_Bcast(recv, kCount, MPI_INT, root, comm);
    case Collective::alltoall:
      return explicit_name ? PAT_Alltoall_with(name, send, kCount, MPI_INT, recv, kCount, MPI_INT, comm)
                           : PAT_Alltoall(send, kCount, MPI_INT, recv, kCount, MPI_INT, comm);
    case Collective::alltoallv:
      return explicit_name ? PAT_Alltoallv_with(name, send, vc, vd, MPI_INT, recv, vc, vd, MPI_INT, comm)
                           : PAT_Alltoallv(send, vc, vd, MPI_INT, recv, vc, vd, MPI_INT, comm);
    case Collective::allgather:
      return explicit_name ? PAT_Allgather_with(name, send, kCount, MPI_INT, recv, kCount, MPI_INT, comm)
                           : PAT_Allgather(send, kCount, MPI_INT, recv, kCount, MPI_INT, comm);
    case Collective::allgatherv:
      return explicit_name
                 ? PAT_Allgatherv_with(name, send, kCount, MPI_INT, recv, v_counts(), v_displs(), MPI_INT, comm)
                 : PAT_Allgatherv(send, kCount, MPI_INT, recv, v_counts(), v_displs(), MPI_INT, comm);
    case Collective::reduce_scatter_block:
      return explicit_name ? PAT_Reduce_scatter_block_with(name, send, recv, kCount, MPI_INT, MPI_SUM, comm)
                           : PAT_Reduce_scatter_block(send, recv, kCount, MPI_INT, MPI_SUM, comm);
    case Collective::reduce_scatter:
      return explicit_name ? PAT_Reduce_scatter_with(name, send, recv, v_counts(), MPI_INT, MPI_SUM, comm)
                           : PAT_Reduce_scatter(send, recv, v_counts(), MPI_INT, MPI_SUM, comm);
  }
  return MPI_ERR_ARG;
}

// Runs `name` through `route` and checks MPI's result and the reported name.
bool correct_and_reported(Collective c, Route route, const std::string &name, const std::string &canonical,
                          std::string &why) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int root = g_size - 1;
  const bool rooted_whole = c == Collective::scatter || c == Collective::gather;
  const bool pairs = c == Collective::alltoall || c == Collective::alltoallv;
  std::vector<int> send(static_cast<std::size_t>(kCount) * (rooted_whole ? g_size : 1));
  std::vector<int> recv(send.size() * (c == Collective::gather ? g_size : 1), -1);
  if (pairs) {  // pair (s, d), element i: 1000·s + 100·d + i
    send.resize(static_cast<std::size_t>(kCount) * g_size);
    recv.assign(send.size(), -1);
    for (int d = 0; d < g_size; ++d)
      for (int i = 0; i < kCount; ++i) send[static_cast<std::size_t>(d * kCount + i)] = 1000 * g_rank + 100 * d + i;
  } else if (c == Collective::reduce_scatter_block || c == Collective::reduce_scatter) {  // element j: 1000·rank + j
    send.resize(static_cast<std::size_t>(kCount) * g_size);
    recv.assign(kCount, -1);
    for (std::size_t j = 0; j < send.size(); ++j) send[j] = 1000 * g_rank + static_cast<int>(j);
  } else if (c == Collective::scatter) {
    recv.assign(kCount, -1);
    for (int r = 0; r < g_size; ++r)
      for (int i = 0; i < kCount; ++i) send[static_cast<std::size_t>(r * kCount + i)] = 1000 * r + i;
  } else {
    send.resize(kCount);
    for (int i = 0; i < kCount; ++i) send[static_cast<std::size_t>(i)] = 1000 * g_rank + i;
    if (c == Collective::gather) recv.assign(static_cast<std::size_t>(kCount) * g_size, -1);
    if (c == Collective::bcast && g_rank == root) recv = send;  // the root's buffer holds the data
    if (c == Collective::gather || c == Collective::allgather || c == Collective::allgatherv)
      recv.assign(static_cast<std::size_t>(kCount) * g_size, -1);
  }
  const char *coll = patcoll::core::to_string(c).data();
  int rc = MPI_SUCCESS;
  if (route == Route::set_comm) rc = PAT_Set_algorithm(comm, coll, name.c_str());
  if (route == Route::set_process) rc = PAT_Set_algorithm(MPI_COMM_NULL, coll, name.c_str());
  if (route == Route::environment) patcoll::test::set_configuration(environment_name(c), name.c_str());
  if (rc == MPI_SUCCESS) rc = call(c, route, name.c_str(), send.data(), recv.data(), comm);
  if (route == Route::set_comm) PAT_Set_algorithm(comm, coll, nullptr);
  if (route == Route::set_process) PAT_Set_algorithm(MPI_COMM_NULL, coll, nullptr);
  if (route == Route::environment) patcoll::test::set_configuration(environment_name(c), nullptr);
  if (rc != MPI_SUCCESS) {
    why = std::string("error ") + patcoll::test::error_class_name(rc) + ": " + PAT_Last_error();
    return false;
  }
  bool ok = true;
  for (int i = 0; i < kCount; ++i) {
    int sum = 0;
    for (int r = 0; r < g_size; ++r) sum += 1000 * r + i;
    switch (c) {
      case Collective::reduce:
        if (g_rank == root) ok = ok && recv[static_cast<std::size_t>(i)] == sum;
        break;
      case Collective::allreduce: ok = ok && recv[static_cast<std::size_t>(i)] == sum; break;
      case Collective::scatter: ok = ok && recv[static_cast<std::size_t>(i)] == 1000 * g_rank + i; break;
      case Collective::gather:
        for (int r = 0; r < g_size && g_rank == root; ++r)
          ok = ok && recv[static_cast<std::size_t>(r * kCount + i)] == 1000 * r + i;
        break;
      case Collective::bcast: ok = ok && recv[static_cast<std::size_t>(i)] == 1000 * root + i; break;
      case Collective::alltoall:
      case Collective::alltoallv:
        for (int r = 0; r < g_size; ++r)
          ok = ok && recv[static_cast<std::size_t>(r * kCount + i)] == 1000 * r + 100 * g_rank + i;
        break;
      case Collective::allgather:
      case Collective::allgatherv:
        for (int r = 0; r < g_size; ++r) ok = ok && recv[static_cast<std::size_t>(r * kCount + i)] == 1000 * r + i;
        break;
      case Collective::reduce_scatter_block:
      case Collective::reduce_scatter:
        ok = ok && recv[static_cast<std::size_t>(i)] == sum + g_size * g_rank * kCount;
        break;
    }
  }
  if (!ok) {
    why = "wrong result";
    return false;
  }
  const std::string last = patcoll::test::last_algorithm(comm, coll);
  if (last != canonical) {
    why = "PAT_Get_last_algorithm says '" + last + "'";
    return false;
  }
  return true;
}

// Every canonical name and alias of `c`, each through every route.
void every_name_through_every_route(Suite &suite, Collective c) {
  const std::string coll(patcoll::core::to_string(c));
  for (const patcoll::mpi::Entry &entry : patcoll::mpi::entries(c)) {
    // An algorithm for even P only (neighbor_exchange) refuses odd P: test_allgather checks the refusal.
    if (!entry.native() && (entry.algorithm->restrictions & patcoll::core::needs_even_procs) && g_size % 2 != 0)
      continue;
    std::vector<std::string> names{std::string(entry.name)};
    if (!entry.native())
      for (std::string_view alias : patcoll::core::aliases_of(*entry.algorithm)) names.emplace_back(alias);
    for (const std::string &name : names)
      for (Route route : {Route::with, Route::set_comm, Route::set_process, Route::environment, Route::nonblocking,
                          Route::persistent}) {
        std::string why;
        const std::string kind = name == entry.name ? "" : " (alias of " + std::string(entry.name) + ")";
        // A reactive row serves blocking calls only: the others are MPI_ERR_ARG.
        if (!entry.native() && (entry.algorithm->capabilities & patcoll::core::reactive) &&
            (route == Route::nonblocking || route == Route::persistent)) {
          const bool refused = !correct_and_reported(c, route, name, std::string(entry.name), why) &&
                               why.rfind("error " + std::to_string(MPI_ERR_ARG) + " ", 0) == 0;
          suite.check(refused, coll + " '" + name + "'" + kind + " through " + to_string(route) +
                                   ": MPI_ERR_ARG (blocking calls only) - " + why);
          continue;
        }
        const bool ok = correct_and_reported(c, route, name, std::string(entry.name), why);
        suite.check(ok, coll + " '" + name + "'" + kind + " through " + to_string(route) +
                            ": MPI's result, reported as " + std::string(entry.name) + (ok ? "" : " - " + why));
      }
  }
}

// A background row through a blocking call is its base on the same PAT
// vector: correct with a late rank, reported under its own name.
void background_rows_follow_the_pat_vector(Suite &suite) {
  std::vector<double> arrivals(static_cast<std::size_t>(g_size), 0.0);
  arrivals[0] = 1e-3;  // rank 0 late: slin / sls serve it last
  PAT_Set_arrivals(MPI_COMM_WORLD, arrivals.data());
  for (Collective c : {Collective::scatter, Collective::gather})
    for (const patcoll::mpi::Entry &entry : patcoll::mpi::entries(c)) {
      if (!(entry.capabilities & patcoll::core::background)) continue;
      std::string why;
      const bool ok = correct_and_reported(c, Route::with, std::string(entry.name), std::string(entry.name), why);
      suite.check(ok, std::string(patcoll::core::to_string(c)) + " " + std::string(entry.name) +
                          " with rank 0 late runs its base " + std::string(entry.algorithm->base) +
                          " in the foreground" + (ok ? "" : " - " + why));
    }
  PAT_Set_arrivals(MPI_COMM_WORLD, nullptr);
}

void unknown_names_are_errors(Suite &suite) {
  int x[kCount * 8] = {0}, y[kCount * 8] = {0};
  suite.check(PAT_Scatter_with("no_such", x, 1, MPI_INT, y, 1, MPI_INT, 0, MPI_COMM_WORLD) == MPI_ERR_ARG,
              "an unknown scatter name is MPI_ERR_ARG through PAT_Scatter_with");
  suite.check(PAT_Scatter_with("ls", x, 1, MPI_INT, y, 1, MPI_INT, 0, MPI_COMM_WORLD) == MPI_ERR_ARG,
              "gather's alias ls is not a scatter name (MPI_ERR_ARG)");
  suite.check(PAT_Gather_with("bsln", x, 1, MPI_INT, y, 1, MPI_INT, 0, MPI_COMM_WORLD) == MPI_ERR_ARG,
              "scatter's background row bsln is not a gather name (MPI_ERR_ARG)");
  suite.check(PAT_Set_algorithm(MPI_COMM_WORLD, "reduce", "bnom") == MPI_ERR_ARG,
              "bnom is an alias of scatter and gather only: PAT_Set_algorithm(reduce, bnom) is MPI_ERR_ARG");
  suite.check(PAT_Set_algorithm(MPI_COMM_NULL, "gather", "lin") == MPI_SUCCESS &&
                  PAT_Set_algorithm(MPI_COMM_NULL, "gather", nullptr) == MPI_SUCCESS,
              "PAT_Set_algorithm accepts the alias lin for gather");
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  {
    Suite suite;
    for (const patcoll::core::CollectiveTraits &t : patcoll::core::collectives())
      every_name_through_every_route(suite, t.collective);
    background_rows_follow_the_pat_vector(suite);
    unknown_names_are_errors(suite);
    const int status = suite.finish();
    MPI_Finalize();
    return status;
  }
}
