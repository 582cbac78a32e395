// allreduce/clairvoyant — PAT-driven allreduce that folds late ranks in
// (beyond the papers; [PO] §7 names a Clairvoyant allreduce as future work;
// design and worked example in docs/clairvoyant-allreduce.md).
//
// Decided in core from the PAT vector and the cost model, for all ranks at
// once. Ranks sorted by predicted arrival (ties by rank): the first P − k
// form the group G, the last k are folded in one by one, in arrival order.
//   1. G runs a classic allreduce among itself (ring, rabenseifner or
//      recursive_doubling over its positions) while the late ranks compute.
//   2. Fold of late rank L into G = g_0 … g_{n−1} (all holding S_G): in N
//      segments, L streams its raw vector down the chain g_0 → … → g_{n−1}
//      (each member combines the segment into its result and forwards the
//      raw segment), while g_{n−1} — the one member whose send port is free
//      — streams S_G to L, which combines. L then joins G.
// The plan (k, group shape, N) is the candidate with the least simulated
// run time under Params::cost and the PATs; k = 0 is the classic algorithm
// itself over all ranks in rank order, so balanced PATs cost exactly the
// best classic. Above kSimulatedProcs ranks the plan is chosen by formula.
// Cost of one fold after L arrives: (N + n − 1)(α + (m/N)(β+γ)) with
// N = sqrt((n − 1)m(β+γ)/α): m(β+γ) + 2·sqrt((n−1)m(β+γ)α) + (n−1)α,
// i.e. one m-byte transfer plus pipeline fill (the ring pays ~2m(β+γ)).
// Restrictions: commutative (S_G + x_L is not in rank order); pap_aware;
// schedule_based. Any PAT vector is correct — wrong PATs only cost time.
#include <algorithm>
#include <cmath>
#include <limits>

#include "../classic.hpp"
#include "../pap.hpp"
#include "../../simulate.hpp"

