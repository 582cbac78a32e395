// Symbolic execution of all ranks' Programs; see validate.hpp for what it
// proves. A value is (logical element index, set of contributing ranks);
// buffer sizes, MPI_IN_PLACE aliasing, initial values and the expected
// result come from the collective's row of core/traits.hpp. Combining checks equal indices and
// disjoint sets, so misplaced segments and double counting both show.
#include "validate.hpp"

#include "layout.hpp"
#include "traits.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <sstream>
#include <tuple>

namespace patcoll::core {
namespace {

constexpr int kStorages = 3;  // send, recv, scratch

struct Values {
  int words = 1;
  std::vector<std::int64_t> index;  // -1: never written
  std::vector<std::uint64_t> bits;  // words per element

  void resize(std::int64_t n) {
    index.assign(static_cast<std::size_t>(n), -1);
    bits.assign(static_cast<std::size_t>(n) * words, 0);
  }
  std::int64_t size() const { return static_cast<std::int64_t>(index.size()); }
  std::uint64_t *at(std::int64_t i) { return bits.data() + i * words; }
  const std::uint64_t *at(std::int64_t i) const { return bits.data() + i * words; }
};

// A region resolved to storage after MPI_IN_PLACE aliasing.
struct Place {
  int storage;
  std::int64_t offset;
  std::int64_t count;
};

struct Payload {  // a message in flight: a snapshot of the sent values
  std::vector<std::int64_t> index;
  std::vector<std::uint64_t> bits;
};

class Validator {
 public:
  Validator(const Params &params, const std::vector<Program> &programs, const ValidateOptions &options)
      : params_(params), programs_(programs), options_(options), procs_(params.procs) {}

  std::string run() {
    if (static_cast<int>(programs_.size()) != procs_) return fail("expected " + std::to_string(procs_) + " programs, got " + std::to_string(programs_.size()));
    if (params_.root < 0 || params_.root >= procs_) return fail("root out of range");
    words_ = (procs_ + 63) / 64;
    init_pairs();
    if (auto e = init_buffers(); !e.empty()) return e;
    if (auto e = static_checks(); !e.empty()) return e;
    if (auto e = match(); !e.empty()) return e;
    if (auto e = execute(); !e.empty()) return e;
    return check_result();
  }

 private:
  std::string fail(const std::string &what) const { return what; }
  std::string where(int rank, std::size_t step, std::size_t op) const {
    std::ostringstream os;
    os << "rank " << rank << " step " << step << " op " << op << ": ";
    return os.str();
  }

  std::int64_t buffer_size(int rank, Buffer b) const {
    if (b == Buffer::scratch) return programs_[rank].scratch_count;
    std::int64_t size = traits_.elements(b, rank, params_);
    // MPI_IN_PLACE at its start: the buffer also holds the aliased one
    // (reduce_scatter: recvbuf holds the whole input, the block's result
    // at its start).
    if (options_.in_place && b == traits_.into && traits_.at_block == AtBlock::start &&
        traits_.in_place_applies(rank == params_.root))
      size = std::max(size, traits_.elements(traits_.aliased, rank, params_));
    return size;
  }

  // MPI_IN_PLACE: which logical buffer maps where (core/traits.hpp).
  Place resolve(int rank, const Region &r) const {
    if (options_.in_place && r.buffer == traits_.aliased && traits_.in_place_applies(rank == params_.root))
      return {static_cast<int>(traits_.into),
              r.offset + (traits_.at_block == AtBlock::root  ? block_offset(params_, params_.root)
                          : traits_.at_block == AtBlock::own ? block_offset(params_, rank)
                                                             : 0),
              r.count};
    return {static_cast<int>(r.buffer), r.offset, r.count};
  }

