// Engines of the scatter/gather families; see scatter_gather.hpp.
#include "scatter_gather.hpp"

#include "../cost.hpp"

namespace patcoll::core {
namespace {

Program empty_program(const Params &params, int rank) { return Program{rank, params.procs, 0, {}}; }

int lowbit(int value) { return value & -value; }

int bit_reverse(int value, int bits) {
  int out = 0;
  for (int b = 0; b < bits; ++b) out |= ((value >> b) & 1) << (bits - 1 - b);
  return out;
}

SlotTree finish(SlotTree tree, int procs) {
  tree.slot_of_rank.assign(procs, -1);
  tree.before.assign(tree.slots + 1, 0);
  for (int s = 0; s < tree.slots; ++s) {
    tree.before[s + 1] = tree.before[s] + (tree.rank_at_slot[s] >= 0);
    if (tree.rank_at_slot[s] >= 0) tree.slot_of_rank[tree.rank_at_slot[s]] = s;
  }
  tree.rank_order = true;
  for (int s = 0; s < tree.slots && tree.rank_order; ++s)
    if (tree.rank_at_slot[s] >= 0) tree.rank_order = tree.rank_at_slot[s] == tree.before[s];
  return tree;
}

// Copies that move whole blocks between compact order (in scratch) and rank
// order (in a user buffer), merging runs of consecutive ranks into one op.
// to_scratch: user → scratch (scatter shuffle), else scratch → user (gather
// unshuffle). The block of `skip_rank` is left alone.
std::vector<Op> shuffle_copies(const SlotTree &tree, std::int64_t n, Buffer user, bool to_scratch, int skip_rank) {
  std::vector<Op> ops;
  if (n == 0) return ops;
  int run_compact = -1, run_rank = -1, run_length = 0;
  auto flush = [&] {
    if (run_length == 0) return;
    const Region compact = scratch_buf(run_compact * n, run_length * n);
    const Region ranked{user, run_rank * n, run_length * n};
    ops.push_back(to_scratch ? copy_op(ranked, compact) : copy_op(compact, ranked));
    run_length = 0;
  };
  for (int s = 0; s < tree.slots; ++s) {
    const int rank = tree.rank_at_slot[s];
    if (rank < 0) continue;
    const int compact = tree.before[s];
    if (rank == skip_rank) {
      flush();
      continue;
    }
    if (run_length > 0 && rank == run_rank + run_length && compact == run_compact + run_length) {
      ++run_length;
    } else {
      flush();
      run_compact = compact, run_rank = rank, run_length = 1;
    }
  }
  flush();
  return ops;
}

}  // namespace

Program scatter_linear_in_order(const Params &params, int rank, const std::vector<int> &order) {
  const std::int64_t n = params.count;
  Program program = empty_program(params, rank);
  if (rank != params.root) {
    add_step(program, {recv_op(params.root, recv_buf(0, n))});
    return program;
  }
  for (int peer : order) {
    if (peer == params.root) add_step(program, {copy_op(send_buf(peer * n, n), recv_buf(0, n))});
    else add_step(program, {send_op(peer, send_buf(peer * n, n))});
  }
  return program;
}

Program gather_linear_in_order(const Params &params, int rank, const std::vector<int> &order) {
  const std::int64_t n = params.count;
  Program program = empty_program(params, rank);
  if (rank != params.root) {
    add_step(program, {send_op(params.root, send_buf(0, n))});
    return program;
  }
  for (int peer : order) {
    if (peer == params.root) add_step(program, {copy_op(send_buf(0, n), recv_buf(peer * n, n))});
    else add_step(program, {recv_op(peer, recv_buf(peer * n, n))});
  }
  return program;
}

Program gather_synchronized_in_order(const Params &params, int rank, const std::vector<int> &order) {
  const std::int64_t n = params.count;
  const Span first = segment_span(n, 2, 0), second = segment_span(n, 2, 1);
  Program program = empty_program(params, rank);
  if (rank != params.root) {
    add_step(program, {recv_op(params.root, recv_buf(0, 0))});  // the empty sync message
    add_step(program, {send_op(params.root, send_buf(first.offset, first.count))});
    add_step(program, {send_op(params.root, send_buf(second.offset, second.count))});
    return program;
  }
  // Step i posts leaf i's sync and first segment together with leaf i−1's
  // second segment (Fig. 9: ireceive A, send sync, ireceive B, wait A).
  int previous = -1;
  for (int peer : order) {
    std::vector<Op> ops;
    if (peer == params.root) {
      ops.push_back(copy_op(send_buf(0, n), recv_buf(peer * n, n)));
    } else {
      ops.push_back(recv_op(peer, recv_buf(peer * n + first.offset, first.count)));
      ops.push_back(send_op(peer, send_buf(0, 0)));
    }
    if (previous >= 0) ops.push_back(recv_op(previous, recv_buf(previous * n + second.offset, second.count)));
    previous = peer == params.root ? -1 : peer;
    add_step(program, std::move(ops));
  }
  if (previous >= 0) add_step(program, {recv_op(previous, recv_buf(previous * n + second.offset, second.count))});
  return program;
}

SlotTree classic_slot_tree(int procs, int root) {
  SlotTree tree;
  tree.slots = 1 << ceil_log2(procs);
  tree.rank_at_slot.assign(tree.slots, -1);
  for (int s = 0; s < procs; ++s) tree.rank_at_slot[s] = (s + root) % procs;
  return finish(std::move(tree), procs);
}

// Slot s is occupied iff bitrev(s) < P. For t < lowbit(s) the bits of t lie
// below those of s, so bitrev(s + t) = bitrev(s) + bitrev(t) ≥ bitrev(s): an
// empty slot's subtree is empty.
SlotTree sorted_slot_tree(const std::vector<int> &order) {
  const int procs = static_cast<int>(order.size());
  const int bits = ceil_log2(procs);
  SlotTree tree;
  tree.slots = 1 << bits;
  tree.rank_at_slot.assign(tree.slots, -1);
  for (int j = 0; j < procs; ++j) tree.rank_at_slot[bit_reverse(j, bits)] = order[j];
  return finish(std::move(tree), procs);
}

Program scatter_over_tree(const Params &params, int rank, const SlotTree &tree) {
  const std::int64_t n = params.count;
  Program program = empty_program(params, rank);
  const int slot = tree.slot_of_rank[rank];
  const int width = slot == 0 ? tree.slots : lowbit(slot);
  // Where this rank's subtree blocks live, in compact order from its own.
  Buffer buffer = Buffer::scratch;
  std::int64_t base = 0;  // compact index of buffer offset 0
  if (slot == 0) {
    add_step(program, {copy_op(send_buf(rank * n, n), recv_buf(0, n))});
    if (tree.rank_order) {
      buffer = Buffer::send;
    } else {
      program.scratch_count = static_cast<std::int64_t>(tree.before[tree.slots]) * n;
      add_step(program, shuffle_copies(tree, n, Buffer::send, true, rank));
    }
  } else {
    const int parent = tree.rank_at_slot[slot - lowbit(slot)];
    const int blocks = tree.blocks(slot, width);
    if (blocks == 1) {
      add_step(program, {recv_op(parent, recv_buf(0, n))});
      return program;
    }
    program.scratch_count = blocks * n;
    base = tree.before[slot];
    add_step(program, {recv_op(parent, scratch_buf(0, blocks * n))});
    add_step(program, {copy_op(scratch_buf(0, n), recv_buf(0, n))});
  }
  for (int half = width / 2; half >= 1; half /= 2) {
    const int child = slot + half;
    if (!tree.occupied(child)) continue;
    const Region blocks{buffer, (tree.before[child] - base) * n, tree.blocks(child, half) * n};
    add_step(program, {send_op(tree.rank_at_slot[child], blocks)});
  }
  return program;
}

Program gather_over_tree(const Params &params, int rank, const SlotTree &tree) {
  const std::int64_t n = params.count;
  Program program = empty_program(params, rank);
  const int slot = tree.slot_of_rank[rank];
  const int width = slot == 0 ? tree.slots : lowbit(slot);
  Buffer buffer = Buffer::scratch;
  std::int64_t base = 0;
  if (slot == 0) {
    add_step(program, {copy_op(send_buf(0, n), recv_buf(rank * n, n))});
    if (tree.rank_order) buffer = Buffer::recv;
    else program.scratch_count = static_cast<std::int64_t>(tree.before[tree.slots]) * n;
  } else {
    const int blocks = tree.blocks(slot, width);
    if (blocks > 1) {
      program.scratch_count = blocks * n;
      base = tree.before[slot];
      add_step(program, {copy_op(send_buf(0, n), scratch_buf(0, n))});
    }
  }
  for (int half = 1; half < width; half *= 2) {
    const int child = slot + half;
    if (!tree.occupied(child)) continue;
    const Region blocks{buffer, (tree.before[child] - base) * n, tree.blocks(child, half) * n};
    add_step(program, {recv_op(tree.rank_at_slot[child], blocks)});
  }
  if (slot == 0) {
    if (!tree.rank_order) add_step(program, shuffle_copies(tree, n, Buffer::recv, false, rank));
    return program;
  }
  const int parent = tree.rank_at_slot[slot - lowbit(slot)];
  const int blocks = tree.blocks(slot, width);
  add_step(program, {send_op(parent, blocks == 1 ? send_buf(0, n) : scratch_buf(0, blocks * n))});
  return program;
}

}  // namespace patcoll::core
