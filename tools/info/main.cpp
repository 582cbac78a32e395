// patcoll-info: what this build of patcoll is and how it is configured, the
// way `ompi_info --param coll tuned` describes Open MPI's tuned component:
// the version, the MPI library it was built against (and the one it runs
// with), every PATCOLL_* variable of the configuration registry with its
// type, default, current value and documentation, and every algorithm
// with its restrictions, capabilities and aliases.
//
//   patcoll-info               everything, for people
//   patcoll-info --parsable    one attribute per line, ':'-separated, free
//                              text last (as `ompi_info --parsable`):
//                              version:<v>
//                              mpi:built:<mpi.h's library>
//                              mpi:running:<MPI_Get_library_version, first line>
//                              variable:<name>:type:<type>
//                              variable:<name>:default:<default>
//                              variable:<name>:scope:<scope>
//                              variable:<name>:value:<as set>     (when set)
//                              variable:<name>:valid:<1|0>
//                              variable:<name>:problem:<text>     (when invalid)
//                              variable:<name>:help:<documentation>
//                              algorithm:<collective>:<name>:restrictions:<list>
//                              algorithm:<collective>:<name>:capabilities:<list>
//                              algorithm:<collective>:<name>:aliases:<list>
//                              algorithm:<collective>:<name>:help:<description>
//                              (lists comma-separated, "none" when empty)
// Every value checked as the library will check it: an unknown algorithm
// name, an unreadable or malformed PATCOLL_MODEL file, a malformed number.
// Exit 0; 1 when any value is invalid (each marked, with a problem line);
// 2 with one line on stderr for an unknown argument (the tools' shared
// parser, tools/common/cli.hpp). The version is the library's
// (PAT_Get_version); patcoll-info links the library statically
// (patcoll_internal), so it holds one copy of core like every process.
#include <mpi.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "cli.hpp"
#include "core/algorithm.hpp"
#include "core/config.hpp"
#include "core/traits.hpp"
#include "mpi/registry.hpp"
#include "patcoll.h"

namespace {

namespace config = patcoll::core::config;
namespace core = patcoll::core;

std::string built_against() {
#if defined(OMPI_MAJOR_VERSION)
  return "Open MPI " + std::to_string(OMPI_MAJOR_VERSION) + "." + std::to_string(OMPI_MINOR_VERSION) + "." +
         std::to_string(OMPI_RELEASE_VERSION) + " (MPI " + std::to_string(MPI_VERSION) + "." +
         std::to_string(MPI_SUBVERSION) + ")";
#elif defined(MPICH_VERSION)
  return std::string("MPICH ") + MPICH_VERSION + " (MPI " + std::to_string(MPI_VERSION) + "." +
         std::to_string(MPI_SUBVERSION) + ")";
#else
  return "an MPI " + std::to_string(MPI_VERSION) + "." + std::to_string(MPI_SUBVERSION) + " library";
#endif
}

// MPI_Get_library_version may be called before MPI_Init (MPI-3.1 §8.1.1).
std::string running_with() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int length = 0;
  if (MPI_Get_library_version(text, &length) != MPI_SUCCESS) return "unknown";
  std::string line(text, static_cast<std::size_t>(length));
  if (auto end = line.find_first_of("\r\n"); end != std::string::npos) line.erase(end);
  while (!line.empty() && (line.back() == ' ' || line.back() == ',')) line.pop_back();
  return line;
}

