// The traits of every collective, in one table: names, buffer sizes,
// aliasing under MPI_IN_PLACE, the initial contents the validator gives
// the buffers and the result it expects. Adding a collective means one row here and its builders;
// the validator, the registry, the communicator state and the shim iterate
// over collectives() instead of switching over four names.
//
// Values are the validator's symbolic ones (validate.cpp): a logical
// element index and the set of ranks whose contributions it holds.
//                send (root / other)  recv (root / other)  in place            result
//   reduce       block / block        block / none         root: send = recv    root: i from all ranks
//   allreduce    block / block        block / block        all:  send = recv    every rank: i from all
//   scatter      whole / none         block / block        root: recv = send[root block]   rank r: r·n+i from root
//   gather       block / block        whole / none         root: send = recv[root block]   root: j from rank j/n
//   allgather    block / block        whole / whole        all:  send = recv[own block]    every rank: j from rank j/n
//   allgatherv   (allgather's, blocks of Params::counts[r]; j from the rank whose block holds j)
//   alltoall(v)  pairs / pairs        pairs / pairs        all:  send = recv    rank d, block s: pair (s, d) from s
//   reduce_scatter(_block)
//                whole / whole        block / block        all:  send = recv    rank r: block_offset(r)+i from all
//                (in place, recv holds the larger of the whole and the block; the block's result at its start)
// Initially rank r's send element i is (i, {r}) for reduce and allreduce,
// (r·n+i, {r}) for gather, allgather and allgatherv (r's block offset + i);
// the scatter root's send element j is (j, {root}); for alltoall, element
// j of the pair (s, d) is (pair_index(s, d) + j, {s}) (core/layout.hpp
// numbers every pair's elements once, s-major).
// block = the rank's block (Params::count elements, or its v-count),
// whole = every rank's block (procs·count, or the sum of the v-counts);
// pairs_out / pairs_in = what a rank sends to / receives from every rank
// of an all-to-all (core/layout.hpp).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "algorithm.hpp"
#include "ir.hpp"

namespace patcoll::core {

// Where MPI_IN_PLACE puts the aliased buffer inside the other one: at its
// start, at the root's block (scatter, gather), at the rank's own block
// (allgather).
enum class AtBlock : std::uint8_t { start, root, own };

enum class Extent : std::uint8_t { none, block, whole, pairs_out, pairs_in };

// Who a buffer, an MPI_IN_PLACE or a result belongs to.
enum class Ranks : std::uint8_t { root, every };

// Where an initial or expected element's index comes from: the element
// itself (i), the rank's block of the whole vector (rank·count + i), or the
// pair the element belongs to (all-to-all): element i of a rank's send
// buffer (pairs_out: the pair (rank, d) i falls in) or of its receive
// buffer (pairs_in: the pair (s, rank)), numbered by layout.hpp's
// pair_index.
enum class Indexing : std::uint8_t { element, rank_block, pairs_out, pairs_in };

// Whose contributions an element holds: every rank, the root, the rank
// holding the buffer, the rank whose block the element's index falls in
// (index / count), or the source of the pair the index falls in
// (layout.hpp's pair_source).
enum class Contributors : std::uint8_t { every_rank, root, holder, index_block, pair_source };

struct CollectiveTraits {
  Collective collective;
  std::string_view name;         // "reduce": CLI, environment and file names
  std::string_view mpi_name;     // "MPI_Reduce"
  bool rooted;                   // takes a root argument
  bool combines;                 // reduces with an op (else moves blocks)
  Extent send_at_root, send_elsewhere, recv_at_root, recv_elsewhere;
  // MPI_IN_PLACE: at which ranks it is allowed, and which logical buffer
  // then lives in the other one (at the root's block or the rank's own
  // block, core/layout.hpp, as `at_block` says).
  Ranks in_place_at;
  Buffer aliased, into;
  AtBlock at_block;
  // Initial contents: the buffer holding them at every rank (or the root
  // only), how their index is formed, whose contribution they are.
  Buffer initial_in;
  Ranks initial_at;
  Indexing initial_index;
  Contributors initial_owner;
  // The result: in recv at the root or at every rank; index and contributors.
  Ranks result_at;
  Indexing result_index;
  Contributors result_owner;

  // `auto`'s classic rule without a PAT vector: the candidates in order of
  // preference for small messages (under 16 KiB, or fewer elements than
  // ranks) and for large ones; the first the call's restrictions allow wins
  // (core::classic_choice). Catalogue names.
  std::span<const std::string_view> classic_small, classic_large;

  // Elements of `buffer` (send or recv) at a rank.
  std::int64_t elements(Buffer buffer, int rank, const Params &params) const;
  // The same for a uniform call (no v-counts).
  std::int64_t elements(Buffer buffer, bool is_root, std::int64_t count, int procs) const;
  // MPI_IN_PLACE applies at this rank.
  bool in_place_applies(bool is_root) const { return in_place_at == Ranks::every || is_root; }
};

std::span<const CollectiveTraits> collectives();
const CollectiveTraits &traits(Collective);
inline constexpr int kCollectiveCount = 0
#define PATCOLL_COLLECTIVE(name, Name, NAME, kind) +1
#include "collectives.def"
#undef PATCOLL_COLLECTIVE
    ;

}  // namespace patcoll::core
