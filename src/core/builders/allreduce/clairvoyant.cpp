// allreduce/clairvoyant — PAT-driven allreduce that folds late ranks in
// (beyond the papers; [PO] §7 names a Clairvoyant allreduce as future work;
// design and worked example in docs/results/clairvoyant-allreduce.md).
//
// Decided in core from the PAT vector and the cost model (the plan, shared
// by every rank; one rank's Program is then built alone). Ranks sorted by
// predicted arrival (ties by rank): the first P − k form the group G, the
// last k are folded in one by one, in arrival order.
//   1. G runs a classic allreduce among itself (ring, rabenseifner or
//      recursive_doubling over its positions) while the late ranks compute
//      — or, reduce-first (kGroupReduce), only the two-tree reduce: the
//      fold's trees without L, backwards in time, leaving S_G's segments
//      of tree t at its root (one transfer plus the fill instead of two).
//   2. Fold of late rank L into G = g_0 … g_{n−1} (all holding S_G): in N
//      segments, L broadcasts its raw vector to G down two binary trees
//      (pipelined, segments alternating between them, every member interior
//      in at most one: [SST] Sanders/Speck/Träff's two-tree broadcast);
//      each member combines each raw segment into its result, and the two
//      units of send capacity the trees leave free stream S_G (or the
//      final segments) back to L. After a reduce-first group the roots
//      combine L's raw segments and the trees carry final segments (stored,
//      no scratch). L then joins G.
// The plan (k, group shape, N) is the candidate with the least simulated
// run time under Params::cost and the PATs; k = 0 is the classic algorithm
// itself over all ranks in rank order, so balanced PATs cost exactly the
// best classic. Above kSimulatedProcs ranks the plan is chosen by formula.
// Cost of one fold after L arrives: at most (N + F)(α + (m/N)(β+γ)) rounds,
// F = 2⌈log2(n + 1)⌉ − 1 the trees' fill; at N = sqrt(F·m(β+γ)/α) that is
// m(β+γ) + 2·sqrt(F·m(β+γ)α) + Fα, one m-byte transfer plus a log-depth
// fill (the ring pays ~2m(β+γ), the chain fold of the first version paid
// the fill with F = n − 1).
// Restrictions: commutative (S_G + x_L is not in rank order); pap_aware;
// schedule_based. Any PAT vector is correct — wrong PATs only cost time.
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <map>

#include "../classic.hpp"
#include "../pap.hpp"
#include "../plan_choice.hpp"
#include "../../simulate.hpp"

namespace patcoll::core {
namespace {

// The classic shapes a group may run (and k = 0 falls back to).
constexpr NamedBuilder kShapes[] = {
    {"ring", allreduce_ring},
    {"rabenseifner", allreduce_rabenseifner},
    {"recursive_doubling", allreduce_recursive_doubling},
};

// Where the Programs being built go: every rank's (build_all), or one
// rank's (build_rank: the others' ops are never made, so building one rank
// costs its steps plus the shared round schedules).
class Programs {
 public:
  Programs(int procs, int only) : only_(only) {
    if (only < 0)
      for (int r = 0; r < procs; ++r) all_.push_back(Program{r, procs, 0, {}});
    else
      one_ = Program{only, procs, 0, {}};
  }
  bool wanted(int rank) const { return only_ < 0 || rank == only_; }
  Program &at(int rank) { return only_ < 0 ? all_[static_cast<std::size_t>(rank)] : one_; }
  std::vector<Program> all() && { return std::move(all_); }
  Program one() && { return std::move(one_); }

