// The catalogue of every core algorithm: one line each, in --list order.
// The name is the file name under builders/<collective>/, the function
// suffix, the CLI value and the environment value. The MPI registry adds
// `native` to every collective.
#include "algorithm.hpp"
#include "builders/builders.hpp"

namespace patcoll::core {
namespace {

using C = Collective;
constexpr std::uint32_t none = 0;
constexpr std::uint32_t commutative = needs_commutative;
constexpr std::uint32_t scheduled = needs_commutative | pap_aware | schedule_based;

const Algorithm kAlgorithms[] = {
    // --- MPI_Reduce: classic -------------------------------------------
    {C::reduce, "linear", none, "root receives every contribution in turn", reduce_linear, nullptr},
    {C::reduce, "chain", none, "segmented chain (pipeline) toward the root", reduce_chain, nullptr},
    {C::reduce, "binary", none, "segmented in-order binary tree", reduce_binary, nullptr},
    {C::reduce, "binomial", none, "unsegmented binomial tree", reduce_binomial, nullptr},
    {C::reduce, "ring", commutative, "ring reduce-scatter, binomial gather of the blocks ([M] parallel ring)", reduce_ring, nullptr},
    {C::reduce, "rabenseifner", none, "recursive-halving reduce-scatter, binomial gather ([M] butterfly)", reduce_rabenseifner, nullptr},
    {C::reduce, "radix_k", takes_radix, "radix-k reduce-scatter, binomial gather in each group; Params::radix ([M] 5.5.4)", reduce_radix_k, nullptr},
    // --- MPI_Reduce: schedule-based (Clairvoyant, greedy) ----------------
    {C::reduce, "clairvoyant", scheduled, "PAT-driven Clairvoyant schedule of N segments ([M], [PO] segment tree)", reduce_clairvoyant_rank, reduce_clairvoyant, reduce_clairvoyant_flat},
    {C::reduce, "uni_greedy", scheduled | takes_segment_sizes, "Lowery-Langou greedy pipelined reduction, unidirectional ports ([LL] Alg. 1)", reduce_uni_greedy_rank, reduce_uni_greedy, reduce_uni_greedy_flat},
    {C::reduce, "bi_greedy", scheduled | takes_segment_sizes, "Lowery-Langou greedy pipelined reduction, bidirectional ports ([LL] Alg. 2)", reduce_bi_greedy_rank, reduce_bi_greedy, reduce_bi_greedy_flat},
    // --- MPI_Allreduce: classic ------------------------------------------
    {C::allreduce, "ring", commutative, "ring reduce-scatter, ring allgather", allreduce_ring, nullptr},
    {C::allreduce, "rabenseifner", none, "recursive halving, then recursive doubling", allreduce_rabenseifner, nullptr},
    {C::allreduce, "recursive_doubling", none, "whole-vector exchanges at doubling distances", allreduce_recursive_doubling, nullptr},
    {C::allreduce, "linear_tree", none, "segmented chain reduce, then chain broadcast back ([PA] 4.1)", allreduce_linear_tree, nullptr},
    // --- MPI_Allreduce: PAP-aware ----------------------------------------
    {C::allreduce, "slt", commutative | pap_aware, "linear tree with the chain sorted by PAT, latest last ([PA] 4.1)", allreduce_slt, allreduce_slt_all, allreduce_slt_flat},
    {C::allreduce, "prr", commutative | pap_aware, "prereduced ring: presteps before a late rank, which then does P-1 exchanges ([PA] 4.2)", allreduce_prr, nullptr},
    {C::allreduce, "clairvoyant", scheduled, "PAT-driven: early ranks reduce (or allreduce), late ranks folded in down two pipelined trees; classic when balanced", allreduce_clairvoyant_rank, allreduce_clairvoyant},
    // --- MPI_Scatter -----------------------------------------------------
    {C::scatter, "lin", none, "root sends every block in rank order", scatter_lin, scatter_lin_all},
    {C::scatter, "bnom", none, "binomial tree, halves forwarded largest first", scatter_bnom, scatter_bnom_all},
    {C::scatter, "slin", pap_aware, "linear, blocks sent in PAT order, earliest first ([PS] Fig. 5)", scatter_slin, scatter_slin_all},
    {C::scatter, "sbn", pap_aware, "binomial over PAT-sorted, bit-reversed positions ([PS] Fig. 7)", scatter_sbn, scatter_sbn_all},
    // --- MPI_Gather ------------------------------------------------------
    {C::gather, "lin", none, "root receives every block in rank order", gather_lin, gather_lin_all},
    {C::gather, "ls", none, "linear synchronized: empty sync, then two segments per leaf", gather_ls, gather_ls_all},
    {C::gather, "bnom", none, "binomial tree, subtrees collected smallest first", gather_bnom, gather_bnom_all},
    {C::gather, "sls", pap_aware, "linear synchronized in PAT order, earliest first ([PS] Fig. 9)", gather_sls, gather_sls_all},
    {C::gather, "sbn", pap_aware, "binomial, earliest ranks send first, root unshuffles ([PS] Fig. 11)", gather_sbn, gather_sbn_all},
};

}  // namespace

std::span<const Algorithm> algorithms() { return kAlgorithms; }

}  // namespace patcoll::core