  // The rank an element's contributions come from (core/traits.hpp).
  int contributor(Contributors who, int holder, std::int64_t index) const {
    switch (who) {
      case Contributors::root: return params_.root;
      case Contributors::holder: return holder;
      case Contributors::index_block: return block_owner(params_, index);
      case Contributors::pair_source: return pair_source_of(index);
      case Contributors::every_rank: break;
    }
    return -1;
  }
  std::int64_t index_of(Indexing how, int rank, std::int64_t i) const {
    switch (how) {
      case Indexing::element: return i;
      case Indexing::rank_block: return block_offset(params_, rank) + i;
      case Indexing::pairs_out: return pair_element(rank, i, true);
      case Indexing::pairs_in: return pair_element(rank, i, false);
    }
    return -1;
  }

  // All-to-all: every pair's offsets once (layout.hpp), so that an
  // element's index and source cost a binary search, not a prefix sum.
  void init_pairs() {
    if (traits_.initial_index != Indexing::pairs_out && traits_.result_index != Indexing::pairs_in) return;
    const std::size_t n = static_cast<std::size_t>(procs_);
    send_starts_.assign(n, std::vector<std::int64_t>(n + 1, 0));
    recv_starts_.assign(n, std::vector<std::int64_t>(n + 1, 0));
    pair_starts_.assign(n * n, 0);
    source_starts_.assign(n + 1, 0);
    for (int s = 0; s < procs_; ++s) {
      for (int d = 0; d < procs_; ++d) {
        const std::int64_t c = pair_count(params_, s, d);
        send_starts_[s][d + 1] = send_starts_[s][d] + c;
        recv_starts_[d][s + 1] = recv_starts_[d][s] + c;
      }
      source_starts_[s + 1] = source_starts_[s] + send_starts_[s][n];
      for (int d = 0; d < procs_; ++d) pair_starts_[s * n + d] = source_starts_[s] + send_starts_[s][d];
    }
  }
  // The last entry of `starts` (ascending, starts[0] = 0) not above `at`
  // among those followed by a larger one: the block holding `at`.
  static int block_at(const std::vector<std::int64_t> &starts, std::int64_t at) {
    if (at < 0 || at >= starts.back()) return -1;
    return static_cast<int>(std::upper_bound(starts.begin(), starts.end(), at) - starts.begin()) - 1;
  }
  std::int64_t pair_element(int rank, std::int64_t i, bool outgoing) const {
    const auto &starts = outgoing ? send_starts_[rank] : recv_starts_[rank];
    const int other = block_at(starts, i);
    if (other < 0) return -1;
    const int source = outgoing ? rank : other, dest = outgoing ? other : rank;
    return pair_starts_[static_cast<std::size_t>(source) * procs_ + dest] + i - starts[other];
  }
  int pair_source_of(std::int64_t index) const { return block_at(source_starts_, index); }

  std::string init_buffers() {
    state_.assign(procs_, std::vector<Values>(kStorages));
    for (int rank = 0; rank < procs_; ++rank) {
      for (int s = 0; s < kStorages; ++s) {
        state_[rank][s].words = words_;
        state_[rank][s].resize(buffer_size(rank, static_cast<Buffer>(s)));
      }
      if (programs_[rank].scratch_count < 0) return "rank " + std::to_string(rank) + ": negative scratch size";
      // Initial contents, where MPI_IN_PLACE puts them.
      const bool root = rank == params_.root;
      if (traits_.initial_at == Ranks::root && !root) continue;
      const std::int64_t size = buffer_size(rank, traits_.initial_in);
      const Place p = resolve(rank, Region{traits_.initial_in, 0, size});
      Values &v = state_[rank][p.storage];
      for (std::int64_t i = 0; i < size; ++i) {
        const std::int64_t index = index_of(traits_.initial_index, rank, i);
        const int owner = contributor(traits_.initial_owner, rank, index);
        v.index[p.offset + i] = index;
        v.at(p.offset + i)[owner / 64] |= std::uint64_t{1} << (owner % 64);
      }
    }
    return {};
  }

  bool in_bounds(int rank, const Place &p) const {
    return p.offset >= 0 && p.count >= 0 && p.offset + p.count <= state_[rank][p.storage].size();
  }
  static bool overlap(const Place &a, const Place &b) {
    return a.storage == b.storage && a.count > 0 && b.count > 0 && a.offset < b.offset + b.count &&
           b.offset < a.offset + a.count;
  }

