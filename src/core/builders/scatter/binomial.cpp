// scatter/binomial (alias bnom) — classic binomial tree.
//
// Relative rank v = (rank − root) mod P; v receives the blocks of
// [v, v + lowbit(v)) from v − lowbit(v), keeps its own and passes the upper
// halves on, largest first. The root rotates its buffer into scratch when
// root ≠ 0 (two copies). Cost: ⌈log2 P⌉α + (P−1)mβ ([PS] eq. 7).
// Restrictions: none; intermediate ranks need scratch for their subtree.
// Source: [PS] §2.1; MPICH scatter_intra_binomial.c.
#include "../pap.hpp"
#include "../plan.hpp"
#include "../scatter_gather.hpp"

namespace patcoll::core {
namespace {

SlotTree tree(const Params &params) { return classic_slot_tree(params.procs, params.root); }

}  // namespace

Program scatter_binomial(const Params &params, int rank) { return scatter_over_tree(params, rank, tree(params)); }
std::vector<Program> scatter_binomial_all(const Params &params) { return build_every_rank(params, tree(params), scatter_over_tree); }

}  // namespace patcoll::core
