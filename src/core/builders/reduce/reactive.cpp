// reduce/reactive — segmented chain in arrival order (builders/reactive.hpp).
#include "../reactive.hpp"

#include <algorithm>

#include "../pap.hpp"
#include "../tree.hpp"

namespace patcoll::core {

std::vector<int> reactive_chain(const Params &params) {
  std::vector<int> chain;
  chain.reserve(static_cast<std::size_t>(std::max(0, params.procs - 1)));
  for (int rank : arrival_order(params))
    if (rank != params.root) chain.push_back(rank);
  return chain;
}

ArrivalLinks reactive_links(const Params &params, const std::vector<int> &chain, int rank) {
  ArrivalLinks links;
  if (rank == params.root) {
    links.previous = chain.empty() ? -1 : chain.back();
    return links;
  }
  const auto at = std::find(chain.begin(), chain.end(), rank);
  const std::size_t k = static_cast<std::size_t>(at - chain.begin());
  links.previous = k == 0 ? -1 : chain[k - 1];
  links.next = k + 1 == chain.size() ? params.root : chain[k + 1];
  return links;
}

std::size_t known_steps(const Program &program) {
  for (std::size_t s = 0; s < program.steps.size(); ++s)
    for (const Op &op : program.steps[s].ops)
      if (op.kind != OpKind::local && op.peer == kUnknownPeer) return s;
  return program.steps.size();
}

Program reduce_reactive_links(const Params &params, int rank, const ArrivalLinks &links, bool control,
                              const std::vector<int> &chain) {
  const bool is_root = rank == params.root;
  TreeNode node;
  node.parent = is_root ? -1 : links.next;
  if (links.previous >= 0) node.children.push_back({links.previous, Combine::left});
  Program data = tree_reduce(params, rank, node, segments_for_bytes(params, kDefaultSegmentBytes));
  if (!control || params.count == 0) return data;
  // Control messages are modelled as zero-element messages (latency
  // only): zero elements of the send buffer (sent) and of the receive
  // buffer (received). The mechanism (mpi/reactive.hpp): every non-root
  // says hello to the root, which answers in arrival order with the
  // predecessor; a rank then tells its predecessor it is there.
  const Region none_out = send_buf(0, 0), none_in = recv_buf(0, 0);
  Program program{rank, params.procs, data.scratch_count, {}};
  if (is_root) {
    for (int r : chain) {
      add_step(program, {recv_op(r, none_in)});
      add_step(program, {send_op(r, none_out)});
    }
    for (Step &step : data.steps) program.steps.push_back(std::move(step));
    return program;
  }
  add_step(program, {send_op(params.root, none_out)});
  add_step(program, {recv_op(params.root, none_in)});
  if (links.previous >= 0) add_step(program, {send_op(links.previous, none_out)});
  // The successor's message comes before the first step that sends to it.
  bool told = links.next == params.root;
  for (Step &step : data.steps) {
    const bool names_next = std::any_of(step.ops.begin(), step.ops.end(),
                                        [&](const Op &op) { return op.kind == OpKind::send && op.peer == links.next; });
    if (names_next && !told) {
      add_step(program, {recv_op(links.next, none_in)});
      told = true;
    }
    program.steps.push_back(std::move(step));
  }
  return program;
}

Program reduce_reactive_links(const Params &params, int rank, const ArrivalLinks &links, bool control) {
  return reduce_reactive_links(params, rank, links, control, control ? reactive_chain(params) : std::vector<int>{});
}

Program reduce_reactive(const Params &params, int rank) {
  const std::vector<int> chain = reactive_chain(params);
  return reduce_reactive_links(params, rank, reactive_links(params, chain, rank), true, chain);
}

}  // namespace patcoll::core
