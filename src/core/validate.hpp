// Validator: symbolic execution of all ranks' Programs.
//
// Each element of each buffer of each rank carries the set of ranks whose
// contributions it holds (a bitset). Executing the Programs step by step in
// an order MPI could produce proves:
//   - every send has a matching recv of the same count (FIFO per pair);
//   - the execution is deadlock-free even when every send is rendezvous
//     (a step completes only when all its peers have posted the partners);
//   - regions are in bounds, the send buffer is never written, nothing in a
//     step writes a region that the same step reads or writes elsewhere;
//   - no contribution is combined twice (combining overlapping sets fails);
//   - non-commutative ops combine adjacent rank ranges in rank order;
//   - the result holds exactly the right contributions: reduce at the root,
//     allreduce everywhere, scatter/gather the right block;
//   - optionally single-port: at most one send and one recv per step.
// The same run is repeated with MPI_IN_PLACE aliasing when the collective
// allows it.
#pragma once

#include <string>
#include <vector>

#include "algorithm.hpp"
#include "ir.hpp"

namespace patcoll::core {

struct ValidateOptions {
  bool in_place = false;     // alias send and recv as MPI_IN_PLACE does
  bool single_port = false;  // at most one send and one recv per step
  bool check_rounds = false; // steps carry strictly increasing rounds; a
                             // segment received in round r is not sent in r
};

// "" when the programs are correct, else the first problem found, naming
// the rank, step and op.
std::string validate(const Params &, const std::vector<Program> &, const ValidateOptions & = {});

// Runs validate() without and (where the collective allows it) with
// MPI_IN_PLACE; "" when both pass.
std::string validate_all_modes(const Params &, const std::vector<Program> &, ValidateOptions = {});

}  // namespace patcoll::core
