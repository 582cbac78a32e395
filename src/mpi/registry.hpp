// The registry: the core catalogue plus `native` (the MPI library's own
// PMPI function) for every collective, and the selection rules of
// patcoll.h (explicit name, communicator, process, environment, auto).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/algorithm.hpp"

namespace patcoll::mpi {

struct Entry {
  core::Collective collective;
  std::string_view name;  // canonical
  core::Restrictions restrictions;
  core::Capabilities capabilities;
  std::string_view description;
  const core::Algorithm *algorithm;  // nullptr for native
  bool native() const { return algorithm == nullptr; }
};

// native first, then the catalogue's order.
const std::vector<Entry> &entries(core::Collective);
// By canonical name or alias (core::find_algorithm): the entry of the
// canonical name either way; nullptr for an unknown name.
const Entry *find_entry(core::Collective, std::string_view name);

// Every registered algorithm, one line each:
// "<collective> <name> <restrictions> <capabilities> <aliases>", the last
// three comma-separated lists, "none" when empty.
std::string list_lines();

// The environment variable of a collective (PATCOLL_REDUCE, ...).
const char *environment_variable(core::Collective);

// The classic algorithm `auto` picks for these parameters (documented in
// docs/results/selection.md); never nullptr (falls back to native).
const Entry *auto_choice(const core::Params &);

}  // namespace patcoll::mpi
