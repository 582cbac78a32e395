// The (op, datatype) table of MPI-3.1 §5.9.2 / §5.9.4; see op_check.hpp.
#include "mpi/op_check.hpp"

#include <utility>
#include <vector>

#include "mpi/error.hpp"

namespace patcoll::mpi {
namespace {

// The datatype groups of §5.9.2, as bits.
enum Group : unsigned {
  c_integer = 1u << 0,
  fortran_integer = 1u << 1,
  floating_point = 1u << 2,
  logical = 1u << 3,
  complex = 1u << 4,
  byte = 1u << 5,
  multi_language = 1u << 6,
  pair = 1u << 7,  // §5.9.4: the MINLOC/MAXLOC value-index types
};

// Predefined datatypes and their group. Optional types (MPI-3.1 "if
// available") are listed only where the library defines them, and a
// handle that the library sets to MPI_DATATYPE_NULL is skipped.
const std::vector<std::pair<MPI_Datatype, unsigned>> &predefined_types() {
  static const std::vector<std::pair<MPI_Datatype, unsigned>> table = [] {
    std::vector<std::pair<MPI_Datatype, unsigned>> t = {
        {MPI_INT, c_integer}, {MPI_LONG, c_integer}, {MPI_SHORT, c_integer}, {MPI_UNSIGNED_SHORT, c_integer},
        {MPI_UNSIGNED, c_integer}, {MPI_UNSIGNED_LONG, c_integer}, {MPI_LONG_LONG_INT, c_integer},
        {MPI_LONG_LONG, c_integer}, {MPI_UNSIGNED_LONG_LONG, c_integer}, {MPI_SIGNED_CHAR, c_integer},
        {MPI_UNSIGNED_CHAR, c_integer}, {MPI_INT8_T, c_integer}, {MPI_INT16_T, c_integer}, {MPI_INT32_T, c_integer},
        {MPI_INT64_T, c_integer}, {MPI_UINT8_T, c_integer}, {MPI_UINT16_T, c_integer}, {MPI_UINT32_T, c_integer},
        {MPI_UINT64_T, c_integer},
        {MPI_INTEGER, fortran_integer},
#ifdef MPI_INTEGER1
        {MPI_INTEGER1, fortran_integer},
#endif
#ifdef MPI_INTEGER2
        {MPI_INTEGER2, fortran_integer},
#endif
#ifdef MPI_INTEGER4
        {MPI_INTEGER4, fortran_integer},
#endif
#ifdef MPI_INTEGER8
        {MPI_INTEGER8, fortran_integer},
#endif
#ifdef MPI_INTEGER16
        {MPI_INTEGER16, fortran_integer},
#endif
        {MPI_FLOAT, floating_point}, {MPI_DOUBLE, floating_point}, {MPI_REAL, floating_point},
        {MPI_DOUBLE_PRECISION, floating_point}, {MPI_LONG_DOUBLE, floating_point},
#ifdef MPI_REAL2
        {MPI_REAL2, floating_point},
#endif
#ifdef MPI_REAL4
        {MPI_REAL4, floating_point},
#endif
#ifdef MPI_REAL8
        {MPI_REAL8, floating_point},
#endif
#ifdef MPI_REAL16
        {MPI_REAL16, floating_point},
#endif
        {MPI_LOGICAL, logical}, {MPI_C_BOOL, logical},
#ifdef MPI_CXX_BOOL
        {MPI_CXX_BOOL, logical},
#endif
        {MPI_COMPLEX, complex}, {MPI_C_COMPLEX, complex}, {MPI_C_FLOAT_COMPLEX, complex},
        {MPI_C_DOUBLE_COMPLEX, complex}, {MPI_C_LONG_DOUBLE_COMPLEX, complex}, {MPI_DOUBLE_COMPLEX, complex},
#if defined(MPI_CXX_FLOAT_COMPLEX) && !defined(SMPI_H)  // SMPI names them but defines no object
        {MPI_CXX_FLOAT_COMPLEX, complex}, {MPI_CXX_DOUBLE_COMPLEX, complex},
        {MPI_CXX_LONG_DOUBLE_COMPLEX, complex},
#endif
#ifdef MPI_COMPLEX4
        {MPI_COMPLEX4, complex},
#endif
#ifdef MPI_COMPLEX8
        {MPI_COMPLEX8, complex},
#endif
#ifdef MPI_COMPLEX16
        {MPI_COMPLEX16, complex},
#endif
#ifdef MPI_COMPLEX32
        {MPI_COMPLEX32, complex},
#endif
        {MPI_BYTE, byte},
        {MPI_AINT, multi_language}, {MPI_OFFSET, multi_language}, {MPI_COUNT, multi_language},
        {MPI_FLOAT_INT, pair}, {MPI_DOUBLE_INT, pair}, {MPI_LONG_INT, pair}, {MPI_2INT, pair},
        {MPI_SHORT_INT, pair}, {MPI_LONG_DOUBLE_INT, pair}, {MPI_2REAL, pair}, {MPI_2DOUBLE_PRECISION, pair},
        {MPI_2INTEGER, pair},
    };
    std::vector<std::pair<MPI_Datatype, unsigned>> available;
    for (const auto &entry : t)
      if (entry.first != MPI_DATATYPE_NULL) available.push_back(entry);
    return available;
  }();
  return table;
}

struct PredefinedOp {
  MPI_Op op;
  const char *name;
  unsigned groups;  // the groups it accepts; 0: not a reduction op at all
};

const std::vector<PredefinedOp> &predefined_ops() {
  static const std::vector<PredefinedOp> table = {
      {MPI_MAX, "MPI_MAX", c_integer | fortran_integer | floating_point | multi_language},
      {MPI_MIN, "MPI_MIN", c_integer | fortran_integer | floating_point | multi_language},
      {MPI_SUM, "MPI_SUM", c_integer | fortran_integer | floating_point | complex | multi_language},
      {MPI_PROD, "MPI_PROD", c_integer | fortran_integer | floating_point | complex | multi_language},
      {MPI_LAND, "MPI_LAND", c_integer | logical},
      {MPI_LOR, "MPI_LOR", c_integer | logical},
      {MPI_LXOR, "MPI_LXOR", c_integer | logical},
      {MPI_BAND, "MPI_BAND", c_integer | fortran_integer | byte | multi_language},
      {MPI_BOR, "MPI_BOR", c_integer | fortran_integer | byte | multi_language},
      {MPI_BXOR, "MPI_BXOR", c_integer | fortran_integer | byte | multi_language},
      {MPI_MAXLOC, "MPI_MAXLOC", pair},
      {MPI_MINLOC, "MPI_MINLOC", pair},
      {MPI_REPLACE, "MPI_REPLACE", 0},  // one-sided accumulate only
      {MPI_NO_OP, "MPI_NO_OP", 0},
  };
  return table;
}

// The group of a predefined (or Fortran 90 parameterised) datatype; 0 for
// a derived or unknown one.
unsigned group_of(MPI_Datatype datatype) {
  for (const auto &[type, group] : predefined_types())
    if (type == datatype) return group;
  int integers = 0, addresses = 0, types = 0, combiner = MPI_COMBINER_NAMED;
  if (MPI_Type_get_envelope(datatype, &integers, &addresses, &types, &combiner) != MPI_SUCCESS) return 0;
  if (combiner == MPI_COMBINER_F90_INTEGER) return fortran_integer;
  if (combiner == MPI_COMBINER_F90_REAL) return floating_point;
  if (combiner == MPI_COMBINER_F90_COMPLEX) return complex;
  return 0;
}

std::string type_name(MPI_Datatype datatype) {
  char name[MPI_MAX_OBJECT_NAME] = {0};
  int length = 0;
  if (MPI_Type_get_name(datatype, name, &length) != MPI_SUCCESS || length == 0) return "a derived datatype";
  return std::string(name, static_cast<std::size_t>(length));
}

}  // namespace

int check_op_datatype(MPI_Op op, MPI_Datatype datatype) {
  for (const PredefinedOp &entry : predefined_ops()) {
    if (entry.op != op) continue;
    if (entry.groups == 0)
      return fail(MPI_ERR_OP, std::string(entry.name) + " is not a reduction operation (one-sided accumulate only)");
    if (group_of(datatype) & entry.groups) return MPI_SUCCESS;
    return fail(MPI_ERR_OP, std::string(entry.name) + " is not defined for " + type_name(datatype) +
                                " (MPI-3.1 §5.9.2; predefined ops take only the predefined datatypes of their groups)");
  }
  return MPI_SUCCESS;  // a user-defined op
}

}  // namespace patcoll::mpi
