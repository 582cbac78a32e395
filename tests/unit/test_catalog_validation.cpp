// Every algorithm of the catalogue, proved by the validator over the
// foundation's matrix: P in 1…17, 31, 32, 33, 64, 100; every root for small
// P; counts {0, 1, P−1, P, P+1, 1000}; commutative and (where allowed)
// non-commutative ops; with and without MPI_IN_PLACE; for PAP-aware
// algorithms also random arrival vectors. Collectives without a root run
// root 0 only; those that do not combine, the commutative case only. The
// v-forms' blocks (Params::counts) are unequal and include zeros
// (v_counts).
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "core/algorithm.hpp"
#include "core/traits.hpp"
#include "core/validate.hpp"

using namespace patcoll::core;

namespace {

std::vector<int> process_counts() {
  std::vector<int> out;
  for (int p = 1; p <= 17; ++p) out.push_back(p);
  for (int p : {31, 32, 33, 64, 100}) out.push_back(p);
  return out;
}

std::vector<int> roots_for(int procs) {
  if (procs <= 8) {
    std::vector<int> all(procs);
    for (int r = 0; r < procs; ++r) all[r] = r;
    return all;
  }
  return {0, procs / 2, procs - 1};
}

// Every rank's result (reduce-scatter: input) is P blocks in the
// all-gathering (reduce-scattering) collectives: there
// count 1000 runs up to P = 17 only (the symbolic values of P·1000
// elements at P ranks make the larger cases slow, and add no path).
std::vector<std::int64_t> counts_for(int procs, Collective collective) {
  std::set<std::int64_t> counts{0, 1, std::max(0, procs - 1), procs, procs + 1, 1000};
  const CollectiveTraits &t = traits(collective);
  if ((t.recv_elsewhere == Extent::whole || t.send_elsewhere == Extent::whole) && procs > 17) counts.erase(1000);
  return {counts.begin(), counts.end()};
}

// allgatherv's and reduce_scatter's blocks for a `count` of the matrix:
// every third rank's block is empty, the others count + (r mod 4)
// elements; count 0 = all empty.
std::vector<std::int64_t> v_counts(Collective collective, int procs, std::int64_t count) {
  if (collective != Collective::allgatherv && collective != Collective::reduce_scatter) return {};
  std::vector<std::int64_t> counts(static_cast<std::size_t>(procs), 0);
  if (count == 0) return counts;
  for (int r = 0; r < procs; ++r) counts[static_cast<std::size_t>(r)] = r % 3 == 1 ? 0 : count + r % 4;
  return counts;
}

std::string case_name(const Params &p) {
  return std::string(to_string(p.collective)) + " P=" + std::to_string(p.procs) + " root=" + std::to_string(p.root) +
         " count=" + std::to_string(p.count) + (p.commutative ? " commutative" : " non-commutative") +
         (p.arrivals.empty() ? "" : " with PATs");
}

// Every rank's send and receive elements: the validator holds a value for
// each (and a snapshot of each message). An all-to-all has P² blocks: its
// largest count is proved up to P = 17 here (test_alltoall.cpp adds P = 64
// and 100 with smaller pairs).
constexpr std::int64_t kMaxSymbolicElements = 1'500'000;
std::int64_t symbolic_elements(const Params &params) {
  const CollectiveTraits &t = traits(params.collective);
  std::int64_t n = 0;
  for (int r = 0; r < params.procs; ++r) n += t.elements(Buffer::send, r, params) + t.elements(Buffer::recv, r, params);
  return n;
}

class CatalogValidation : public ::testing::TestWithParam<const Algorithm *> {};

TEST_P(CatalogValidation, EveryCaseOfTheMatrixIsProvedCorrect) {
  const Algorithm &algorithm = *GetParam();
  std::mt19937_64 rng(12345);
  int cases = 0;
  for (int procs : process_counts()) {
    // Large P only with a subset of roots/counts to keep the suite fast.
    // Roots only where the collective has one, non-commutative ops only
    // where it combines.
    const CollectiveTraits &t = traits(algorithm.collective);
    for (int root : t.rooted ? roots_for(procs) : std::vector<int>{0}) {
      for (std::int64_t count : counts_for(procs, algorithm.collective)) {
        for (bool commutative : {true, false}) {
          if (!commutative && !t.combines) continue;
          for (bool with_pats : {false, true}) {
            if (with_pats && !(algorithm.capabilities & pap_aware)) continue;
            Params params;
            params.collective = algorithm.collective;
            params.procs = procs;
            params.root = root;
            params.count = count;
            params.commutative = commutative;
            params.counts = v_counts(algorithm.collective, procs, count);
            if (with_pats) {
              std::uniform_real_distribution<double> delay(0.0, 1e-3);
              for (int r = 0; r < procs; ++r) params.arrivals.push_back(delay(rng));
            }
            if (!unsupported_reason(algorithm, params).empty()) continue;
            if (symbolic_elements(params) > kMaxSymbolicElements) continue;  // alltoall at P = 64, 100, count 1000
            // Small segments so that multi-segment paths are exercised.
            params.segment_elements = 7;
            const auto programs = build_all(algorithm, params);
            const std::string error = validate_all_modes(params, programs);
            ASSERT_EQ(error, "") << algorithm.name << ": " << case_name(params);
            ++cases;
          }
        }
      }
    }
  }
  // Collectives without root or op run fewer cases (neighbor_exchange: even P only).
  const CollectiveTraits &t = traits(algorithm.collective);
  EXPECT_GT(cases, t.rooted || t.combines ? 100 : 50);
}

std::vector<const Algorithm *> every_algorithm() {
  std::vector<const Algorithm *> out;
  // A background row builds with its base's builders (the same function
  // pointers: CatalogNames.BackgroundRowsAreTheirBasesWithTheBackgroundCapability),
  // so proving the base proves it.
  for (const Algorithm &a : algorithms())
    if (!(a.capabilities & background)) out.push_back(&a);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Catalog, CatalogValidation, ::testing::ValuesIn(every_algorithm()),
                         [](const ::testing::TestParamInfo<const Algorithm *> &info) {
                           return std::string(to_string(info.param->collective)) + "_" + std::string(info.param->name);
                         });

TEST(Catalog, NamesAreUniquePerCollectiveAndLowercase) {
  std::set<std::pair<int, std::string>> seen;
  for (const Algorithm &a : algorithms()) {
    EXPECT_TRUE(seen.insert({static_cast<int>(a.collective), std::string(a.name)}).second) << a.name;
    for (char c : a.name) EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_') << a.name;
    for (std::string_view alias : aliases_of(a))
      for (char c : alias) EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_') << alias;
    EXPECT_TRUE(a.build_rank || a.build_all) << a.name;
    EXPECT_FALSE(a.description.empty()) << a.name;
  }
}

}  // namespace
