// allreduce/reactive_owners — the first ranks to arrive own the blocks,
// the later ones only send their data and receive the result
// (builders/reactive.hpp).
#include <algorithm>

#include "../reactive.hpp"

namespace patcoll::core {

int reactive_owners_count(int procs) { return procs <= 1 ? procs : procs - (procs + 3) / 4; }

std::int64_t reactive_owners_stages(const Params &params, int owners) {
  const std::int64_t block = owners > 0 ? (params.count + owners - 1) / owners : params.count;
  const std::int64_t bytes = block * std::max<std::int64_t>(1, params.element_bytes);
  // ~8 KiB per message, at most 16 stages; Params::segment_* overrides.
  const std::int64_t fallback = std::clamp<std::int64_t>((bytes + 8 * 1024 - 1) / (8 * 1024), 1, 16);
  return segment_count_for(params, block, fallback);
}

Program allreduce_reactive_owners_order(const Params &params, int rank, const std::vector<int> &order, bool control) {
  const std::int64_t n = params.count;
  const int procs = params.procs;
  Program program{rank, procs, 0, {}};
  if (procs <= 1) {
    if (n > 0) add_step(program, {copy_op(send_buf(0, n), recv_buf(0, n))});
    return program;
  }
  const int owners = reactive_owners_count(procs);
  const std::int64_t stages = reactive_owners_stages(params, owners);
  const int position = static_cast<int>(std::find(order.begin(), order.end(), rank) - order.begin());
  auto block = [&](Buffer buffer, int q) {
    const Span s = block_span(n, owners, q);
    return Region{buffer, s.offset, s.count};
  };
  auto part = [&](Buffer buffer, int q, std::int64_t s) {
    const Span b = block_span(n, owners, q), p = block_span(b.count, stages, s);
    return Region{buffer, b.offset + p.offset, p.count};
  };
  const Region none_out = send_buf(0, 0), none_in = recv_buf(0, 0);
  auto at = [&](int p) { return order[static_cast<std::size_t>(p)]; };
  const int coordinator = at(0);

  if (position >= owners) {  // late: sends its parts, receives the results one stage behind
    if (control) add_step(program, {send_op(coordinator, none_out), recv_op(coordinator, none_in)});  // hello, answer
    for (std::int64_t s = 0; s <= stages; ++s) {
      std::vector<Op> ops;
      for (int o = 0; o < owners; ++o)
        if (s < stages && part(Buffer::send, o, s).count > 0) ops.push_back(send_op(at(o), part(Buffer::send, o, s)));
      for (int o = 0; o < owners; ++o)
        if (s > 0 && part(Buffer::recv, o, s - 1).count > 0) ops.push_back(recv_op(at(o), part(Buffer::recv, o, s - 1)));
      add_step(program, std::move(ops), static_cast<int>(1 + s));
    }
    return program;
  }

  // An owner. Control (modelled): the coordinator (position 0) answers the owners' hellos, then
  // sends them the owners (once the last has come); it answers the late
  // ranks' hellos during its exchange and sends the owners the whole order
  // with its first stage.
  const int q = position;
  if (control) {
    std::vector<Op> hellos, owners_known;
    for (int o = 1; o < owners; ++o) {
      if (q == 0) {
        hellos.push_back(recv_op(at(o), none_in));
        hellos.push_back(send_op(at(o), none_out));
        owners_known.push_back(send_op(at(o), none_out));
      }
    }
    if (q > 0) {
      hellos = {send_op(coordinator, none_out), recv_op(coordinator, none_in)};
      owners_known = {recv_op(coordinator, none_in)};
    }
    add_step(program, std::move(hellos));
    add_step(program, std::move(owners_known));
  }
  std::vector<Op> exchange;  // the owners' reduce-scatter of their own data
  if (block(Buffer::recv, q).count > 0) exchange.push_back(copy_op(block(Buffer::send, q), block(Buffer::recv, q)));
  if (control && q == 0)
    for (int p = owners; p < procs; ++p) {
      exchange.push_back(recv_op(at(p), none_in));
      exchange.push_back(send_op(at(p), none_out));
    }
  for (int o = 0; o < owners; ++o)
    if (o != q && block(Buffer::send, o).count > 0) exchange.push_back(send_op(at(o), block(Buffer::send, o)));
  for (int o = 0; o < owners; ++o)
    if (o != q && block(Buffer::recv, q).count > 0) exchange.push_back(recv_op(at(o), block(Buffer::recv, q), Combine::left));
  add_step(program, std::move(exchange), 0);
  if (control && q > 0) add_step(program, {recv_op(coordinator, none_in)});  // the whole order
  for (std::int64_t s = 0; s <= stages; ++s) {
    std::vector<Op> ops;
    if (control && q == 0 && s == 0)
      for (int o = 1; o < owners; ++o) ops.push_back(send_op(at(o), none_out));
    for (int p = owners; p < procs && s < stages; ++p)
      if (part(Buffer::recv, q, s).count > 0) ops.push_back(recv_op(at(p), part(Buffer::recv, q, s), Combine::left));
    if (s > 0) {
      for (int p = 0; p < procs; ++p)
        if (p != q && part(Buffer::recv, q, s - 1).count > 0) ops.push_back(send_op(at(p), part(Buffer::recv, q, s - 1)));
      for (int o = 0; o < owners; ++o)
        if (o != q && part(Buffer::recv, o, s - 1).count > 0) ops.push_back(recv_op(at(o), part(Buffer::recv, o, s - 1)));
    }
    add_step(program, std::move(ops), static_cast<int>(1 + s));
  }
  return program;
}

Program allreduce_reactive_owners(const Params &params, int rank) {
  return allreduce_reactive_owners_order(params, rank, alltoall_reactive_order(params), true);
}

}  // namespace patcoll::core
