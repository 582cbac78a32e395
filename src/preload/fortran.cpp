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
// sentinels themselves, so the C entry points already serve them; only
// its `use mpi_f08` completion calls (mpi_wait_f08_ & co.) call PMPI_*
// directly and are defined here (tests/preload/run_tests.sh fortran checks
// both MPI libraries).
//
// The PMPI_ Fortran names (pmpi_reduce_, ...) are deliberately not
// replaced: PMPI means "the MPI library's own", for C and Fortran alike.
#include <mpi.h>

#include <vector>

#include "shim.hpp"

#ifdef OPEN_MPI

extern "C" {
// Open MPI's Fortran sentinels (one definition per process: common blocks).
extern int mpi_fortran_in_place_;
extern int mpi_fortran_bottom_;
extern int mpi_fortran_status_ignore_;
extern int mpi_fortran_statuses_ignore_;
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
// by reference, handles as MPI_Fint; the entry points add the request of
// MPI_I<coll> and the optional ierror) and the NativeCall they make.
#define PATCOLL_FORTRAN_PARAMS_rooted_reduction \
  void *s, void *r, MPI_Fint *n, MPI_Fint *t, MPI_Fint *o, MPI_Fint *root, MPI_Fint *c
#define PATCOLL_FORTRAN_CALL_rooted_reduction(coll)                                                        \
  NativeCall {                                                                                             \
    coll, c_buffer(s), c_buffer(r), static_cast<int>(*n), 0, MPI_Type_f2c(*t), MPI_DATATYPE_NULL,          \
        MPI_Op_f2c(*o), static_cast<int>(*root), MPI_Comm_f2c(*c)                                          \
  }
#define PATCOLL_FORTRAN_PARAMS_reduction \
  void *s, void *r, MPI_Fint *n, MPI_Fint *t, MPI_Fint *o, MPI_Fint *c
#define PATCOLL_FORTRAN_CALL_reduction(coll)                                                               \
  NativeCall {                                                                                             \
    coll, c_buffer(s), c_buffer(r), static_cast<int>(*n), 0, MPI_Type_f2c(*t), MPI_DATATYPE_NULL,          \
        MPI_Op_f2c(*o), 0, MPI_Comm_f2c(*c)                                                                \
  }
#define PATCOLL_FORTRAN_PARAMS_rooted_movement                                                             \
  void *s, MPI_Fint *sn, MPI_Fint *st, void *r, MPI_Fint *rn, MPI_Fint *rt, MPI_Fint *root, MPI_Fint *c
#define PATCOLL_FORTRAN_CALL_rooted_movement(coll)                                                         \
  NativeCall {                                                                                             \
    coll, c_buffer(s), c_buffer(r), static_cast<int>(*sn), static_cast<int>(*rn), MPI_Type_f2c(*st),       \
        MPI_Type_f2c(*rt), MPI_OP_NULL, static_cast<int>(*root), MPI_Comm_f2c(*c)                          \
  }
#define PATCOLL_FORTRAN_PARAMS_broadcast void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *root, MPI_Fint *c
#define PATCOLL_FORTRAN_CALL_broadcast(coll)                                                               \
  NativeCall {                                                                                             \
    coll, c_buffer(b), c_buffer(b), static_cast<int>(*n), static_cast<int>(*n), MPI_Type_f2c(*t),          \
        MPI_Type_f2c(*t), MPI_OP_NULL, static_cast<int>(*root), MPI_Comm_f2c(*c)                           \
  }
#define PATCOLL_FORTRAN_PARAMS_all_to_all \
  void *s, MPI_Fint *sn, MPI_Fint *st, void *r, MPI_Fint *rn, MPI_Fint *rt, MPI_Fint *c
// MPI_Allgather's arguments are MPI_Alltoall's.
#define PATCOLL_FORTRAN_PARAMS_all_gather PATCOLL_FORTRAN_PARAMS_all_to_all
#define PATCOLL_FORTRAN_CALL_all_gather PATCOLL_FORTRAN_CALL_all_to_all
#define PATCOLL_FORTRAN_CALL_all_to_all(coll)                                                              \
  NativeCall {                                                                                             \
    coll, c_buffer(s), c_buffer(r), static_cast<int>(*sn), static_cast<int>(*rn), MPI_Type_f2c(*st),       \
        MPI_Type_f2c(*rt), MPI_OP_NULL, 0, MPI_Comm_f2c(*c)                                                \
  }
// MPI_Fint arrays are the C arrays where MPI_Fint is int (Open MPI's).
static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER arrays passed as int arrays");
#define PATCOLL_FORTRAN_PARAMS_all_to_all_v                                                                \
  void *s, MPI_Fint *scounts, MPI_Fint *sdispls, MPI_Fint *st, void *r, MPI_Fint *rcounts, MPI_Fint *rdispls, \
      MPI_Fint *rt, MPI_Fint *c
#define PATCOLL_FORTRAN_CALL_all_to_all_v(coll)                                                            \
  NativeCall {                                                                                             \
    coll, c_buffer(s), c_buffer(r), 0, 0, MPI_Type_f2c(*st), MPI_Type_f2c(*rt), MPI_OP_NULL, 0,            \
        MPI_Comm_f2c(*c), reinterpret_cast<const int *>(scounts), reinterpret_cast<const int *>(sdispls),  \
        reinterpret_cast<const int *>(rcounts), reinterpret_cast<const int *>(rdispls)                     \
  }
#define PATCOLL_FORTRAN_PARAMS_all_gather_v                                                                \
  void *s, MPI_Fint *sn, MPI_Fint *st, void *r, MPI_Fint *rn, MPI_Fint *rd, MPI_Fint *rt, MPI_Fint *c
#define PATCOLL_FORTRAN_CALL_all_gather_v(coll)                                                            \
  NativeCall {                                                                                             \
    coll, c_buffer(s), c_buffer(r), static_cast<int>(*sn), 0, MPI_Type_f2c(*st), MPI_Type_f2c(*rt),        \
        MPI_OP_NULL, 0, MPI_Comm_f2c(*c), nullptr, nullptr, reinterpret_cast<const int *>(rn),             \
        reinterpret_cast<const int *>(rd)                                                                  \
  }
#define PATCOLL_FORTRAN_PARAMS_scatter_reduction \
  void *s, void *r, MPI_Fint *n, MPI_Fint *t, MPI_Fint *o, MPI_Fint *c
#define PATCOLL_FORTRAN_CALL_scatter_reduction(coll)                                                       \
  NativeCall {                                                                                             \
    coll, c_buffer(s), c_buffer(r), 0, static_cast<int>(*n), MPI_Type_f2c(*t), MPI_DATATYPE_NULL,          \
        MPI_Op_f2c(*o), 0, MPI_Comm_f2c(*c)                                                                \
  }
#define PATCOLL_FORTRAN_PARAMS_scatter_reduction_v \
  void *s, void *r, MPI_Fint *rn, MPI_Fint *t, MPI_Fint *o, MPI_Fint *c
#define PATCOLL_FORTRAN_CALL_scatter_reduction_v(coll)                                                     \
  NativeCall {                                                                                             \
    coll, c_buffer(s), c_buffer(r), 0, 0, MPI_Type_f2c(*t), MPI_DATATYPE_NULL, MPI_Op_f2c(*o), 0,          \
        MPI_Comm_f2c(*c), nullptr, nullptr, reinterpret_cast<const int *>(rn), nullptr                     \
  }

// Every name Open MPI's Fortran libraries export for a collective
// (nm -D libmpi_mpifh.so: MPI_REDUCE, mpi_reduce, mpi_reduce_, mpi_reduce__;
// libmpi_usempif08.so: mpi_reduce_f08_), all with the same arguments, and
// the same for MPI_I<coll> (its request before ierror).
#define PATCOLL_FORTRAN_ENTRY(entry, name, kind)                                                           \
  void entry(PATCOLL_FORTRAN_PARAMS_##kind, MPI_Fint *e) {                                                 \
    set_error(e, patcoll::preload::serve_call(PATCOLL_FORTRAN_CALL_##kind(patcoll::core::Collective::name), \
                                              __builtin_return_address(0)));                               \
  }
#define PATCOLL_FORTRAN_START(entry, name, kind)                                                           \
  void entry(PATCOLL_FORTRAN_PARAMS_##kind, MPI_Fint *q, MPI_Fint *e) {                                    \
    MPI_Request request = MPI_REQUEST_NULL;                                                                \
    const int rc = patcoll::preload::serve_start(PATCOLL_FORTRAN_CALL_##kind(patcoll::core::Collective::name), \
                                                 false, MPI_INFO_NULL, &request);                          \
    if (rc == MPI_SUCCESS) *q = MPI_Request_c2f(request);                                                  \
    set_error(e, rc);                                                                                      \
  }
#define PATCOLL_FORTRAN_NAMES(define, lower, UPPER, ...) \
  define(UPPER, __VA_ARGS__)                             \
  define(lower, __VA_ARGS__)                             \
  define(lower##_, __VA_ARGS__)                          \
  define(lower##__, __VA_ARGS__)                         \
  define(lower##_f08_, __VA_ARGS__)
#define PATCOLL_COLLECTIVE(name, Name, NAME, kind)                               \
  PATCOLL_FORTRAN_NAMES(PATCOLL_FORTRAN_ENTRY, mpi_##name, MPI_##NAME, name, kind) \
  PATCOLL_FORTRAN_NAMES(PATCOLL_FORTRAN_START, mpi_i##name, MPI_I##NAME, name, kind)

extern "C" {
#include "core/collectives.def"
}
#undef PATCOLL_COLLECTIVE

namespace {

bool status_ignored(const MPI_Fint *status) {
  return status == nullptr || status == static_cast<const void *>(&mpi_fortran_status_ignore_);
}
bool statuses_ignored(const MPI_Fint *statuses) {
  return statuses == nullptr || statuses == static_cast<const void *>(&mpi_fortran_statuses_ignore_);
}

}  // namespace

#endif  // OPEN_MPI

#if defined(MPICH_VERSION)
// MPICH's `use mpi_f08` completion calls (mpi_wait_f08_ & co.) call
// PMPI_Wait directly (its mpif.h and `use mpi` ones call MPI_Wait, which
// the shim serves); its f08 MPI_Status is the C one, and its status
// sentinels live in libmpichfort, looked up when a Fortran program calls.
#include <dlfcn.h>

namespace {

void set_error(MPI_Fint *ierror, int rc) {
  if (ierror) *ierror = static_cast<MPI_Fint>(rc);
}
bool status_ignored(const MPI_Fint *status) {
  static const void *ignore = dlsym(RTLD_DEFAULT, "MPIR_F08_MPI_STATUS_IGNORE_OBJ");
  return status == nullptr || status == ignore;
}
bool statuses_ignored(const MPI_Fint *statuses) {
  static const void *ignore = dlsym(RTLD_DEFAULT, "MPIR_F08_MPI_STATUSES_IGNORE_OBJ");
  return statuses == nullptr || statuses == ignore;
}

}  // namespace
#endif  // MPICH_VERSION

#if defined(OPEN_MPI) || defined(MPICH_VERSION)
// The completion calls (requests.cpp serves the C ones): a Fortran
// program's MPI_WAIT & co. never reach the C MPI_Wait under Open MPI (nor
// MPICH's `use mpi_f08` ones), and a proxy request must not reach the MPI
// library before patcoll's run is complete. Each converts the handles and
// Fortran's status sentinels and calls the shim's C function, as the MPI
// library's own Fortran functions call PMPI_*: requests that are not
// proxies get the MPI library's answer.
namespace {

constexpr int kStatusInts = static_cast<int>(sizeof(MPI_Status) / sizeof(MPI_Fint));
void status_out(const MPI_Status &c, MPI_Fint *status) {
  if (!status_ignored(status)) MPI_Status_c2f(&c, status);
}

// Requests in and out, with statuses (nullptr: ignored).
struct Requests {
  std::vector<MPI_Request> c;
  std::vector<MPI_Status> statuses;
  Requests(int count, const MPI_Fint *fortran, bool with_statuses)
      : c(static_cast<std::size_t>(count > 0 ? count : 0)),
        statuses(with_statuses ? static_cast<std::size_t>(count > 0 ? count : 0) : 0) {
    for (std::size_t i = 0; i < c.size(); ++i) c[i] = MPI_Request_f2c(fortran[i]);
  }
  MPI_Status *status_array() { return statuses.empty() ? MPI_STATUSES_IGNORE : statuses.data(); }
  void back(MPI_Fint *fortran) const {
    for (std::size_t i = 0; i < c.size(); ++i) fortran[i] = MPI_Request_c2f(c[i]);
  }
  void statuses_back(MPI_Fint *fortran, int n) const {
    if (statuses.empty()) return;
    for (int i = 0; i < n; ++i) MPI_Status_c2f(&statuses[static_cast<std::size_t>(i)], fortran + i * kStatusInts);
  }
};

MPI_Fint logical(int flag) { return flag ? 1 : 0; }

}  // namespace

#define PATCOLL_F_WAIT(entry)                                                         \
  void entry(MPI_Fint *request, MPI_Fint *status, MPI_Fint *e) {                      \
    MPI_Request c = MPI_Request_f2c(*request);                                         \
    MPI_Status s;                                                                     \
    const int rc = MPI_Wait(&c, status_ignored(status) ? MPI_STATUS_IGNORE : &s);     \
    if (rc == MPI_SUCCESS) *request = MPI_Request_c2f(c), status_out(s, status);      \
    set_error(e, rc);                                                                 \
  }
#define PATCOLL_F_TEST(entry)                                                               \
  void entry(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *e) {            \
    MPI_Request c = MPI_Request_f2c(*request);                                              \
    MPI_Status s;                                                                           \
    int f = 0;                                                                              \
    const int rc = MPI_Test(&c, &f, status_ignored(status) ? MPI_STATUS_IGNORE : &s);       \
    if (rc == MPI_SUCCESS) {                                                                \
      *flag = logical(f);                                                                   \
      if (f) *request = MPI_Request_c2f(c), status_out(s, status);                          \
    }                                                                                       \
    set_error(e, rc);                                                                       \
  }
#define PATCOLL_F_GET_STATUS(entry)                                                         \
  void entry(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *e) {            \
    MPI_Status s;                                                                           \
    int f = 0;                                                                              \
    const int rc = MPI_Request_get_status(MPI_Request_f2c(*request), &f,                    \
                                          status_ignored(status) ? MPI_STATUS_IGNORE : &s); \
    if (rc == MPI_SUCCESS) {                                                                \
      *flag = logical(f);                                                                   \
      if (f) status_out(s, status);                                                         \
    }                                                                                       \
    set_error(e, rc);                                                                       \
  }
#define PATCOLL_F_WAITALL(entry)                                                          \
  void entry(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *statuses, MPI_Fint *e) {      \
    Requests r(*count, requests, !statuses_ignored(statuses));                            \
    const int rc = MPI_Waitall(*count, r.c.data(), r.status_array());                     \
    if (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) r.back(requests), r.statuses_back(statuses, *count); \
    set_error(e, rc);                                                                     \
  }
#define PATCOLL_F_TESTALL(entry)                                                                     \
  void entry(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag, MPI_Fint *statuses, MPI_Fint *e) { \
    Requests r(*count, requests, !statuses_ignored(statuses));                                       \
    int f = 0;                                                                                       \
    const int rc = MPI_Testall(*count, r.c.data(), &f, r.status_array());                            \
    if (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) {                                              \
      *flag = logical(f);                                                                            \
      if (f) r.back(requests), r.statuses_back(statuses, *count);                                    \
    }                                                                                                \
    set_error(e, rc);                                                                                \
  }
#define PATCOLL_F_WAITANY(entry)                                                                    \
  void entry(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *status, MPI_Fint *e) { \
    Requests r(*count, requests, false);                                                            \
    MPI_Status s;                                                                                   \
    int i = MPI_UNDEFINED;                                                                          \
    const int rc = MPI_Waitany(*count, r.c.data(), &i, status_ignored(status) ? MPI_STATUS_IGNORE : &s); \
    if (rc == MPI_SUCCESS) {                                                                        \
      r.back(requests);                                                                             \
      *index = i == MPI_UNDEFINED ? MPI_UNDEFINED : i + 1;                                          \
      if (i != MPI_UNDEFINED) status_out(s, status);                                                \
    }                                                                                               \
    set_error(e, rc);                                                                               \
  }
#define PATCOLL_F_TESTANY(entry)                                                                   \
  void entry(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag, MPI_Fint *status, \
             MPI_Fint *e) {                                                                        \
    Requests r(*count, requests, false);                                                           \
    MPI_Status s;                                                                                  \
    int i = MPI_UNDEFINED, f = 0;                                                                  \
    const int rc = MPI_Testany(*count, r.c.data(), &i, &f, status_ignored(status) ? MPI_STATUS_IGNORE : &s); \
    if (rc == MPI_SUCCESS) {                                                                       \
      r.back(requests);                                                                            \
      *flag = logical(f);                                                                          \
      *index = i == MPI_UNDEFINED ? MPI_UNDEFINED : i + 1;                                         \
      if (f && i != MPI_UNDEFINED) status_out(s, status);                                          \
    }                                                                                              \
    set_error(e, rc);                                                                              \
  }
#define PATCOLL_F_SOME(entry, call)                                                                \
  void entry(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices,         \
             MPI_Fint *statuses, MPI_Fint *e) {                                                    \
    Requests r(*incount, requests, !statuses_ignored(statuses));                                   \
    std::vector<int> c_indices(static_cast<std::size_t>(*incount > 0 ? *incount : 0));             \
    int n = 0;                                                                                     \
    const int rc = call(*incount, r.c.data(), &n, c_indices.data(), r.status_array());             \
    if (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) {                                            \
      r.back(requests);                                                                            \
      *outcount = n;                                                                               \
      for (int k = 0; n != MPI_UNDEFINED && k < n; ++k) indices[k] = c_indices[static_cast<std::size_t>(k)] + 1; \
      if (n != MPI_UNDEFINED) r.statuses_back(statuses, n);                                        \
    }                                                                                              \
    set_error(e, rc);                                                                              \
  }
#define PATCOLL_F_WAITSOME(entry) PATCOLL_F_SOME(entry, MPI_Waitsome)
#define PATCOLL_F_TESTSOME(entry) PATCOLL_F_SOME(entry, MPI_Testsome)
#define PATCOLL_F_ONE(entry, call)                           \
  void entry(MPI_Fint *request, MPI_Fint *e) {               \
    MPI_Request c = MPI_Request_f2c(*request);               \
    const int rc = call(&c);                                 \
    if (rc == MPI_SUCCESS) *request = MPI_Request_c2f(c);    \
    set_error(e, rc);                                        \
  }
#define PATCOLL_F_START(entry) PATCOLL_F_ONE(entry, MPI_Start)
#define PATCOLL_F_FREE(entry) PATCOLL_F_ONE(entry, MPI_Request_free)
#define PATCOLL_F_CANCEL(entry) PATCOLL_F_ONE(entry, MPI_Cancel)
#define PATCOLL_F_STARTALL(entry)                                         \
  void entry(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *e) {          \
    Requests r(*count, requests, false);                                  \
    const int rc = MPI_Startall(*count, r.c.data());                      \
    if (rc == MPI_SUCCESS) r.back(requests);                              \
    set_error(e, rc);                                                     \
  }
#ifdef OPEN_MPI
#define PATCOLL_F_ALL(define, lower, UPPER) \
  define(UPPER) define(lower) define(lower##_) define(lower##__) define(lower##_f08_)
#else
#define PATCOLL_F_ALL(define, lower, UPPER) define(lower##_f08_)
#endif

extern "C" {
PATCOLL_F_ALL(PATCOLL_F_WAIT, mpi_wait, MPI_WAIT)
PATCOLL_F_ALL(PATCOLL_F_TEST, mpi_test, MPI_TEST)
PATCOLL_F_ALL(PATCOLL_F_GET_STATUS, mpi_request_get_status, MPI_REQUEST_GET_STATUS)
PATCOLL_F_ALL(PATCOLL_F_WAITALL, mpi_waitall, MPI_WAITALL)
PATCOLL_F_ALL(PATCOLL_F_TESTALL, mpi_testall, MPI_TESTALL)
PATCOLL_F_ALL(PATCOLL_F_WAITANY, mpi_waitany, MPI_WAITANY)
PATCOLL_F_ALL(PATCOLL_F_TESTANY, mpi_testany, MPI_TESTANY)
PATCOLL_F_ALL(PATCOLL_F_WAITSOME, mpi_waitsome, MPI_WAITSOME)
PATCOLL_F_ALL(PATCOLL_F_TESTSOME, mpi_testsome, MPI_TESTSOME)
PATCOLL_F_ALL(PATCOLL_F_START, mpi_start, MPI_START)
PATCOLL_F_ALL(PATCOLL_F_STARTALL, mpi_startall, MPI_STARTALL)
PATCOLL_F_ALL(PATCOLL_F_FREE, mpi_request_free, MPI_REQUEST_FREE)
PATCOLL_F_ALL(PATCOLL_F_CANCEL, mpi_cancel, MPI_CANCEL)
}

#endif  // OPEN_MPI || MPICH_VERSION
