#include "algorithm.hpp"

#include <algorithm>
#include <initializer_list>

namespace patcoll::core {

std::string_view to_string(ClairvoyantJoin join) {
  return join == ClairvoyantJoin::by_round_start ? "by_round_start" : "before_round_end";
}

bool parse_clairvoyant_join(std::string_view text, ClairvoyantJoin &out) {
  if (text == "end" || text == "before_round_end") return out = ClairvoyantJoin::before_round_end, true;
  if (text == "start" || text == "by_round_start") return out = ClairvoyantJoin::by_round_start, true;
  return false;
}

namespace {

struct Flag {
  std::uint32_t bit;
  const char *name;
};

std::string flags_to_string(std::uint32_t bits, std::initializer_list<Flag> flags) {
  std::string out;
  for (const Flag &flag : flags) {
    if (!(bits & flag.bit)) continue;
    if (!out.empty()) out += ',';
    out += flag.name;
  }
  return out.empty() ? "none" : out;
}

}  // namespace

std::string restrictions_to_string(Restrictions restrictions) {
  return flags_to_string(restrictions.bits, {{needs_commutative, "commutative"}, {needs_even_procs, "even_procs"}});
}

std::string capabilities_to_string(Capabilities capabilities) {
  return flags_to_string(capabilities.bits, {{pap_aware, "pap_aware"},
                                             {schedule_based, "schedule_based"},
                                             {takes_radix, "radix"},
                                             {takes_segment_sizes, "segment_sizes"},
                                             {background, "background"},
                                             {reactive, "reactive"},
                                             {by_name_only, "by_name_only"}});
}

std::vector<std::string_view> aliases_of(const Algorithm &algorithm) {
  std::vector<std::string_view> out;
  std::string_view rest = algorithm.aliases;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    out.push_back(rest.substr(0, comma));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return out;
}

std::string aliases_to_string(const Algorithm &algorithm) {
  return algorithm.aliases.empty() ? "none" : std::string(algorithm.aliases);
}

const Algorithm *find_algorithm(Collective collective, std::string_view name) {
  for (const Algorithm &a : algorithms())
    if (a.collective == collective && a.name == name) return &a;
  for (const Algorithm &a : algorithms())
    if (a.collective == collective)
      for (std::string_view alias : aliases_of(a))
        if (alias == name) return &a;
  return nullptr;
}

std::string unsupported_reason(const Algorithm &algorithm, const Params &params) {
  if ((algorithm.restrictions & needs_commutative) && !params.commutative)
    return std::string(algorithm.name) + " needs a commutative op";
  if ((algorithm.restrictions & needs_even_procs) && params.procs % 2 != 0)
    return std::string(algorithm.name) + " needs an even number of processes (P = " + std::to_string(params.procs) + ")";
  if ((algorithm.capabilities & takes_radix) && !params.radix.empty() && !valid_radix(params.radix, params.procs))
    return "the radix vector must have every k >= 2 and a product between P/2 and P = " + std::to_string(params.procs);
  if (!params.segment_sizes.empty()) {
    if (!(algorithm.capabilities & takes_segment_sizes))
      return std::string(algorithm.name) + " does not take explicit segment sizes";
    std::int64_t sum = 0;
    for (std::int64_t size : params.segment_sizes) {
      if (size <= 0) return "segment sizes must be positive";
      sum += size;
    }
    if (sum != params.count)
      return "the segment sizes sum to " + std::to_string(sum) + ", not count = " + std::to_string(params.count);
  }
  if ((algorithm.capabilities & reactive) && params.procs > kReactiveMaxProcs)
    return std::string(algorithm.name) + " serves at most " + std::to_string(kReactiveMaxProcs) + " processes (P = " +
           std::to_string(params.procs) + ")";
  if (!params.arrivals.empty() && params.arrivals.size() != static_cast<std::size_t>(params.procs))
    return "the arrival vector has " + std::to_string(params.arrivals.size()) + " entries for " +
           std::to_string(params.procs) + " processes";
  return {};
}

bool valid_radix(const std::vector<int> &radix, int procs) {
  std::int64_t product = 1;
  for (int k : radix) {
    if (k < 2) return false;
    product *= k;
    if (product > procs) return false;
  }
  return 2 * product >= procs;
}

Program build_rank(const Algorithm &algorithm, const Params &params, int rank) {
  if (algorithm.build_rank) return algorithm.build_rank(params, rank);
  return algorithm.build_all(params).at(static_cast<std::size_t>(rank));
}

std::vector<Program> build_all(const Algorithm &algorithm, const Params &params) {
  if (algorithm.build_all) return algorithm.build_all(params);
  std::vector<Program> programs;
  programs.reserve(static_cast<std::size_t>(params.procs));
  for (int rank = 0; rank < params.procs; ++rank) programs.push_back(algorithm.build_rank(params, rank));
  return programs;
}

std::int64_t segment_count_for(const Params &params, std::int64_t count, std::int64_t fallback_segments) {
  std::int64_t segments = fallback_segments;
  if (!params.segment_sizes.empty()) {
    segments = static_cast<std::int64_t>(params.segment_sizes.size());
  } else if (params.segment_count > 0) {
    segments = params.segment_count;
  } else if (params.segment_elements > 0) {
    segments = (count + params.segment_elements - 1) / params.segment_elements;
  }
  return std::clamp<std::int64_t>(segments, 1, std::max<std::int64_t>(1, count));
}

Span block_span(std::int64_t count, std::int64_t blocks, std::int64_t index) {
  const std::int64_t base = count / blocks, extra = count % blocks;
  const std::int64_t offset = index * base + std::min(index, extra);
  return {offset, base + (index < extra ? 1 : 0)};
}

Span segment_span(std::int64_t count, std::int64_t segments, std::int64_t index) {
  return block_span(count, segments, index);
}

std::vector<Span> segment_spans(const Params &params, std::int64_t count, std::int64_t segments) {
  std::vector<Span> spans;
  if (!params.segment_sizes.empty()) {
    std::int64_t offset = 0;
    for (std::int64_t size : params.segment_sizes) spans.push_back({offset, size}), offset += size;
    return spans;
  }
  spans.reserve(static_cast<std::size_t>(std::max<std::int64_t>(segments, 0)));
  for (std::int64_t s = 0; s < segments; ++s) spans.push_back(segment_span(count, segments, s));
  return spans;
}

}  // namespace patcoll::core