  std::string static_checks() {
    for (int rank = 0; rank < procs_; ++rank) {
      const Program &program = programs_[rank];
      if (program.rank != rank || program.procs != procs_)
        return "program " + std::to_string(rank) + " says rank " + std::to_string(program.rank) + " of " + std::to_string(program.procs);
      int last_round = -1;
      for (std::size_t s = 0; s < program.steps.size(); ++s) {
        const Step &step = program.steps[s];
        if (options_.check_rounds) {
          if (step.round <= last_round) return where(rank, s, 0) + "rounds do not increase";
          last_round = step.round;
        }
        int sends = 0, recvs = 0;
        std::vector<Place> store_writes, reads;
        std::vector<std::size_t> store_ops, read_ops;
        if (auto e = dependency_checks(rank, s, step); !e.empty()) return e;
        for (std::size_t o = 0; o < step.ops.size(); ++o) {
          const Op &op = step.ops[o];
          if (op.kind != OpKind::local && (op.peer < 0 || op.peer >= procs_ || op.peer == rank))
            return where(rank, s, o) + "peer " + std::to_string(op.peer) + " is invalid";
          if (op.kind != OpKind::recv) {
            Place p = resolve(rank, op.src);
            if (!in_bounds(rank, p)) return where(rank, s, o) + "source region out of bounds";
          }
          if (op.kind != OpKind::send) {
            Place p = resolve(rank, op.dst);
            if (!in_bounds(rank, p)) return where(rank, s, o) + "destination region out of bounds";
            if (op.kind == OpKind::local && op.src.count != op.dst.count)
              return where(rank, s, o) + "local op with different source and destination counts";
          }
          if (op.kind == OpKind::send) {
            ++sends;
            // A send posted after a group reads what that group's recvs
            // wrote (dependency_checks proves the rest of its memory calm).
            if (op.after < 0) {
              reads.push_back(resolve(rank, op.src));
              read_ops.push_back(o);
            }
          }
          if (op.kind == OpKind::recv) {
            ++recvs;
            if (op.combine == Combine::store) {
              store_writes.push_back(resolve(rank, op.dst));
              store_ops.push_back(o);
            }
          }
        }
        if (options_.single_port && (sends > 1 || recvs > 1))
          return where(rank, s, 0) + "more than one send or recv in a single-port step";
        for (std::size_t a = 0; a < store_writes.size(); ++a) {
          for (std::size_t b = a + 1; b < store_writes.size(); ++b)
            if (overlap(store_writes[a], store_writes[b])) return where(rank, s, 0) + "two receives store into overlapping regions";
          for (std::size_t r = 0; r < reads.size(); ++r)
            if (overlap(store_writes[a], reads[r]) && !waits_for(step, store_ops[a], read_ops[r]))
              return where(rank, s, 0) + "a receive stores into a region the same step sends";
        }
      }
    }
    return {};
  }

  // Whether op `o` of `step` is posted only after op `other` has
  // completed (directly or through groups); valid for the step
  // dependency_checks saw last.
  bool waits_for(const Step &step, std::size_t o, std::size_t other) const {
    const int a = step.ops[o].after;
    if (a < 0 || waits_step_ != &step) return false;
    const auto &bits = waits_[static_cast<std::size_t>(a)];
    return bits[other / 64] >> (other % 64) & 1;
  }

  static bool step_has_after(const Step &step) {
    for (const Op &op : step.ops)
      if (op.after >= 0) return true;
    return false;
  }