// The library's version, "major.minor.patch".
std::string library_version() {
  int major = 0, minor = 0, patch = 0;
  PAT_Get_version(&major, &minor, &patch);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

// What is wrong with a variable's value ("" when nothing): the registry's
// parse, then what the library checks where it uses the value.
std::string problem_of(const config::Variable &v, const config::Settings &settings) {
  const config::Value &value = settings[v.id];
  for (const config::Settings::Problem &p : settings.problems)
    if (p.id == v.id) return p.message;
  if (!value.set) return {};
  if (v.type == config::Type::algorithm) {
    for (const core::CollectiveTraits &t : core::collectives()) {
      if (config::algorithm_variable(t.collective) != v.id) continue;
      if (value.text == "auto" || patcoll::mpi::find_entry(t.collective, value.text)) return {};
      return std::string(v.name) + "='" + value.text + "' is not a " + std::string(t.name) +
             " algorithm (patcoll-info lists them)";
    }
  }
  if (v.id == config::Var::model) {
    std::ifstream in(value.text);
    if (!in) return std::string(v.name) + "='" + value.text + "': the file cannot be read";
    std::stringstream text;
    text << in.rdbuf();
    core::CostModel model;
    if (const std::string error = core::parse_cost_model(text.str(), model); !error.empty())
      return std::string(v.name) + "='" + value.text + "': " + error;
  }
  return {};
}

std::string current(const config::Value &value, const std::string &problem) {
  if (!value.set) return "";
  return problem.empty() ? value.text : value.given + " (invalid)";
}

// Returns the number of invalid values.
int print_human() {
  const auto settings = config::settings();
  int invalid = 0;
  std::printf("patcoll %s\n", library_version().c_str());
  std::printf("  built against: %s\n", built_against().c_str());
  std::printf("  running with:  %s\n\n", running_with().c_str());
  std::printf("Configuration (environment variables, read once per process):\n");
  for (const config::Variable &v : config::variables()) {
    const config::Value &value = (*settings)[v.id];
    const std::string problem = problem_of(v, *settings);
    std::printf("  %-26s %-9s default: %-6s (%s)%s%s\n", std::string(v.name).c_str(),
                std::string(config::to_string(v.type)).c_str(),
                v.default_value.empty() ? "unset" : std::string(v.default_value).c_str(),
                std::string(config::to_string(v.scope)).c_str(), value.set ? "  current: " : "",
                current(value, problem).c_str());
    std::printf("      %s\n", std::string(v.doc).c_str());
  }
  for (const config::Variable &v : config::variables())
    if (const std::string problem = problem_of(v, *settings); !problem.empty()) {
      std::printf("  problem: %s\n", problem.c_str());
      ++invalid;
    }
  std::printf("\nAlgorithms (collective, name, restrictions: what the call must satisfy, capabilities: what the\n"
              "algorithm is, aliases: other accepted names; `native` is the MPI library's own):\n");
  std::printf("  %-9s %-18s %-12s %-40s %-8s %s\n", "coll", "name", "restrictions", "capabilities", "aliases",
              "description");
  for (const core::CollectiveTraits &t : core::collectives()) {
    const core::Collective c = t.collective;
    std::printf("  %-9s %-18s %-12s %-40s %-8s %s\n", std::string(core::to_string(c)).c_str(), "native", "none", "none",
                "none", "the MPI library's own implementation (PMPI)");
    for (const core::Algorithm &a : core::algorithms())
      if (a.collective == c)
        std::printf("  %-9s %-18s %-12s %-40s %-8s %s\n", std::string(core::to_string(c)).c_str(),
                    std::string(a.name).c_str(), core::restrictions_to_string(a.restrictions).c_str(),
                    core::capabilities_to_string(a.capabilities).c_str(), core::aliases_to_string(a).c_str(),
                    std::string(a.description).c_str());
  }
  return invalid;
}

int print_parsable() {
  const auto settings = config::settings();
  int invalid = 0;
  std::printf("version:%s\n", library_version().c_str());
  std::printf("mpi:built:%s\n", built_against().c_str());
  std::printf("mpi:running:%s\n", running_with().c_str());
  for (const config::Variable &v : config::variables()) {
    const std::string name(v.name);
    const config::Value &value = (*settings)[v.id];
    const std::string problem = problem_of(v, *settings);
    std::printf("variable:%s:type:%s\n", name.c_str(), std::string(config::to_string(v.type)).c_str());
    std::printf("variable:%s:default:%s\n", name.c_str(), std::string(v.default_value).c_str());
    std::printf("variable:%s:scope:%s\n", name.c_str(), std::string(config::to_string(v.scope)).c_str());
    if (value.set) std::printf("variable:%s:value:%s\n", name.c_str(), value.given.c_str());
    std::printf("variable:%s:valid:%d\n", name.c_str(), problem.empty() ? 1 : 0);
    if (!problem.empty()) {
      std::printf("variable:%s:problem:%s\n", name.c_str(), problem.c_str());
      ++invalid;
    }
    std::printf("variable:%s:help:%s\n", name.c_str(), std::string(v.doc).c_str());
  }
  for (const core::CollectiveTraits &t : core::collectives()) {
    const core::Collective c = t.collective;
    const std::string coll(core::to_string(c));
    std::printf("algorithm:%s:native:restrictions:none\n", coll.c_str());
    std::printf("algorithm:%s:native:capabilities:none\n", coll.c_str());
    std::printf("algorithm:%s:native:aliases:none\n", coll.c_str());
    std::printf("algorithm:%s:native:help:the MPI library's own implementation (PMPI)\n", coll.c_str());
    for (const core::Algorithm &a : core::algorithms())
      if (a.collective == c) {
        const std::string name(a.name);
        std::printf("algorithm:%s:%s:restrictions:%s\n", coll.c_str(), name.c_str(),
                    core::restrictions_to_string(a.restrictions).c_str());
        std::printf("algorithm:%s:%s:capabilities:%s\n", coll.c_str(), name.c_str(),
                    core::capabilities_to_string(a.capabilities).c_str());
        std::printf("algorithm:%s:%s:aliases:%s\n", coll.c_str(), name.c_str(), core::aliases_to_string(a).c_str());
        std::printf("algorithm:%s:%s:help:%s\n", coll.c_str(), name.c_str(), std::string(a.description).c_str());
      }
  }
  return invalid;
}

constexpr const char *kUsage =
    "usage: patcoll-info [--parsable]\n"
    "The library's version, the MPI library it was built against and runs with, every PATCOLL_* environment\n"
    "variable (type, default, scope, current value, problems, documentation) and every algorithm with its\n"
    "restrictions, capabilities and aliases.\n"
    "  --parsable   one ':'-separated attribute per line, free text last (version:, mpi:, variable:,\n"
    "               algorithm:)\n"
    "Exit status: 0; 1 when a variable's value is invalid (marked, with a problem line); 2 for a bad argument.\n";

}  // namespace

int main(int argc, char **argv) {
  bool parsable = false;
  patcoll::cli::Arguments arguments("patcoll-info", kUsage, argc, argv, {patcoll::cli::Flag{"--parsable", "", false}});
  std::string flag;
  while (arguments.next(flag))
    if (flag == "--parsable") parsable = true;
  const int invalid = parsable ? print_parsable() : print_human();
  return invalid > 0 ? 1 : 0;
}
