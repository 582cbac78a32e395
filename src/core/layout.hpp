// Where each rank's block lives in a collective's logical buffers, for the
// uniform forms (every block `count` elements) and the v-forms
// (Params::counts): the one place builders, the validator, the simulator's
// sizes and the MPI layer's staging compute block sizes and offsets.
//
// Per-rank layouts (allgather(v), reduce_scatter(_block), gather, scatter):
// block r has block_count(p, r) elements at block_offset(p, r) of the
// packed whole (blocks in rank order, back to back); total(p) is the
// whole's size.
// Per-pair layouts (alltoall(v)): rank s sends pair_count(p, s, d) elements
// to rank d; s's send buffer holds its pairs in d order
// (send_offset(p, s, d)), d's receive buffer holds them in s order
// (recv_offset(p, s, d)).
#pragma once

#include <cstdint>
#include <vector>

#include "algorithm.hpp"

namespace patcoll::core {

// Per rank.
std::int64_t block_count(const Params &, int rank);
std::int64_t block_offset(const Params &, int rank);
std::int64_t total(const Params &);
// The rank whose block holds element `index` of the packed whole (blocks of
// zero elements hold none); -1 outside it.
int block_owner(const Params &, std::int64_t index);

// Per pair (alltoall: every pair `count`; alltoallv: counts[s * procs + d]).
std::int64_t pair_count(const Params &, int source, int dest);
std::int64_t send_offset(const Params &, int source, int dest);  // in source's send buffer
std::int64_t recv_offset(const Params &, int source, int dest);  // in dest's receive buffer
std::int64_t send_total(const Params &, int source);
std::int64_t recv_total(const Params &, int dest);
// Every pair's elements numbered once, source-major: pair (s, d) holds
// [pair_index(s, d), pair_index(s, d) + pair_count(s, d)); pair_source is
// the s whose pairs hold `index` (-1 outside them). The validator's values.
std::int64_t pair_index(const Params &, int source, int dest);
int pair_source(const Params &, std::int64_t index);
// The rank d of source's send buffer whose pair holds element `offset`
// (-1 outside it), and the rank s of dest's receive buffer likewise.
int send_pair_at(const Params &, int source, std::int64_t offset);
int recv_pair_at(const Params &, int dest, std::int64_t offset);

// Offsets of a list of block sizes: prefix sums, one more entry than sizes.
std::vector<std::int64_t> prefix_offsets(const std::vector<std::int64_t> &sizes);

}  // namespace patcoll::core