  // The rules of tags, groups and dependencies within one step (ir.hpp).
  std::string dependency_checks(int rank, std::size_t s, const Step &step) {
    const std::size_t n = step.ops.size();
    for (std::size_t o = 0; o < n; ++o) {
      const Op &op = step.ops[o];
      if (op.tag < 0) return where(rank, s, o) + "negative tag " + std::to_string(op.tag);
      if (op.kind == OpKind::local && (op.after >= 0 || op.tag != 0))
        return where(rank, s, o) + "a local op has a tag or waits for a group";
    }
    if (!step_has_after(step)) return {};
    // Recvs are applied as they come, in no fixed order: only a
    // commutative op allows that for combining ones.
    for (std::size_t o = 0; o < n; ++o)
      if (!params_.commutative && step.ops[o].kind == OpKind::recv && step.ops[o].combine != Combine::store)
        return where(rank, s, o) + "combines with a non-commutative op in a step with dependencies";
    // Members per group; every `after` names a group with members.
    std::vector<std::vector<std::size_t>> members;
    for (std::size_t o = 0; o < n; ++o) {
      const int g = step.ops[o].group;
      if (g < 0) continue;
      if (static_cast<std::size_t>(g) >= members.size()) members.resize(static_cast<std::size_t>(g) + 1);
      members[static_cast<std::size_t>(g)].push_back(o);
    }
    for (std::size_t o = 0; o < n; ++o) {
      const int a = step.ops[o].after;
      if (a >= 0 && (static_cast<std::size_t>(a) >= members.size() || members[static_cast<std::size_t>(a)].empty()))
        return where(rank, s, o) + "waits for group " + std::to_string(a) + ", which has no op in the step";
    }
    // An op with an `after` is the only op of its kind, peer and tag.
    std::vector<std::tuple<int, int, int, bool, std::size_t>> channels;
    for (std::size_t o = 0; o < n; ++o) {
      const Op &op = step.ops[o];
      if (op.kind != OpKind::local) channels.emplace_back(static_cast<int>(op.kind), op.peer, op.tag, op.after >= 0, o);
    }
    std::sort(channels.begin(), channels.end());
    for (std::size_t i = 0; i + 1 < channels.size(); ++i) {
      const auto &x = channels[i], &y = channels[i + 1];
      if (std::get<0>(x) == std::get<0>(y) && std::get<1>(x) == std::get<1>(y) && std::get<2>(x) == std::get<2>(y) &&
          (std::get<3>(x) || std::get<3>(y)))
        return where(rank, s, std::get<3>(x) ? std::get<4>(x) : std::get<4>(y)) +
               "waits for a group and shares its peer and tag " + std::to_string(std::get<2>(x)) +
               " with another op of the step (its matching would depend on timing)";
    }
    // The ops each group waits for, directly or through their own `after`
    // (bitsets over the step's ops); a group that waits for itself never
    // starts.
    const std::size_t words = (n + 63) / 64;
    std::vector<std::vector<std::uint64_t>> before(members.size());
    std::vector<char> state(members.size(), 0);  // 0 new, 1 in progress, 2 done
    std::string cycle;
    std::function<void(std::size_t)> visit = [&](std::size_t g) {
      if (!cycle.empty() || state[g] == 2) return;
      if (state[g] == 1) {
        cycle = where(rank, s, members[g].front()) + "group " + std::to_string(g) + " waits for itself";
        return;
      }
      state[g] = 1;
      before[g].assign(words, 0);
      for (std::size_t o : members[g]) {
        before[g][o / 64] |= std::uint64_t{1} << (o % 64);
        const int a = step.ops[o].after;
        if (a < 0) continue;
        visit(static_cast<std::size_t>(a));
        if (!cycle.empty()) return;
        for (std::size_t w = 0; w < words; ++w) before[g][w] |= before[static_cast<std::size_t>(a)][w];
      }
      state[g] = 2;
    };
    for (std::size_t g = 0; g < members.size(); ++g)
      if (!members[g].empty()) visit(g);
    if (!cycle.empty()) return cycle;
    waits_step_ = &step;
    waits_ = std::move(before);
    // A send posted after a group reads memory that a recv of the step
    // writes only if one of the two waits for the other.
    for (std::size_t o = 0; o < n; ++o) {
      const Op &send = step.ops[o];
      if (send.kind != OpKind::send || send.after < 0) continue;
      const Place read = resolve(rank, send.src);
      for (std::size_t r = 0; r < n; ++r) {
        const Op &recv = step.ops[r];
        if (recv.kind != OpKind::recv || !overlap(read, resolve(rank, recv.dst))) continue;
        if (!waits_for(step, o, r) && !waits_for(step, r, o))
          return where(rank, s, o) + "sends memory that op " + std::to_string(r) +
                 " of the step receives into, and neither waits for the other";
      }
    }
    return {};
  }

