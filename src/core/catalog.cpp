// The catalogue of every core algorithm: one row each, in --list order.
// It is the only registry: the MPI layer adds `native` to every
// collective and nothing else, and every selectable name (the C API's
// `_with` and PAT_Set_algorithm, PATCOLL_<COLL>, the shim, the tools)
// resolves through core::find_algorithm.
//
// Names. The canonical name is the file name under builders/<collective>/,
// the function suffix, the CLI value and the environment value, and what
// PAT_Get_last_algorithm reports. One idea has one name across
// collectives: `linear` (root and every rank in turn) and `binomial`
// (binomial tree) for reduce, scatter and gather alike; gather's linear
// synchronized tree is `linear_sync`. The spellings of the [PS] paper that
// were the names here before are aliases (`lin`, `bnom`, `ls`): accepted
// wherever a name is, listed with the row, never reported. The PAP-aware
// scatter/gather keep their [PS] names as canonical (`slin`, `sbn`, `sls`,
// and the background `bsln`, `bsbn`, `bsls`): they are the names of the
// papers, the results and the applications, and have no older spelling.
//
// Restrictions (what the call must satisfy) and capabilities (what the
// algorithm is) are separate fields (algorithm.hpp). A `background` row is
// its base algorithm ([PS] Figs. 6, 8, 10, 12) with part of it run by the
// PAT runtime's thread after the edge: a persistent collective on the
// runtime's communicator (runtime/background.hpp). Everywhere else - a
// blocking call, a non-blocking call, a persistent collective outside the
// runtime - it runs its base's Program in the foreground, so its builders
// are the base's, and PAT_Get_last_algorithm reports the row's own name.
// `auto` never picks a background row (it is its base, predicted once).
#include "algorithm.hpp"
#include "builders/builders.hpp"

