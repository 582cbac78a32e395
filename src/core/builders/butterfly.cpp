// Butterfly engine; see butterfly.hpp. Round numbers: 0 fold, 1 … r the
// reduce-scatter (or exchange), r+1 … 2r the gather/allgather, 2r+1 unfold.
#include "butterfly.hpp"

#include <algorithm>
#include <utility>

#include "../cost.hpp"
#include "../layout.hpp"

namespace patcoll::core {

Butterfly::Butterfly(int procs_, int rank_, std::vector<int> radix_, int keep_)
    : procs(procs_), rank(rank_), radix(std::move(radix_)), keep(keep_) {
  members = 1;
  for (int k : radix) members *= k;
  extras = procs - members;
  if (keep >= 0) target = member_index(keep);
}

int Butterfly::piece_for_digit(int d, int round) const {
  if (target < 0) return d;
  const int k = radix[static_cast<std::size_t>(round)];
  return (d - digit(target, round) + k) % k;
}

bool Butterfly::folds_away(int r) const {
  if (r >= 2 * extras) return false;
  const int even = r & ~1;
  const int dropped = keep == even ? even + 1 : even;
  return r == dropped;
}

int Butterfly::fold_partner(int r) const { return r < 2 * extras ? (r ^ 1) : -1; }

int Butterfly::member_index(int r) const {
  if (r >= 2 * extras) return r - extras;
  return folds_away(r) ? -1 : r / 2;
}

int Butterfly::member_rank(int index) const {
  if (index >= extras) return index + extras;
  return folds_away(2 * index) ? 2 * index + 1 : 2 * index;
}

int Butterfly::stride(int round) const {
  int s = 1;
  for (int i = 0; i < round; ++i) s *= radix[static_cast<std::size_t>(i)];
  return s;
}

int Butterfly::digit(int index, int round) const {
  return (index / stride(round)) % radix[static_cast<std::size_t>(round)];
}

Span Butterfly::slice(int index, int rounds, std::int64_t count) const {
  Span s{0, count};
  for (int i = 0; i < rounds; ++i) {
    const Span piece = block_span(s.count, radix[static_cast<std::size_t>(i)], piece_for_digit(digit(index, i), i));
    s = {s.offset + piece.offset, piece.count};
  }
  return s;
}

std::vector<int> power_of_two_radix(int procs) {
  std::vector<int> radix;
  for (int q = 2; q <= procs; q *= 2) radix.push_back(2);
  return radix;
}

std::vector<int> default_radix(int procs) {
  auto smooth_part = [](int q, std::vector<int> &odd) {
    for (int p : {3, 5, 7})
      while (q % p == 0) {
        q /= p;
        odd.push_back(p);
      }
    return q;  // the power-of-two part when q is 7-smooth
  };
  int q = procs;
  std::vector<int> odd;
  for (;; --q) {
    odd.clear();
    const int rest = smooth_part(q, odd);
    if ((rest & (rest - 1)) == 0) break;
  }
  int twos = 0;
  for (int rest = q; rest % 2 == 0; rest /= 2) ++twos;
  std::vector<int> radix;
  if (twos == 1) {
    radix.push_back(2);
  } else if (twos > 1) {
    // Fewest parts of 2 or 3 bits each: 4s first, then 8s.
    const int parts = (twos + 2) / 3, eights = twos - 2 * parts, fours = parts - eights;
    radix.insert(radix.end(), static_cast<std::size_t>(fours), 4);
    radix.insert(radix.end(), static_cast<std::size_t>(eights), 8);
  }
  radix.insert(radix.end(), odd.begin(), odd.end());
  return radix;
}

std::vector<int> radix_for(const Params &params) {
  // An invalid radix never reaches a builder through dispatch
  // (unsupported_reason); direct callers get the default.
  if (!params.radix.empty() && valid_radix(params.radix, params.procs)) return params.radix;
  return default_radix(params.procs);
}

namespace {

Region region(Buffer buffer, Span s) { return Region{buffer, s.offset, s.count}; }

// Pieces [first, last) of member `index`'s slice before round `round`, as
// one span (pieces are numbered as piece_for_digit numbers them).
Span pieces_of(const Butterfly &b, int index, int round, int first, int last, std::int64_t count) {
  const Span s = b.slice(index, round, count);
  const int k = b.radix[static_cast<std::size_t>(round)];
  const Span begin = block_span(s.count, k, first), end = block_span(s.count, k, last - 1);
  return {s.offset + begin.offset, end.offset + end.count - begin.offset};
}
// The piece that the member with digit `digit` keeps.
Span piece_of(const Butterfly &b, int index, int round, int digit, std::int64_t count) {
  const int piece = b.piece_for_digit(digit, round);
  return pieces_of(b, index, round, piece, piece + 1, count);
}

// Visits the other members of `index`'s group in round `round`,
// nearest first: digit d−1, d+1, d−2, d+2, …
template <class Visit>
void for_each_peer(const Butterfly &b, int index, int round, Visit visit) {
  const int k = b.radix[static_cast<std::size_t>(round)], d = b.digit(index, round), stride = b.stride(round);
  for (int distance = 1; distance < k; ++distance)
    for (int m : {d - distance, d + distance})
      if (m >= 0 && m < k) visit(m, b.member_rank(index + (m - d) * stride), m < d ? Combine::left : Combine::right);
}

// Round 0: extras send their vector to their partner, which combines it.
// Every member starts its accumulator with its own vector.
void append_fold(Program &program, const Butterfly &b, Buffer acc, std::int64_t n) {
  if (b.folds_away(b.rank)) {
    add_step(program, {send_op(b.fold_partner(b.rank), send_buf(0, n))}, 0);
    return;
  }
  std::vector<Op> ops{copy_op(send_buf(0, n), Region{acc, 0, n})};
  const int partner = b.fold_partner(b.rank);
  if (partner >= 0) ops.push_back(recv_op(partner, Region{acc, 0, n}, partner < b.rank ? Combine::left : Combine::right));
  add_step(program, std::move(ops), 0);
}

void append_reduce_scatter(Program &program, const Butterfly &b, Buffer acc, std::int64_t n) {
  const int index = b.member_index(b.rank);
  for (int round = 0; round < static_cast<int>(b.radix.size()); ++round) {
    const int d = b.digit(index, round);
    const Span keep = piece_of(b, index, round, d, n);
    std::vector<Op> ops;
    for_each_peer(b, index, round, [&](int m, int peer, Combine side) {
      const Span give = piece_of(b, index, round, m, n);
      if (give.count > 0) ops.push_back(send_op(peer, region(acc, give)));
      if (keep.count > 0) ops.push_back(recv_op(peer, region(acc, keep), side));
    });
    add_step(program, std::move(ops), 1 + round);
  }
}

void append_allgather(Program &program, const Butterfly &b, Buffer acc, std::int64_t n) {
  const int index = b.member_index(b.rank), rounds = static_cast<int>(b.radix.size());
  for (int round = rounds - 1; round >= 0; --round) {
    const Span mine = piece_of(b, index, round, b.digit(index, round), n);
    std::vector<Op> ops;
    for_each_peer(b, index, round, [&](int m, int peer, Combine) {
      const Span theirs = piece_of(b, index, round, m, n);
      if (mine.count > 0) ops.push_back(send_op(peer, region(acc, mine)));
      if (theirs.count > 0) ops.push_back(recv_op(peer, region(acc, theirs), Combine::store));
    });
    add_step(program, std::move(ops), 1 + rounds + (rounds - 1 - round));
  }
}

// Gather toward member `target`: the rounds reversed; in each, a binomial
// tree over v = piece number (the target's side holds piece 0) collects
// the group's slice — v receives pieces [v + 2^j, v + 2^(j+1)) from v + 2^j,
// smallest first, then sends [v, v + lowbit(v)) to v − lowbit(v).
void append_gather(Program &program, const Butterfly &b, Buffer acc, std::int64_t n, int target) {
  const int index = b.member_index(b.rank), rounds = static_cast<int>(b.radix.size());
  int step_round = 1 + rounds;
  for (int round = rounds - 1; round >= 0; --round) {
    const int k = b.radix[static_cast<std::size_t>(round)], stride = b.stride(round);
    const int d = b.digit(index, round), v = b.piece_for_digit(d, round), target_digit = b.digit(target, round);
    auto member_with_piece = [&](int piece) {
      return b.member_rank(index + ((piece + target_digit) % k - d) * stride);
    };
    const int subtree = v == 0 ? k : (v & -v);
    int sub_round = 0;
    for (int mask = 1; mask < subtree && v + mask < k; mask <<= 1, ++sub_round) {
      const Span in = pieces_of(b, index, round, v + mask, std::min(v + 2 * mask, k), n);
      if (in.count > 0) add_step(program, {recv_op(member_with_piece(v + mask), region(acc, in), Combine::store)},
                                 step_round + sub_round);
    }
    if (v != 0) {
      while ((1 << sub_round) < subtree) ++sub_round;
      const Span out = pieces_of(b, index, round, v, std::min(v + subtree, k), n);
      if (out.count > 0) add_step(program, {send_op(member_with_piece(v - subtree), region(acc, out))}, step_round + sub_round);
      return;  // done: the rest of the gather happens above this member
    }
    step_round += ceil_log2(k);
  }
}

// Whole-vector exchange in every round (recursive doubling for k = 2).
void append_exchange(Program &program, const Butterfly &b, Buffer acc, std::int64_t n) {
  const int index = b.member_index(b.rank);
  for (int round = 0; round < static_cast<int>(b.radix.size()); ++round) {
    std::vector<Op> ops;
    for_each_peer(b, index, round, [&](int, int peer, Combine side) {
      ops.push_back(send_op(peer, Region{acc, 0, n}));
      ops.push_back(recv_op(peer, Region{acc, 0, n}, side));
    });
    add_step(program, std::move(ops), 1 + round);
  }
}

// Last round: kept ranks send the result to the extra of their pair.
void append_unfold(Program &program, const Butterfly &b, std::int64_t n, int round) {
  const int partner = b.fold_partner(b.rank);
  if (partner < 0) return;
  if (b.folds_away(b.rank))
    add_step(program, {recv_op(partner, recv_buf(0, n), Combine::store)}, round);
  else
    add_step(program, {send_op(partner, recv_buf(0, n))}, round);
}

}  // namespace

Program butterfly_reduce(const Params &params, int rank, std::vector<int> radix) {
  const std::int64_t n = params.count;
  Program program{rank, params.procs, 0, {}};
  if (n == 0) return program;
  const Butterfly b(params.procs, rank, std::move(radix), params.root);
  const Buffer acc = rank == params.root ? Buffer::recv : Buffer::scratch;
  append_fold(program, b, acc, n);
  if (b.folds_away(rank)) return program;
  if (acc == Buffer::scratch) program.scratch_count = n;
  append_reduce_scatter(program, b, acc, n);
  append_gather(program, b, acc, n, b.member_index(params.root));
  return program;
}

namespace {

// Fold, the middle rounds (reduce-scatter + allgather, or whole-vector
// exchanges), unfold.
Program allreduce_over(const Params &params, int rank, std::vector<int> radix, bool exchange_whole_vectors) {
  const std::int64_t n = params.count;
  Program program{rank, params.procs, 0, {}};
  if (n == 0) return program;
  const Butterfly b(params.procs, rank, std::move(radix), -1);
  append_fold(program, b, Buffer::recv, n);
  if (!b.folds_away(rank) && exchange_whole_vectors) append_exchange(program, b, Buffer::recv, n);
  if (!b.folds_away(rank) && !exchange_whole_vectors) {
    append_reduce_scatter(program, b, Buffer::recv, n);
    append_allgather(program, b, Buffer::recv, n);
  }
  append_unfold(program, b, n, 1 + 2 * static_cast<int>(b.radix.size()));
  return program;
}

}  // namespace

Program butterfly_allreduce(const Params &params, int rank, std::vector<int> radix) {
  return allreduce_over(params, rank, std::move(radix), false);
}

Program exchange_allreduce(const Params &params, int rank, std::vector<int> radix) {
  return allreduce_over(params, rank, std::move(radix), true);
}

namespace {

// The blocks of members [first, last) as one region of the receive buffer:
// member_rank increases with the index and a kept rank of a pair stands for
// both ranks of the pair, so the ranks form one contiguous range.
Region member_blocks(const Butterfly &b, const Params &params, int first, int last) {
  const int lowest = first < b.extras ? 2 * first : first + b.extras;
  const int highest = last - 1 < b.extras ? 2 * (last - 1) + 1 : last - 1 + b.extras;
  const std::int64_t begin = block_offset(params, lowest);
  return recv_buf(begin, block_offset(params, highest + 1) - begin);
}

}  // namespace

Program butterfly_allgather(const Params &params, int rank, std::vector<int> radix) {
  Program program{rank, params.procs, 0, {}};
  const std::int64_t whole = total(params);
  if (whole == 0) return program;
  const Butterfly b(params.procs, rank, std::move(radix), -1);
  const int rounds = static_cast<int>(b.radix.size());
  const std::int64_t mine = block_count(params, rank);
  const Region own = recv_buf(block_offset(params, rank), mine);
  std::vector<Op> first;
  if (mine > 0) first.push_back(copy_op(send_buf(0, mine), own));
  const int partner = b.fold_partner(rank);
  if (b.folds_away(rank)) {
    if (mine > 0) first.push_back(send_op(partner, send_buf(0, mine)));
    add_step(program, std::move(first), 0);
    add_step(program, {recv_op(partner, recv_buf(0, whole), Combine::store)}, 1 + rounds);
    return program;
  }
  if (partner >= 0 && block_count(params, partner) > 0)
    first.push_back(recv_op(partner, recv_buf(block_offset(params, partner), block_count(params, partner))));
  add_step(program, std::move(first), 0);
  const int index = b.member_index(rank);
  for (int round = 0; round < rounds; ++round) {
    const int stride = b.stride(round), d = b.digit(index, round);
    const int base = index - index % stride;  // my range before the round: [base, base + stride)
    const Region out = member_blocks(b, params, base, base + stride);
    std::vector<Op> ops;
    for_each_peer(b, index, round, [&](int m, int peer, Combine) {
      const int peer_base = base + (m - d) * stride;
      const Region in = member_blocks(b, params, peer_base, peer_base + stride);
      if (out.count > 0) ops.push_back(send_op(peer, out));
      if (in.count > 0) ops.push_back(recv_op(peer, in, Combine::store));
    });
    add_step(program, std::move(ops), 1 + round);
  }
  if (partner >= 0) add_step(program, {send_op(partner, recv_buf(0, whole))}, 1 + rounds);
  return program;
}

Program butterfly_reduce_scatter(const Params &params, int rank, std::vector<int> radix) {
  Program program{rank, params.procs, 0, {}};
  const std::int64_t n = total(params);
  if (n == 0) return program;
  const Butterfly b(params.procs, rank, std::move(radix), -1);
  const int rounds = static_cast<int>(b.radix.size());
  append_fold(program, b, Buffer::scratch, n);
  const std::int64_t mine = block_count(params, rank), begin = block_offset(params, rank);
  // Rank `r`'s block within member `index`'s final slice.
  auto overlap = [&](int index, int r) {
    const Span s = b.slice(index, rounds, n);
    const std::int64_t lo = std::max(s.offset, block_offset(params, r));
    const std::int64_t hi = std::min(s.offset + s.count, block_offset(params, r) + block_count(params, r));
    return Span{lo, std::max<std::int64_t>(0, hi - lo)};
  };
  std::vector<Op> ops;
  if (!b.folds_away(rank)) {
    program.scratch_count = n;
    append_reduce_scatter(program, b, Buffer::scratch, n);
    const int index = b.member_index(rank);
    for (int r = 0; r < params.procs; ++r) {
      const Span part = overlap(index, r);
      if (part.count == 0) continue;
      if (r == rank)
        ops.push_back(copy_op(scratch_buf(part.offset, part.count), recv_buf(part.offset - begin, part.count)));
      else
        ops.push_back(send_op(r, scratch_buf(part.offset, part.count)));
    }
  }
  if (mine > 0)
    for (int index = 0; index < b.members; ++index) {
      const int from = b.member_rank(index);
      const Span part = overlap(index, rank);
      if (from != rank && part.count > 0) ops.push_back(recv_op(from, recv_buf(part.offset - begin, part.count), Combine::store));
    }
  add_step(program, std::move(ops), 1 + rounds);
  return program;
}

}  // namespace patcoll::core
