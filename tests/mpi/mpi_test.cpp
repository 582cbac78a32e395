#include "mpi_test.hpp"

#include <algorithm>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "patcoll.h"

namespace patcoll::test {

Suite::Suite(MPI_Comm comm) : comm_(comm) { MPI_Comm_rank(comm_, &rank_); }

void Suite::check(bool ok, const std::string &what) {
  if (ok) {
    ++passed_;
    return;
  }
  ++failed_;
  if (printed_++ < 30) std::fprintf(stderr, "[rank %d] FAILED: %s\n", rank_, what.c_str());
}

int Suite::finish() {
  long long local[2] = {passed_, failed_}, total[2] = {0, 0};
  // A case counts as failed if it failed on any rank: count per rank and
  // report the maximum failures and the minimum passes.
  long long local_failed = failed_, max_failed = 0, min_passed = 0;
  MPI_Allreduce(&local_failed, &max_failed, 1, MPI_LONG_LONG, MPI_MAX, comm_);
  MPI_Allreduce(&local[0], &min_passed, 1, MPI_LONG_LONG, MPI_MIN, comm_);
  MPI_Allreduce(local, total, 2, MPI_LONG_LONG, MPI_SUM, comm_);
  int size = 1;
  MPI_Comm_size(comm_, &size);
  if (rank_ == 0) {
    std::printf("%d ranks: %lld checks on all ranks, %lld failed checks on all ranks\n", size, total[0] + total[1],
                total[1]);
    std::printf("%lld passed, %lld failed\n", min_passed, max_failed);
    std::fflush(stdout);
  }
  return max_failed == 0 ? 0 : 1;
}

std::vector<std::string> algorithms_of(const char *collective) {
  std::vector<std::string> out;
  const int n = PAT_Algorithm_count(collective);
  for (int i = 0; i < n; ++i) out.emplace_back(PAT_Algorithm_name(collective, i));
  return out;
}

std::string last_algorithm(MPI_Comm comm, const char *collective) {
  const char *name = nullptr;
  if (PAT_Get_last_algorithm(comm, collective, &name) != MPI_SUCCESS) return "error";
  return name ? name : "(none)";
}

bool same_on_every_rank(MPI_Comm comm, const std::string &text) {
  char mine[64] = {};
  std::strncpy(mine, text.c_str(), sizeof mine - 1);
  int size = 1;
  MPI_Comm_size(comm, &size);
  std::vector<char> all(64 * static_cast<std::size_t>(size));
  PMPI_Allgather(mine, 64, MPI_CHAR, all.data(), 64, MPI_CHAR, comm);
  for (int r = 0; r < size; ++r)
    if (std::strncmp(all.data() + 64 * r, mine, 64) != 0) return false;
  return true;
}

bool check_call(Suite &suite, bool refused, int rc, const std::string &what) {
  if (refused) {
    int cls = rc;
    MPI_Error_class(rc, &cls);
    suite.check(rc != MPI_SUCCESS && cls == MPI_ERR_ARG,
                what + ": a reactive algorithm on this path returned " + error_class_name(rc));
    return false;
  }
  suite.check(rc == MPI_SUCCESS, what + ": returned " + error_class_name(rc) + " " + PAT_Last_error());
  return rc == MPI_SUCCESS;
}

std::string error_class_name(int code) {
  int cls = code;
  MPI_Error_class(code, &cls);
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(cls, text, &length);
  return std::to_string(cls) + " (" + std::string(text, static_cast<std::size_t>(length)) + ")";
}

std::vector<Path> paths_from_arguments(int argc, char **argv) {
  std::vector<Path> paths{Path::blocking, Path::nonblocking, Path::persistent};
  if (argc < 2) return paths;
  const std::string arg = argv[1];
  if (argc == 2 && arg == "--path=blocking") return {Path::blocking};
  if (argc == 2 && arg == "--path=nonblocking") return {Path::nonblocking};
  if (argc == 2 && arg == "--path=persistent") return {Path::persistent};
  std::fprintf(stderr, "unknown arguments (--path=blocking|nonblocking|persistent)\n");
  return {};
}

int complete_nonblocking(PAT_Handle &handle) {
  for (int i = 0; i < 2; ++i) {
    int flag = 0;
    const int rc = PAT_Test(&handle, &flag);
    if (flag || rc != MPI_SUCCESS) return handle == nullptr ? rc : MPI_ERR_INTERN;
  }
  const int rc = PAT_Wait(&handle);
  return handle == nullptr ? rc : MPI_ERR_INTERN;
}

int run_persistent(PAT_Handle &handle) {
  int rc = PAT_Start(handle);
  if (rc == MPI_SUCCESS) {
    int flag = 0;
    rc = PAT_Test(&handle, &flag);
    if (rc == MPI_SUCCESS && !flag) rc = PAT_Wait(&handle);
  }
  if (PAT_Handle_free(&handle) != MPI_SUCCESS || handle != nullptr) return MPI_ERR_INTERN;
  return rc;
}

int run_int(core::Collective c, const std::string &algorithm, const int *send, int *recv, int count, int root,
            MPI_Comm comm) {
  const char *name = algorithm.c_str();
  switch (c) {
    case core::Collective::reduce:
      return PAT_Reduce_with(name, send, recv, count, MPI_INT, MPI_SUM, root, comm);
    case core::Collective::allreduce:
      return PAT_Allreduce_with(name, send, recv, count, MPI_INT, MPI_SUM, comm);
    case core::Collective::scatter:
      return PAT_Scatter_with(name, send, count, MPI_INT, recv, count, MPI_INT, root, comm);
    case core::Collective::gather:
      return PAT_Gather_with(name, send, count, MPI_INT, recv, count, MPI_INT, root, comm);
    case core::Collective::bcast: {  // the root's `send` is broadcast into every rank's `recv`
      int rank = 0;
      MPI_Comm_rank(comm, &rank);
      if (rank == root) std::copy(send, send + count, recv);
      return PAT_Bcast_with(name, recv, count, MPI_INT, root, comm);
    }
    case core::Collective::alltoall:
      return PAT_Alltoall_with(name, send, count, MPI_INT, recv, count, MPI_INT, comm);
    case core::Collective::allgather:
      return PAT_Allgather_with(name, send, count, MPI_INT, recv, count, MPI_INT, comm);
    case core::Collective::allgatherv:
    case core::Collective::alltoallv: {
      int size = 1;
      MPI_Comm_size(comm, &size);
      std::vector<int> counts(static_cast<std::size_t>(size), count), displs(static_cast<std::size_t>(size));
      for (int r = 0; r < size; ++r) displs[static_cast<std::size_t>(r)] = r * count;
      if (c == core::Collective::allgatherv)
        return PAT_Allgatherv_with(name, send, count, MPI_INT, recv, counts.data(), displs.data(), MPI_INT, comm);
      return PAT_Alltoallv_with(name, send, counts.data(), displs.data(), MPI_INT, recv, counts.data(), displs.data(),
                                MPI_INT, comm);
    }
    case core::Collective::reduce_scatter_block:  // `send` holds P blocks of `count`
      return PAT_Reduce_scatter_block_with(name, send, recv, count, MPI_INT, MPI_SUM, comm);
    case core::Collective::reduce_scatter: {
      int size = 1;
      MPI_Comm_size(comm, &size);
      const std::vector<int> counts(static_cast<std::size_t>(size), count);
      return PAT_Reduce_scatter_with(name, send, recv, counts.data(), MPI_INT, MPI_SUM, comm);
    }
  }
  return MPI_ERR_ARG;
}

void predict_reactive_coordinator(Suite &suite, MPI_Comm comm, int iteration) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  const int first = iteration / 2 % size;
  std::vector<double> predicted(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r)
    predicted[static_cast<std::size_t>(r)] =
        0.001 * static_cast<double>((r - first + size) % size) + (r == 0 && first != 0 ? 1.0 : 0.0);
  const int rc = PAT_Set_arrivals(comm, iteration % 2 == 1 ? predicted.data() : nullptr);
  suite.check(rc == MPI_SUCCESS, "PAT_Set_arrivals for arrival order #" + std::to_string(iteration));
}

}  // namespace patcoll::test