namespace patcoll::core {
namespace {

using C = Collective;
constexpr Restrictions none{};
constexpr Restrictions commutative{needs_commutative};
constexpr Restrictions even_procs{needs_even_procs};
constexpr Capabilities plain{};
constexpr Capabilities pap{pap_aware};
constexpr Capabilities scheduled{pap_aware | schedule_based};
constexpr Capabilities scheduled_by_name{pap_aware | schedule_based | by_name_only};
constexpr Capabilities radix{takes_radix};
constexpr Capabilities scheduled_sizes{pap_aware | schedule_based | takes_segment_sizes};
constexpr Capabilities in_background{pap_aware | background};
constexpr Capabilities reacts{reactive};

const Algorithm kAlgorithms[] = {
    // collective, name, restrictions, capabilities, aliases, base, description, builders
    // --- MPI_Reduce: classic -------------------------------------------
    {C::reduce, "linear", none, plain, "", "", "root receives every contribution in turn", reduce_linear, nullptr},
    {C::reduce, "chain", none, plain, "", "", "segmented chain (pipeline) toward the root", reduce_chain, nullptr},
    {C::reduce, "binary", none, plain, "", "", "segmented in-order binary tree", reduce_binary, nullptr},
    {C::reduce, "binomial", none, plain, "", "", "unsegmented binomial tree", reduce_binomial, nullptr},
    {C::reduce, "ring", commutative, plain, "", "", "ring reduce-scatter, binomial gather of the blocks ([M] parallel ring)", reduce_ring, nullptr},
    {C::reduce, "rabenseifner", none, plain, "", "", "recursive-halving reduce-scatter, binomial gather ([M] butterfly)", reduce_rabenseifner, nullptr},
    {C::reduce, "radix_k", none, radix, "", "", "radix-k reduce-scatter, binomial gather in each group; Params::radix ([M] 5.5.4)", reduce_radix_k, nullptr},
    // --- MPI_Reduce: schedule-based (Clairvoyant, greedy) ----------------
    {C::reduce, "clairvoyant", commutative, scheduled, "", "", "PAT-driven Clairvoyant schedule of N segments ([M], [PO] segment tree)", reduce_clairvoyant_rank, reduce_clairvoyant, reduce_clairvoyant_flat},
    {C::reduce, "uni_greedy", commutative, scheduled_sizes, "", "", "Lowery-Langou greedy pipelined reduction, unidirectional ports ([LL] Alg. 1)", reduce_uni_greedy_rank, reduce_uni_greedy, reduce_uni_greedy_flat},
    {C::reduce, "bi_greedy", commutative, scheduled_sizes, "", "", "Lowery-Langou greedy pipelined reduction, bidirectional ports ([LL] Alg. 2)", reduce_bi_greedy_rank, reduce_bi_greedy, reduce_bi_greedy_flat},
    // --- MPI_Reduce: reactive (blocking calls) ----------------------------
    {C::reduce, "reactive", commutative, reacts, "", "", "segmented chain in the arrival order observed at run time (one atomic per rank, control messages); blocking calls only", reduce_reactive, nullptr},
    // --- MPI_Allreduce: classic ------------------------------------------
    {C::allreduce, "ring", commutative, plain, "", "", "ring reduce-scatter, ring allgather", allreduce_ring, nullptr},
    {C::allreduce, "rabenseifner", none, plain, "", "", "recursive halving, then recursive doubling", allreduce_rabenseifner, nullptr},
    {C::allreduce, "recursive_doubling", none, plain, "", "", "whole-vector exchanges at doubling distances", allreduce_recursive_doubling, nullptr},
    {C::allreduce, "linear_tree", none, plain, "", "", "segmented chain reduce, then chain broadcast back ([PA] 4.1)", allreduce_linear_tree, nullptr},
    // --- MPI_Allreduce: PAP-aware ----------------------------------------
    {C::allreduce, "slt", commutative, pap, "", "", "linear tree with the chain sorted by PAT, latest last ([PA] 4.1)", allreduce_slt, allreduce_slt_all, allreduce_slt_flat},
    {C::allreduce, "prr", commutative, pap, "", "", "prereduced ring: presteps before a late rank, which then does P-1 exchanges ([PA] 4.2)", allreduce_prr, nullptr},
    {C::allreduce, "clairvoyant", commutative, scheduled, "", "", "PAT-driven: early ranks reduce (or allreduce), late ranks folded in down two pipelined trees; classic when balanced", allreduce_clairvoyant_rank, allreduce_clairvoyant},
    // --- MPI_Allreduce: reactive (blocking calls) -------------------------
    {C::allreduce, "reactive", commutative, reacts, "", "", "reactive reduce to rank 0 in the arrival order observed at run time, then a broadcast (binomial, or a pipelined chain from 64 KiB); blocking calls only", allreduce_reactive, nullptr},
    {C::allreduce, "reactive_owners", commutative, reacts, "", "", "the first 3/4 of the ranks to arrive own one block each and reduce-scatter their data; the later ones send their parts to the owners and receive the results in pipelined stages (hellos to rank 0); blocking calls only", allreduce_reactive_owners, nullptr},
    {C::allreduce, "owner_trees", commutative, scheduled_by_name, "", "", "PAT-driven: ranks own units of the vector weighted by arrival (the latest none); every rank sends its parts to the owners in one interleaved order; each unit's sum goes down a tree whose inner ranks are those with idle send ports; one step per rank, each part run as soon as its inputs are in", allreduce_owner_trees, allreduce_owner_trees_all, nullptr, owner_trees_tags},
    // --- MPI_Scatter -----------------------------------------------------
    {C::scatter, "linear", none, plain, "lin", "", "root sends every block in rank order", scatter_linear, scatter_linear_all},
    {C::scatter, "binomial", none, plain, "bnom", "", "binomial tree, halves forwarded largest first", scatter_binomial, scatter_binomial_all},
    {C::scatter, "slin", none, pap, "", "", "linear, blocks sent in PAT order, earliest first ([PS] Fig. 5)", scatter_slin, scatter_slin_all},
    {C::scatter, "sbn", none, pap, "", "", "binomial over PAT-sorted, bit-reversed positions ([PS] Fig. 7)", scatter_sbn, scatter_sbn_all},
    {C::scatter, "bsln", none, in_background, "", "slin", "slin, the non-roots' part run by the PAT runtime's thread after the edge ([PS] Fig. 6); slin wherever no edge applies", scatter_slin, scatter_slin_all},
    {C::scatter, "bsbn", none, in_background, "", "sbn", "sbn, the non-roots' part run by the PAT runtime's thread after the edge ([PS] Fig. 8); sbn wherever no edge applies", scatter_sbn, scatter_sbn_all},
    // --- MPI_Gather ------------------------------------------------------
    {C::gather, "linear", none, plain, "lin", "", "root receives every block in rank order", gather_linear, gather_linear_all},
    {C::gather, "linear_sync", none, plain, "ls", "", "linear synchronized: empty sync, then two segments per leaf", gather_linear_sync, gather_linear_sync_all},
    {C::gather, "binomial", none, plain, "bnom", "", "binomial tree, subtrees collected smallest first", gather_binomial, gather_binomial_all},
    {C::gather, "sls", none, pap, "", "", "linear synchronized in PAT order, earliest first ([PS] Fig. 9)", gather_sls, gather_sls_all},
    {C::gather, "sbn", none, pap, "", "", "binomial, earliest ranks send first, root unshuffles ([PS] Fig. 11)", gather_sbn, gather_sbn_all},
    {C::gather, "bsls", none, in_background, "", "sls", "sls, the root's part run by the PAT runtime's thread after the edge ([PS] Fig. 10); sls wherever no edge applies", gather_sls, gather_sls_all},
    {C::gather, "bsbn", none, in_background, "", "sbn", "sbn, the root's part run by the PAT runtime's thread after the edge ([PS] Fig. 12); sbn wherever no edge applies", gather_sbn, gather_sbn_all},
    // --- MPI_Allgather ---------------------------------------------------
    {C::allgather, "ring", none, plain, "", "", "each rank passes blocks to its right neighbour, P-1 steps", allgather_ring, nullptr},
    {C::allgather, "recursive_doubling", none, plain, "", "", "block ranges exchanged at doubling distances; ranks beyond a power of two fold", allgather_recursive_doubling, nullptr},
    {C::allgather, "bruck", none, plain, "", "", "ceil(log2 P) rounds for any P, blocks rotated in scratch (Bruck et al.)", allgather_bruck, nullptr},
    {C::allgather, "neighbor_exchange", even_procs, plain, "", "", "P/2 steps, two blocks at a time between alternating neighbours (Chen et al.)", allgather_neighbor_exchange, nullptr},
    {C::allgather, "clairvoyant", none, scheduled, "", "", "PAT-driven: early ranks allgather, each late rank gets the result from one and its block spreads by doubling; classic when balanced", allgather_clairvoyant_rank, allgather_clairvoyant},
    // --- MPI_Allgatherv (the same builders over Params::counts) ----------
    {C::allgatherv, "ring", none, plain, "", "", "each rank passes blocks to its right neighbour, P-1 steps", allgather_ring, nullptr},
    {C::allgatherv, "recursive_doubling", none, plain, "", "", "block ranges exchanged at doubling distances; ranks beyond a power of two fold", allgather_recursive_doubling, nullptr},
    {C::allgatherv, "bruck", none, plain, "", "", "ceil(log2 P) rounds for any P, blocks rotated in scratch (Bruck et al.)", allgather_bruck, nullptr},
    {C::allgatherv, "neighbor_exchange", even_procs, plain, "", "", "P/2 steps, two blocks at a time between alternating neighbours (Chen et al.)", allgather_neighbor_exchange, nullptr},
    {C::allgatherv, "clairvoyant", none, scheduled, "", "", "PAT-driven: early ranks allgather, each late rank gets the result from one and its block spreads by doubling; classic when balanced", allgather_clairvoyant_rank, allgather_clairvoyant},
    // --- MPI_Bcast: classic -----------------------------------------------
    {C::bcast, "linear", none, plain, "lin", "", "root sends the whole buffer to every rank, all posted at once", bcast_linear, nullptr},
    {C::bcast, "binomial", none, plain, "bnom", "", "unsegmented binomial tree, largest subtree first", bcast_binomial, nullptr},
    {C::bcast, "chain", none, plain, "", "", "segmented chain (pipeline) from the root", bcast_chain, nullptr},
    {C::bcast, "binary", none, plain, "", "", "segmented in-order binary tree", bcast_binary, nullptr},
    {C::bcast, "scatter_allgather", none, plain, "", "", "binomial scatter of P blocks, ring allgather (van de Geijn)", bcast_scatter_allgather, nullptr},
    // --- MPI_Bcast: PAP-aware ---------------------------------------------
    {C::bcast, "sorted_binomial", none, pap, "", "", "binomial tree over PAT-sorted, bit-reversed positions: earliest ranks inner, latest leaves", bcast_sorted_binomial, bcast_sorted_binomial_all},
    {C::bcast, "clairvoyant", none, scheduled, "", "", "PAT-driven pipelined schedule: holders forward segments to arrived ranks, earliest transfer first", bcast_clairvoyant_rank, bcast_clairvoyant},
    // --- MPI_Bcast: reactive (blocking calls) ------------------------------
    {C::bcast, "reactive", none, reacts, "", "", "segmented chain from the root in the arrival order observed at run time (hellos to the root, forwarding once the successor is there); blocking calls only", bcast_reactive, nullptr},
    // --- MPI_Alltoall ----------------------------------------------------
    {C::alltoall, "pairwise", none, plain, "", "", "P-1 exchange steps, partner rank XOR k (powers of two) or r+k / r-k", alltoall_pairwise, nullptr},
    {C::alltoall, "linear", none, plain, "", "", "every send and receive posted at once", alltoall_linear, nullptr},
    {C::alltoall, "bruck", none, plain, "", "", "log2 P steps of packed positions with local rotations (small pairs)", alltoall_bruck, nullptr},
    {C::alltoall, "clairvoyant", none, pap, "", "", "PAT-driven: pairs among early ranks first, late ranks' pairs last in arrival order (Qian-Afsahi); pairwise when balanced", alltoall_clairvoyant, alltoall_clairvoyant_all},
    {C::alltoall, "reactive", none, reacts, "", "", "pairs in the arrival order observed at run time: each rank exchanges with the earlier ranks at once, then with the later ones as they come (hellos to rank 0, notices); blocking calls only", alltoall_reactive, nullptr},
    // --- MPI_Alltoallv (the same builders over Params::counts) -------------
    {C::alltoallv, "pairwise", none, plain, "", "", "P-1 exchange steps, partner rank XOR k (powers of two) or r+k / r-k", alltoall_pairwise, nullptr},
    {C::alltoallv, "linear", none, plain, "", "", "every send and receive posted at once", alltoall_linear, nullptr},
    {C::alltoallv, "clairvoyant", none, pap, "", "", "PAT-driven: pairs among early ranks first, late ranks' pairs last in arrival order (Qian-Afsahi); pairwise when balanced", alltoall_clairvoyant, alltoall_clairvoyant_all},
    {C::alltoallv, "reactive", none, reacts, "", "", "pairs in the arrival order observed at run time: each rank exchanges with the earlier ranks at once, then with the later ones as they come (hellos to rank 0, notices); blocking calls only", alltoall_reactive, nullptr},
    // --- MPI_Reduce_scatter_block ---
    {C::reduce_scatter_block, "ring", commutative, plain, "", "", "ring reduce-scatter over the ranks' blocks, P-1 steps (allreduce ring's first half)", reduce_scatter_ring, nullptr},
    {C::reduce_scatter_block, "recursive_halving", none, plain, "", "", "recursive halving over a power of two, then each block from the halves holding it; rank order", reduce_scatter_recursive_halving, nullptr},
    {C::reduce_scatter_block, "pairwise", commutative, plain, "", "", "P-1 steps, each rank's part of block r+i sent straight to rank r+i", reduce_scatter_pairwise, nullptr},
    {C::reduce_scatter_block, "clairvoyant", commutative, scheduled, "", "", "PAT-driven: early ranks reduce-scatter among themselves, each late rank's parts folded in as it arrives; classic when balanced", reduce_scatter_clairvoyant_rank, reduce_scatter_clairvoyant},
    // --- MPI_Reduce_scatter (the same builders over Params::counts) ---
    {C::reduce_scatter, "ring", commutative, plain, "", "", "ring reduce-scatter over the ranks' blocks, P-1 steps (allreduce ring's first half)", reduce_scatter_ring, nullptr},
    {C::reduce_scatter, "recursive_halving", none, plain, "", "", "recursive halving over a power of two, then each block from the halves holding it; rank order", reduce_scatter_recursive_halving, nullptr},
    {C::reduce_scatter, "pairwise", commutative, plain, "", "", "P-1 steps, each rank's part of block r+i sent straight to rank r+i", reduce_scatter_pairwise, nullptr},
    {C::reduce_scatter, "clairvoyant", commutative, scheduled, "", "", "PAT-driven: early ranks reduce-scatter among themselves, each late rank's parts folded in as it arrives; classic when balanced", reduce_scatter_clairvoyant_rank, reduce_scatter_clairvoyant},
};

}  // namespace

std::span<const Algorithm> algorithms() { return kAlgorithms; }

}  // namespace patcoll::core
