// gather/binomial (alias bnom) — classic binomial tree.
//
// Relative rank v = (rank − root) mod P; v collects the blocks of
// [v, v + lowbit(v)) from its children, smallest subtree first, and sends
// them to v − lowbit(v) in one message. The root receives straight into
// place when root = 0, else into scratch and rotates (two copies).
// Cost: ⌈log2 P⌉α + (P−1)mβ ([PS] eqs. 7–8). Restrictions: none;
// intermediate ranks need scratch for their subtree. Source: [PS] §2.1;
// MPICH gather_intra_binomial.c.
#include "../pap.hpp"
#include "../plan.hpp"
#include "../scatter_gather.hpp"

namespace patcoll::core {
namespace {

SlotTree tree(const Params &params) { return classic_slot_tree(params.procs, params.root); }

}  // namespace

Program gather_binomial(const Params &params, int rank) { return gather_over_tree(params, rank, tree(params)); }
std::vector<Program> gather_binomial_all(const Params &params) { return build_every_rank(params, tree(params), gather_over_tree); }

}  // namespace patcoll::core
