// The configuration registry (core/config.hpp): every PATCOLL_* variable
// declared once, parsed once, a bad value reported (never silently
// ignored) with the default kept.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "core/config.hpp"

using namespace patcoll::core::config;

namespace {
std::map<std::string, std::string> g_environment;
const char *lookup(const char *name) {
  auto it = g_environment.find(name);
  return it == g_environment.end() ? nullptr : it->second.c_str();
}
Settings read_with(std::map<std::string, std::string> environment) {
  g_environment = std::move(environment);
  return read(lookup);
}
}  // namespace

TEST(Config, EveryVariableIsDeclaredOnceWithAPatcollNameADocAndAParsingDefault) {
  std::set<std::string_view> names;
  int index = 0;
  for (const Variable &v : variables()) {
    EXPECT_EQ(static_cast<int>(v.id), index++) << v.name;
    EXPECT_TRUE(names.insert(v.name).second) << v.name << " declared twice";
    EXPECT_EQ(v.name.substr(0, 8), "PATCOLL_");
    EXPECT_FALSE(v.doc.empty()) << v.name;
    EXPECT_EQ(find_variable(v.name), &v);
  }
  EXPECT_EQ(index, kVariableCount);
  const Settings defaults = read_with({});
  EXPECT_TRUE(defaults.problems.empty());
  for (const Variable &v : variables()) {
    EXPECT_FALSE(defaults[v.id].set) << v.name;
    EXPECT_TRUE(defaults[v.id].valid) << v.name;
    EXPECT_EQ(defaults[v.id].text, v.default_value) << v.name;
  }
}

TEST(Config, DefaultsAreTheDocumentedOnes) {
  const Settings s = read_with({});
  EXPECT_EQ(s[Var::segments].integer, 0);  // the algorithm's default
  EXPECT_EQ(s[Var::schedule_cache].integer, 16);
  EXPECT_EQ(s[Var::fallback].integer, 0);
  EXPECT_EQ(s[Var::history_window].integer, 5);
  EXPECT_EQ(s[Var::history_period].integer, 8);
  EXPECT_DOUBLE_EQ(s[Var::history_quantum].number, 1e-5);
  EXPECT_EQ(s[Var::predictor].text, "edge");
  EXPECT_EQ(s[Var::pats].text, "none");
  EXPECT_EQ(s[Var::reduce].text, "auto");
}

TEST(Config, ValidValuesAreParsed) {
  const Settings s = read_with({{"PATCOLL_SEGMENTS", "12"},
                                {"PATCOLL_SEGMENT_BYTES", "4096"},
                                {"PATCOLL_FALLBACK", "1"},
                                {"PATCOLL_SCHEDULE_CACHE", "0"},
                                {"PATCOLL_PREDICTOR", "sma:7"},
                                {"PATCOLL_HISTORY_QUANTUM", "2.5e-4"},
                                {"PATCOLL_REDUCE", "clairvoyant"},
                                {"PATCOLL_MODEL", "/tmp/model.txt"}});
  EXPECT_TRUE(s.problems.empty());
  EXPECT_EQ(s[Var::segments].integer, 12);
  EXPECT_TRUE(s[Var::segments].set);
  EXPECT_EQ(s[Var::segment_bytes].integer, 4096);
  EXPECT_EQ(s[Var::fallback].integer, 1);
  EXPECT_EQ(s[Var::schedule_cache].integer, 0);
  EXPECT_EQ(s[Var::predictor].text, "sma:7");
  EXPECT_DOUBLE_EQ(s[Var::history_quantum].number, 2.5e-4);
  EXPECT_EQ(s[Var::reduce].text, "clairvoyant");
  EXPECT_EQ(s[Var::model].text, "/tmp/model.txt");
}

TEST(Config, AValueThatDoesNotParseIsOneProblemNamingItAndTheDefaultIsKept) {
  const Settings s = read_with({{"PATCOLL_FALLBACK", "yes"}});
  ASSERT_EQ(s.problems.size(), 1u);
  EXPECT_EQ(s.problems[0].message, "PATCOLL_FALLBACK='yes' is not 0 or 1; using the default (0)");
  EXPECT_TRUE(s[Var::fallback].set);
  EXPECT_FALSE(s[Var::fallback].valid);
  EXPECT_EQ(s[Var::fallback].integer, 0);
  EXPECT_EQ(s.problems_of(Scope::library).size(), 1u);
  EXPECT_TRUE(s.problems_of(Scope::preload).empty());
}

TEST(Config, AStrictVariableThatDoesNotParseIsAProblemWithoutADefault) {
  // The variables that shape schedules are errors of the calls (MPI_ERR_ARG,
  // tests/mpi/test_agreement.cpp), so the message promises no default.
  const Settings s = read_with({{"PATCOLL_SEGMENTS", "abc"}});
  ASSERT_EQ(s.problems.size(), 1u);
  EXPECT_TRUE(variable(Var::segments).strict);
  EXPECT_EQ(s.problems[0].message, "PATCOLL_SEGMENTS='abc' is not an integer >= 1");
  EXPECT_TRUE(s[Var::segments].set);
  EXPECT_FALSE(s[Var::segments].valid);
  EXPECT_EQ(s[Var::segments].integer, 0);
  EXPECT_EQ(s.problems_of(Scope::library).size(), 1u);
  EXPECT_TRUE(s.problems_of(Scope::preload).empty());
}

TEST(Config, EveryKindOfBadValueIsReported) {
  const Settings s = read_with({{"PATCOLL_SEGMENTS", "12x"},
                                {"PATCOLL_SEGMENT_BYTES", "-4"},
                                {"PATCOLL_FALLBACK", "yes"},
                                {"PATCOLL_SCHEDULE_CACHE", "99999999999999999999999"},
                                {"PATCOLL_PREDICTOR", "sma:0"},
                                {"PATCOLL_PATS", "oracle"},
                                {"PATCOLL_HISTORY_WINDOW", "0"},
                                {"PATCOLL_HISTORY_QUANTUM", "-1"},
                                {"PATCOLL_HISTORY_ESTIMATE", "exit"}});
  EXPECT_EQ(s.problems.size(), 9u);
  EXPECT_EQ(s[Var::fallback].integer, 0);
  EXPECT_EQ(s[Var::schedule_cache].integer, 16);
  EXPECT_EQ(s[Var::predictor].text, "edge");
  EXPECT_EQ(s[Var::history_window].integer, 5);
  EXPECT_EQ(s.problems_of(Scope::runtime).size(), 1u);
  EXPECT_EQ(s.problems_of(Scope::library).size(), 8u);  // the history's variables are the library's too
}

TEST(Config, AnEmptyValueIsUnset) {
  const Settings s = read_with({{"PATCOLL_SEGMENTS", ""}});
  EXPECT_FALSE(s[Var::segments].set);
  EXPECT_TRUE(s.problems.empty());
}
