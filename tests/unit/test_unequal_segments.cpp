// Unequal segmentation (Params::segment_sizes, [LL] §VIII): the greedy
// reduces honour explicit segment sizes, give valid Programs for them, keep
// their behaviour for equal sizes, the simulator confirms uni_greedy's
// predicted completion, and [LL] Table IV's first row is reproduced.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/algorithm.hpp"
#include "core/generators/greedy.hpp"
#include "core/simulate.hpp"
#include "core/validate.hpp"

using namespace patcoll::core;

namespace {

Params reduce_params(int procs, int root, std::vector<std::int64_t> sizes) {
  Params params;
  params.procs = procs;
  params.root = root;
  params.count = 0;
  for (std::int64_t s : sizes) params.count += s;
  params.segment_sizes = std::move(sizes);
  params.element_bytes = 1;
  params.cost = {1.0, 1.0, 1.0};
  return params;
}

const std::vector<std::vector<std::int64_t>> kSegmentations = {
    {9, 1}, {1, 9}, {3, 2, 4, 1}, {2, 2, 1, 5}, {5, 3, 2}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, {10}, {1, 7, 1, 1}};

void expect_valid_programs(std::string_view name) {
  const Algorithm *algorithm = find_algorithm(Collective::reduce, name);
  ASSERT_NE(algorithm, nullptr);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> late(0, 20);
  for (int procs : {1, 2, 3, 5, 8, 13, 17}) {
    for (const auto &sizes : kSegmentations) {
      for (bool random_pat : {false, true}) {
        Params params = reduce_params(procs, procs / 2, sizes);
        if (random_pat)
          for (int p = 0; p < procs; ++p) params.arrivals.push_back(late(rng));
        ASSERT_EQ(unsupported_reason(*algorithm, params), "");
        const std::vector<Program> programs = build_all(*algorithm, params);
        ValidateOptions options;
        options.single_port = true;
        EXPECT_EQ(validate_all_modes(params, programs, options), "")
            << name << " P=" << procs << " segments=" << sizes.size() << " random PAT " << random_pat;
        // Every segment travels with its own size: a recv of segment k
        // carries exactly sizes[k] elements.
        for (const Program &program : programs)
          for (const Step &step : program.steps)
            for (const Op &op : step.ops)
              if (op.kind == OpKind::recv) {
                bool found = false;
                std::int64_t offset = 0;
                for (std::int64_t s : sizes) {
                  found = found || (op.dst.offset == offset && op.dst.count == s);
                  offset += s;
                }
                EXPECT_TRUE(found) << name << " recv [" << op.dst.offset << ", +" << op.dst.count << ")";
              }
      }
    }
  }
}

}  // namespace

TEST(UnequalSegments, UniGreedyProgramsAreValid) { expect_valid_programs("uni_greedy"); }

TEST(UnequalSegments, BiGreedyProgramsAreValid) { expect_valid_programs("bi_greedy"); }

TEST(UnequalSegments, SizesMustBePositiveAndSumToCount) {
  const Algorithm *greedy = find_algorithm(Collective::reduce, "uni_greedy");
  Params params = reduce_params(4, 0, {3, 3, 4});
  EXPECT_EQ(unsupported_reason(*greedy, params), "");
  params.count = 11;
  EXPECT_NE(unsupported_reason(*greedy, params), "");
  params = reduce_params(4, 0, {3, 0, 7});
  EXPECT_NE(unsupported_reason(*greedy, params), "");
  params = reduce_params(4, 0, {5, -1, 6});
  EXPECT_NE(unsupported_reason(*greedy, params), "");
}

TEST(UnequalSegments, AlgorithmsThatIgnoreSizesRefuseThem) {
  for (const Algorithm &algorithm : algorithms()) {
    Params params = reduce_params(4, 0, {3, 3, 4});
    params.collective = algorithm.collective;
    const bool takes = (algorithm.capabilities & takes_segment_sizes) != 0;
    EXPECT_EQ(unsupported_reason(algorithm, params).empty(), takes) << algorithm.name;
  }
}

TEST(UnequalSegments, EqualExplicitSizesGiveTheSamePrograms) {
  for (std::string_view name : {"uni_greedy", "bi_greedy"}) {
    const Algorithm *algorithm = find_algorithm(Collective::reduce, name);
    for (int procs : {2, 7, 16}) {
      Params explicit_sizes = reduce_params(procs, 1 % procs, {3, 3, 3, 3});
      explicit_sizes.arrivals.assign(static_cast<std::size_t>(procs), 0.0);
      explicit_sizes.arrivals.back() = 7.5;
      Params counted = explicit_sizes;
      counted.segment_sizes.clear();
      counted.segment_count = 4;
      EXPECT_EQ(build_all(*algorithm, explicit_sizes), build_all(*algorithm, counted)) << name << " P=" << procs;
    }
  }
}

TEST(UnequalSegments, SimulatorMatchesUniGreedyPrediction) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> late(0, 30);
  for (int procs : {2, 6, 12, 33}) {
    for (const auto &sizes : kSegmentations) {
      Params params = reduce_params(procs, 0, sizes);
      params.cost = {2.0, 1.0, 1.0};
      for (int p = 0; p < procs; ++p) params.arrivals.push_back(late(rng));
      GreedyInput input;
      input.procs = procs;
      input.segments = static_cast<int>(sizes.size());
      input.arrivals = params.arrivals;
      input.alpha = 2, input.beta = 1, input.gamma = 1;
      for (std::int64_t s : sizes) input.segment_bytes_each.push_back(static_cast<double>(s));
      input.segment_bytes = 10;
      const double predicted = uni_greedy(input).completion_time;
      SimulateOptions options;
      options.ports = PortModel::unidirectional;
      const SimulateResult result = simulate(*find_algorithm(Collective::reduce, "uni_greedy"), params, options);
      ASSERT_EQ(result.error, "");
      // run_time counts from the first arrival, as the generator does.
      EXPECT_NEAR(result.run_time, predicted, 1e-9 * predicted) << "P=" << procs << " segments=" << sizes.size();
    }
  }
}

// [LL] Table IV, first row: p = 6, α = 1, β = 1, γ = 1, m = 10: the best
// equi-segmentation (4,4,2) is 1.0408 times slower than (5,3,2).
TEST(UnequalSegments, TableIVFirstRowRatio) {
  auto completion = [](std::vector<double> sizes) {
    GreedyInput input;
    input.procs = 6;
    input.segments = static_cast<int>(sizes.size());
    input.alpha = 1, input.beta = 1, input.gamma = 1;
    input.segment_bytes_each = std::move(sizes);
    return uni_greedy(input).completion_time;
  };
  EXPECT_NEAR(completion({4, 4, 2}) / completion({5, 3, 2}), 1.0408, 5e-5);
}