  // FIFO matching per ordered pair and tag.
  struct OpRef {
    int rank;
    int step;
    int op;
  };
  std::string match() {
    // Tag 0 in a table of ordered pairs, other tags after it, numbered as
    // they come.
    std::vector<std::vector<OpRef>> sends(static_cast<std::size_t>(procs_) * procs_), recvs(sends.size());
    std::map<std::tuple<int, int, int>, std::size_t> tagged;
    std::vector<std::tuple<int, int, int>> tagged_pairs;
    auto channel = [&](int from, int to, int tag) -> std::size_t {
      if (tag == 0) return static_cast<std::size_t>(from) * procs_ + to;
      auto [it, fresh] = tagged.try_emplace({from, to, tag}, sends.size());
      if (fresh) {
        sends.emplace_back();
        recvs.emplace_back();
        tagged_pairs.emplace_back(from, to, tag);
      }
      return it->second;
    };
    partner_.assign(procs_, {});
    for (int rank = 0; rank < procs_; ++rank) {
      const Program &program = programs_[rank];
      partner_[rank].resize(program.steps.size());
      for (std::size_t s = 0; s < program.steps.size(); ++s) {
        partner_[rank][s].resize(program.steps[s].ops.size(), OpRef{-1, -1, -1});
        for (std::size_t o = 0; o < program.steps[s].ops.size(); ++o) {
          const Op &op = program.steps[s].ops[o];
          OpRef ref{rank, static_cast<int>(s), static_cast<int>(o)};
          if (op.kind == OpKind::send) {
            const std::size_t c = channel(rank, op.peer, op.tag);
            sends[c].push_back(ref);
          }
          if (op.kind == OpKind::recv) {
            const std::size_t c = channel(op.peer, rank, op.tag);
            recvs[c].push_back(ref);
          }
        }
      }
    }
    for (std::size_t c = 0; c < sends.size(); ++c) {
      {
        const bool plain = c < static_cast<std::size_t>(procs_) * procs_;
        const auto [from, to, tag] = plain ? std::tuple<int, int, int>{static_cast<int>(c / procs_), static_cast<int>(c % procs_), 0}
                                           : tagged_pairs[c - static_cast<std::size_t>(procs_) * procs_];
        const auto &ss = sends[c], &rr = recvs[c];
        if (ss.size() != rr.size())
          return "rank " + std::to_string(from) + " sends " + std::to_string(ss.size()) + " messages to rank " +
                 std::to_string(to) + (tag ? " with tag " + std::to_string(tag) : std::string()) + ", which receives " +
                 std::to_string(rr.size()) + " from it";
        for (std::size_t k = 0; k < ss.size(); ++k) {
          const Op &s = op_at(ss[k]), &r = op_at(rr[k]);
          if (s.src.count != r.dst.count)
            return where(from, ss[k].step, ss[k].op) + "message " + std::to_string(k) + " to rank " + std::to_string(to) +
                   " has " + std::to_string(s.src.count) + " elements, the receive expects " + std::to_string(r.dst.count);
          partner_[from][ss[k].step][ss[k].op] = rr[k];
          partner_[to][rr[k].step][rr[k].op] = ss[k];
        }
      }
    }
    return {};
  }
  const Op &op_at(const OpRef &r) const { return programs_[r.rank].steps[r.step].ops[r.op]; }

  // Has `rank` posted op `op` of `step` (it is past the step, or in it
  // with that op posted)?
  bool posted(const OpRef &r) const {
    return current_[r.rank] > r.step || (current_[r.rank] == r.step && is_posted_[r.rank] &&
                                         op_posted_[r.rank][static_cast<std::size_t>(r.op)]);
  }

