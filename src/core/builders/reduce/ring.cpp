// reduce/ring — ring reduce-scatter, then a binomial gather of the blocks.
//
// The vector is cut into P blocks; in P − 1 ring steps every rank combines
// one block and passes it on, leaving rank r with the full reduction of
// block (r − root) mod P; the blocks then travel up a binomial tree rooted
// at the root, each subtree holding a contiguous run of blocks ([M] §5.5.2
// "parallel ring", after Chan et al.'s bucket algorithm).
// Cost: (P − 1 + ⌈log2 P⌉)α + ((P−1)/P)·m·(2β + γ) ([M] Table 3).
// Restrictions: commutative — a block's partial result wraps around the
// ring from rank P−1 to rank 0, so contributions are not combined in rank
// order.
#include "../builders.hpp"
#include "../ring.hpp"

namespace patcoll::core {

Program reduce_ring(const Params &params, int rank) {
  const std::int64_t n = params.count;
  Program program{rank, params.procs, 0, {}};
  if (n == 0) return program;
  const bool is_root = rank == params.root;
  const Buffer acc = is_root ? Buffer::recv : Buffer::scratch;
  if (!is_root) program.scratch_count = n;
  const Ring ring{params.procs, rank, -params.root, n};
  append_ring_reduce_scatter(program, ring, acc, true);
  append_binomial_block_gather(program, params.procs, rank, params.root, n, acc, params.procs - 1);
  return program;
}

}  // namespace patcoll::core
