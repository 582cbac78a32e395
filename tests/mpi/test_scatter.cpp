// MPI driver: PAT_Scatter with every registered algorithm against native.
#include "movement_suite.hpp"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rc;
  {
    patcoll::test::MovementSuite suite(/*scatter=*/true);
    rc = suite.run(patcoll::test::paths_from_arguments(argc, argv));
  }
  MPI_Finalize();
  return rc;
}
