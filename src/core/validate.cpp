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
#include <sstream>

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
            reads.push_back(resolve(rank, op.src));
          }
          if (op.kind == OpKind::recv) {
            ++recvs;
            if (op.combine == Combine::store) store_writes.push_back(resolve(rank, op.dst));
          }
        }
        if (options_.single_port && (sends > 1 || recvs > 1))
          return where(rank, s, 0) + "more than one send or recv in a single-port step";
        for (std::size_t a = 0; a < store_writes.size(); ++a) {
          for (std::size_t b = a + 1; b < store_writes.size(); ++b)
            if (overlap(store_writes[a], store_writes[b])) return where(rank, s, 0) + "two receives store into overlapping regions";
          for (const Place &r : reads)
            if (overlap(store_writes[a], r)) return where(rank, s, 0) + "a receive stores into a region the same step sends";
        }
      }
    }
    return {};
  }

  // FIFO matching per ordered pair.
  struct OpRef {
    int rank;
    int step;
    int op;
  };
  std::string match() {
    std::vector<std::vector<OpRef>> sends(static_cast<std::size_t>(procs_) * procs_), recvs(sends.size());
    auto channel = [&](int from, int to) { return static_cast<std::size_t>(from) * procs_ + to; };
    partner_.assign(procs_, {});
    for (int rank = 0; rank < procs_; ++rank) {
      const Program &program = programs_[rank];
      partner_[rank].resize(program.steps.size());
      for (std::size_t s = 0; s < program.steps.size(); ++s) {
        partner_[rank][s].resize(program.steps[s].ops.size(), OpRef{-1, -1, -1});
        for (std::size_t o = 0; o < program.steps[s].ops.size(); ++o) {
          const Op &op = program.steps[s].ops[o];
          OpRef ref{rank, static_cast<int>(s), static_cast<int>(o)};
          if (op.kind == OpKind::send) sends[channel(rank, op.peer)].push_back(ref);
          if (op.kind == OpKind::recv) recvs[channel(op.peer, rank)].push_back(ref);
        }
      }
    }
    for (int from = 0; from < procs_; ++from) {
      for (int to = 0; to < procs_; ++to) {
        const auto &ss = sends[channel(from, to)], &rr = recvs[channel(from, to)];
        if (ss.size() != rr.size())
          return "rank " + std::to_string(from) + " sends " + std::to_string(ss.size()) + " messages to rank " +
                 std::to_string(to) + ", which receives " + std::to_string(rr.size()) + " from it";
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

  // Has `rank` posted the ops of `step` (it is in it, or past it)?
  bool posted(int rank, int step) const {
    return current_[rank] > step || (current_[rank] == step && is_posted_[rank]);
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

  std::string execute() {
    current_.assign(procs_, 0);
    is_posted_.assign(procs_, false);
    std::vector<std::vector<std::vector<Payload>>> payloads(procs_);
    for (int rank = 0; rank < procs_; ++rank) {
      payloads[rank].resize(programs_[rank].steps.size());
      for (std::size_t s = 0; s < programs_[rank].steps.size(); ++s)
        payloads[rank][s].resize(programs_[rank].steps[s].ops.size());
    }
    auto done = [&](int rank) { return current_[rank] >= static_cast<int>(programs_[rank].steps.size()); };
    bool progress = true;
    while (progress) {
      progress = false;
      for (int rank = 0; rank < procs_; ++rank) {
        while (!done(rank)) {
          const int s = current_[rank];
          const Step &step = programs_[rank].steps[s];
          if (!is_posted_[rank]) {
            for (std::size_t o = 0; o < step.ops.size(); ++o) {
              const Op &op = step.ops[o];
              if (op.kind == OpKind::local) {
                Payload in = snapshot(rank, resolve(rank, op.src));
                if (auto e = apply(rank, s, o, resolve(rank, op.dst), op.combine, in.index.data(), in.bits.data()); !e.empty()) return e;
              }
            }
            for (std::size_t o = 0; o < step.ops.size(); ++o)
              if (step.ops[o].kind == OpKind::send) payloads[rank][s][o] = snapshot(rank, resolve(rank, step.ops[o].src));
            is_posted_[rank] = true;
            progress = true;
          }
          bool complete = true;
          for (std::size_t o = 0; o < step.ops.size() && complete; ++o) {
            if (step.ops[o].kind == OpKind::local) continue;
            const OpRef &p = partner_[rank][s][o];
            complete = posted(p.rank, p.step);
          }
          if (!complete) break;
          for (std::size_t o = 0; o < step.ops.size(); ++o) {
            const Op &op = step.ops[o];
            if (op.kind != OpKind::recv) continue;
            const OpRef &p = partner_[rank][s][o];
            const Payload &in = payloads[p.rank][p.step][p.op];
            if (auto e = apply(rank, s, o, resolve(rank, op.dst), op.combine, in.index.data(), in.bits.data()); !e.empty()) return e;
          }
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
