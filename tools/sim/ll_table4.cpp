// ll-table4: [LL] §VIII / Table IV — is uni_greedy improved by unequal
// segmentation? m = 10 (bytes, β = 1 per byte), every one of the 2^9 = 512
// ordered segmentations (compositions of 10), α ∈ {0…10, 20…100, 200…1000},
// β = 1, γ ∈ {0, 1}, p ∈ {2^n, n = 2…10} ∪ {3·2^n, n = 1…N3} (N3 = 8 by
// default: 17 p values × 29 α × 2 γ = 986 experiments, [LL]'s count).
// An experiment is "improved" when the best of the 512 is faster than the
// best equi-segmentation ([LL]: equal segments, only the last may be
// smaller, e.g. (4,4,2)); ratio = T(best equi) / T(optimal).
// Times are uni_greedy's own completion times (its Programs finish exactly
// then in the simulator, tests/unit/test_unequal_segments.cpp).
// --by-count: the equi-segmentations are the ones of q = 1…10 segments of
// ⌈10/q⌉ (what [LL]'s Table IV compares with: (5,5) but never (6,4)).
// usage: ll-table4 [--n3 9] [--table] [--by-count]   (--table: one row per improved case)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/generators/greedy.hpp"

using namespace patcoll::core;

namespace {

std::string text(const std::vector<double> &sizes) {
  std::string out = "(";
  for (std::size_t i = 0; i < sizes.size(); ++i) out += (i ? "," : "") + std::to_string(static_cast<int>(sizes[i]));
  return out + ")";
}

}  // namespace

int main(int argc, char **argv) {
  int n3 = 8;
  bool table = false, by_count = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--n3") && i + 1 < argc) n3 = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--table")) table = true;
    else if (!std::strcmp(argv[i], "--by-count")) by_count = true;
    else {
      std::fprintf(stderr, "usage: ll-table4 [--n3 N] [--table] [--by-count]\n");
      return 2;
    }
  }
  const int m = 10;
  std::vector<std::vector<double>> all, equi;
  for (unsigned mask = 0; mask < (1u << (m - 1)); ++mask) {  // bit i: a cut after element i + 1
    std::vector<double> sizes;
    int start = 0;
    for (int i = 0; i < m - 1; ++i)
      if (mask >> i & 1) sizes.push_back(i + 1 - start), start = i + 1;
    sizes.push_back(m - start);
    all.push_back(sizes);
  }
  for (int s = 1; s <= m; ++s) {
    if (by_count && s != (m + (m + s - 1) / s - 1) / ((m + s - 1) / s)) continue;  // s = ⌈m/q⌉ for some q
    std::vector<double> sizes(static_cast<std::size_t>(m / s), s);
    if (m % s) sizes.push_back(m % s);
    equi.push_back(sizes);
  }
  std::vector<int> ps;
  for (int n = 2; n <= 10; ++n) ps.push_back(1 << n);
  for (int n = 1; n <= n3; ++n) ps.push_back(3 << n);
  std::sort(ps.begin(), ps.end());
  std::vector<double> alphas;
  for (int a = 0; a <= 10; ++a) alphas.push_back(a);
  for (int a = 20; a <= 100; a += 10) alphas.push_back(a);
  for (int a = 200; a <= 1000; a += 100) alphas.push_back(a);

  auto completion = [](int p, double alpha, double gamma, const std::vector<double> &sizes) {
    GreedyInput input;
    input.procs = p;
    input.segments = static_cast<int>(sizes.size());
    input.alpha = alpha, input.beta = 1, input.gamma = gamma;
    input.segment_bytes = *std::max_element(sizes.begin(), sizes.end());
    input.segment_bytes_each = sizes;
    return uni_greedy(input).completion_time;
  };
  int experiments = 0, improved = 0;
  double max_ratio = 1;
  std::vector<int> improved_by_alpha_over_20;
  if (table) std::printf("| p | α | γ | ratio | best equi-segmentation | optimal segmentation(s) |\n|---|---|---|---|---|---|\n");
  for (double gamma : {0.0, 1.0})
    for (int p : ps)
      for (double alpha : alphas) {
        ++experiments;
        double best_equi = 1e300;
        for (const auto &sizes : equi) best_equi = std::min(best_equi, completion(p, alpha, gamma, sizes));
        std::vector<double> times;
        times.reserve(all.size());
        for (const auto &sizes : all) times.push_back(completion(p, alpha, gamma, sizes));
        const double best = *std::min_element(times.begin(), times.end());
        if (!(best < best_equi * (1 - 1e-12))) continue;
        ++improved;
        max_ratio = std::max(max_ratio, best_equi / best);
        if (!table) continue;
        std::string equi_text, optimal_text;
        for (const auto &sizes : equi)
          if (completion(p, alpha, gamma, sizes) <= best_equi * (1 + 1e-12)) equi_text += text(sizes) + " ";
        int shown = 0, ties = 0;
        for (std::size_t k = 0; k < all.size(); ++k)
          if (times[k] <= best * (1 + 1e-12)) {
            ++ties;
            if (shown < 6) optimal_text += text(all[k]) + " ", ++shown;
          }
        if (ties > shown) optimal_text += "… (" + std::to_string(ties) + " in all)";
        std::printf("| %d | %g | %g | %.4f | %s | %s |\n", p, alpha, gamma, best_equi / best, equi_text.c_str(),
                    optimal_text.c_str());
      }
  std::printf("\nexperiments %d, improved by unequal segmentation %d (%.1f %%), maximum ratio %.4f\n", experiments,
              improved, 100.0 * improved / experiments, max_ratio);
  return 0;
}