namespace patcoll::core {
namespace {

// The classic shapes a group may run (and k = 0 falls back to).
struct GroupShape {
  std::string_view name;
  BuildRank build;
};
constexpr GroupShape kShapes[] = {
    {"ring", allreduce_ring},
    {"rabenseifner", allreduce_rabenseifner},
    {"recursive_doubling", allreduce_recursive_doubling},
};

const GroupShape &shape_named(std::string_view name) {
  for (const GroupShape &shape : kShapes)
    if (shape.name == name) return shape;
  return kShapes[0];
}

int max_round(const std::vector<Program> &programs) {
  int last = -1;
  for (const Program &program : programs)
    for (const Step &step : program.steps) last = std::max(last, step.round);
  return last;
}

// One fold of `late` into `group` in `segments` segments (see the header),
// in lockstep rounds t = 0, 1, …: L sends raw segment t to g_0 and receives
// S_G segment t from g_{n−1}; g_i receives raw segment t − i and forwards
// (and combines) segment t − i − 1; g_{n−1} sends S_G segment t before it
// combines raw segment t into it (n − 1 ≥ 0 rounds later). Everyone talks
// to its neighbours in the same round, so no step waits on a later one.
// Scratch: two segment slots (double buffering), at offset 0.
void append_fold(std::vector<Program> &programs, const Params &params, const std::vector<int> &group, int late,
                 std::int64_t segments, int first_round) {
  const std::int64_t n = params.count;
  const int members = static_cast<int>(group.size());
  const std::int64_t slot = segment_span(n, segments, 0).count;  // the largest segment
  auto seg = [&](Buffer buffer, std::int64_t s) {
    const Span span = segment_span(n, segments, s);
    return Region{buffer, span.offset, span.count};
  };
  auto scratch_slot = [&](std::int64_t s) { return scratch_buf((s % 2) * slot, segment_span(n, segments, s).count); };
  auto valid = [&](std::int64_t s) { return s >= 0 && s < segments; };
  const int last = group[members - 1];
  // The late rank: streams its vector to g_0, receives S_G from g_{n−1}.
  Program &late_program = programs[late];
  late_program.scratch_count = std::max(late_program.scratch_count, 2 * slot);
  for (std::int64_t t = 0; t <= segments; ++t) {
    std::vector<Op> ops;
    if (t == 0) ops.push_back(copy_op(send_buf(0, n), recv_buf(0, n)));
    if (valid(t - 1)) ops.push_back(combine_op(scratch_slot(t - 1), seg(Buffer::recv, t - 1), Combine::left));
    if (valid(t)) {
      ops.push_back(send_op(group[0], seg(Buffer::recv, t)));  // still L's own segment t
      ops.push_back(recv_op(last, scratch_slot(t)));
    }
    add_step(late_program, std::move(ops), first_round + static_cast<int>(t));
  }
  // The group: receive the raw segment, combine it, forward it.
  for (int i = 0; i < members; ++i) {
    Program &program = programs[group[i]];
    program.scratch_count = std::max(program.scratch_count, 2 * slot);
    const int previous = i == 0 ? late : group[i - 1];
    const bool is_last = i + 1 == members;
    for (std::int64_t t = 0; t <= segments + i; ++t) {
      std::vector<Op> ops;
      const std::int64_t arriving = t - i, done = t - i - 1;
      if (valid(done)) {
        ops.push_back(combine_op(scratch_slot(done), seg(Buffer::recv, done), Combine::left));
        if (!is_last) ops.push_back(send_op(group[i + 1], scratch_slot(done)));
      }
      // g_{n−1}'s segment t still holds S_G: raw segment t is combined in round t + n.
      if (is_last && valid(t)) ops.push_back(send_op(late, seg(Buffer::recv, t)));
      if (valid(arriving)) ops.push_back(recv_op(previous, scratch_slot(arriving)));
      add_step(program, std::move(ops), first_round + static_cast<int>(t));
    }
  }
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

double simulated_run_time(const Params &params, const std::vector<Program> &programs, double *elapsed) {
  const SimulateResult result = simulate(params, programs);
  if (!result.error.empty()) return std::numeric_limits<double>::infinity();
  if (elapsed) *elapsed = result.average_elapsed;
  return result.run_time;
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

}  // namespace

std::int64_t clairvoyant_fold_segments(const Params &params, int group_size) {
  if (params.count <= 0) return 0;
  const double bytes = static_cast<double>(params.count) * static_cast<double>(params.element_bytes);
  const double alpha = std::max(params.cost.alpha, 1e-12);
  const double optimal = std::sqrt(std::max(1, group_size - 1) * bytes * (params.cost.beta + params.cost.gamma) / alpha);
  return std::clamp<std::int64_t>(std::llround(optimal), 1, params.count);
}

std::vector<Program> build_clairvoyant_allreduce(const Params &params, const ClairvoyantAllreducePlan &plan) {
  const int procs = params.procs;
  std::vector<Program> programs;
  for (int r = 0; r < procs; ++r) programs.push_back(Program{r, procs, 0, {}});
  if (params.count == 0) return programs;
  const GroupShape &shape = shape_named(plan.group_shape);
  const int folded = std::clamp(plan.folded, 0, procs - 1);
  if (folded == 0) {  // the classic algorithm itself, rank order
    for (int r = 0; r < procs; ++r) programs[r] = shape.build(params, r);
    return programs;
  }
  const std::vector<int> order = arrival_order(params);
  std::vector<int> group(order.begin(), order.end() - folded);
  const Params inner = group_params(params, static_cast<int>(group.size()));
  for (int position = 0; position < static_cast<int>(group.size()); ++position)
    append_over_positions(programs[group[position]], shape.build(inner, position), group);
  for (int j = 0; j < folded; ++j) {
    const int late = order[procs - folded + j];
    const std::int64_t segments =
        plan.segments > 0 ? std::min(plan.segments, params.count) : clairvoyant_fold_segments(params, static_cast<int>(group.size()));
    append_fold(programs, params, group, late, segments, max_round(programs) + 1);
    group.push_back(late);
  }
  return programs;
}

ClairvoyantAllreducePlan plan_clairvoyant_allreduce(const Params &params) {
  const int procs = params.procs;
  ClairvoyantAllreducePlan best{0, "ring", 0, std::numeric_limits<double>::infinity()};
  if (procs < 2 || params.count == 0) return best;
  const bool has_pats = params.arrivals.size() == static_cast<std::size_t>(procs);
  if (procs > kSimulatedProcs) {
    // Formula: the best classic shape; fold the latest rank when the gap
    // to the one before it exceeds the group's own allreduce time (the
    // group then waits for nobody and the fold replaces a whole allreduce
    // after the late arrival by about one transfer).
    const double bytes = static_cast<double>(params.count) * static_cast<double>(params.element_bytes);
    const ClassicEstimate all = best_classic_estimate(params.cost, procs, bytes);
    best = {0, all.shape, 0, all.seconds};
    if (has_pats) {
      const std::vector<int> order = arrival_order(params);
      const double gap = params.arrivals[order[procs - 1]] - params.arrivals[order[procs - 2]];
      const ClassicEstimate group = best_classic_estimate(params.cost, procs - 1, bytes);
      if (gap > group.seconds) best = {1, group.shape, 0, best.predicted_run_time};
    }
    return best;
  }
  double best_elapsed = std::numeric_limits<double>::infinity();
  auto consider = [&](ClairvoyantAllreducePlan plan) {
    double elapsed = 0;
    plan.predicted_run_time = simulated_run_time(params, build_clairvoyant_allreduce(params, plan), &elapsed);
    // A candidate must win by more than rounding noise to replace an earlier one.
    const double margin = std::isfinite(best.predicted_run_time) ? 1e-9 * best.predicted_run_time : 0.0;
    if (!std::isfinite(best.predicted_run_time) || plan.predicted_run_time < best.predicted_run_time - margin ||
        (plan.predicted_run_time <= best.predicted_run_time + margin && elapsed < best_elapsed - margin)) {
      best = plan;
      best_elapsed = elapsed;
    }
  };
  for (const GroupShape &shape : kShapes) consider({0, shape.name, 0, 0});
  if (!has_pats) return best;
  const int max_folded = std::min(procs - 1, kMaxFolded);
  for (int folded = 1; folded <= max_folded; ++folded)
    for (const GroupShape &shape : kShapes) {
      if (shape.name == "recursive_doubling") continue;  // whole-vector exchanges: never the group's best for large m
      consider({folded, shape.name, 0, 0});
    }
  return best;
}

std::vector<Program> allreduce_clairvoyant(const Params &params) {
  return build_clairvoyant_allreduce(params, plan_clairvoyant_allreduce(params));
}

}  // namespace patcoll::core
