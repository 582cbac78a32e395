// The catalogue's names: canonical names and aliases (find_algorithm
// resolves both to one row), one name per idea across collectives, the
// background rows and their bases, and restrictions and capabilities as
// separate fields.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/algorithm.hpp"
#include "core/select.hpp"

using namespace patcoll::core;

namespace {

template <class Field, class Flag>
concept tests_with = requires(Field field, Flag flag) { field & flag; };

}  // namespace

TEST(CatalogNames, EveryAliasResolvesToItsCanonicalRow) {
  int aliases = 0;
  for (const Algorithm &a : algorithms()) {
    EXPECT_EQ(find_algorithm(a.collective, a.name), &a) << a.name;
    for (std::string_view alias : aliases_of(a)) {
      EXPECT_EQ(find_algorithm(a.collective, alias), &a) << alias;
      ++aliases;
    }
  }
  EXPECT_GE(aliases, 5);  // scatter lin, bnom; gather lin, bnom, ls
}

TEST(CatalogNames, TheOldScatterGatherSpellingsAreAliasesOfTheCanonicalNames) {
  for (Collective c : {Collective::scatter, Collective::gather}) {
    ASSERT_NE(find_algorithm(c, "linear"), nullptr);
    ASSERT_NE(find_algorithm(c, "binomial"), nullptr);
    EXPECT_EQ(find_algorithm(c, "lin"), find_algorithm(c, "linear"));
    EXPECT_EQ(find_algorithm(c, "bnom"), find_algorithm(c, "binomial"));
    EXPECT_EQ(find_algorithm(c, "lin")->name, "linear");
    EXPECT_EQ(find_algorithm(c, "bnom")->name, "binomial");
  }
  EXPECT_EQ(find_algorithm(Collective::gather, "ls"), find_algorithm(Collective::gather, "linear_sync"));
  EXPECT_EQ(aliases_to_string(*find_algorithm(Collective::gather, "ls")), "ls");
  EXPECT_EQ(aliases_to_string(*find_algorithm(Collective::reduce, "binomial")), "none");
}

TEST(CatalogNames, LinearAndBinomialNameTheSameIdeaInEveryRootedCollective) {
  for (Collective c : {Collective::reduce, Collective::scatter, Collective::gather}) {
    EXPECT_NE(find_algorithm(c, "linear"), nullptr) << to_string(c);
    EXPECT_NE(find_algorithm(c, "binomial"), nullptr) << to_string(c);
  }
}

TEST(CatalogNames, AnAliasOfOneCollectiveIsNoNameOfAnother) {
  EXPECT_EQ(find_algorithm(Collective::reduce, "bnom"), nullptr);
  EXPECT_EQ(find_algorithm(Collective::reduce, "lin"), nullptr);
  EXPECT_EQ(find_algorithm(Collective::scatter, "ls"), nullptr);
  EXPECT_EQ(find_algorithm(Collective::gather, "bsln"), nullptr);
  EXPECT_EQ(find_algorithm(Collective::scatter, "bsls"), nullptr);
  EXPECT_EQ(find_algorithm(Collective::scatter, ""), nullptr);
  EXPECT_EQ(find_algorithm(Collective::scatter, "lin,bnom"), nullptr);
}

TEST(CatalogNames, NamesAndAliasesAreUniqueWithinACollective) {
  for (Collective c : {Collective::reduce, Collective::allreduce, Collective::scatter, Collective::gather}) {
    std::set<std::string> seen{"native", "auto"};  // the registry's and the selector's
    for (const Algorithm &a : algorithms()) {
      if (a.collective != c) continue;
      EXPECT_TRUE(seen.insert(std::string(a.name)).second) << to_string(c) << " " << a.name;
      for (std::string_view alias : aliases_of(a)) {
        EXPECT_FALSE(alias.empty()) << a.name;
        EXPECT_TRUE(seen.insert(std::string(alias)).second) << to_string(c) << " alias " << alias;
      }
    }
  }
}

TEST(CatalogNames, BackgroundRowsAreTheirBasesWithTheBackgroundCapability) {
  std::set<std::string> rows;
  for (const Algorithm &a : algorithms()) {
    if (!(a.capabilities & background)) {
      EXPECT_TRUE(a.base.empty()) << a.name << " has a base but no background capability";
      continue;
    }
    rows.insert(std::string(to_string(a.collective)) + " " + std::string(a.name));
    const Algorithm *base = find_algorithm(a.collective, a.base);
    ASSERT_NE(base, nullptr) << a.name << "'s base " << a.base;
    EXPECT_FALSE(base->capabilities & background) << a.name;
    EXPECT_EQ(base->name, a.base) << "a base is named by its canonical name";
    // The base's Program wherever no edge applies: the same builders.
    EXPECT_EQ(a.build_rank, base->build_rank) << a.name;
    EXPECT_EQ(a.build_all, base->build_all) << a.name;
    EXPECT_EQ(a.build_flat, base->build_flat) << a.name;
    EXPECT_EQ(a.restrictions, base->restrictions) << a.name;
    EXPECT_EQ(a.capabilities.bits, base->capabilities.bits | background) << a.name;
  }
  EXPECT_EQ(rows, (std::set<std::string>{"scatter bsln", "scatter bsbn", "gather bsls", "gather bsbn"}));
  EXPECT_EQ(find_algorithm(Collective::scatter, "bsln")->base, "slin");
  EXPECT_EQ(find_algorithm(Collective::scatter, "bsbn")->base, "sbn");
  EXPECT_EQ(find_algorithm(Collective::gather, "bsls")->base, "sls");
  EXPECT_EQ(find_algorithm(Collective::gather, "bsbn")->base, "sbn");
}