 private:
  int only_;
  std::vector<Program> all_;
  Program one_;
};

// The last round of a classic shape's Program over `inner.procs` positions:
// every position of the ring ends in the same round; the butterflies'
// (rabenseifner, recursive_doubling) last rounds are those of the
// non-power-of-two fix-up pair at positions 0 and 1 and of a rank outside
// it (the last position) — a test compares this with all positions.
int shape_last_round(const NamedBuilder &shape, const Params &inner) {
  int last = -1;
  for (int position : {0, 1, inner.procs - 1})
    if (position >= 0 && position < inner.procs)
      for (const Step &step : shape.build(inner, position).steps) last = std::max(last, step.round);
  return last;
}

// The two trees of a fold over group positions 0 … n−1 ([SST] Sanders,
// Speck, Träff 2009, "Two-tree algorithms for full bandwidth broadcast,
// reduction and scan"): tree 0's interior nodes are the odd positions,
// tree 1's the even ones, each a binary heap over [interior…, leaves…]
// (a heap of S nodes has children only at its first ⌊(S−1)/2⌋ ≤ |interior|
// nodes, so every leaf of one tree is interior in the other, or a leaf of
// both when n ≤ 2). A member forwards each segment of one tree to at most
// two children and none of the other tree's: ~m out per member, not 2m.
struct FoldTree {
  int root = 0;
  std::vector<std::vector<int>> children;  // per position
};

FoldTree fold_tree(int members, int parity) {
  std::vector<int> heap;
  for (int p = 0; p < members; ++p)
    if (p % 2 != parity) heap.push_back(p);  // interior: odd positions for tree 0
  for (int p = 0; p < members; ++p)
    if (p % 2 == parity) heap.push_back(p);
  FoldTree tree{heap[0], std::vector<std::vector<int>>(static_cast<std::size_t>(members))};
  for (std::size_t j = 1; j < heap.size(); ++j)
    tree.children[static_cast<std::size_t>(heap[(j - 1) / 2])].push_back(heap[j]);
  return tree;
}

// A link of the fold: `from` sends to `to` in the rounds of parity `color`,
// either the segments of tree `tree` in the order they reached `from`, or
// (tree = -1, to = L) L's share of S_G / the result.
struct FoldLink {
  int from, to, tree, color = -1;
  std::size_t sent = 0;  // segments of the tree sent so far
};

// Colours the links with two colours so that no node has two outgoing or
// two incoming links of one colour ([SST] §3: the links form a bipartite
// multigraph of degree ≤ 2 — out-sides against in-sides — whose components
// are paths and even cycles; colour each alternately).
void colour_links(std::vector<FoldLink> &links, int nodes) {
  std::vector<std::vector<std::size_t>> at(2 * static_cast<std::size_t>(nodes));  // out-side v, in-side nodes + v
  for (std::size_t e = 0; e < links.size(); ++e) {
    at[static_cast<std::size_t>(links[e].from)].push_back(e);
    at[static_cast<std::size_t>(nodes + links[e].to)].push_back(e);
  }
  auto walk = [&](std::size_t vertex, std::size_t edge) {
    for (int colour = 0;; colour = 1 - colour) {
      links[edge].color = colour;
      const FoldLink &link = links[edge];
      vertex = vertex == static_cast<std::size_t>(link.from) ? static_cast<std::size_t>(nodes + link.to)
                                                              : static_cast<std::size_t>(link.from);
      const auto next = std::find_if(at[vertex].begin(), at[vertex].end(), [&](std::size_t e) { return links[e].color < 0; });
      if (next == at[vertex].end()) return;
      edge = *next;
    }
  };
  for (std::size_t vertex = 0; vertex < at.size(); ++vertex)  // paths, from an end
    if (at[vertex].size() == 1 && links[at[vertex][0]].color < 0) walk(vertex, at[vertex][0]);
  for (std::size_t e = 0; e < links.size(); ++e)  // cycles
    if (links[e].color < 0) walk(static_cast<std::size_t>(links[e].from), e);
}

// The round schedule of a two-tree pipelined broadcast over group
// positions 0 … n−1 ([SST]) in `segments` segments, segment s down tree
// s mod 2: a member that received segment s in round t forwards it to its
// children in tree s mod 2 from round t + 1 on, each link in the rounds of
// its colour, in the order the segments reached it. With a late rank L
// (node n) L holds every segment and sends s to the root of tree s mod 2,
// and the two units of send capacity the trees leave free (a member that
// is a leaf in both trees, or two members with one child) stream the
// segments back to L in order: segment s once L has sent its own s
// (`StreamBack::after_late_sent`) or once that member holds s
// (`StreamBack::once_held`). Without L (`StreamBack::none`) the root of
// tree t holds tree t's segments from the start. Every node sends and
// receives at most one segment a round; a hop costs one or two rounds.
enum class StreamBack { none, after_late_sent, once_held };
struct FoldTransfer {
  int round, from, to;  // nodes: group positions, n = L
  std::int64_t segment;
};

std::vector<FoldTransfer> two_tree_rounds(int members, std::int64_t segments, StreamBack stream) {
  const int late_node = members;
  const bool with_late = stream != StreamBack::none;
  const FoldTree trees[2] = {fold_tree(members, 0), fold_tree(members, 1)};
  std::vector<FoldLink> links;
  std::vector<int> spare(static_cast<std::size_t>(members), 2);  // free send capacity per member
  for (int tree = 0; tree < 2; ++tree) {
    if (with_late) links.push_back({late_node, trees[tree].root, tree});
    for (int node = 0; node < members; ++node)
      for (int child : trees[tree].children[static_cast<std::size_t>(node)]) {
        links.push_back({node, child, tree});
        --spare[static_cast<std::size_t>(node)];
      }
  }
  if (with_late)
    for (int node = 0; node < members; ++node)
      for (; spare[static_cast<std::size_t>(node)] > 0; --spare[static_cast<std::size_t>(node)])
        links.push_back({node, late_node, -1});  // two in all: 2n capacity, 2(n − 1) tree links
  colour_links(links, members + 1);
  // arrivals[node][tree]: (segment, round received) in order; the source holds its segments at round −1.
  std::vector<std::array<std::vector<std::pair<std::int64_t, int>>, 2>> arrivals(static_cast<std::size_t>(members) + 1);
  for (std::int64_t s = 0; s < segments; ++s) {
    const int source = with_late ? late_node : trees[s % 2].root;
    arrivals[static_cast<std::size_t>(source)][s % 2].push_back({s, -1});
  }
  constexpr int kNever = std::numeric_limits<int>::max();
  std::vector<int> received_round(static_cast<std::size_t>(members) * static_cast<std::size_t>(segments), kNever);
  if (!with_late)
    for (std::int64_t s = 0; s < segments; ++s) received_round[static_cast<std::size_t>(trees[s % 2].root) * segments + s] = -1;
  std::vector<int> late_sent(static_cast<std::size_t>(segments), kNever);
  std::int64_t late_received = 0, delivered = 0;
  const std::int64_t deliveries = with_late ? (members + 1) * segments : (members - 1) * segments;
  std::vector<FoldTransfer> transfers;
  std::vector<std::pair<int, std::int64_t>> arrived;  // (node, segment) received this round
  for (int round = 0; delivered < deliveries; ++round) {
    arrived.clear();
    for (FoldLink &link : links) {
      if (link.color != round % 2) continue;
      if (link.tree < 0) {  // to L
        if (late_received == segments) continue;
        const std::int64_t s = late_received;
        const bool ready = stream == StreamBack::after_late_sent
                               ? late_sent[static_cast<std::size_t>(s)] < round
                               : received_round[static_cast<std::size_t>(link.from) * segments + s] < round;
        if (!ready) continue;
        ++late_received;
        transfers.push_back({round, link.from, late_node, s});
        ++delivered;
        continue;
      }
      const auto &held = arrivals[static_cast<std::size_t>(link.from)][link.tree];
      if (link.sent == held.size() || held[link.sent].second >= round) continue;
      const std::int64_t s = held[link.sent++].first;
      if (link.from == late_node) late_sent[static_cast<std::size_t>(s)] = round;
      transfers.push_back({round, link.from, link.to, s});
      arrived.push_back({link.to, s});
      ++delivered;
    }
    for (const auto &[node, s] : arrived) {
      received_round[static_cast<std::size_t>(node) * segments + s] = round;
      arrivals[static_cast<std::size_t>(node)][s % 2].push_back({s, round});
    }
  }
  return transfers;
}

// Collects each node's ops per round and appends them as steps.
// (Only for the wanted ranks.)
class RoundSteps {
 public:
  RoundSteps(Programs &programs, int nodes, std::function<int(int)> rank_of)
      : programs_(programs), rank_of_(std::move(rank_of)), ops_(static_cast<std::size_t>(nodes)) {
    for (int node = 0; node < nodes; ++node) wanted_.push_back(programs_.wanted(rank_of_(node)));
  }
  void add(int node, int round, Op op) {
    if (wanted_[static_cast<std::size_t>(node)]) ops_[static_cast<std::size_t>(node)][round].push_back(op);
  }
  void append() {
    for (std::size_t node = 0; node < ops_.size(); ++node)
      for (auto &[round, ops] : ops_[node]) add_step(programs_.at(rank_of_(static_cast<int>(node))), std::move(ops), round);
  }

