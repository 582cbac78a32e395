// allreduce/owner_trees — owners weighted by arrival, results down
// load-aware trees, in one step per rank that runs each part as soon as
// its inputs are in (core/ir.hpp: tags, groups, dependencies).
//
// The vector is cut into U units (12 per rank by default, at most 4096;
// Params::segment_count sets U; below U elements some units are empty).
// The ranks, in order of predicted arrival, own units in proportion to
//   w = max(0, min(Y, T + Y − c·t(m) − a)),   c = 0.75,
// a the rank's arrival, T the latest, t(m) one transfer of the message,
// Y set so that the weights add up to (P − 1)·t(m): the ranks that arrive
// early enough own the most, later ones less, the latest ones the least
// (c chosen from 0.75, 1 and 1.25 under SMPI on curie128, P = 32, 1 MiB,
// exact PATs, 3 random-late draws: 0.75 came closest to tight_bound). So the owners'
// receive ports take the late ranks' parts where they have time to.
//
// Every rank sends its part of each unit to the unit's owner, all ranks in
// one order that interleaves the owners (the j-th unit of every owner,
// then the (j + 1)-th), so the late ranks' parts do not converge on one
// owner at a time; parts for owners predicted to arrive later are posted
// at once, the others at most W = 32 in flight (each after the one 32
// earlier; synchronous sends, so that the window holds; the others go
// eagerly, small, while their owner is still away). An owner adds the
// parts as they come (combining receives of the unit's group), then sends
// the unit down a binomial tree over all P ranks; the tree differs per
// unit: its inner positions go to the ranks whose send port is predicted
// free soonest (arrival + its parts still to send + the forwards already
// given to it), taken unit by unit in order of predicted completion, so
// the early ranks' idle ports carry the first results and a late rank
// relays only once its own parts are out. Each forward is posted as soon
// as its unit is in.
//
// Tags: unit u is tag u + 1 (owner_trees_tags = U + 1); between two ranks
// at most one message per unit (a part goes to the unit's owner, the root
// of its tree). In place, a rank's result for a unit waits for its own
// part of it to be sent. Cost model: Params::cost (α + β·bytes per
// transfer). No PATs, or equal ones: equal shares, the same trees shape.
// Restrictions: commutative (parts are added as they come).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "../pap.hpp"
#include "../plan.hpp"

