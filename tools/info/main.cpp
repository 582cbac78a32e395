// patcoll-info: what this build of patcoll is and how it is configured, the
// way `ompi_info --param coll tuned` describes Open MPI's tuned component:
// the version, the MPI library it was built against (and the one it runs
// with), every PATCOLL_* variable of the configuration registry with its
// type, default, current value and documentation, and every algorithm
// with its restrictions.
//
//   patcoll-info               everything, for people
//   patcoll-info --parsable    one record per line, ':'-separated:
//                              version:<v>
//                              mpi:built:<mpi.h's library>
//                              mpi:running:<MPI_Get_library_version, first line>
//                              variable:<name>:<type>:<default>:<scope>:<current>:<doc>
//                              algorithm:<collective>:<name>:<restrictions>:<description>
// Exit 0; 2 with one line on stderr for an unknown argument (the tools'
// shared parser, tools/common/cli.hpp). The version is the library's
// (PAT_Get_version); patcoll-info links the library statically
// (patcoll_internal), so it holds one copy of core like every process.
#include <mpi.h>

#include <cstdio>
#include <string>

#include "cli.hpp"
#include "core/algorithm.hpp"
#include "core/config.hpp"
#include "core/traits.hpp"
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

std::string current(const config::Value &value) {
  if (!value.set) return "";
  return value.valid ? value.text : value.given + " (invalid)";
}

void print_human() {
  const auto settings = config::settings();
  std::printf("patcoll %s\n", library_version().c_str());
  std::printf("  built against: %s\n", built_against().c_str());
  std::printf("  running with:  %s\n\n", running_with().c_str());
  std::printf("Configuration (environment variables, read once per process):\n");
  for (const config::Variable &v : config::variables()) {
    const config::Value &value = (*settings)[v.id];
    std::printf("  %-26s %-9s default: %-6s (%s)%s%s\n", std::string(v.name).c_str(),
                std::string(config::to_string(v.type)).c_str(),
                v.default_value.empty() ? "unset" : std::string(v.default_value).c_str(),
                std::string(config::to_string(v.scope)).c_str(), value.set ? "  current: " : "",
                current(value).c_str());
    std::printf("      %s\n", std::string(v.doc).c_str());
  }
  for (const auto &problem : settings->problems) std::printf("  problem: %s\n", problem.message.c_str());
  std::printf("\nAlgorithms (collective, name, restrictions, description; `native` is the MPI library's own):\n");
  for (const core::CollectiveTraits &t : core::collectives()) {
    const core::Collective c = t.collective;
    std::printf("  %-9s %-18s %-36s %s\n", std::string(core::to_string(c)).c_str(), "native", "none",
                "the MPI library's own implementation (PMPI)");
    for (const core::Algorithm &a : core::algorithms())
      if (a.collective == c)
        std::printf("  %-9s %-18s %-36s %s\n", std::string(core::to_string(c)).c_str(), std::string(a.name).c_str(),
                    core::restrictions_to_string(a.restrictions).c_str(), std::string(a.description).c_str());
  }
}

void print_parsable() {
  const auto settings = config::settings();
  std::printf("version:%s\n", library_version().c_str());
  std::printf("mpi:built:%s\n", built_against().c_str());
  std::printf("mpi:running:%s\n", running_with().c_str());
  for (const config::Variable &v : config::variables())
    std::printf("variable:%s:%s:%s:%s:%s:%s\n", std::string(v.name).c_str(),
                std::string(config::to_string(v.type)).c_str(), std::string(v.default_value).c_str(),
                std::string(config::to_string(v.scope)).c_str(), current((*settings)[v.id]).c_str(),
                std::string(v.doc).c_str());
  for (const core::CollectiveTraits &t : core::collectives()) {
    const core::Collective c = t.collective;
    std::printf("algorithm:%s:native:none:the MPI library's own implementation (PMPI)\n",
                std::string(core::to_string(c)).c_str());
    for (const core::Algorithm &a : core::algorithms())
      if (a.collective == c)
        std::printf("algorithm:%s:%s:%s:%s\n", std::string(core::to_string(c)).c_str(), std::string(a.name).c_str(),
                    core::restrictions_to_string(a.restrictions).c_str(), std::string(a.description).c_str());
  }
}

constexpr const char *kUsage =
    "usage: patcoll-info [--parsable]\n"
    "The library's version, the MPI library it was built against and runs with, every PATCOLL_* environment\n"
    "variable (type, default, scope, current value, problems, documentation) and every algorithm with its\n"
    "restrictions.\n"
    "  --parsable   one ':'-separated record per line (version:, mpi:, variable:, algorithm:)\n";

}  // namespace

int main(int argc, char **argv) {
  bool parsable = false;
  patcoll::cli::Arguments arguments("patcoll-info", kUsage, argc, argv, {patcoll::cli::Flag{"--parsable", "", false}});
  std::string flag;
  while (arguments.next(flag))
    if (flag == "--parsable") parsable = true;
  if (parsable) print_parsable();
  else print_human();
  return 0;
}