 private:
  Programs &programs_;
  std::function<int(int)> rank_of_;
  std::vector<std::map<int, std::vector<Op>>> ops_;
  std::vector<bool> wanted_;
};

// The group's two-tree reduce (the broadcast's schedule reversed in time,
// [SST]): every member copies its vector into its result, then combines
// its children's partial segments and sends its own up; the root of tree t
// ends with S_G's segments of tree t (s mod 2 = t), the other members with
// partial sums. About as long as the fold (N + F rounds) — one transfer
// plus the fill, where the group's allreduce costs two.
// Returns the round after the reduce's last.
int append_group_reduce(Programs &programs, const Params &params, const std::vector<int> &group, std::int64_t segments,
                        int first_round) {
  const std::int64_t n = params.count;
  const int members = static_cast<int>(group.size());
  auto seg = [&](std::int64_t s) {
    const Span span = segment_span(n, segments, s);
    return Region{Buffer::recv, span.offset, span.count};
  };
  const std::vector<FoldTransfer> broadcast = two_tree_rounds(members, segments, StreamBack::none);
  const int last = broadcast.empty() ? -1 : broadcast.back().round;
  RoundSteps steps(programs, members, [&](int node) { return group[static_cast<std::size_t>(node)]; });
  for (int node = 0; node < members; ++node) steps.add(node, first_round, copy_op(send_buf(0, n), recv_buf(0, n)));
  for (const FoldTransfer &t : broadcast) {  // reversed: `to` sends its partial segment up to `from`
    const int round = first_round + 1 + last - t.round;
    steps.add(t.to, round, send_op(group[static_cast<std::size_t>(t.from)], seg(t.segment)));
    steps.add(t.from, round, recv_op(group[static_cast<std::size_t>(t.to)], seg(t.segment), Combine::left));
  }
  steps.append();
  return first_round + last + 2;
}

// One fold of `late` (L) into `group` = g_0 … g_{n−1} in `segments`
// segments, on the two trees' round schedule (two_tree_rounds). L first
// copies its vector into its result and sends raw segment s to the root of
// tree s mod 2.
//   FoldInto::sums (the group ran an allreduce: every member holds S_G):
//     the raw segments go down the trees; every member keeps each in
//     scratch at its own offset (scratch = m), combines it into its result
//     at its next step and forwards it; the free send capacity streams
//     S_G's segment s (L combines) or, once that member has combined raw s,
//     the final segment s (L stores), after L sent its own s.
//   FoldInto::roots (the group ran the two-tree reduce: the root of tree t
//     holds S_G's segments of tree t): the root combines raw s into S_G's s
//     — the final segment — and the final segments go down the trees
//     (members store them); the free send capacity streams each final
//     segment to L once that member holds it (L stores). No scratch.
// Everyone ends with S_G + x_L.
enum class FoldInto { sums, roots };
// Returns the round after the fold's last.
int append_fold(Programs &programs, const Params &params, const std::vector<int> &group, int late, std::int64_t segments,
                int first_round, FoldInto into) {
  const std::int64_t n = params.count;
  const int members = static_cast<int>(group.size());
  const int late_node = members;
  auto seg = [&](Buffer buffer, std::int64_t s) {
    const Span span = segment_span(n, segments, s);
    return Region{buffer, span.offset, span.count};
  };
  auto rank_of = [&](int node) { return node == late_node ? late : group[static_cast<std::size_t>(node)]; };
  const std::vector<FoldTransfer> transfers =
      two_tree_rounds(members, segments, into == FoldInto::sums ? StreamBack::after_late_sent : StreamBack::once_held);
  RoundSteps steps(programs, members + 1, rank_of);
  steps.add(late_node, first_round, copy_op(send_buf(0, n), recv_buf(0, n)));
  constexpr int kNever = std::numeric_limits<int>::max();
  std::vector<int> received_round(static_cast<std::size_t>(members) * static_cast<std::size_t>(segments), kNever);
  for (const FoldTransfer &t : transfers) {
    const int round = first_round + t.round;
    const std::int64_t s = t.segment;
    if (into == FoldInto::roots) {  // final segments everywhere but on the way from L to a root
      steps.add(t.from, round, send_op(rank_of(t.to), seg(Buffer::recv, s)));
      steps.add(t.to, round, recv_op(rank_of(t.from), seg(Buffer::recv, s), t.from == late_node ? Combine::left : Combine::store));
      continue;
    }
    if (t.to == late_node) {  // S_G's s, or the final s once combined (at a step before this one)
      const bool final = received_round[static_cast<std::size_t>(t.from) * segments + s] < t.round;
      steps.add(t.from, round, send_op(late, seg(Buffer::recv, s)));
      steps.add(late_node, round, recv_op(rank_of(t.from), seg(Buffer::recv, s), final ? Combine::store : Combine::left));
      continue;
    }
    steps.add(t.from, round, send_op(rank_of(t.to), seg(t.from == late_node ? Buffer::recv : Buffer::scratch, s)));
    steps.add(t.to, round, recv_op(rank_of(t.from), seg(Buffer::scratch, s)));
    steps.add(t.to, round + 1, combine_op(seg(Buffer::scratch, s), seg(Buffer::recv, s), Combine::left));
    received_round[static_cast<std::size_t>(t.to) * segments + s] = t.round;
  }
  if (into == FoldInto::sums)
    for (int node = 0; node <= members; ++node)
      if (programs.wanted(rank_of(node))) {
        Program &program = programs.at(rank_of(node));
        program.scratch_count = std::max(program.scratch_count, n);
      }
  steps.append();
  return first_round + (transfers.empty() ? 0 : transfers.back().round) + 2;  // sums: combines one round later
}

Params group_params(const Params &params, int members) {
  Params group = params;
  group.procs = members;
  group.root = 0;
  group.arrivals.clear();
  group.segment_count = group.segment_elements = 0;
  group.segment_sizes.clear();
  group.radix.clear();
  return group;
}

// Formula estimates for the plan above kSimulatedProcs ranks (β' = β+γ):
// ring 2(P−1)α + 2((P−1)/P)mβ'; rabenseifner 2⌈log2 P⌉α + 2((P'−1)/P')mβ'
// over the largest power of two P' ≤ P, plus 2(α + mβ') for the
// non-power-of-two fix-up (whole vectors to and from a partner).
struct ClassicEstimate {
  std::string_view shape;
  double seconds;
};
ClassicEstimate best_classic_estimate(const CostModel &cost, int procs, double bytes) {
  const double per_byte = cost.beta + cost.gamma;
  const double ring = 2.0 * (procs - 1) * cost.alpha + 2.0 * bytes * per_byte * (procs - 1) / procs;
  int lower = 1;
  while (lower * 2 <= procs) lower *= 2;
  double rabenseifner = 2.0 * ceil_log2(lower) * cost.alpha + 2.0 * bytes * per_byte * (lower - 1) / lower;
  if (lower != procs) rabenseifner += 2.0 * (cost.alpha + bytes * per_byte);
  return rabenseifner < ring ? ClassicEstimate{"rabenseifner", rabenseifner} : ClassicEstimate{"ring", ring};
}

// The fold's (or the group's two-tree reduce's) time at the default
// segments: at most (N + F)(α + (m/N)(β+γ)) (clairvoyant_fold_fill_rounds).
double two_tree_estimate(const Params &params, int group_size);

}  // namespace

// Fold segments are at least 64 KiB: a smaller send is eager (Open MPI's
// TCP eager limit and SMPI's send-is-detached threshold are 64 KiB) and
// completes at once, so a member whose receive came early posts its next
// send while the last one is still on the wire, and the two share its link
// — the segment on the critical path arrives late and every later round
// waits. Under SMPI tryton48 (P = 48, 1 M floats, one rank late by the ring
// time) the formula's N = 129 (32 KiB) ran 141.3 ms, N = 63 (66 KiB) 108.5
// ms; the model, whose sends always wait for their transfer, 106.7 and 108.5.
constexpr double kFoldMinSegmentBytes = 65536;

int clairvoyant_fold_fill_rounds(int group_size) { return 2 * ceil_log2(std::max(1, group_size) + 1) - 1; }

std::int64_t clairvoyant_fold_segments(const Params &params, int group_size) {
  if (params.count <= 0) return 0;
  const double bytes = static_cast<double>(params.count) * static_cast<double>(params.element_bytes);
  const double alpha = std::max(params.cost.alpha, 1e-12);
  const double optimal = std::sqrt(clairvoyant_fold_fill_rounds(group_size) * bytes * (params.cost.beta + params.cost.gamma) / alpha);
  const auto most = static_cast<std::int64_t>(bytes / static_cast<double>(kFoldMinSegmentBytes));
  return std::clamp<std::int64_t>(std::llround(optimal), 1, std::clamp<std::int64_t>(most, 1, params.count));
}

namespace {
double two_tree_estimate(const Params &params, int group_size) {
  const double bytes = static_cast<double>(params.count) * static_cast<double>(params.element_bytes);
  const auto segments = static_cast<double>(clairvoyant_fold_segments(params, group_size));
  return (segments + clairvoyant_fold_fill_rounds(group_size)) *
         (params.cost.alpha + bytes / segments * (params.cost.beta + params.cost.gamma));
}
}  // namespace

namespace {
// Builds every rank's Programs (only < 0) or rank `only`'s alone.
Programs build_plan(const Params &params, const ClairvoyantAllreducePlan &plan, int only) {
  const int procs = params.procs;
  Programs programs(procs, only);
  if (params.count == 0) return programs;
  const NamedBuilder &shape = builder_named(kShapes, plan.group_shape);
  const int folded = std::clamp(plan.folded, 0, procs - 1);
  if (folded == 0) {  // the classic algorithm itself, rank order
    for (int r = 0; r < procs; ++r)
      if (programs.wanted(r)) programs.at(r) = shape.build(params, r);
    return programs;
  }
  const std::vector<int> order = arrival_order(params);
  std::vector<int> group(order.begin(), order.end() - folded);
  auto segments_for = [&](int members) {
    return plan.segments > 0 ? std::min(plan.segments, params.count) : clairvoyant_fold_segments(params, members);
  };
  const bool reduce_first = plan.group_shape == kGroupReduce;
  int next_round = 0;
  if (reduce_first) {
    next_round = append_group_reduce(programs, params, group, segments_for(static_cast<int>(group.size())), 0);
  } else {
    const Params inner = group_params(params, static_cast<int>(group.size()));
    for (int position = 0; position < static_cast<int>(group.size()); ++position)
      if (programs.wanted(group[position])) append_over_positions(programs.at(group[position]), shape.build(inner, position), group);
    next_round = shape_last_round(shape, inner) + 1;
  }
  for (int j = 0; j < folded; ++j) {
    const int late = order[procs - folded + j];
    next_round = append_fold(programs, params, group, late, segments_for(static_cast<int>(group.size())), next_round,
                             reduce_first && j == 0 ? FoldInto::roots : FoldInto::sums);
    group.push_back(late);
  }
  return programs;
}
}  // namespace

std::vector<Program> build_clairvoyant_allreduce(const Params &params, const ClairvoyantAllreducePlan &plan) {
  return build_plan(params, plan, -1).all();
}

Program build_clairvoyant_allreduce_rank(const Params &params, const ClairvoyantAllreducePlan &plan, int rank) {
  return build_plan(params, plan, rank).one();
}

ClairvoyantAllreducePlan plan_clairvoyant_allreduce(const Params &params) {
  const int procs = params.procs;
  ClairvoyantAllreducePlan best{0, "ring", 0, std::numeric_limits<double>::infinity()};
  if (procs < 2 || params.count == 0) return best;
  const bool has_pats = params.arrivals.size() == static_cast<std::size_t>(procs);
  if (procs > kSimulatedProcs) {
    // Formula: the best classic shape after the last arrival, against one
    // fold after the group's allreduce or after its two-tree reduce —
    // whichever of the group's work and the last gap is longer — all times
    // from the arrival of the last group member.
    const double bytes = static_cast<double>(params.count) * static_cast<double>(params.element_bytes);
    const ClassicEstimate all = best_classic_estimate(params.cost, procs, bytes);
    best = {0, all.shape, 0, all.seconds};
    if (has_pats) {
      const std::vector<int> order = arrival_order(params);
      const double gap = params.arrivals[order[procs - 1]] - params.arrivals[order[procs - 2]];
      best.predicted_run_time = gap + all.seconds;
      const ClassicEstimate group = best_classic_estimate(params.cost, procs - 1, bytes);
      const double fold = two_tree_estimate(params, procs - 1);
      const double after_allreduce = std::max(gap, group.seconds) + fold;
      const double after_reduce = std::max(gap, fold) + fold;  // the reduce: the fold's rounds reversed, without L
      const double margin = 1e-9 * best.predicted_run_time;
      if (std::min(after_allreduce, after_reduce) < best.predicted_run_time - margin)
        best = after_reduce < after_allreduce ? ClairvoyantAllreducePlan{1, kGroupReduce, 0, after_reduce}
                                              : ClairvoyantAllreducePlan{1, group.shape, 0, after_allreduce};
    }
    return best;
  }
  PlanChoice<ClairvoyantAllreducePlan> choice;  // plan_choice.hpp
  auto consider = [&](ClairvoyantAllreducePlan plan) {
    choice.consider(plan, params, build_clairvoyant_allreduce(params, plan));
  };
  for (const NamedBuilder &shape : kShapes) consider({0, shape.name, 0, 0});
  if (!has_pats) return choice.best();
  const int max_folded = std::min(procs - 1, kMaxFolded);
  for (int folded = 1; folded <= max_folded; ++folded) {
    consider({folded, kGroupReduce, 0, 0});  // first: of equally fast plans, the one that moves the fewest bytes
    for (const NamedBuilder &shape : kShapes) {
      if (shape.name == "recursive_doubling") continue;  // whole-vector exchanges: never the group's best for large m
      consider({folded, shape.name, 0, 0});
    }
  }
  return choice.best();
}

std::vector<Program> allreduce_clairvoyant(const Params &params) {
  return build_clairvoyant_allreduce(params, plan_clairvoyant_allreduce(params));
}

Program allreduce_clairvoyant_rank(const Params &params, int rank) {
  return build_clairvoyant_allreduce_rank(params, plan_clairvoyant_allreduce(params), rank);
}

}  // namespace patcoll::core
