// Step counts of built Programs for the unit tests' round-count facts.
#pragma once

#include <algorithm>

#include "core/algorithm.hpp"

// Steps with a send or a receive in `program`.
inline int communication_steps(const patcoll::core::Program &program) {
  int steps = 0;
  for (const patcoll::core::Step &step : program.steps)
    if (std::any_of(step.ops.begin(), step.ops.end(),
                    [](const patcoll::core::Op &op) { return op.kind != patcoll::core::OpKind::local; }))
      ++steps;
  return steps;
}

// The most communication steps of any rank's Program.
inline int most_steps(const patcoll::core::Algorithm &algorithm, const patcoll::core::Params &params) {
  int most = 0;
  for (const patcoll::core::Program &program : patcoll::core::build_all(algorithm, params))
    most = std::max(most, communication_steps(program));
  return most;
}
