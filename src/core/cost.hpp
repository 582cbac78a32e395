// Hockney α-β-γ cost model shared by builders (segment sizing), schedule
// generators (round time) and the simulator.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace patcoll::core {

struct CostModel {
  double alpha = 2.66e-6;      // s per message ([M] Fig. 10 values as default)
  double beta = 4.8179e-10;    // s per byte transferred
  double gamma = 1.6654e-10;   // s per byte combined

  // Time to send and combine one segment of `bytes`: α + B(β + γ) ([M] §5.2).
  double round_time(double bytes) const { return alpha + bytes * (beta + gamma); }
  // Time one message of `bytes` holds both ports: α + Bβ (simulate.hpp).
  double transfer_time(double bytes) const { return alpha + beta * bytes; }
};

// [M] §5.2: N_opt = sqrt((n − 1)·m(β + γ)/α), n = ⌈log2 P⌉, m in bytes;
// clamped to [1, max(1, count)] so no segment is empty.
std::int64_t optimal_segment_count(const CostModel &, int procs, std::int64_t count,
                                   std::int64_t element_bytes);

int ceil_log2(std::int64_t value);  // ⌈log2 value⌉, 0 for value <= 1

// The cost-model file (PATCOLL_MODEL, written by patcoll-calibrate):
// lines "alpha <seconds>", "beta <s/byte>", "gamma <s/byte>" ('=' between
// key and value also accepted), '#' starts a comment; every value must be
// positive and finite. Returns "" or what is wrong (line number and text);
// missing keys keep `model`'s values.
std::string parse_cost_model(const std::string &text, CostModel &model);
std::string format_cost_model(const CostModel &model);

// "" when α, β and γ are all positive and finite, else what is wrong.
std::string check_cost_model(const CostModel &model);

}  // namespace patcoll::core
