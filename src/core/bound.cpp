#include "bound.hpp"

#include "traits.hpp"

#include <algorithm>
#include <cmath>

#include "layout.hpp"

namespace patcoll::core {

BoundCost BoundCost::model(const CostModel &cost) {
  return {[cost](double bytes) { return cost.transfer_time(bytes); },
          [cost](double bytes) { return cost.gamma * bytes; }};
}

BoundCost BoundCost::measured(double transfer_seconds, double combine_seconds, double probe_bytes) {
  auto scaled = [probe_bytes](double seconds) {
    return [seconds, probe_bytes](double bytes) {
      return probe_bytes > 0 && bytes < probe_bytes ? seconds * (bytes / probe_bytes) : seconds;
    };
  };
  return {scaled(transfer_seconds), scaled(combine_seconds)};
}

namespace {

std::vector<double> arrivals_of(const Params &params) {
  if (!params.arrivals.empty()) return params.arrivals;
  return std::vector<double>(static_cast<std::size_t>(std::max(params.procs, 1)), 0.0);
}

double message_bytes(const Params &params) {
  return static_cast<double>(params.count) * static_cast<double>(params.element_bytes);
}

// Every rank exits no earlier than the latest arrival plus `after`.
BoundTimes after_latest_arrival(const std::vector<double> &pat, double after) {
  BoundTimes times;
  if (pat.empty()) return times;
  const double first = *std::min_element(pat.begin(), pat.end());
  const double last = *std::max_element(pat.begin(), pat.end());
  double waiting = 0;
  for (double a : pat) {
    waiting += last - a;
    times.elapsed.push_back(last - a + after);
  }
  times.run_time = last - first + after;
  times.average_elapsed = waiting / static_cast<double>(pat.size()) + after;
  return times;
}

// Times from per-rank lower bounds on the exits (`exits`) and a lower bound
// `end` on the latest exit, which some rank, not known which, reaches: the
// run time to `end`, the average elapsed time the mean of the per-rank
// bounds (so that it lies between their least and their largest).
BoundTimes from_exits(const std::vector<double> &pat, const std::vector<double> &exits, double end) {
  BoundTimes times;
  if (pat.empty()) return times;
  const double first = *std::min_element(pat.begin(), pat.end());
  end = std::max(end, *std::max_element(exits.begin(), exits.end()));
  double sum = 0;
  for (std::size_t r = 0; r < pat.size(); ++r) {
    times.elapsed.push_back(exits[r] - pat[r]);
    sum += exits[r] - pat[r];
  }
  times.run_time = end - first;
  times.average_elapsed = sum / static_cast<double>(pat.size());
  return times;
}

}  // namespace

// Reduce: once the last rank has arrived its m bytes must still leave it
// (or, at the root, another rank's data must reach it) and be combined:
// one transfer of m bytes and one reduction of m bytes (the "physical
// limit"). Every rank's exit is bounded by the run's end here, since the
// bound states when the collective as a whole can be complete.
BoundTimes reduce_bound(const Params &params, const BoundCost &cost) {
  const double m = message_bytes(params);
  return after_latest_arrival(arrivals_of(params), cost.transfer(m) + cost.combine(m));
}

// Allreduce: the same argument: the last rank's data must leave it and the
// result, which depends on it, must reach it.
BoundTimes allreduce_bound(const Params &params, const BoundCost &cost) {
  const double m = message_bytes(params);
  return after_latest_arrival(arrivals_of(params), cost.transfer(m) + cost.combine(m));
}

// Bcast: every rank r other than the root must receive the root's m bytes,
// which exist nowhere before the root arrives and which r cannot receive
// before it arrives itself: r exits no earlier than max(a_r, a_root) plus
// one transfer of m bytes (receiving them in k messages costs kα + mβ ≥
// α + mβ through r's one port). The root exits no earlier than its
// arrival. One late non-root rank, late by D: D + α + mβ
// (docs/results/bcast.md).
BoundTimes bcast_bound(const Params &params, const BoundCost &cost) {
  const std::vector<double> pat = arrivals_of(params);
  BoundTimes times;
  if (pat.empty()) return times;
  const double m = message_bytes(params), transfer = cost.transfer(m);
  const std::size_t root = static_cast<std::size_t>(std::clamp(params.root, 0, static_cast<int>(pat.size()) - 1));
  const double first = *std::min_element(pat.begin(), pat.end());
  double last_exit = first, sum = 0;
  for (std::size_t r = 0; r < pat.size(); ++r) {
    const double exit = r == root || m == 0 ? pat[r] : std::max(pat[r], pat[root]) + transfer;
    times.elapsed.push_back(exit - pat[r]);
    sum += exit - pat[r];
    last_exit = std::max(last_exit, exit);
  }
  times.run_time = last_exit - first;
  times.average_elapsed = sum / static_cast<double>(pat.size());
  return times;
}

// All-to-all (and alltoallv over Params::counts): rank r sends out_r and
// receives in_r bytes to and from the other ranks through its one port,
// none of it before it arrives, so it exits no earlier than
// a_r + transfer(max(out_r, in_r)); and the pair from s reaches it no
// earlier than a_s + transfer(c(s, r)). One late rank by D, every pair
// m/P bytes: D + α + (P − 1)/P·mβ (docs/results/alltoall.md).
BoundTimes alltoall_bound(const Params &params, const BoundCost &cost) {
  const std::vector<double> pat = arrivals_of(params);
  if (pat.empty() || static_cast<int>(pat.size()) != params.procs) return {};
  const double bytes = static_cast<double>(params.element_bytes);
  std::vector<double> exits(pat.size());
  for (int r = 0; r < params.procs; ++r) {
    const std::int64_t own = pair_count(params, r, r);
    const std::int64_t out = send_total(params, r) - own, in = recv_total(params, r) - own;
    const double a = pat[static_cast<std::size_t>(r)];
    double exit = std::max(out, in) > 0 ? a + cost.transfer(static_cast<double>(std::max(out, in)) * bytes) : a;
    for (int s = 0; s < params.procs; ++s)
      if (s != r && pair_count(params, s, r) > 0)
        exit = std::max(exit, pat[static_cast<std::size_t>(s)] +
                                  cost.transfer(static_cast<double>(pair_count(params, s, r)) * bytes));
    exits[static_cast<std::size_t>(r)] = exit;
  }
  return from_exits(pat, exits, *std::min_element(pat.begin(), pat.end()));
}

// Allgather(v) (docs/results/allgather.md): let L be a rank that arrives
// last, at time D. (i) L holds nothing of the other blocks when it
// arrives, and it receives them through its one receive port after D:
// at least one transfer of the m − m_L bytes of the other blocks (m the
// whole result, m_L L's block). (ii) L's block leaves L only after D, and
// every message takes at least α: by induction, at most 2^k ranks hold any
// of it by D + kα, so the last of the P ranks to get it starts receiving
// no earlier than D + ⌈log2 P⌉α, and its m_L bytes then take m_L β on its
// port (α and β read off the cost source: α = transfer(0), m_L β =
// transfer(m_L) − transfer(0)). So the run ends no earlier than
// D + max(transfer(m − m_L), ⌈log2 P⌉α + m_L β); every other rank waits
// for L's block at least one transfer of m_L after D, L itself for (i).
// Ranks tied as the last: the largest of their bounds.
BoundTimes allgather_bound(const Params &params, const BoundCost &cost) {
  const std::vector<double> pat = arrivals_of(params);
  BoundTimes times;
  if (pat.empty()) return times;
  const double first = *std::min_element(pat.begin(), pat.end());
  const double last = *std::max_element(pat.begin(), pat.end());
  const double eb = static_cast<double>(params.element_bytes), whole = static_cast<double>(total(params)) * eb;
  const double alpha = cost.transfer(0);
  const int procs = static_cast<int>(pat.size());
  double late_receive = 0, spread = 0, first_hop = 0;
  for (int r = 0; r < procs; ++r) {
    if (pat[static_cast<std::size_t>(r)] != last) continue;
    const double own = static_cast<double>(block_count(params, r)) * eb;
    late_receive = std::max(late_receive, procs > 1 ? cost.transfer(whole - own) : 0.0);
    if (procs > 1 && own > 0) {
      spread = std::max(spread, ceil_log2(procs) * alpha + cost.transfer(own) - alpha);
      first_hop = std::max(first_hop, cost.transfer(own));
    }
  }
  double waiting = 0;
  for (double a : pat) {
    const double after = a == last ? late_receive : first_hop;
    times.elapsed.push_back(last - a + after);
    waiting += last - a + after;
  }
  times.run_time = last - first + std::max(late_receive, spread);
  times.average_elapsed = waiting / static_cast<double>(procs);
  return times;
}

// Reduce-scatter(_block) (docs/results/reduce-scatter.md): every element
// of rank r's vector outside r's block carries r's contribution, which
// exists only at r and leaves it after r arrives: at least a transfer of
// whole − m_r bytes out of r's one send port (elements of different
// indices never merge). r's block holds every other rank's contribution,
// which reaches r only after r arrives (it posts nothing before): a
// transfer of m_r bytes into its receive port; and rank s's part of it
// leaves s only after s arrives: exit_r ≥ a_s + transfer(m_r). So
// exit_r ≥ max(a_r + transfer(max(whole − m_r, m_r)), max_{s≠r} a_s +
// transfer(m_r)); one late rank by D, equal blocks: the run ends no
// earlier than D + α + (P − 1)/P·mβ. The last combine is left out: a
// pipelined algorithm makes its piece as small as it likes.
BoundTimes reduce_scatter_bound(const Params &params, const BoundCost &cost) {
  const std::vector<double> pat = arrivals_of(params);
  if (pat.empty() || static_cast<int>(pat.size()) != params.procs) return {};
  const double eb = static_cast<double>(params.element_bytes);
  const std::int64_t whole = total(params);
  const double first = *std::min_element(pat.begin(), pat.end());
  // The latest and second-latest arrivals: the latest other than r's.
  int latest_rank = 0;
  for (int r = 1; r < params.procs; ++r)
    if (pat[static_cast<std::size_t>(r)] > pat[static_cast<std::size_t>(latest_rank)]) latest_rank = r;
  double second = first;
  for (int r = 0; r < params.procs; ++r)
    if (r != latest_rank) second = std::max(second, pat[static_cast<std::size_t>(r)]);
  std::vector<double> exits(pat.size());
  for (int r = 0; r < params.procs; ++r) {
    const std::int64_t mine = block_count(params, r), out = whole - mine;
    const double a = pat[static_cast<std::size_t>(r)];
    double exit = a;
    if (params.procs > 1 && std::max(out, mine) > 0) exit = a + cost.transfer(static_cast<double>(std::max(out, mine)) * eb);
    if (params.procs > 1 && mine > 0)
      exit = std::max(exit, (r == latest_rank ? second : pat[static_cast<std::size_t>(latest_rank)]) +
                                cost.transfer(static_cast<double>(mine) * eb));
    exits[static_cast<std::size_t>(r)] = exit;
  }
  return from_exits(pat, exits, first);
}


// ---- Tight bounds (docs/results/bounds.md) --------------------------------

namespace {

// The ranks by arrival, latest first (ties by rank): order[0 .. k − 1] are
// "the k latest ranks", all arrived by order[k − 1]'s arrival T_k or later.
std::vector<int> latest_first(const std::vector<double> &pat) {
  std::vector<int> order(pat.size());
  for (std::size_t r = 0; r < order.size(); ++r) order[r] = static_cast<int>(r);
  std::stable_sort(order.begin(), order.end(), [&pat](int x, int y) {
    return pat[static_cast<std::size_t>(x)] > pat[static_cast<std::size_t>(y)];
  });
  return order;
}

// The least time one port is busy with `bytes` in messages of at most
// `largest` bytes each: as many messages of `largest` as fit and one of the
// rest (for a concave nondecreasing cost with cost(0) ≥ 0, both of the
// cost sources, the cheapest split of a total into pieces of at most
// `largest`). `largest` ≤ 0: no limit, one transfer.
double port_time(const BoundCost &cost, double bytes, double largest) {
  if (bytes <= 0) return 0;
  if (largest <= 0 || bytes <= largest) return cost.transfer(bytes);
  const double whole = std::floor(bytes / largest), rest = bytes - whole * largest;
  return whole * cost.transfer(largest) + (rest > 1e-9 * largest ? cost.transfer(rest) : 0.0);
}


// Reduce and allreduce: for every k, the k latest ranks L and the others
// E. After T_k, per element, at least `messages` element transfers (each
// of L's values must leave its rank, E's contribution must reach the first
// rank to hold the result if that one is in L, and for allreduce every
// other rank must then receive it: k + P − 1, or 2(P − 1) when E is empty)
// and `combines` reductions involving L's values (k, or P − 1 when E is
// empty), spread at best evenly over the P ports and P processors.
// Staggered arrivals: a rank of E that arrived less than one transfer of
// the message before T_k cannot have sent all its values by then. With
// the port's least time per byte b' = t(m)/m, rank j has sent at most
// (T_k − a_j)/b' bytes by T_k; the rest, summed over E (`unsent`), less
// one message's worth (the values no rank has to send: the rank that first
// holds the result keeps its own), also passes the ports after T_k.
double late_groups_end(const std::vector<double> &pat, const BoundCost &cost, double m, bool all) {
  const int procs = static_cast<int>(pat.size());
  const std::vector<int> order = latest_first(pat);
  const double full = cost.transfer(m), per_byte = full / m, ports = cost.one_port ? 2 : 1;
  auto arrival = [&](int i) { return pat[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])]; };
  double end = 0, window_sum = 0;  // window: the ranks of E that arrived less than `full` before T_k,
  int window_end = 0;              // order[k .. window_end); T_k falls with k, so window_end only grows
  for (int k = 1; k <= procs; ++k) {
    const double t = arrival(k - 1);
    const double combines = k < procs ? k : procs - 1;
    const double messages = all ? (k < procs ? procs + k - 1 : 2.0 * (procs - 1)) : combines;
    const double per_port = ports * messages * m / procs;
    end = std::max(end, t + std::max(port_time(cost, per_port, m), cost.combine(combines * m / procs)));
    if (window_end < k) window_end = k;
    else window_sum -= arrival(k - 1);  // order[k − 1] is in L_k now
    while (window_end < procs && t - arrival(window_end) < full) window_sum += arrival(window_end++);
    const int held = window_end - k;  // Σ (m − (t − a_j)/b') over the window
    const double unsent = held * m - (held * t - window_sum) / per_byte;
    if (unsent > m) end = std::max(end, t + per_byte * ports * (messages * m + unsent - m) / procs);
  }
  return end;
}

}  // namespace

