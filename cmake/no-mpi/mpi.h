/* On the include path of src/core only: core decides, the MPI layer
 * executes (ARCHITECTURE.md), so a core file that includes mpi.h is a bug. */
#error "src/core must not include mpi.h: move the MPI part to src/mpi"
