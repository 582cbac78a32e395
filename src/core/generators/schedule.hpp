// A reduce schedule as the schedule generators produce it, and its
// conversion into the Program IR.
//
// A schedule reduces N segments over P ranks. Every rank has an inbound
// and an outbound list of transfers (round, peer, segment), both sorted by
// round; a rank has at most one inbound and one outbound transfer per round
// (single-port, full-duplex). Rounds are 0-based. Clairvoyant rounds are
// its rounds of length d ([M] §5); the greedy generators number their
// transfers by start time instead (events that start together share a
// round when no port is used twice) and keep the start time in `time`.
//
// Sink semantics ([M] §5, [PO] §2): a rank may send a segment away and
// later receive it back; a receive into a segment the rank no longer holds
// stores, otherwise it combines.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../algorithm.hpp"
#include "../flat.hpp"

namespace patcoll::core {

struct Transfer {
  int round = 0;
  int peer = -1;
  int segment = 0;
  // The transfer's number in a numbered schedule (Schedule::numbered): its
  // send and its recv carry the same id, so the simulator pairs the two
  // ops by it (FlatOp::tag) instead of matching posts FIFO per pair; -1
  // when not numbered. Not part of the transfer's identity (==).
  std::int32_t id = -1;
  double time = 0;  // start time in seconds (greedy); round · d (Clairvoyant)
  friend bool operator==(const Transfer &a, const Transfer &b) {
    return a.round == b.round && a.peer == b.peer && a.segment == b.segment && a.time == b.time;
  }
};

struct RankSchedule {
  std::vector<Transfer> recv;
  std::vector<Transfer> send;
  friend bool operator==(const RankSchedule &, const RankSchedule &) = default;
};

struct Schedule {
  std::string algorithm;
  int procs = 1;
  int segments = 1;
  int root = 0;
  int rounds = 0;                 // last round with a transfer + 1
  double completion_time = 0;     // greedy: time the root is done (s, from the first arrival)
  // Full-duplex timeline (bi_greedy): a rank's receive may start while its
  // send of an earlier round is still going on (Transfer::time), and the
  // Programs put the two in one step (rank_steps in schedule.cpp).
  bool overlapping_rounds = false;
  // > 0: every transfer has an id in [0, numbered) (Transfer::id), each id
  // on one send and one recv; 0: the ids are not set.
  std::int32_t numbered = 0;
  std::vector<RankSchedule> ranks;
};

// Same transfers (the generator name and completion time are ignored).
bool same_transfers(const Schedule &, const Schedule &);

// Number of segments the schedule-based reduces use for `params`:
// Params::segment_sizes.size(), else Params::segment_count, else from
// Params::segment_elements, else N_opt
// ([M] §5.2); never more than max(1, count).
std::int64_t schedule_segment_count(const Params &);
// Bytes of the largest segment (what one round carries).
double schedule_segment_bytes(const Params &, std::int64_t segments);

// One Program per rank executing `schedule` as a reduce of params.count
// elements: the root accumulates in its recv buffer, the others in scratch;
// the first step also copies send → accumulator; then one step per round
// with a transfer (Step::round = the schedule round), at most one send and
// one recv; a recv combines (Combine::left) into a segment the rank holds
// and stores into one it has sent away.
std::vector<Program> schedule_to_programs(const Schedule &, const Params &);
// The same for one rank: O(its transfers), for the MPI path.
Program schedule_to_program(const Schedule &, const Params &, int rank);
// The same steps straight into the simulator's form (flat.hpp), without
// the per-step vectors of std::vector<Program>: the schedule-based
// reduces' Algorithm::build_flat.
FlatPrograms schedule_to_flat(const Schedule &, const Params &);

// One Program per rank executing `schedule` as a broadcast of params.count
// elements from the root (bcast_greedy): every segment lives in the recv
// buffer at every rank; a rank's transfers become one step per round
// (Step::round = the schedule round), at most one send and one recv, the
// recv storing. A run of transfers between the same two ranks of
// consecutive segments, back to back in both ranks' lists, whose sender
// holds them all by the run's first round and whose receiver forwards
// nothing until the run's last round, travels as one message in that
// round. Sends are synchronous (rounds are planned per port).
std::vector<Program> broadcast_schedule_to_programs(const Schedule &, const Params &);
Program broadcast_schedule_to_program(const Schedule &, const Params &, int rank);

namespace detail {
// One transfer of a schedule as a generator finds it: `sender` sends
// `segment` to `receiver` in `round`, starting at `time`.
struct FoundTransfer {
  int sender;
  int receiver;
  int round;
  int segment;
  double time;
};

// Appends `count` transfers, get(k) for k = 0, 1, ..., to the senders' send
// and the receivers' recv lists, in that order; the lists are first
// reserved at their final sizes. Into an empty schedule, the transfers are
// numbered k (Transfer::id, Schedule::numbered) when there are fewer than
// 2^31. A generator that logs its transfers in one
// array and appends them here, instead of pushing into two lists of random
// ranks as it finds them, pays the lists' cache misses here, where they are
// known ahead: the list headers are prefetched 16 transfers ahead and the
// lists' ends 8 ahead (at P = 10^5 that halved the Clairvoyant generator's
// time, docs/results/builders.md).
template <class Get>
void append_transfers(Schedule &schedule, std::size_t count, Get get) {
  std::vector<RankSchedule> &ranks = schedule.ranks;
  bool empty = schedule.numbered == 0;
  for (const RankSchedule &r : ranks) empty = empty && r.send.empty() && r.recv.empty();
  const bool number = empty && count > 0 && count <= static_cast<std::size_t>(INT32_MAX);
  {
    std::vector<std::uint32_t> sends(ranks.size(), 0), recvs(ranks.size(), 0);
    for (std::size_t k = 0; k < count; ++k) {
      const FoundTransfer t = get(k);
      ++sends[static_cast<std::size_t>(t.sender)], ++recvs[static_cast<std::size_t>(t.receiver)];
    }
    for (std::size_t p = 0; p < ranks.size(); ++p) {
      ranks[p].send.reserve(ranks[p].send.size() + sends[p]);
      ranks[p].recv.reserve(ranks[p].recv.size() + recvs[p]);
    }
  }
  constexpr std::size_t kHeaders = 16, kEnds = 8;
  for (std::size_t k = 0; k < count; ++k) {
    if (k + kHeaders < count) {
      const FoundTransfer ahead = get(k + kHeaders);
      __builtin_prefetch(&ranks[static_cast<std::size_t>(ahead.sender)].send);
      __builtin_prefetch(&ranks[static_cast<std::size_t>(ahead.receiver)].recv);
    }
    if (k + kEnds < count) {
      const FoundTransfer ahead = get(k + kEnds);
      const std::vector<Transfer> &send = ranks[static_cast<std::size_t>(ahead.sender)].send;
      const std::vector<Transfer> &recv = ranks[static_cast<std::size_t>(ahead.receiver)].recv;
      __builtin_prefetch(send.data() + send.size(), 1);
      __builtin_prefetch(recv.data() + recv.size(), 1);
    }
    const FoundTransfer t = get(k);
    const std::int32_t id = number ? static_cast<std::int32_t>(k) : -1;
    ranks[static_cast<std::size_t>(t.sender)].send.push_back({t.round, t.receiver, t.segment, id, t.time});
    ranks[static_cast<std::size_t>(t.receiver)].recv.push_back({t.round, t.sender, t.segment, id, t.time});
  }
  if (number) schedule.numbered = static_cast<std::int32_t>(count);
}
}  // namespace detail

// Human-readable table and the JSON object of patcoll-sched.
std::string to_table(const Schedule &);
std::string to_json(const Schedule &, bool with_completion_time = false);

}  // namespace patcoll::core