// Reduce: every non-root rank's m bytes leave it after it arrives, and the
// root receives m bytes that depend on the latest rank's data after that
// arrival (or, being the latest, the others' data after its own); then
// the late groups' volume. No reduction of the whole message: a segmented
// pipeline reduces all but its last segment while the rest is in transit.
BoundTimes reduce_tight_bound(const Params &params, const BoundCost &cost) {
  const std::vector<double> pat = arrivals_of(params);
  const int procs = static_cast<int>(pat.size());
  const double m = message_bytes(params);
  if (procs < 2 || m <= 0) return from_exits(pat, pat, 0);
  const int root = std::clamp(params.root, 0, procs - 1);
  const double last = *std::max_element(pat.begin(), pat.end()), one = port_time(cost, m, m);
  std::vector<double> exits(pat.size());
  for (int r = 0; r < procs; ++r)
    exits[static_cast<std::size_t>(r)] = (r == root ? last : pat[static_cast<std::size_t>(r)]) + one;
  return from_exits(pat, exits, late_groups_end(pat, cost, m, false));
}

// Allreduce: every rank receives m bytes that depend on the latest rank's
// data after that arrival; the latest rank also sends its m bytes (after
// its arrival, on the same port when there is one port); the latest
// rank's data reaches the last of the P ranks no earlier than ⌈log2 P⌉
// messages of one element after its arrival (the informed ranks at most
// double per message); and the late groups' volume.
BoundTimes allreduce_tight_bound(const Params &params, const BoundCost &cost) {
  const std::vector<double> pat = arrivals_of(params);
  const int procs = static_cast<int>(pat.size());
  const double m = message_bytes(params);
  if (procs < 2 || m <= 0) return from_exits(pat, pat, 0);
  const double last = *std::max_element(pat.begin(), pat.end());
  const std::size_t latest = static_cast<std::size_t>(latest_first(pat)[0]);
  std::vector<double> exits(pat.size(), last + port_time(cost, m, m));
  if (cost.one_port) exits[latest] = last + port_time(cost, 2 * m, m);
  const double spread = last + ceil_log2(procs) * cost.transfer(static_cast<double>(params.element_bytes));
  return from_exits(pat, exits, std::max(spread, late_groups_end(pat, cost, m, true)));
}

