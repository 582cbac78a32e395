// Tree topologies and the segmented tree reduce engine; see tree.hpp.
#include "tree.hpp"

#include <algorithm>

namespace patcoll::core {
namespace {

std::int64_t lowest_bit(std::int64_t v) { return v & -v; }

// Binomial tree over `size` consecutive ranks starting at `top` and growing
// in `direction` (+1: top, top+1, …; −1: top, top−1, …). Node v (distance
// from top) has parent v − lowbit(v) and children v + 2^j for 2^j < lowbit(v)
// (every 2^j for v = 0), smallest subtree first. Subtrees are contiguous
// ranges, so children are on the side the tree grows to.
TreeNode directed_binomial(int top, int size, int direction, int rank) {
  TreeNode node;
  const std::int64_t v = static_cast<std::int64_t>(rank - top) * direction;
  if (v > 0) node.parent = top + direction * static_cast<int>(v - lowest_bit(v));
  const Combine side = direction > 0 ? Combine::right : Combine::left;
  for (std::int64_t mask = 1; mask < size && (v == 0 || mask < lowest_bit(v)); mask <<= 1)
    if (v + mask < size) node.children.push_back({top + direction * static_cast<int>(v + mask), side});
  return node;
}

}  // namespace

std::int64_t segments_for_bytes(const Params &params, std::int64_t segment_bytes) {
  const std::int64_t bytes = params.count * std::max<std::int64_t>(1, params.element_bytes);
  return segment_count_for(params, params.count, (bytes + segment_bytes - 1) / segment_bytes);
}

TreeNode chain_tree(int procs, int root, int rank, bool in_rank_order) {
  TreeNode node;
  if (!in_rank_order) {
    const int v = (rank - root + procs) % procs;
    if (v > 0) node.parent = (rank - 1 + procs) % procs;
    if (v + 1 < procs) node.children.push_back({(rank + 1) % procs, Combine::left});
    return node;
  }
  if (rank < root) {
    node.parent = rank + 1;
    if (rank > 0) node.children.push_back({rank - 1, Combine::left});
  } else if (rank > root) {
    node.parent = rank - 1;
    if (rank + 1 < procs) node.children.push_back({rank + 1, Combine::right});
  } else {
    if (root > 0) node.children.push_back({root - 1, Combine::left});
    if (root + 1 < procs) node.children.push_back({root + 1, Combine::right});
    // The shorter chain's first segment arrives first.
    if (node.children.size() == 2 && procs - 1 - root < root) std::swap(node.children[0], node.children[1]);
  }
  return node;
}

TreeNode binary_tree(int procs, int root, int rank) {
  // Descend from the root to `rank`, narrowing the range [lo, hi] that the
  // current subtree covers.
  int lo = 0, hi = procs - 1, node_rank = root, parent = -1;
  auto middle = [](int a, int b) { return a + (b - a) / 2; };
  while (node_rank != rank) {
    parent = node_rank;
    if (rank < node_rank) {
      hi = node_rank - 1;
    } else {
      lo = node_rank + 1;
    }
    node_rank = middle(lo, hi);
  }
  TreeNode node;
  node.parent = parent;
  const int lower_size = rank - lo, upper_size = hi - rank;
  if (lower_size > 0) node.children.push_back({middle(lo, rank - 1), Combine::left});
  if (upper_size > 0) node.children.push_back({middle(rank + 1, hi), Combine::right});
  // The smaller subtree is ready first.
  if (node.children.size() == 2 && lower_size > upper_size) std::swap(node.children[0], node.children[1]);
  return node;
}

TreeNode binomial_tree(int procs, int root, int rank, bool in_rank_order) {
  if (!in_rank_order) {
    const int v = (rank - root + procs) % procs;
    TreeNode node = directed_binomial(0, procs, +1, v);
    if (node.parent >= 0) node.parent = (node.parent + root) % procs;
    for (TreeChild &child : node.children) child = {(child.rank + root) % procs, Combine::left};
    return node;
  }
  // The side holding more ranks (root included) is the main binomial tree;
  // the other side hangs off the root as one subtree rooted next to it.
  const int lower_size = root, upper_size = procs - 1 - root;
  const bool main_grows_up = upper_size >= lower_size;
  const int main_direction = main_grows_up ? +1 : -1;
  const int main_size = (main_grows_up ? upper_size : lower_size) + 1;
  const int side_size = main_grows_up ? lower_size : upper_size;
  const int side_top = root - main_direction;  // the side tree's root
  const bool in_main = main_grows_up ? rank >= root : rank <= root;
  if (!in_main) {
    TreeNode node = directed_binomial(side_top, side_size, -main_direction, rank);
    if (rank == side_top) node.parent = root;
    return node;
  }
  TreeNode node = directed_binomial(root, main_size, main_direction, rank);
  if (rank == root && side_size > 0) {
    // The side subtree is complete after ⌈log2 side_size⌉ rounds; receive
    // it after as many main children.
    const TreeChild side{side_top, main_grows_up ? Combine::left : Combine::right};
    const auto at = std::min<std::size_t>(static_cast<std::size_t>(ceil_log2(side_size)), node.children.size());
    node.children.insert(node.children.begin() + static_cast<std::ptrdiff_t>(at), side);
  }
  return node;
}

Program tree_reduce(const Params &params, int rank, const TreeNode &node, std::int64_t segments) {
  const std::int64_t n = params.count;
  Program program{rank, params.procs, 0, {}};
  if (n == 0) return program;
  const bool is_root = node.parent < 0;
  const std::int64_t segment_total = std::clamp<std::int64_t>(segments, 1, n);
  auto segment = [&](Buffer buffer, std::int64_t k) {
    const Span s = segment_span(n, segment_total, k);
    return Region{buffer, s.offset, s.count};
  };
  if (node.children.empty()) {
    if (is_root) {
      add_step(program, {copy_op(send_buf(0, n), recv_buf(0, n))});
    } else {
      for (std::int64_t k = 0; k < segment_total; ++k)
        add_step(program, {send_op(node.parent, segment(Buffer::send, k))});
    }
    return program;
  }
  const Buffer acc = is_root ? Buffer::recv : Buffer::scratch;
  if (!is_root) program.scratch_count = n;
  for (std::int64_t k = 0; k < segment_total; ++k) {
    for (std::size_t c = 0; c < node.children.size(); ++c) {
      std::vector<Op> ops;
      if (c == 0) {
        // Own contribution first; at the root under MPI_IN_PLACE this is a
        // copy onto itself and the send segment is read before it is combined into.
        ops.push_back(copy_op(segment(Buffer::send, k), segment(acc, k)));
        if (!is_root && k > 0) ops.push_back(send_op(node.parent, segment(acc, k - 1)));
      }
      ops.push_back(recv_op(node.children[c].rank, segment(acc, k), node.children[c].side));
      add_step(program, std::move(ops));
    }
  }
  if (!is_root) add_step(program, {send_op(node.parent, segment(acc, segment_total - 1))});
  return program;
}

Program tree_bcast(const Params &params, int rank, const TreeNode &node, std::int64_t segments) {
  const std::int64_t n = params.count;
  Program program{rank, params.procs, 0, {}};
  if (n == 0) return program;
  const std::int64_t segment_total = std::clamp<std::int64_t>(segments, 1, n);
  auto segment = [&](std::int64_t k) {
    const Span s = segment_span(n, segment_total, k);
    return recv_buf(s.offset, s.count);
  };
  const bool is_root = node.parent < 0;
  if (node.children.empty()) {
    if (is_root) return program;
    std::vector<Op> ops;
    for (std::int64_t k = 0; k < segment_total; ++k) ops.push_back(recv_op(node.parent, segment(k)));
    add_step(program, std::move(ops));
    return program;
  }
  // Segment k to each child in its own step (largest subtree first: the
  // reverse of the reduce's receive order), so the sends leave in that
  // order; the receive of segment k+1 rides in the first of them.
  if (!is_root) add_step(program, {recv_op(node.parent, segment(0))});
  for (std::int64_t k = 0; k < segment_total; ++k) {
    bool first = true;
    for (auto child = node.children.rbegin(); child != node.children.rend(); ++child, first = false) {
      std::vector<Op> ops{send_op(child->rank, segment(k))};
      if (first && !is_root && k + 1 < segment_total) ops.push_back(recv_op(node.parent, segment(k + 1)));
      add_step(program, std::move(ops));
    }
  }
  return program;
}

ChainOrder chain_order(std::vector<int> order) {
  ChainOrder chain{std::move(order), {}};
  chain.position.assign(chain.order.size(), -1);
  for (std::size_t i = 0; i < chain.order.size(); ++i) chain.position[chain.order[i]] = static_cast<int>(i);
  return chain;
}

ChainLink chain_link(const ChainOrder &chain, int rank) {
  ChainLink link;
  const int i = chain.position[rank];
  link.position = i;
  if (i > 0) link.previous = chain.order[i - 1];
  if (i + 1 < static_cast<int>(chain.order.size())) link.next = chain.order[i + 1];
  return link;
}

ChainLink chain_link(const std::vector<int> &order, int rank) { return chain_link(chain_order(order), rank); }

Program chain_allreduce(const Params &params, int rank, const ChainLink &link, std::int64_t segments) {
  const std::int64_t n = params.count;
  Program program{rank, params.procs, 0, {}};
  if (n == 0) return program;
  if (params.procs == 1) {
    add_step(program, {copy_op(send_buf(0, n), recv_buf(0, n))}, 0);
    return program;
  }
  const std::int64_t segment_total = std::clamp<std::int64_t>(segments, 1, n);
  auto segment = [&](Buffer buffer, std::int64_t k) {
    const Span s = segment_span(n, segment_total, k);
    return Region{buffer, s.offset, s.count};
  };
  const std::int64_t i = link.position, last = params.procs - 1;
  const bool first = link.previous < 0, is_last = link.next < 0;
  // (round, ops) events for every segment, merged into steps by round.
  struct Event {
    std::int64_t round;
    int order;
    Op op;
  };
  std::vector<Event> events;
  for (std::int64_t k = 0; k < segment_total; ++k) {
    if (!first) {  // reduce: own segment, combined with the partial from before
      events.push_back({k + i - 1, 0, copy_op(segment(Buffer::send, k), segment(Buffer::recv, k))});
      events.push_back({k + i - 1, 1, recv_op(link.previous, segment(Buffer::recv, k), Combine::left)});
    }
    if (!is_last) {
      events.push_back({k + i, 2, send_op(link.next, segment(first ? Buffer::send : Buffer::recv, k))});
      events.push_back({k + 2 * last - 1 - i, 3, recv_op(link.next, segment(Buffer::recv, k), Combine::store)});
      if (!first) events.push_back({k + 2 * last - i, 4, send_op(link.previous, segment(Buffer::recv, k))});
    } else {
      events.push_back({k + last, 4, send_op(link.previous, segment(Buffer::recv, k))});
    }
  }
  std::sort(events.begin(), events.end(),
            [](const Event &a, const Event &b) { return a.round != b.round ? a.round < b.round : a.order < b.order; });
  for (std::size_t e = 0; e < events.size();) {
    std::vector<Op> ops;
    const std::int64_t round = events[e].round;
    for (; e < events.size() && events[e].round == round; ++e) ops.push_back(events[e].op);
    add_step(program, std::move(ops), static_cast<int>(round));
  }
  return program;
}

}  // namespace patcoll::core
