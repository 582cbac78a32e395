// bcast/reactive — segmented chain from the root in arrival order
// (builders/reactive.hpp).
#include <algorithm>

#include "../bcast.hpp"
#include "../reactive.hpp"
#include "../tree.hpp"

namespace patcoll::core {
namespace {

double arrival_of(const Params &params, int rank) {
  return params.arrivals.size() == static_cast<std::size_t>(params.procs) ? params.arrivals[rank] : 0.0;
}

}  // namespace

std::int64_t bcast_reactive_segments(const Params &params) {
  if (params.count == 0) return 0;
  return std::clamp<std::int64_t>(segments_for_bytes(params, kDefaultSegmentBytes), 1, params.count);
}

ArrivalLinks bcast_reactive_links_of(const Params &params, const std::vector<int> &chain, int rank) {
  ArrivalLinks links;
  if (rank == params.root) {
    links.next = chain.empty() ? -1 : chain.front();
    return links;
  }
  const std::size_t k = static_cast<std::size_t>(std::find(chain.begin(), chain.end(), rank) - chain.begin());
  links.previous = k == 0 ? params.root : chain[k - 1];
  links.next = k + 1 == chain.size() ? -1 : chain[k + 1];
  if (links.next < 0) return links;
  // What the mechanism would observe: the segments this rank holds when
  // its successor's "I am here" comes (a rough model of the chain's
  // timing under Params::cost; any value in [1, S] gives a correct
  // Program, this one makes the simulated run follow the observed one).
  const std::int64_t segments = bcast_reactive_segments(params);
  if (segments <= 1) return links;
  const CostModel &cost = params.cost;
  const double segment_bytes =
      static_cast<double>(params.count * std::max<std::int64_t>(1, params.element_bytes)) / static_cast<double>(segments);
  const double tau = cost.transfer_time(segment_bytes);
  const double root_at = arrival_of(params, params.root);
  std::vector<double> hold(static_cast<std::size_t>(segments)), ahead(hold.size());
  const double start = std::max(root_at, arrival_of(params, chain.front()) + cost.alpha) + cost.alpha;
  for (std::int64_t s = 0; s < segments; ++s) hold[s] = start + static_cast<double>(s + 1) * tau;
  std::int64_t held = 1;
  for (std::size_t i = 1; i <= k + 1; ++i) {
    // chain[i - 1] holds `hold`; chain[i] says it is there at `learn`.
    const double learn = std::max(root_at, arrival_of(params, chain[i])) + 3 * cost.alpha;
    held = std::clamp<std::int64_t>(std::count_if(hold.begin(), hold.end(), [&](double t) { return t <= learn; }), 1,
                                    segments);
    if (i == k + 1) break;
    ahead.swap(hold);
    const double from = std::max(learn, ahead[held - 1]) + cost.alpha;
    for (std::int64_t s = 0; s < held; ++s) hold[s] = from + static_cast<double>(s + 1) * segment_bytes * cost.beta;
    for (std::int64_t s = held; s < segments; ++s) hold[s] = std::max(ahead[s], hold[s - 1]) + tau;
  }
  links.held = held;
  return links;
}

Program bcast_reactive_links(const Params &params, int rank, const ArrivalLinks &links, bool control,
                             const std::vector<int> &chain) {
  Program program{rank, params.procs, 0, {}};
  const std::int64_t n = params.count;
  if (n == 0 || params.procs == 1) return program;
  const std::int64_t segments = bcast_reactive_segments(params);
  const std::vector<Span> spans = segment_spans(params, n, segments);
  const std::int64_t total = static_cast<std::int64_t>(spans.size());
  auto segment = [&](std::int64_t s) { return recv_buf(spans[s].offset, spans[s].count); };
  // Control messages (zero elements, latency only; mpi/reactive.hpp).
  const Region none = recv_buf(0, 0);
  const bool is_root = rank == params.root;
  if (is_root) {
    if (control && !chain.empty()) {
      add_step(program, {recv_op(chain.front(), none)});
      add_step(program, {send_op(chain.front(), none)});
    }
    if (links.next >= 0)
      for (std::int64_t s = 0; s < total; ++s) add_step(program, {send_op(links.next, segment(s))});
    if (control)
      for (std::size_t i = 1; i < chain.size(); ++i) {
        add_step(program, {recv_op(chain[i], none)});
        add_step(program, {send_op(chain[i], none)});
      }
    return program;
  }
  const bool first = links.previous == params.root;
  if (control) {
    if (first) {
      add_step(program, {send_op(params.root, none)});
      add_step(program, {recv_op(params.root, none)});
    } else {
      add_step(program, {send_op(links.previous, none)});
    }
  }
  if (links.next < 0) {  // the last in line: every segment in one step
    std::vector<Op> ops;
    for (std::int64_t s = 0; s < total; ++s) ops.push_back(recv_op(links.previous, segment(s)));
    add_step(program, std::move(ops));
  } else {
    // Before the successor is known: receive only, one segment per step.
    // Then the segments held go on in one step, the rest pipelined.
    const std::int64_t held =
        links.next == kUnknownPeer ? total : std::clamp<std::int64_t>(links.held, 1, total);
    for (std::int64_t s = 0; s < held; ++s) add_step(program, {recv_op(links.previous, segment(s))});
    if (control) add_step(program, {recv_op(links.next, none)});
    std::vector<Op> ops;
    for (std::int64_t s = 0; s < held; ++s) ops.push_back(send_op(links.next, segment(s)));
    if (held < total) ops.push_back(recv_op(links.previous, segment(held)));
    add_step(program, std::move(ops));
    for (std::int64_t s = held; s < total; ++s) {
      std::vector<Op> step{send_op(links.next, segment(s))};
      if (s + 1 < total) step.push_back(recv_op(links.previous, segment(s + 1)));
      add_step(program, std::move(step));
    }
  }
  if (control && !first) {
    add_step(program, {send_op(params.root, none)});
    add_step(program, {recv_op(params.root, none)});
  }
  return program;
}

Program bcast_reactive_links(const Params &params, int rank, const ArrivalLinks &links, bool control) {
  return bcast_reactive_links(params, rank, links, control, control ? reactive_chain(params) : std::vector<int>{});
}

Program bcast_reactive(const Params &params, int rank) {
  const std::vector<int> chain = reactive_chain(params);
  return bcast_reactive_links(params, rank, bcast_reactive_links_of(params, chain, rank), true, chain);
}

}  // namespace patcoll::core