  std::string apply(int rank, std::size_t s, std::size_t o, const Place &dst, Combine how,
                    const std::int64_t *in_index, const std::uint64_t *in_bits) {
    Values &v = state_[rank][dst.storage];
    const bool send_storage = dst.storage == static_cast<int>(Buffer::send);
    for (std::int64_t i = 0; i < dst.count; ++i) {
      const std::int64_t at = dst.offset + i;
      std::uint64_t *bits = v.at(at);
      const std::uint64_t *in = in_bits + i * words_;
      if (how == Combine::store) {
        if (send_storage && (v.index[at] != in_index[i] || !std::equal(in, in + words_, bits)))
          return where(rank, s, o) + "writes into the send buffer";
        v.index[at] = in_index[i];
        std::copy(in, in + words_, bits);
        continue;
      }
      if (send_storage) return where(rank, s, o) + "combines into the send buffer";
      if (!traits_.combines) return where(rank, s, o) + "combines data in a " + std::string(traits_.name);
      if (in_index[i] < 0 || v.index[at] < 0) return where(rank, s, o) + "combines uninitialised data";
      if (in_index[i] != v.index[at])
        return where(rank, s, o) + "combines element " + std::to_string(in_index[i]) + " into element " + std::to_string(v.index[at]);
      for (int w = 0; w < words_; ++w)
        if (bits[w] & in[w]) return where(rank, s, o) + "combines a contribution twice (element " + std::to_string(at) + ")";
      if (!params_.commutative) {
        auto range = [&](const std::uint64_t *b, int &lo, int &hi) {
          lo = -1, hi = -1;
          for (int r = 0; r < procs_; ++r)
            if (b[r / 64] >> (r % 64) & 1) {
              if (lo < 0) lo = r;
              else if (hi != r - 1) return false;
              hi = r;
            }
          return lo >= 0;
        };
        int in_lo, in_hi, d_lo, d_hi;
        if (!range(in, in_lo, in_hi) || !range(bits, d_lo, d_hi))
          return where(rank, s, o) + "non-commutative combine of a non-contiguous rank range";
        const bool ok = how == Combine::left ? in_hi + 1 == d_lo : d_hi + 1 == in_lo;
        if (!ok) return where(rank, s, o) + "non-commutative combine out of rank order";
      }
      for (int w = 0; w < words_; ++w) bits[w] |= in[w];
    }
    return {};
  }

  Payload snapshot(int rank, const Place &p) const {
    const Values &v = state_[rank][p.storage];
    Payload out;
    out.index.assign(v.index.begin() + p.offset, v.index.begin() + p.offset + p.count);
    out.bits.assign(v.bits.begin() + p.offset * words_, v.bits.begin() + (p.offset + p.count) * words_);
    return out;
  }

