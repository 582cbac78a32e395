#include "traits.hpp"

#include "layout.hpp"

#include <iterator>

namespace patcoll::core {
namespace {

using E = Extent;
using R = Ranks;
using I = Indexing;
using O = Contributors;
using B = Buffer;
using A = AtBlock;

// auto's classic candidates (small messages, large ones).
constexpr std::string_view kReduceSmall[] = {"binomial", "linear"};
constexpr std::string_view kReduceLarge[] = {"rabenseifner", "binary", "binomial", "linear"};
constexpr std::string_view kAllreduceSmall[] = {"recursive_doubling", "rabenseifner", "ring"};
constexpr std::string_view kAllreduceLarge[] = {"rabenseifner", "ring", "recursive_doubling"};
constexpr std::string_view kMovementSmall[] = {"binomial", "linear"};
constexpr std::string_view kMovementLarge[] = {"linear", "binomial"};
constexpr std::string_view kAllgatherSmall[] = {"recursive_doubling", "bruck", "ring"};
constexpr std::string_view kAllgatherLarge[] = {"ring", "neighbor_exchange", "bruck"};
constexpr std::string_view kBcastSmall[] = {"binomial", "linear"};
constexpr std::string_view kBcastLarge[] = {"scatter_allgather", "chain", "binomial", "linear"};
constexpr std::string_view kAlltoallSmall[] = {"bruck", "linear", "pairwise"};
constexpr std::string_view kAlltoallLarge[] = {"pairwise", "linear"};
// alltoallv: no bruck; the MPI layer's Params::count is 0 (the sizes are
// per pair and not the same on every rank), so the small list applies.
constexpr std::string_view kAlltoallvSmall[] = {"pairwise", "linear"};
constexpr std::string_view kAlltoallvLarge[] = {"pairwise", "linear"};
constexpr std::string_view kReduceScatterSmall[] = {"recursive_halving", "pairwise", "ring"};
constexpr std::string_view kReduceScatterLarge[] = {"ring", "pairwise", "recursive_halving"};

// In Collective's order (traits() indexes by it).
constexpr CollectiveTraits kTraits[] = {
    {Collective::reduce, "reduce", "MPI_Reduce", true, true, E::block, E::block, E::block, E::none,
     R::root, B::send, B::recv, A::start,
     B::send, R::every, I::element, O::holder,
     R::root, I::element, O::every_rank, kReduceSmall, kReduceLarge},
    {Collective::allreduce, "allreduce", "MPI_Allreduce", false, true, E::block, E::block, E::block, E::block,
     R::every, B::send, B::recv, A::start,
     B::send, R::every, I::element, O::holder,
     R::every, I::element, O::every_rank, kAllreduceSmall, kAllreduceLarge},
    {Collective::scatter, "scatter", "MPI_Scatter", true, false, E::whole, E::none, E::block, E::block,
     R::root, B::recv, B::send, A::root,
     B::send, R::root, I::element, O::root,
     R::every, I::rank_block, O::root, kMovementSmall, kMovementLarge},
    {Collective::gather, "gather", "MPI_Gather", true, false, E::block, E::block, E::whole, E::none,
     R::root, B::send, B::recv, A::root,
     B::send, R::every, I::rank_block, O::holder,
     R::root, I::element, O::index_block, kMovementSmall, kMovementLarge},
    {Collective::allgather, "allgather", "MPI_Allgather", false, false, E::block, E::block, E::whole, E::whole,
     R::every, B::send, B::recv, A::own,
     B::send, R::every, I::rank_block, O::holder,
     R::every, I::element, O::index_block, kAllgatherSmall, kAllgatherLarge},
    {Collective::allgatherv, "allgatherv", "MPI_Allgatherv", false, false, E::block, E::block, E::whole, E::whole,
     R::every, B::send, B::recv, A::own,
     B::send, R::every, I::rank_block, O::holder,
     R::every, I::element, O::index_block, kAllgatherSmall, kAllgatherLarge},
    // bcast has one buffer: the root's holds the data, every other rank's
    // receives it. MPI_Bcast has no MPI_IN_PLACE; the row names the send
    // buffer (never used) as the aliased one so that the validator's
    // in-place mode changes nothing.
    {Collective::bcast, "bcast", "MPI_Bcast", true, false, E::none, E::none, E::block, E::block,
     R::root, B::send, B::recv, A::start,
     B::recv, R::root, I::element, O::root,
     R::every, I::element, O::root, kBcastSmall, kBcastLarge},
    {Collective::alltoall, "alltoall", "MPI_Alltoall", false, false, E::pairs_out, E::pairs_out, E::pairs_in, E::pairs_in,
     R::every, B::send, B::recv, A::start,
     B::send, R::every, I::pairs_out, O::holder,
     R::every, I::pairs_in, O::pair_source, kAlltoallSmall, kAlltoallLarge},
    {Collective::alltoallv, "alltoallv", "MPI_Alltoallv", false, false, E::pairs_out, E::pairs_out, E::pairs_in, E::pairs_in,
     R::every, B::send, B::recv, A::start,
     B::send, R::every, I::pairs_out, O::holder,
     R::every, I::pairs_in, O::pair_source, kAlltoallvSmall, kAlltoallvLarge},
    // reduce_scatter(_block): every rank's whole vector in, its reduced
    // block out. MPI_IN_PLACE: the whole vector is in recvbuf, the block's
    // result at its start (recvbuf holds the larger of the two).
    {Collective::reduce_scatter_block, "reduce_scatter_block", "MPI_Reduce_scatter_block", false, true, E::whole, E::whole, E::block, E::block,
     R::every, B::send, B::recv, A::start,
     B::send, R::every, I::element, O::holder,
     R::every, I::rank_block, O::every_rank, kReduceScatterSmall, kReduceScatterLarge},
    {Collective::reduce_scatter, "reduce_scatter", "MPI_Reduce_scatter", false, true, E::whole, E::whole, E::block, E::block,
     R::every, B::send, B::recv, A::start,
     B::send, R::every, I::element, O::holder,
     R::every, I::rank_block, O::every_rank, kReduceScatterSmall, kReduceScatterLarge},
};
static_assert(std::size(kTraits) == kCollectiveCount, "one row per collective");

// The list the surface above core is generated from (collectives.def): the
// same collectives in the same order.
constexpr Collective kListed[] = {
#define PATCOLL_COLLECTIVE(name, Name, NAME, kind) Collective::name,
#include "collectives.def"
#undef PATCOLL_COLLECTIVE
};
static_assert(std::size(kListed) == kCollectiveCount, "collectives.def lists every collective");
constexpr bool listed_in_order() {
  for (int i = 0; i < kCollectiveCount; ++i)
    if (kListed[i] != kTraits[i].collective || static_cast<int>(kListed[i]) != i) return false;
  return true;
}
static_assert(listed_in_order(), "collectives.def is in core::Collective's order, as the traits rows");

}  // namespace

std::int64_t CollectiveTraits::elements(Buffer buffer, int rank, const Params &params) const {
  const bool is_root = rank == params.root;
  Extent extent = Extent::none;
  if (buffer == Buffer::send) extent = is_root ? send_at_root : send_elsewhere;
  if (buffer == Buffer::recv) extent = is_root ? recv_at_root : recv_elsewhere;
  switch (extent) {
    case Extent::none: return 0;
    case Extent::block: return block_count(params, rank);
    case Extent::whole: return total(params);
    case Extent::pairs_out: return send_total(params, rank);
    case Extent::pairs_in: return recv_total(params, rank);
  }
  return 0;
}

std::int64_t CollectiveTraits::elements(Buffer buffer, bool is_root, std::int64_t count, int procs) const {
  Params params;
  params.collective = collective;
  params.procs = procs;
  params.count = count;
  params.root = is_root ? 0 : -1;  // rank 0, the root or not
  return elements(buffer, 0, params);
}

std::span<const CollectiveTraits> collectives() { return kTraits; }

const CollectiveTraits &traits(Collective collective) { return kTraits[static_cast<int>(collective)]; }

}  // namespace patcoll::core
