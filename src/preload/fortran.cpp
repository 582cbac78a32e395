// Fortran entry points of the shim (docs/preload.md, "Fortran programs").
//
// Open MPI 4.1's mpif.h and `use mpi` bindings (libmpi_mpifh) implement
// mpi_reduce_ & co. by calling PMPI_Reduce directly, and `use mpi_f08`
// (libmpi_usempif08) calls mpi_reduce_f08_ -> ompi_reduce_f -> PMPI_Reduce:
// a Fortran program never reaches the C symbol MPI_Reduce that the shim
// replaces. So the shim also defines the Fortran symbols (gfortran's
// mpi_reduce_ and the other manglings Open MPI exports, and the f08
// mpi_reduce_f08_), converts the handles (MPI_*_f2c) and Fortran's
// MPI_IN_PLACE / MPI_BOTTOM sentinels (addresses of Open MPI's common
// blocks) and calls the shim's own C entry point, which serves the call
// exactly as for a C program (patcoll or PMPI_*).
//
// MPICH 4's Fortran bindings (libmpichfort, mpif.h, `use mpi` and
// `use mpi_f08`) call the C MPI_Reduce symbol after converting handles and
// sentinels themselves, so the C entry points already serve them; nothing
// is defined here for MPICH (tests/preload/run_tests.sh fortran checks both).
//
// The PMPI_ Fortran names (pmpi_reduce_, ...) are deliberately not
// replaced: PMPI means "the MPI library's own", for C and Fortran alike.
#include <mpi.h>

#include "shim.hpp"

#ifdef OPEN_MPI

extern "C" {
// Open MPI's Fortran sentinels (one definition per process: common blocks).
extern int mpi_fortran_in_place_;
extern int mpi_fortran_bottom_;
}

namespace {

const void *c_buffer(const void *fortran) {
  if (fortran == static_cast<const void *>(&mpi_fortran_in_place_)) return MPI_IN_PLACE;
  if (fortran == static_cast<const void *>(&mpi_fortran_bottom_)) return MPI_BOTTOM;
  return fortran;
}

void *c_buffer(void *fortran) { return const_cast<void *>(c_buffer(static_cast<const void *>(fortran))); }

void set_error(MPI_Fint *ierror, int rc) {
  if (ierror) *ierror = static_cast<MPI_Fint>(rc);  // the f08 ierror is OPTIONAL (NULL when absent)
}

void fortran_reduce(void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,
                    MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierror, const void *site) {
  set_error(ierror, patcoll::preload::shim_reduce(c_buffer(sendbuf), c_buffer(recvbuf), static_cast<int>(*count),
                               MPI_Type_f2c(*datatype), MPI_Op_f2c(*op), static_cast<int>(*root),
                               MPI_Comm_f2c(*comm), site));
}

void fortran_allreduce(void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,
                       MPI_Fint *comm, MPI_Fint *ierror, const void *site) {
  set_error(ierror, patcoll::preload::shim_allreduce(c_buffer(sendbuf), c_buffer(recvbuf), static_cast<int>(*count),
                                  MPI_Type_f2c(*datatype), MPI_Op_f2c(*op), MPI_Comm_f2c(*comm), site));
}

void fortran_scatter(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
                     MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierror, const void *site) {
  set_error(ierror, patcoll::preload::shim_scatter(c_buffer(sendbuf), static_cast<int>(*sendcount), MPI_Type_f2c(*sendtype),
                                c_buffer(recvbuf), static_cast<int>(*recvcount), MPI_Type_f2c(*recvtype),
                                static_cast<int>(*root), MPI_Comm_f2c(*comm), site));
}

void fortran_gather(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
                    MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierror, const void *site) {
  set_error(ierror, patcoll::preload::shim_gather(c_buffer(sendbuf), static_cast<int>(*sendcount), MPI_Type_f2c(*sendtype),
                               c_buffer(recvbuf), static_cast<int>(*recvcount), MPI_Type_f2c(*recvtype),
                               static_cast<int>(*root), MPI_Comm_f2c(*comm), site));
}

}  // namespace

// Every name Open MPI's Fortran libraries export for these four calls
// (nm -D libmpi_mpifh.so: MPI_REDUCE, mpi_reduce, mpi_reduce_, mpi_reduce__;
// libmpi_usempif08.so: mpi_reduce_f08_), all with the same arguments.
#define PATCOLL_FORTRAN_NAMES(X, upper, lower) X(upper) X(lower) X(lower##_) X(lower##__) X(lower##_f08_)

#define PATCOLL_REDUCE_ENTRY(name)                                                                          \
  void name(void *s, void *r, MPI_Fint *n, MPI_Fint *t, MPI_Fint *o, MPI_Fint *root, MPI_Fint *c,          \
            MPI_Fint *e) {                                                                                  \
    fortran_reduce(s, r, n, t, o, root, c, e, __builtin_return_address(0));                                                           \
  }
#define PATCOLL_ALLREDUCE_ENTRY(name)                                                                       \
  void name(void *s, void *r, MPI_Fint *n, MPI_Fint *t, MPI_Fint *o, MPI_Fint *c, MPI_Fint *e) {            \
    fortran_allreduce(s, r, n, t, o, c, e, __builtin_return_address(0));                                                              \
  }
#define PATCOLL_SCATTER_ENTRY(name)                                                                         \
  void name(void *s, MPI_Fint *sn, MPI_Fint *st, void *r, MPI_Fint *rn, MPI_Fint *rt, MPI_Fint *root,       \
            MPI_Fint *c, MPI_Fint *e) {                                                                     \
    fortran_scatter(s, sn, st, r, rn, rt, root, c, e, __builtin_return_address(0));                                                   \
  }
#define PATCOLL_GATHER_ENTRY(name)                                                                          \
  void name(void *s, MPI_Fint *sn, MPI_Fint *st, void *r, MPI_Fint *rn, MPI_Fint *rt, MPI_Fint *root,       \
            MPI_Fint *c, MPI_Fint *e) {                                                                     \
    fortran_gather(s, sn, st, r, rn, rt, root, c, e, __builtin_return_address(0));                                                    \
  }

extern "C" {
PATCOLL_FORTRAN_NAMES(PATCOLL_REDUCE_ENTRY, MPI_REDUCE, mpi_reduce)
PATCOLL_FORTRAN_NAMES(PATCOLL_ALLREDUCE_ENTRY, MPI_ALLREDUCE, mpi_allreduce)
PATCOLL_FORTRAN_NAMES(PATCOLL_SCATTER_ENTRY, MPI_SCATTER, mpi_scatter)
PATCOLL_FORTRAN_NAMES(PATCOLL_GATHER_ENTRY, MPI_GATHER, mpi_gather)
}

#endif  // OPEN_MPI
