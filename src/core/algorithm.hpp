// Collective parameters, the builder interface, and the catalogue of every
// algorithm patcoll implements (the MPI registry adds `native` on top).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cost.hpp"
#include "ir.hpp"

namespace patcoll::core {

// When a process joins a Clairvoyant round (generators/clairvoyant.hpp).
//   before_round_end  availability a < t + d, t the round's start: [PO]
//                     Listing 6 and [M] Fig. 8 (the default). A process may be
//                     scheduled in a round it reaches only after the round
//                     began, so the executed time can exceed the schedule's.
//   by_round_start    a <= t on the grid of rounds t0 + k·d (t0 the earliest
//                     arrival): a process joins only rounds that start after
//                     it arrived, so rounds·d bounds the executed run time
//                     from above (issue 13 item 7). Environment:
//                     PATCOLL_CLAIRVOYANT_JOIN=end|start.
enum class ClairvoyantJoin : std::uint8_t { before_round_end, by_round_start };
std::string_view to_string(ClairvoyantJoin);
// false when `text` names no rule ("end"/"before_round_end", "start"/"by_round_start").
bool parse_clairvoyant_join(std::string_view text, ClairvoyantJoin &out);

struct Params {
  Collective collective = Collective::reduce;
  int procs = 1;
  int root = 0;
  std::int64_t count = 0;          // reduce/allreduce: elements; scatter/gather: elements per rank
  std::int64_t element_bytes = 4;  // size of one element, for the cost model
  bool commutative = true;
  std::int64_t segment_count = 0;     // 0: the algorithm's default
  std::int64_t segment_elements = 0;  // 0: the algorithm's default (segment_count wins if both set)
  std::vector<std::int64_t> segment_sizes;  // explicit segment sizes in elements (positive, sum = count),
                                            // wins over both; empty = equal segments (takes_segment_sizes)
  std::vector<int> radix;             // radix_k: factors of procs; empty = default
  // The v-forms' block sizes in elements (core/layout.hpp): allgatherv and
  // reduce_scatter: counts[r] = rank r's block (procs entries); alltoallv:
  // counts[s * procs + d] = what rank s sends to rank d (procs² entries).
  // Empty for every other collective, whose blocks are all `count`. A
  // v-form's logical buffers are packed: blocks in rank order, back to back.
  std::vector<std::int64_t> counts;
  std::vector<double> arrivals;       // PAT vector in seconds, empty = balanced
  ClairvoyantJoin clairvoyant_join = ClairvoyantJoin::before_round_end;  // Clairvoyant's join rule
  CostModel cost;
};

// What an algorithm is and what a call must satisfy are data (MPICH's
// coll_algorithms.txt lesson), in two separate fields of a catalogue row:
// restrictions are conditions on the call (unsupported_reason checks them),
// capabilities describe the algorithm (what it honours, how it is built,
// where it runs). Each is its own type, so a test of a capability against
// the restrictions (or the reverse) does not compile.
enum Restriction : std::uint32_t {
  needs_commutative = 1u << 0,  // the op must be commutative
  needs_even_procs = 1u << 1,   // P must be even (allgather/neighbor_exchange pairs neighbours)
  // needs_power_of_two was one: no algorithm has it (recursive doubling
  // and the butterflies fold the ranks beyond a power of two).
};
enum Capability : std::uint32_t {
  pap_aware = 1u << 0,            // uses Params::arrivals when given
  schedule_based = 1u << 1,       // builds all ranks at once (generator), cache it
  takes_radix = 1u << 2,          // honours Params::radix (which must then be valid)
  takes_segment_sizes = 1u << 3,  // honours Params::segment_sizes (unequal segments)
  background = 1u << 4,           // the PAT runtime's thread runs part of it after the edge
                                  // (Algorithm::base); the base's Program in the foreground
                                  // wherever no runtime edge applies
  reactive = 1u << 5,             // follows the arrival order observed at run time
                                  // (builders/reactive.hpp): blocking calls only; its
                                  // catalogue Programs are those of Params::arrivals' order
  by_name_only = 1u << 6,         // `auto` does not rank it: run where a user names it
};

struct Restrictions {
  std::uint32_t bits = 0;
  constexpr bool operator&(Restriction r) const { return (bits & r) != 0; }
  constexpr bool empty() const { return bits == 0; }
  constexpr bool operator==(const Restrictions &) const = default;
};
struct Capabilities {
  std::uint32_t bits = 0;
  constexpr bool operator&(Capability c) const { return (bits & c) != 0; }
  constexpr bool empty() const { return bits == 0; }
  constexpr bool operator==(const Capabilities &) const = default;
};

// "commutative" / "pap_aware,schedule_based,..." in bit order; "none" when empty.
std::string restrictions_to_string(Restrictions);
std::string capabilities_to_string(Capabilities);

using BuildRank = Program (*)(const Params &, int rank);
using BuildAll = std::vector<Program> (*)(const Params &);
struct FlatPrograms;  // flat.hpp
using BuildFlat = FlatPrograms (*)(const Params &);

struct Algorithm {
  Collective collective;
  std::string_view name;  // canonical: listed, reported by PAT_Get_last_algorithm
  Restrictions restrictions;
  Capabilities capabilities;
  std::string_view aliases;  // other accepted spellings, comma-separated ("" for none)
  std::string_view base;     // background: the algorithm whose Program it runs ("" otherwise)
  std::string_view description;
  BuildRank build_rank;  // one rank's Program (the MPI path)
  BuildAll build_all;    // every rank's, the per-parameter plan computed once
                         // (null: build_rank for each rank; builders/plan.hpp)
  // Every rank's, straight into the simulator's form (flat.hpp), the same
  // steps as build_all (tests/unit/test_flat.cpp); null: build_flat()
  // flattens the Programs as it builds them.
  BuildFlat build_flat = nullptr;
  // The MPI tags one call needs (Op::tag < tags(params)), the same at
  // every rank; null: 1 (every op on tag 0).
  int (*tags)(const Params &) = nullptr;
};

// Algorithm::tags, or 1.
inline int tags_of(const Algorithm &algorithm, const Params &params) {
  return algorithm.tags ? algorithm.tags(params) : 1;
}

// The row's aliases, one string each.
std::vector<std::string_view> aliases_of(const Algorithm &);
// "bnom,lin" or "none".
std::string aliases_to_string(const Algorithm &);

// Every core algorithm, in a fixed order (listing order of --list).
std::span<const Algorithm> algorithms();
// The row named `name` or with `name` among its aliases; nullptr for none.
const Algorithm *find_algorithm(Collective, std::string_view name);

// The radix rule of radix_k (Params::radix): every k >= 2 and
// P/2 <= Π k <= P (the ranks beyond Π k fold into partners). The one
// definition: unsupported_reason rejects what it rejects, and the builders
// (butterfly.cpp's radix_for) take the default radix for exactly those.
bool valid_radix(const std::vector<int> &radix, int procs);

// The most processes a reactive algorithm serves (its mechanism packs a
// rank and a place in line into 16 bits each).
inline constexpr int kReactiveMaxProcs = 65535;

// Why `algorithm` cannot serve `params` ("" when it can).
std::string unsupported_reason(const Algorithm &, const Params &);

// One rank's program / all ranks' programs, whichever interface the
// algorithm provides.
Program build_rank(const Algorithm &, const Params &, int rank);
std::vector<Program> build_all(const Algorithm &, const Params &);

// Segment helpers shared by segmenting builders: the number of segments
// for `count` elements given the params (default `fallback_segments`), and
// segment s's [offset, count) — sizes differ by at most one element, and
// there are never more segments than max(1, count).
std::int64_t segment_count_for(const Params &, std::int64_t count, std::int64_t fallback_segments);
struct Span {
  std::int64_t offset;
  std::int64_t count;
};
Span segment_span(std::int64_t count, std::int64_t segments, std::int64_t index);

// Every segment's [offset, count) for `segments` segments of `count`
// elements: Params::segment_sizes when given (then `segments` is ignored),
// else segment_span's equal segments.
std::vector<Span> segment_spans(const Params &, std::int64_t count, std::int64_t segments);

// Block partition of `count` elements into `blocks` nearly equal blocks
// (ring, rabenseifner): block b's [offset, count).
Span block_span(std::int64_t count, std::int64_t blocks, std::int64_t index);

}  // namespace patcoll::core