// All-to-all: for every k, rank r receives from the k latest ranks (r
// aside) the pairs they send it and sends them theirs, all after T_k:
// T_k + transfer(max(in, out)) (one port: of in + out). With k = 1 and
// r's own arrival these are bound()'s terms, so it is never below bound().
BoundTimes alltoall_tight_bound(const Params &params, const BoundCost &cost) {
  const std::vector<double> pat = arrivals_of(params);
  if (pat.empty() || static_cast<int>(pat.size()) != params.procs) return {};
  const double bytes = static_cast<double>(params.element_bytes);
  const std::vector<int> order = latest_first(pat);
  auto busy = [&cost](double in, double out) {
    return cost.one_port ? cost.transfer(in + out) : cost.transfer(std::max(in, out));
  };
  std::vector<double> exits(pat.size());
  for (int r = 0; r < params.procs; ++r) {
    const std::int64_t own = pair_count(params, r, r);
    const double a = pat[static_cast<std::size_t>(r)];
    const double out = static_cast<double>(send_total(params, r) - own) * bytes;
    const double in = static_cast<double>(recv_total(params, r) - own) * bytes;
    double e = in + out > 0 ? a + busy(in, out) : a, from = 0, to = 0;
    for (int s : order) {
      if (s != r) {
        from += static_cast<double>(pair_count(params, s, r)) * bytes;
        to += static_cast<double>(pair_count(params, r, s)) * bytes;
      }
      if (from + to > 0) e = std::max(e, pat[static_cast<std::size_t>(s)] + busy(from, to));
    }
    exits[static_cast<std::size_t>(r)] = e;
  }
  return from_exits(pat, exits, 0);
}

