// Engines of the allgather builders; see allgather.hpp.
#include <algorithm>

#include "../layout.hpp"
#include "allgather.hpp"
#include "ring.hpp"

namespace patcoll::core {

Region own_block(const Params &params, int rank) {
  return recv_buf(block_offset(params, rank), block_count(params, rank));
}

std::vector<Op> own_block_copy(const Params &params, int rank) {
  const std::int64_t n = block_count(params, rank);
  if (n == 0) return {};
  return {copy_op(send_buf(0, n), own_block(params, rank))};
}

std::vector<Region> block_runs(const Params &params, std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  std::vector<Region> runs;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i + 1;
    while (j < ranks.size() && ranks[j] == ranks[j - 1] + 1) ++j;
    const std::int64_t begin = block_offset(params, ranks[i]), end = block_offset(params, ranks[j - 1] + 1);
    if (end > begin) runs.push_back(recv_buf(begin, end - begin));
    i = j;
  }
  return runs;
}

int append_ring_allgather_over(Program &program, const Params &params, const std::vector<int> &members, int position,
                               int first_round) {
  Ring ring;
  ring.procs = static_cast<int>(members.size());
  ring.rank = position;
  ring.layout = &params;
  ring.members = &members;
  add_step(program, own_block_copy(params, members[static_cast<std::size_t>(position)]), first_round);
  append_ring_allgather(program, ring, Buffer::recv, first_round + 1);
  return first_round + ring.procs;
}

int append_bruck_allgather_over(Program &program, const Params &params, const std::vector<int> &members, int position,
                                int first_round) {
  const int n = static_cast<int>(members.size());
  auto member_at = [&](int offset) { return members[static_cast<std::size_t>((position + offset) % n)]; };
  // Scratch offsets of the rotated blocks: slot i holds member (position + i) mod n.
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) sizes[static_cast<std::size_t>(i)] = block_count(params, member_at(i));
  const std::vector<std::int64_t> at = prefix_offsets(sizes);
  auto slots = [&](int first, int last) { return scratch_buf(at[first], at[last] - at[first]); };
  program.scratch_count = std::max(program.scratch_count, at[static_cast<std::size_t>(n)]);
  std::vector<Op> ops = own_block_copy(params, member_at(0));
  if (sizes[0] > 0) ops.push_back(copy_op(send_buf(0, sizes[0]), slots(0, 1)));
  int round = first_round;
  for (int distance = 1; distance < n; distance *= 2, ++round) {
    const int blocks = std::min(distance, n - distance);
    const Region out = slots(0, blocks), in = slots(distance, distance + blocks);
    if (out.count > 0) ops.push_back(send_op(members[static_cast<std::size_t>((position - distance + n) % n)], out));
    if (in.count > 0) ops.push_back(recv_op(member_at(distance), in, Combine::store));
    add_step(program, std::move(ops), round);
    ops.clear();
  }
  if (n == 1) add_step(program, std::move(ops), round++);
  // Slots 1 … n−1 to their places, runs of consecutive ranks in one copy.
  std::vector<Op> copies;
  for (int i = 1; i < n;) {
    int j = i + 1;
    while (j < n && member_at(j) == member_at(j - 1) + 1) ++j;
    const Region from = slots(i, j);
    if (from.count > 0) copies.push_back(copy_op(from, recv_buf(block_offset(params, member_at(i)), from.count)));
    i = j;
  }
  add_step(program, std::move(copies), round);
  return round + 1;
}

}  // namespace patcoll::core