namespace patcoll::core {
namespace {

constexpr int kUnitsPerRank = 12;
constexpr std::int64_t kMaxUnits = 4096;
constexpr int kWindow = 32;
constexpr double kLateness = 0.75;  // c of the weights

struct Plan {
  int units = 0;
  std::vector<int> owner;                 // per unit
  std::vector<int> place;                 // per rank: its place in the predicted arrival order
  std::vector<int> sequence;              // the units in the order every rank sends its parts
  std::vector<std::vector<int>> at;       // per unit: the rank at each tree position (0: the owner)
};

// The units do not depend on the count (some are empty when it is below
// them; their messages are then empty too): ranks that pass different
// counts run the same messages.
int unit_count(const Params &params) {
  const std::int64_t units = params.segment_count > 0 ? params.segment_count : std::int64_t{kUnitsPerRank} * params.procs;
  return static_cast<int>(std::clamp<std::int64_t>(units, 1, kMaxUnits));
}

// Position v's parent and children in the binomial tree over positions
// 0 … P − 1 rooted at 0 (children v + k for the powers of two k > v).
int tree_parent(int v) {
  int high = 1;
  while (high * 2 <= v) high *= 2;
  return v - high;
}
template <typename F>
void for_each_child(int v, int procs, F &&f) {
  int low = 1;
  while (low <= v) low *= 2;
  for (long k = low; v + k < procs; k *= 2) f(static_cast<int>(v + k));
}

Plan plan(const Params &params) {
  const int procs = params.procs;
  Plan plan;
  plan.units = unit_count(params);
  const int units = plan.units;
  std::vector<double> arrival = params.arrivals;
  if (arrival.size() != static_cast<std::size_t>(procs)) arrival.assign(static_cast<std::size_t>(procs), 0.0);
  const std::vector<int> order = arrival_order(params);  // earliest first, ties by rank
  plan.place.assign(static_cast<std::size_t>(procs), 0);
  for (int q = 0; q < procs; ++q) plan.place[static_cast<std::size_t>(order[static_cast<std::size_t>(q)])] = q;
  const double bytes = static_cast<double>(params.count) * static_cast<double>(params.element_bytes);
  const double whole = params.cost.transfer_time(bytes);
  const double last = arrival[static_cast<std::size_t>(order.back())];
  auto a = [&](int q) { return arrival[static_cast<std::size_t>(order[static_cast<std::size_t>(q)])]; };

  // The weights, by place; Y by bisection.
  std::vector<double> weight(static_cast<std::size_t>(procs));
  auto fill = [&](double y) {
    double sum = 0;
    for (int q = 0; q < procs; ++q) sum += weight[static_cast<std::size_t>(q)] = std::max(0.0, std::min(y, last + y - kLateness * whole - a(q)));
    return sum;
  };
  double lo = 0, hi = 10 * whole + (last - a(0));
  for (int k = 0; k < 100; ++k) {
    const double mid = (lo + hi) / 2;
    (fill(mid) < (procs - 1) * whole ? lo : hi) = mid;
  }
  double sum = fill(hi);
  if (!(sum > 0)) std::fill(weight.begin(), weight.end(), 1.0), sum = procs;
  // Units per place (cumulative rounding), laid out by place.
  std::vector<int> first(static_cast<std::size_t>(procs) + 1, 0), count(static_cast<std::size_t>(procs), 0);
  double cumulative = 0;
  for (int q = 0; q < procs; ++q) {
    cumulative += weight[static_cast<std::size_t>(q)] / sum;
    const int upto = q == procs - 1 ? units : std::min(units, static_cast<int>(std::lround(cumulative * units)));
    first[static_cast<std::size_t>(q) + 1] = std::max(upto, first[static_cast<std::size_t>(q)]);
    count[static_cast<std::size_t>(q)] = first[static_cast<std::size_t>(q) + 1] - first[static_cast<std::size_t>(q)];
  }
  plan.owner.assign(static_cast<std::size_t>(units), 0);
  for (int q = 0; q < procs; ++q)
    for (int u = first[static_cast<std::size_t>(q)]; u < first[static_cast<std::size_t>(q) + 1]; ++u)
      plan.owner[static_cast<std::size_t>(u)] = order[static_cast<std::size_t>(q)];

  // The send order: owners interleaved by the fraction of their units sent.
  std::vector<double> key(static_cast<std::size_t>(units));
  for (int q = 0; q < procs; ++q)
    for (int u = first[static_cast<std::size_t>(q)]; u < first[static_cast<std::size_t>(q) + 1]; ++u)
      key[static_cast<std::size_t>(u)] = (u - first[static_cast<std::size_t>(q)] + 0.5) / count[static_cast<std::size_t>(q)];
  plan.sequence.resize(static_cast<std::size_t>(units));
  std::iota(plan.sequence.begin(), plan.sequence.end(), 0);
  std::stable_sort(plan.sequence.begin(), plan.sequence.end(),
                   [&](int x, int y) { return key[static_cast<std::size_t>(x)] < key[static_cast<std::size_t>(y)]; });

  // Predicted completion of each unit: the latest rank's parts go out in
  // the send order, one unit transfer τ each. Times in τ from here on, so
  // that with equal arrivals the trees are exact integers, the same for
  // any count (ranks that pass different counts still run the same
  // messages, and fail on their sizes instead of waiting for each other).
  const double tau = params.cost.transfer_time(bytes / std::max(units, 1));
  const double per = tau > 0 ? 1 / tau : 0;
  const int latest = order.back();
  std::vector<double> done(static_cast<std::size_t>(units));
  int k = 0;
  for (int u : plan.sequence)
    done[static_cast<std::size_t>(u)] = (last - a(0)) * per + (plan.owner[static_cast<std::size_t>(u)] == latest ? 0 : ++k);
  // When each rank's send port is free: its parts sent, then its forwards.
  std::vector<double> load(static_cast<std::size_t>(procs));
  for (int r = 0; r < procs; ++r)
    load[static_cast<std::size_t>(r)] = (arrival[static_cast<std::size_t>(r)] - a(0)) * per +
                                        (units - count[static_cast<std::size_t>(plan.place[static_cast<std::size_t>(r)])]);
  std::vector<int> children(static_cast<std::size_t>(procs), 0), positions(static_cast<std::size_t>(std::max(procs - 1, 0)));
  for (int v = 0; v < procs; ++v) for_each_child(v, procs, [&](int) { ++children[static_cast<std::size_t>(v)]; });
  std::iota(positions.begin(), positions.end(), 1);
  std::stable_sort(positions.begin(), positions.end(),
                   [&](int x, int y) { return children[static_cast<std::size_t>(x)] > children[static_cast<std::size_t>(y)]; });
  std::vector<int> by_done(static_cast<std::size_t>(units));
  std::iota(by_done.begin(), by_done.end(), 0);
  std::stable_sort(by_done.begin(), by_done.end(),
                   [&](int x, int y) { return done[static_cast<std::size_t>(x)] < done[static_cast<std::size_t>(y)]; });
  // Each unit's candidates in order of max(load, c), ties by rank: the
  // ranks whose port is free by c (`floor`, by rank), then the others by
  // (load, rank) (`busy`). c grows from unit to unit (by_done), and only
  // the owner and the ranks given inner positions change their load, so
  // both lists are kept sorted instead of sorting P ranks per unit.
  int inner = 0;  // positions with children come first in `positions`
  while (inner < static_cast<int>(positions.size()) && children[static_cast<std::size_t>(positions[static_cast<std::size_t>(inner)])] > 0)
    ++inner;
  std::vector<int> floor;
  std::vector<std::pair<double, int>> busy, moved;
  busy.reserve(static_cast<std::size_t>(procs));
  for (int r = 0; r < procs; ++r) busy.emplace_back(load[static_cast<std::size_t>(r)], r);
  std::sort(busy.begin(), busy.end());
  auto merge_in = [](auto &sorted, auto &more) {  // `more` (any order; emptied) into the sorted list
    std::sort(more.begin(), more.end());
    const auto middle = static_cast<std::ptrdiff_t>(sorted.size());
    sorted.insert(sorted.end(), more.begin(), more.end());
    std::inplace_merge(sorted.begin(), sorted.begin() + middle, sorted.end());
    more.clear();
  };
  plan.at.assign(static_cast<std::size_t>(units), {});
  std::vector<int> candidates, freed;
  for (int u : by_done) {
    const double c = done[static_cast<std::size_t>(u)];
    const int own = plan.owner[static_cast<std::size_t>(u)];
    if (auto f = std::lower_bound(floor.begin(), floor.end(), own); f != floor.end() && *f == own) {
      floor.erase(f);
    } else {
      busy.erase(std::find_if(busy.begin(), busy.end(), [&](const auto &b) { return b.second == own; }));
    }
    load[static_cast<std::size_t>(own)] = std::max(load[static_cast<std::size_t>(own)], c) + children[0];
    std::size_t free = 0;
    while (free < busy.size() && busy[free].first <= c) ++free;
    for (std::size_t i = 0; i < free; ++i) freed.push_back(busy[i].second);
    busy.erase(busy.begin(), busy.begin() + static_cast<std::ptrdiff_t>(free));
    merge_in(floor, freed);
    candidates.assign(floor.begin(), floor.end());
    for (const auto &b : busy) candidates.push_back(b.second);
    std::vector<int> &at = plan.at[static_cast<std::size_t>(u)];
    at.assign(static_cast<std::size_t>(procs), own);
    for (std::size_t z = 0; z < positions.size(); ++z) {
      const int r = candidates[z], v = positions[z];
      at[static_cast<std::size_t>(v)] = r;
      if (children[static_cast<std::size_t>(v)] > 0) {
        load[static_cast<std::size_t>(r)] = std::max(load[static_cast<std::size_t>(r)], c) + children[static_cast<std::size_t>(v)];
        moved.emplace_back(load[static_cast<std::size_t>(r)], r);
      }
    }
    // The first `inner` candidates now carry new loads (above c): out of
    // the floor's front, then the busy list's.
    const std::size_t from_floor = std::min(floor.size(), static_cast<std::size_t>(inner));
    floor.erase(floor.begin(), floor.begin() + static_cast<std::ptrdiff_t>(from_floor));
    busy.erase(busy.begin(), busy.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(inner) - from_floor));
    moved.emplace_back(load[static_cast<std::size_t>(own)], own);
    merge_in(busy, moved);
  }
  return plan;
}

Program build(const Params &params, int rank, const Plan &plan) {
  const int procs = params.procs;
  const std::int64_t n = params.count;
  Program program{rank, procs, 0, {}};
  if (procs == 1) {
    if (n > 0) add_step(program, {copy_op(send_buf(0, n), recv_buf(0, n))});
    return program;
  }
  const int units = plan.units;
  auto unit = [&](int u) { return block_span(n, units, u); };
  auto owner = [&](int u) { return plan.owner[static_cast<std::size_t>(u)]; };
  // Groups: unit u's data in (the parts at its owner, the result at the
  // others) is group u; this rank's part of unit u is group units + u.
  auto part_group = [&](int u) { return units + u; };
  std::vector<int> position(static_cast<std::size_t>(units), 0);
  for (int u = 0; u < units; ++u) {
    const std::vector<int> &at = plan.at[static_cast<std::size_t>(u)];
    position[static_cast<std::size_t>(u)] = static_cast<int>(std::find(at.begin(), at.end(), rank) - at.begin());
  }
  std::vector<Op> ops;
  for (int u = 0; u < units; ++u)
    if (owner(u) == rank && unit(u).count > 0)
      ops.push_back(copy_op(send_buf(unit(u).offset, unit(u).count), recv_buf(unit(u).offset, unit(u).count)));
  for (int u = 0; u < units; ++u) {  // what comes in
    const Span s = unit(u);
    const Region here = recv_buf(s.offset, s.count);
    if (owner(u) == rank) {
      for (int p = 0; p < procs; ++p)
        if (p != rank) ops.push_back(tagged(recv_op(p, here, Combine::left), u + 1, u));
    } else {
      const int parent = plan.at[static_cast<std::size_t>(u)][static_cast<std::size_t>(tree_parent(position[static_cast<std::size_t>(u)]))];
      ops.push_back(tagged(recv_op(parent, here), u + 1, u, part_group(u)));
    }
  }
  const int me = plan.place[static_cast<std::size_t>(rank)];
  int queued = 0;
  std::vector<int> window(static_cast<std::size_t>(kWindow), -1);  // the groups of the last W queued parts
  for (int u : plan.sequence) {  // the parts, in the common order
    const Span s = unit(u);
    if (owner(u) == rank) continue;
    Op part = tagged(send_op(owner(u), send_buf(s.offset, s.count)), u + 1, part_group(u));
    if (plan.place[static_cast<std::size_t>(owner(u))] < me) {  // an owner already there: through the window
      int &slot = window[static_cast<std::size_t>(queued++ % kWindow)];
      part.after = slot;
      part.synchronous = true;  // the window counts the parts the owners have taken
      slot = part_group(u);
    }
    ops.push_back(part);
  }
  for (int u = 0; u < units; ++u) {  // the forwards, each once its unit is in
    const Span s = unit(u);
    const std::vector<int> &at = plan.at[static_cast<std::size_t>(u)];
    for_each_child(position[static_cast<std::size_t>(u)], procs, [&](int child) {
      ops.push_back(tagged(send_op(at[static_cast<std::size_t>(child)], recv_buf(s.offset, s.count)), u + 1, -1, u));
    });
  }
  add_step(program, std::move(ops));
  return program;
}

}  // namespace

int owner_trees_tags(const Params &params) { return params.procs > 1 ? unit_count(params) + 1 : 1; }
Program allreduce_owner_trees(const Params &params, int rank) { return build(params, rank, plan(params)); }
std::vector<Program> allreduce_owner_trees_all(const Params &params) { return build_every_rank(params, plan(params), build); }

}  // namespace patcoll::core
