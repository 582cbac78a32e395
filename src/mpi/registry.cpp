#include "registry.hpp"

#include "core/select.hpp"

#include <array>

#include "core/config.hpp"
#include "core/traits.hpp"

namespace patcoll::mpi {

using core::Collective;

const std::vector<Entry> &entries(Collective collective) {
  static const std::array<std::vector<Entry>, core::kCollectiveCount> table = [] {
    std::array<std::vector<Entry>, core::kCollectiveCount> out;
    for (const core::CollectiveTraits &t : core::collectives()) {
      const Collective c = t.collective;
      auto &list = out[static_cast<int>(c)];
      list.push_back({c, "native", {}, {}, "the MPI library's own implementation (PMPI)", nullptr});
      for (const core::Algorithm &a : core::algorithms())
        if (a.collective == c) list.push_back({c, a.name, a.restrictions, a.capabilities, a.description, &a});
    }
    return out;
  }();
  return table[static_cast<int>(collective)];
}

const Entry *find_entry(Collective collective, std::string_view name) {
  const std::vector<Entry> &list = entries(collective);
  if (!list.empty() && list.front().name == name) return &list.front();  // native
  const core::Algorithm *algorithm = core::find_algorithm(collective, name);
  if (!algorithm) return nullptr;
  for (const Entry &e : list)
    if (e.algorithm == algorithm) return &e;
  return nullptr;
}

std::string list_lines() {
  std::string out;
  for (const core::CollectiveTraits &t : core::collectives())
    for (const Entry &e : entries(t.collective)) {
      out += std::string(t.name) + ' ' + std::string(e.name) + ' ' + core::restrictions_to_string(e.restrictions) +
             ' ' + core::capabilities_to_string(e.capabilities) + ' ' +
             (e.native() ? std::string("none") : core::aliases_to_string(*e.algorithm)) + '\n';
    }
  return out;
}

const char *environment_variable(Collective collective) {
  return core::config::variable(core::config::algorithm_variable(collective)).name.data();  // a literal
}

// The auto rule: small messages are latency-bound (tree/doubling, log P
// messages), large ones bandwidth-bound (reduce-scatter based, ~2m bytes
// per rank); commutative-only algorithms only for commutative ops. The
// first candidate registered and usable wins.
const Entry *auto_choice(const core::Params &params) {
  if (const core::Algorithm *classic = core::classic_choice(params))
    if (const Entry *e = find_entry(params.collective, classic->name)) return e;
  return &entries(params.collective).front();  // native
}

}  // namespace patcoll::mpi