  // Ops are posted at their step's start, or (`after`) when their group
  // is complete; a send's payload is its region when it is posted; an op
  // completes once its partner is posted (rendezvous), a recv applied then.
  std::string execute() {
    current_.assign(procs_, 0);
    is_posted_.assign(procs_, false);
    op_posted_.assign(procs_, {});
    std::vector<std::vector<char>> op_done(procs_);
    std::vector<std::vector<int>> group_left(procs_);  // comm ops of each group not complete
    std::vector<int> ops_left(procs_, 0);
    std::vector<std::vector<std::vector<Payload>>> payloads(procs_);
    for (int rank = 0; rank < procs_; ++rank) {
      payloads[rank].resize(programs_[rank].steps.size());
      for (std::size_t s = 0; s < programs_[rank].steps.size(); ++s)
        payloads[rank][s].resize(programs_[rank].steps[s].ops.size());
    }
    auto done = [&](int rank) { return current_[rank] >= static_cast<int>(programs_[rank].steps.size()); };
    // Posts op o of rank's current step (a send takes its payload now).
    auto post = [&](int rank, int s, std::size_t o) {
      const Op &op = programs_[rank].steps[s].ops[o];
      if (op.kind == OpKind::send) payloads[rank][s][o] = snapshot(rank, resolve(rank, op.src));
      op_posted_[rank][o] = 1;
    };
    // Group g of rank's current step is complete: post what waits for it.
    auto release = [&](int rank, int s, int g) {
      const Step &step = programs_[rank].steps[s];
      for (std::size_t o = 0; o < step.ops.size(); ++o)
        if (step.ops[o].after == g && !op_posted_[rank][o]) post(rank, s, o);
    };
    bool progress = true;
    while (progress) {
      progress = false;
      for (int rank = 0; rank < procs_; ++rank) {
        while (!done(rank)) {
          const int s = current_[rank];
          const Step &step = programs_[rank].steps[s];
          const std::size_t n = step.ops.size();
          if (!is_posted_[rank]) {
            for (std::size_t o = 0; o < n; ++o) {
              const Op &op = step.ops[o];
              if (op.kind == OpKind::local) {
                Payload in = snapshot(rank, resolve(rank, op.src));
                if (auto e = apply(rank, s, o, resolve(rank, op.dst), op.combine, in.index.data(), in.bits.data()); !e.empty()) return e;
              }
            }
            op_posted_[rank].assign(n, 0);
            op_done[rank].assign(n, 0);
            group_left[rank].clear();
            ops_left[rank] = 0;
            for (std::size_t o = 0; o < n; ++o) {
              const Op &op = step.ops[o];
              if (op.kind == OpKind::local) continue;
              ++ops_left[rank];
              if (op.group < 0) continue;
              if (static_cast<std::size_t>(op.group) >= group_left[rank].size()) group_left[rank].resize(static_cast<std::size_t>(op.group) + 1, 0);
              ++group_left[rank][static_cast<std::size_t>(op.group)];
            }
            is_posted_[rank] = true;
            for (std::size_t o = 0; o < n; ++o)
              if (step.ops[o].kind != OpKind::local && step.ops[o].after < 0) post(rank, s, o);
            // Groups of local ops only are complete at once.
            for (std::size_t o = 0; o < n; ++o) {
              const int g = step.ops[o].group;
              if (g >= 0 && step.ops[o].kind == OpKind::local && group_left[rank][static_cast<std::size_t>(g)] == 0) release(rank, s, g);
            }
            progress = true;
          }
          if (!step_has_after(step)) {  // phase 4 as written: every recv applied in op order once all are in
            bool complete = true;
            for (std::size_t o = 0; o < n && complete; ++o)
              if (step.ops[o].kind != OpKind::local) complete = posted(partner_[rank][s][o]);
            if (!complete) break;
            for (std::size_t o = 0; o < n; ++o) {
              const Op &op = step.ops[o];
              if (op.kind != OpKind::recv) continue;
              const OpRef &p = partner_[rank][s][o];
              const Payload &in = payloads[p.rank][p.step][p.op];
              if (auto e = apply(rank, s, o, resolve(rank, op.dst), op.combine, in.index.data(), in.bits.data()); !e.empty()) return e;
            }
            ops_left[rank] = 0;
          }
          for (bool more = ops_left[rank] > 0; more;) {  // with dependencies: each op as it completes
            more = false;
            for (std::size_t o = 0; o < n; ++o) {
              const Op &op = step.ops[o];
              if (op.kind == OpKind::local || !op_posted_[rank][o] || op_done[rank][o]) continue;
              const OpRef &p = partner_[rank][s][o];
              if (!posted(p)) continue;
              if (op.kind == OpKind::recv) {
                const Payload &in = payloads[p.rank][p.step][p.op];
                if (auto e = apply(rank, s, o, resolve(rank, op.dst), op.combine, in.index.data(), in.bits.data()); !e.empty()) return e;
              }
              op_done[rank][o] = 1;
              --ops_left[rank];
              more = progress = true;
              if (op.group >= 0 && --group_left[rank][static_cast<std::size_t>(op.group)] == 0) release(rank, s, op.group);
            }
          }
          if (ops_left[rank] > 0) break;
          // Sent payloads are no longer needed once the step completes on
          // both sides; they are freed lazily with the whole table.
          ++current_[rank];
          is_posted_[rank] = false;
          progress = true;
        }
      }
    }
    std::ostringstream stuck;
    int count = 0;
    for (int rank = 0; rank < procs_; ++rank)
      if (!done(rank)) {
        if (count++ < 8) stuck << " rank " << rank << " at step " << current_[rank] << ";";
      }
    if (count) return "deadlock: " + std::to_string(count) + " ranks cannot finish:" + stuck.str();
    return {};
  }

