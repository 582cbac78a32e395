// Fortran entry points of the shim (docs/results/preload.md, "Fortran programs").
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

using patcoll::mpi::NativeCall;

}  // namespace

// Each signature kind of core/collectives.def in Fortran: the arguments (all
// by reference, handles as MPI_Fint, the optional ierror last) and the
// NativeCall they make.
#define PATCOLL_FORTRAN_PARAMS_rooted_reduction \
  void *s, void *r, MPI_Fint *n, MPI_Fint *t, MPI_Fint *o, MPI_Fint *root, MPI_Fint *c, MPI_Fint *e
#define PATCOLL_FORTRAN_CALL_rooted_reduction(coll)                                                        \
  NativeCall {                                                                                             \
    coll, c_buffer(s), c_buffer(r), static_cast<int>(*n), 0, MPI_Type_f2c(*t), MPI_DATATYPE_NULL,          \
        MPI_Op_f2c(*o), static_cast<int>(*root), MPI_Comm_f2c(*c)                                          \
  }
#define PATCOLL_FORTRAN_PARAMS_reduction \
  void *s, void *r, MPI_Fint *n, MPI_Fint *t, MPI_Fint *o, MPI_Fint *c, MPI_Fint *e
#define PATCOLL_FORTRAN_CALL_reduction(coll)                                                               \
  NativeCall {                                                                                             \
    coll, c_buffer(s), c_buffer(r), static_cast<int>(*n), 0, MPI_Type_f2c(*t), MPI_DATATYPE_NULL,          \
        MPI_Op_f2c(*o), 0, MPI_Comm_f2c(*c)                                                                \
  }
#define PATCOLL_FORTRAN_PARAMS_rooted_movement                                                             \
  void *s, MPI_Fint *sn, MPI_Fint *st, void *r, MPI_Fint *rn, MPI_Fint *rt, MPI_Fint *root, MPI_Fint *c,    \
      MPI_Fint *e
#define PATCOLL_FORTRAN_CALL_rooted_movement(coll)                                                         \
  NativeCall {                                                                                             \
    coll, c_buffer(s), c_buffer(r), static_cast<int>(*sn), static_cast<int>(*rn), MPI_Type_f2c(*st),       \
        MPI_Type_f2c(*rt), MPI_OP_NULL, static_cast<int>(*root), MPI_Comm_f2c(*c)                          \
  }
#define PATCOLL_FORTRAN_PARAMS_all_gather \
  void *s, MPI_Fint *sn, MPI_Fint *st, void *r, MPI_Fint *rn, MPI_Fint *rt, MPI_Fint *c, MPI_Fint *e
#define PATCOLL_FORTRAN_CALL_all_gather(coll)                                                              \
  NativeCall {                                                                                             \
    coll, c_buffer(s), c_buffer(r), static_cast<int>(*sn), static_cast<int>(*rn), MPI_Type_f2c(*st),       \
        MPI_Type_f2c(*rt), MPI_OP_NULL, 0, MPI_Comm_f2c(*c)                                                \
  }
// MPI_ALLGATHERV's count and displacement arrays are INTEGER arrays: MPI_Fint, int-sized here.
static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER arrays passed as C int arrays");
#define PATCOLL_FORTRAN_PARAMS_all_gather_v                                                                \
  void *s, MPI_Fint *sn, MPI_Fint *st, void *r, MPI_Fint *rn, MPI_Fint *rd, MPI_Fint *rt, MPI_Fint *c,     \
      MPI_Fint *e
#define PATCOLL_FORTRAN_CALL_all_gather_v(coll)                                                            \
  NativeCall {                                                                                             \
    coll, c_buffer(s), c_buffer(r), static_cast<int>(*sn), 0, MPI_Type_f2c(*st), MPI_Type_f2c(*rt),        \
        MPI_OP_NULL, 0, MPI_Comm_f2c(*c), nullptr, nullptr, reinterpret_cast<const int *>(rn),             \
        reinterpret_cast<const int *>(rd)                                                                  \
  }

// Every name Open MPI's Fortran libraries export for a collective
// (nm -D libmpi_mpifh.so: MPI_REDUCE, mpi_reduce, mpi_reduce_, mpi_reduce__;
// libmpi_usempif08.so: mpi_reduce_f08_), all with the same arguments.
#define PATCOLL_FORTRAN_ENTRY(entry, name, kind)                                                           \
  void entry(PATCOLL_FORTRAN_PARAMS_##kind) {                                                              \
    set_error(e, patcoll::preload::serve_call(PATCOLL_FORTRAN_CALL_##kind(patcoll::core::Collective::name), \
                                              __builtin_return_address(0)));                               \
  }
#define PATCOLL_COLLECTIVE(name, Name, NAME, kind)      \
  PATCOLL_FORTRAN_ENTRY(MPI_##NAME, name, kind)         \
  PATCOLL_FORTRAN_ENTRY(mpi_##name, name, kind)         \
  PATCOLL_FORTRAN_ENTRY(mpi_##name##_, name, kind)      \
  PATCOLL_FORTRAN_ENTRY(mpi_##name##__, name, kind)     \
  PATCOLL_FORTRAN_ENTRY(mpi_##name##_f08_, name, kind)

extern "C" {
#include "core/collectives.def"
}
#undef PATCOLL_COLLECTIVE

#endif  // OPEN_MPI