// Allgather(v): bound()'s terms, and for every k each rank receives the
// blocks of the k latest ranks (its own aside) after T_k.
BoundTimes allgather_tight_bound(const Params &params, const BoundCost &cost) {
  const std::vector<double> pat = arrivals_of(params);
  if (pat.empty()) return {};
  const BoundTimes base = allgather_bound(params, cost);
  const double eb = static_cast<double>(params.element_bytes);
  const std::vector<int> order = latest_first(pat);
  std::vector<double> exits(pat.size());
  for (std::size_t r = 0; r < pat.size(); ++r) {
    double e = pat[r] + base.elapsed[r], from = 0;
    for (int s : order) {
      if (static_cast<std::size_t>(s) != r) from += static_cast<double>(block_count(params, s)) * eb;
      if (from > 0) e = std::max(e, pat[static_cast<std::size_t>(s)] + cost.transfer(from));
    }
    exits[r] = e;
  }
  const double first = *std::min_element(pat.begin(), pat.end());
  return from_exits(pat, exits, first + base.run_time);
}

namespace {

using BoundFunction = BoundTimes (*)(const Params &, const BoundCost &);

BoundFunction bound_function(Collective collective) {
  switch (collective) {
    case Collective::reduce: return reduce_bound;
    case Collective::allreduce: return allreduce_bound;
    case Collective::bcast: return bcast_bound;
    case Collective::alltoall:
    case Collective::alltoallv: return alltoall_bound;
    case Collective::allgather:
    case Collective::allgatherv: return allgather_bound;
    case Collective::reduce_scatter_block:
    case Collective::reduce_scatter: return reduce_scatter_bound;
    default: return nullptr;
  }
}

BoundFunction tight_bound_function(Collective collective) {
  switch (collective) {
    case Collective::reduce: return reduce_tight_bound;
    case Collective::allreduce: return allreduce_tight_bound;
    case Collective::bcast: return bcast_bound;  // already per rank; see bcast_bound
    case Collective::alltoall:
    case Collective::alltoallv: return alltoall_tight_bound;
    case Collective::allgather:
    case Collective::allgatherv: return allgather_tight_bound;
    case Collective::reduce_scatter_block:
    case Collective::reduce_scatter: return reduce_scatter_bound;  // per rank already; see reduce_scatter_bound
    default: return nullptr;
  }
}

}  // namespace

