// MPI driver: PAT_Allreduce with every registered algorithm against native.
#include "reduction_suite.hpp"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rc;
  {
    patcoll::test::ReductionSuite suite("allreduce", /*rooted=*/false);
    rc = suite.run(patcoll::test::paths_from_arguments(argc, argv));
  }
  MPI_Finalize();
  return rc;
}
