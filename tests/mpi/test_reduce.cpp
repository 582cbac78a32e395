// MPI driver: PAT_Reduce with every registered algorithm against native.
#include "reduction_suite.hpp"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rc;
  {
    patcoll::test::ReductionSuite suite("reduce", /*rooted=*/true);
    rc = suite.run(patcoll::test::paths_from_arguments(argc, argv));
  }
  MPI_Finalize();
  return rc;
}
