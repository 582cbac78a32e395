// Without MPI_THREAD_MULTIPLE the PAT runtime refuses to start, with a
// clear error, and the collectives keep working without PATs.
#include <mpi.h>

#include <cstring>
#include <string>
#include <vector>

#include "mpi_test.hpp"
#include "patcoll.h"

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  patcoll::test::Suite suite;
  if (provided < MPI_THREAD_MULTIPLE) {
    suite.check(PAT_Init(MPI_COMM_WORLD) == MPI_ERR_OTHER, "PAT_Init without MPI_THREAD_MULTIPLE is MPI_ERR_OTHER");
    suite.check(std::strstr(PAT_Last_error(), "MPI_THREAD_MULTIPLE") != nullptr,
                "PAT_Init's error text names MPI_THREAD_MULTIPLE");
    int flag = 1;
    suite.check(PAT_Initialized(&flag) == MPI_SUCCESS && flag == 0, "the runtime is not initialised after the refusal");
    suite.check(PAT_ProcessingStart() == MPI_ERR_OTHER, "PAT_ProcessingStart after a refused PAT_Init is MPI_ERR_OTHER");
    suite.check(PAT_Edge(0.5) == MPI_ERR_OTHER, "PAT_Edge after a refused PAT_Init is MPI_ERR_OTHER");
    suite.check(PAT_Finalize() == MPI_ERR_OTHER, "PAT_Finalize after a refused PAT_Init is MPI_ERR_OTHER");
  }
  suite.check(PAT_UseAlg("scatter", "slin") == MPI_SUCCESS, "PAT_UseAlg without a runtime sets the process choice");
  const int block = 3;
  std::vector<int> send(static_cast<std::size_t>(block * size)), recv(block, -1);
  for (int i = 0; i < block * size; ++i) send[static_cast<std::size_t>(i)] = 1000 + i;
  const int rc = PAT_Scatter(send.data(), block, MPI_INT, recv.data(), block, MPI_INT, 0, MPI_COMM_WORLD);
  bool ok = rc == MPI_SUCCESS;
  for (int i = 0; i < block; ++i) ok = ok && recv[static_cast<std::size_t>(i)] == 1000 + rank * block + i;
  suite.check(ok, "PAT_Scatter (slin) works without the runtime");
  const int status = suite.finish();
  MPI_Finalize();
  return status;
}
