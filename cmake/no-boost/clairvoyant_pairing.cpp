// clairvoyant_pairing without Boost.Heap (CMakeLists.txt compiles this file
// instead of src/core/generators/clairvoyant_pairing.cpp when Boost is not
// found). The pairing-heap generator only speeds up the sender search of
// clairvoyant_linear; both compute the same transfers (tests/unit
// test_clairvoyant.cpp checks it where Boost is present). Here the linear
// generator serves the name, and the schedule's algorithm field says so.
#include "core/generators/clairvoyant.hpp"

namespace patcoll::core {

Schedule clairvoyant_pairing(const ClairvoyantInput &input) {
  Schedule schedule = clairvoyant_linear(input);
  schedule.algorithm = "clairvoyant_linear (clairvoyant_pairing needs Boost.Heap; built without Boost)";
  return schedule;
}

}  // namespace patcoll::core