  std::string check_result() const {
    auto expect = [&](int rank, Buffer buffer, std::int64_t offset, std::int64_t index, int lo, int hi,
                      std::int64_t at) -> std::string {
      Place p = resolve(rank, Region{buffer, offset, 1});
      const Values &v = state_[rank][p.storage];
      const std::uint64_t *bits = v.at(p.offset);
      bool ok = v.index[p.offset] == index;
      for (int r = 0; r < procs_ && ok; ++r) ok = ((bits[r / 64] >> (r % 64) & 1) != 0) == (r >= lo && r <= hi);
      if (ok) return {};
      int have = 0;
      for (int r = 0; r < procs_; ++r) have += bits[r / 64] >> (r % 64) & 1;
      std::ostringstream os;
      os << "rank " << rank << ": result element " << at << " holds element " << v.index[p.offset] << " with " << have
         << " contributions, expected element " << index << " from ranks " << lo << ".." << hi;
      return os.str();
    };
    for (int rank = 0; rank < procs_; ++rank) {
      const bool root = rank == params_.root;
      if (traits_.result_at == Ranks::root && !root) continue;
      const std::int64_t size = traits_.elements(Buffer::recv, rank, params_);
      for (std::int64_t i = 0; i < size; ++i) {
        const std::int64_t index = index_of(traits_.result_index, rank, i);
        const int from = contributor(traits_.result_owner, rank, index);
        const int lo = from < 0 ? 0 : from, hi = from < 0 ? procs_ - 1 : from;
        if (auto e = expect(rank, Buffer::recv, i, index, lo, hi, i); !e.empty()) return e;
      }
    }
    return {};
  }

  const Params &params_;
  const CollectiveTraits &traits_ = traits(params_.collective);
  const std::vector<Program> &programs_;
  ValidateOptions options_;
  int procs_;
  int words_ = 1;
  std::vector<std::vector<Values>> state_;
  std::vector<std::vector<std::vector<OpRef>>> partner_;
  std::vector<int> current_;
  std::vector<bool> is_posted_;
  std::vector<std::vector<char>> op_posted_;  // the current step's ops posted
  const Step *waits_step_ = nullptr;          // dependency_checks: the step and, per group,
  std::vector<std::vector<std::uint64_t>> waits_;  // the ops it waits for
  // All-to-all (init_pairs): per rank the starts of its send pairs (by
  // dest) and of its receive pairs (by source), one more entry than ranks;
  // every pair's first index; every source's first index.
  std::vector<std::vector<std::int64_t>> send_starts_, recv_starts_;
  std::vector<std::int64_t> pair_starts_, source_starts_;
};

}  // namespace

std::string validate(const Params &params, const std::vector<Program> &programs, const ValidateOptions &options) {
  if (params.procs < 1) return "procs must be at least 1";
  if (params.count < 0) return "count must not be negative";
  return Validator(params, programs, options).run();
}

std::string validate_all_modes(const Params &params, const std::vector<Program> &programs, ValidateOptions options) {
  options.in_place = false;
  if (auto e = validate(params, programs, options); !e.empty()) return e;
  options.in_place = true;
  if (auto e = validate(params, programs, options); !e.empty()) return "with MPI_IN_PLACE: " + e;
  return {};
}

}  // namespace patcoll::core