std::optional<BoundTimes> tight_bound(const Params &params, const BoundCost &cost) {
  const BoundFunction function = tight_bound_function(params.collective);
  if (!function) return std::nullopt;
  return function(params, cost);
}

std::int64_t bound_probe_elements(const Params &params) {
  if (params.collective == Collective::alltoall || params.collective == Collective::alltoallv) {
    std::int64_t most = 0;
    for (int r = 0; r < params.procs; ++r)
      most = std::max(most, std::max(send_total(params, r), recv_total(params, r)) - pair_count(params, r, r));
    return most;
  }
  if (params.collective == Collective::reduce_scatter_block || params.collective == Collective::reduce_scatter) {
    std::int64_t most = 0;
    for (int r = 0; r < params.procs; ++r)
      most = std::max(most, std::max(total(params) - block_count(params, r), block_count(params, r)));
    return most;
  }
  if (traits(params.collective).recv_elsewhere == Extent::whole) return total(params);  // allgather(v)
  return params.count;
}

bool has_bound(Collective collective) { return bound_function(collective) != nullptr; }

std::optional<BoundTimes> bound(const Params &params, const BoundCost &cost) {
  const BoundFunction function = bound_function(params.collective);
  if (!function) return std::nullopt;
  return function(params, cost);
}

}  // namespace patcoll::core