TEST(CatalogNames, BackgroundRowsBuildTheSameProgramsAsTheirBases) {
  Params params;
  params.procs = 5;
  params.root = 2;
  params.count = 7;
  params.arrivals = {0, 3e-3, 0, 1e-3, 0};
  params.cost = {1e-6, 1e-9, 1e-10};
  for (const Algorithm &a : algorithms()) {
    if (!(a.capabilities & background)) continue;
    params.collective = a.collective;
    EXPECT_EQ(build_all(a, params), build_all(*find_algorithm(a.collective, a.base), params)) << a.name;
  }
}

TEST(CatalogNames, RestrictionsAndCapabilitiesAreSeparateFields) {
  static_assert(tests_with<Restrictions, Restriction>);
  static_assert(tests_with<Capabilities, Capability>);
  static_assert(!tests_with<Restrictions, Capability>, "a capability is not tested against the restrictions");
  static_assert(!tests_with<Capabilities, Restriction>, "a restriction is not tested against the capabilities");
  const Algorithm &clairvoyant = *find_algorithm(Collective::reduce, "clairvoyant");
  EXPECT_TRUE(clairvoyant.restrictions & needs_commutative);
  EXPECT_TRUE(clairvoyant.capabilities & pap_aware);
  EXPECT_TRUE(clairvoyant.capabilities & schedule_based);
  EXPECT_EQ(restrictions_to_string(clairvoyant.restrictions), "commutative");
  EXPECT_EQ(capabilities_to_string(clairvoyant.capabilities), "pap_aware,schedule_based");
  EXPECT_EQ(restrictions_to_string(Restrictions{}), "none");
  EXPECT_EQ(capabilities_to_string(Capabilities{}), "none");
  EXPECT_EQ(capabilities_to_string(Capabilities{pap_aware | schedule_based | takes_radix | takes_segment_sizes |
                                                background}),
            "pap_aware,schedule_based,radix,segment_sizes,background");
  EXPECT_EQ(capabilities_to_string(find_algorithm(Collective::gather, "bsls")->capabilities), "pap_aware,background");
  EXPECT_EQ(restrictions_to_string(find_algorithm(Collective::gather, "bsls")->restrictions), "none");
  // The restrictions today: the commutative op, and an even P for
  // allgather's neighbor_exchange.
  for (const Algorithm &a : algorithms()) {
    EXPECT_EQ(a.restrictions.bits & ~std::uint32_t{needs_commutative | needs_even_procs}, 0u) << a.name;
    EXPECT_EQ(static_cast<bool>(a.restrictions & needs_even_procs), a.name == "neighbor_exchange") << a.name;
  }
  EXPECT_EQ(restrictions_to_string(Restrictions{needs_commutative | needs_even_procs}), "commutative,even_procs");
}

TEST(CatalogNames, AutoNeverPredictsABackgroundRow) {
  for (Collective c : {Collective::scatter, Collective::gather}) {
    Params params;
    params.collective = c;
    params.procs = 8;
    params.count = 100;
    params.arrivals = {0, 0, 5e-3, 0, 0, 0, 0, 0};
    params.cost = {1e-6, 1e-9, 1e-10};
    bool pap = false;
    for (const Prediction &p : predict_candidates(params)) {
      const Algorithm *a = find_algorithm(c, p.name);
      if (a) {
        EXPECT_FALSE(a->capabilities & background) << p.name;
      }
      pap = pap || p.pap_aware;
    }
    EXPECT_TRUE(pap) << "the PAP-aware bases are still predicted";
  }
}

TEST(CatalogNames, TheClassicCandidatesAreCanonicalNames) {
  for (Collective c : {Collective::reduce, Collective::allreduce, Collective::scatter, Collective::gather})
    for (std::int64_t count : {1, 100000}) {
      Params params;
      params.collective = c;
      params.procs = 8;
      params.count = count;
      for (std::string_view name : classic_candidates(params)) {
        const Algorithm *a = find_algorithm(c, name);
        ASSERT_NE(a, nullptr) << name;
        EXPECT_EQ(a->name, name);
      }
    }
}
