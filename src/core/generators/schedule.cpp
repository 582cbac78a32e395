// Schedule helpers shared by the generators: segment sizing, conversion into
// the Program IR, table/JSON output, and the greedy round numbering.
#include "schedule.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <tuple>

#include "greedy.hpp"

namespace patcoll::core {

bool same_transfers(const Schedule &a, const Schedule &b) {
  return a.procs == b.procs && a.segments == b.segments && a.root == b.root && a.rounds == b.rounds &&
         a.ranks == b.ranks;
}

std::int64_t schedule_segment_count(const Params &params) {
  const std::int64_t fallback =
      optimal_segment_count(params.cost, params.procs, params.count, params.element_bytes);
  return segment_count_for(params, params.count, fallback);
}

double schedule_segment_bytes(const Params &params, std::int64_t segments) {
  if (!params.segment_sizes.empty())
    return static_cast<double>(*std::max_element(params.segment_sizes.begin(), params.segment_sizes.end())) *
           static_cast<double>(params.element_bytes);
  const std::int64_t largest = segments > 0 ? (params.count + segments - 1) / segments : params.count;
  return static_cast<double>(largest) * static_cast<double>(params.element_bytes);
}

namespace {

// Explicit sizes only when they describe the schedule's segments.
std::vector<Span> schedule_spans(const Schedule &schedule, const Params &params) {
  const bool explicit_sizes = params.segment_sizes.size() == static_cast<std::size_t>(schedule.segments);
  return segment_spans(explicit_sizes ? params : Params{}, params.count, schedule.segments);
}

// Emits rank `rank`'s steps, emit(ops, count, round, tags), in order: the
// one conversion of a schedule, for Programs and for the simulator's flat
// form. tags[k] is op k's FlatOp::tag: its transfer's id in a numbered
// schedule, else FlatOp::kNone.
template <typename Emit>
void rank_steps(const Schedule &schedule, const Params &params, const std::vector<Span> &spans, int rank, Emit &&emit) {
  const std::int64_t count = params.count;
  const Buffer accumulator = rank == params.root ? Buffer::recv : Buffer::scratch;
  auto segment_region = [&](int segment) {
    const Span span = spans[static_cast<std::size_t>(segment)];
    return Region{accumulator, span.offset, span.count};
  };
  const Op copy = copy_op(send_buf(0, count), Region{accumulator, 0, count});
  std::vector<bool> holds(static_cast<std::size_t>(schedule.segments), true);
  const RankSchedule empty;
  const RankSchedule &mine = rank < static_cast<int>(schedule.ranks.size()) ? schedule.ranks[rank] : empty;
  // A full-duplex schedule's send and receive share a step when they
  // overlap in its timeline, not only when they start in the same round:
  // as separate steps the later one would wait for the earlier one's end.
  // (bi_greedy: a receive starting during a send of another segment — with
  // equal segments its COMP rule lets nothing else overlap. A hair's margin
  // keeps back-to-back transfers, equal up to the generator's tick, apart.)
  const auto transfer_seconds = [&](const Transfer &t) {
    return params.cost.transfer_time(static_cast<double>(spans[static_cast<std::size_t>(t.segment)].count) *
                                     static_cast<double>(params.element_bytes));
  };
  const auto overlap = [&](const Transfer &first, const Transfer &later) {
    return schedule.overlapping_rounds && first.segment != later.segment &&
           later.time < first.time + transfer_seconds(first) * (1 - 0x1p-10);
  };
  const auto tag = [&](const Transfer &t) {
    return schedule.numbered > 0 && t.id >= 0 && t.id < schedule.numbered ? static_cast<std::uint32_t>(t.id)
                                                                           : FlatOp::kNone;
  };
  std::size_t in = 0, out = 0;
  bool copied = false;
  while (in < mine.recv.size() || out < mine.send.size()) {
    int round = std::numeric_limits<int>::max();
    if (in < mine.recv.size()) round = std::min(round, mine.recv[in].round);
    if (out < mine.send.size()) round = std::min(round, mine.send[out].round);
    bool take_send = out < mine.send.size() && mine.send[out].round == round;
    bool take_recv = in < mine.recv.size() && mine.recv[in].round == round;
    if (take_send != take_recv && in < mine.recv.size() && out < mine.send.size()) {
      if (take_send) take_recv = overlap(mine.send[out], mine.recv[in]);
      else take_send = overlap(mine.recv[in], mine.send[out]);
    }
    Op ops[3];
    std::uint32_t tags[3] = {FlatOp::kNone, FlatOp::kNone, FlatOp::kNone};
    std::size_t n = 0;
    if (!copied) ops[n++] = copy, copied = true;
    // The send reads the accumulator before the recv lands (step phases),
    // and never the segment received in the same step.
    int sent_segment = -1;
    if (take_send) {
      const Transfer &t = mine.send[out++];
      tags[n] = tag(t);
      ops[n++] = send_op(t.peer, segment_region(t.segment));
      sent_segment = t.segment;
    }
    if (take_recv) {
      const Transfer &t = mine.recv[in++];
      tags[n] = tag(t);
      ops[n++] = recv_op(t.peer, segment_region(t.segment), holds[t.segment] ? Combine::left : Combine::store);
      holds[t.segment] = true;
    }
    if (sent_segment >= 0) holds[sent_segment] = false;
    emit(ops, n, round, tags);
  }
  const std::uint32_t none = FlatOp::kNone;
  if (!copied) emit(&copy, 1, 0, &none);
}

Program rank_program(const Schedule &schedule, const Params &params, const std::vector<Span> &spans, int rank) {
  Program program{rank, params.procs, rank == params.root ? 0 : params.count, {}};
  program.synchronous_sends = true;  // rounds are planned per port (ir.hpp)
  rank_steps(schedule, params, spans, rank, [&](const Op *ops, std::size_t n, int round, const std::uint32_t *) {
    add_step(program, std::vector<Op>(ops, ops + n), round);
  });
  return program;
}

}  // namespace

Program schedule_to_program(const Schedule &schedule, const Params &params, int rank) {
  return rank_program(schedule, params, schedule_spans(schedule, params), rank);
}

std::vector<Program> schedule_to_programs(const Schedule &schedule, const Params &params) {
  const std::vector<Span> spans = schedule_spans(schedule, params);
  std::vector<Program> programs;
  programs.reserve(static_cast<std::size_t>(params.procs));
  for (int rank = 0; rank < params.procs; ++rank) programs.push_back(rank_program(schedule, params, spans, rank));
  return programs;
}

namespace {

// Transfers of a broadcast schedule that travel as one message: a run of
// transfers s → r of consecutive segments, consecutive in r's receive list
// and in s's send list, where s holds every segment of the run by the
// run's first round and r sends nothing until the run's last round (so
// the merge delays no forwarding), goes as one message in that round (a late rank fed
// back to back by one holder then pays one α, not one per segment).
// last[id] is the last segment of the message transfer `id` heads, −1 for
// a transfer merged into an earlier one. Identical on every rank (it is a
// function of the schedule).
// Whether `send` (sorted by round) has a send in a round of (after, upto].
bool sends_within(const std::vector<Transfer> &send, int after, int upto) {
  const auto first = std::upper_bound(send.begin(), send.end(), after,
                                      [](int round, const Transfer &t) { return round < t.round; });
  return first != send.end() && first->round <= upto;
}

std::vector<int> broadcast_messages(const Schedule &schedule) {
  const std::size_t ids = static_cast<std::size_t>(std::max(schedule.numbered, 0));
  std::vector<int> last(ids);
  for (std::size_t id = 0; id < ids; ++id) last[id] = -2;  // set below
  std::vector<std::int64_t> send_position(ids, -1);
  for (const RankSchedule &r : schedule.ranks)
    for (std::size_t i = 0; i < r.send.size(); ++i)
      if (r.send[i].id >= 0) send_position[static_cast<std::size_t>(r.send[i].id)] = static_cast<std::int64_t>(i);
  // The round each rank receives each segment in (the root holds all).
  const std::size_t segments = static_cast<std::size_t>(std::max(schedule.segments, 1));
  std::vector<int> received(schedule.ranks.size() * segments, -1);
  for (std::size_t rank = 0; rank < schedule.ranks.size(); ++rank)
    for (const Transfer &t : schedule.ranks[rank].recv)
      received[rank * segments + static_cast<std::size_t>(t.segment)] = t.round;
  for (std::size_t rank = 0; rank < schedule.ranks.size(); ++rank) {
    const std::vector<Transfer> &recv = schedule.ranks[rank].recv;
    std::size_t head = 0;
    for (std::size_t i = 0; i < recv.size(); ++i) {
      const Transfer &t = recv[i];
      if (t.id < 0) continue;
      bool joins = false;
      if (i > 0 && recv[head].id >= 0) {
        const Transfer &h = recv[head], &previous = recv[i - 1];
        const auto sender = static_cast<std::size_t>(t.peer);
        joins = t.peer == h.peer && previous.peer == t.peer && t.segment == previous.segment + 1 &&
                send_position[static_cast<std::size_t>(t.id)] ==
                    send_position[static_cast<std::size_t>(previous.id)] + 1 &&
                (t.peer == schedule.root || received[sender * segments + static_cast<std::size_t>(t.segment)] < h.round) &&
                !sends_within(schedule.ranks[rank].send, h.round, t.round);
      }
      if (joins) {
        last[static_cast<std::size_t>(t.id)] = -1;
        last[static_cast<std::size_t>(recv[head].id)] = t.segment;
      } else {
        head = i;
        last[static_cast<std::size_t>(t.id)] = t.segment;
      }
    }
  }
  return last;
}

Program broadcast_rank_program(const Schedule &schedule, const Params &params, const std::vector<Span> &spans,
                               const std::vector<int> &last, int rank) {
  Program program{rank, params.procs, 0, {}};
  program.synchronous_sends = true;  // rounds are planned per port (ir.hpp)
  if (rank >= static_cast<int>(schedule.ranks.size())) return program;
  const RankSchedule &mine = schedule.ranks[static_cast<std::size_t>(rank)];
  auto last_of = [&](const Transfer &t) {
    return t.id >= 0 && static_cast<std::size_t>(t.id) < last.size() ? last[static_cast<std::size_t>(t.id)] : t.segment;
  };
  auto region = [&](const Transfer &t) {
    const Span first = spans[static_cast<std::size_t>(t.segment)];
    const Span end = spans[static_cast<std::size_t>(last_of(t))];
    return recv_buf(first.offset, end.offset + end.count - first.offset);
  };
  std::size_t in = 0, out = 0;
  while (in < mine.recv.size() || out < mine.send.size()) {
    int round = std::numeric_limits<int>::max();
    if (in < mine.recv.size()) round = std::min(round, mine.recv[in].round);
    if (out < mine.send.size()) round = std::min(round, mine.send[out].round);
    std::vector<Op> ops;
    // A send never reads the segment received in the same step (the
    // generators never forward a segment in the round it arrives).
    if (out < mine.send.size() && mine.send[out].round == round) {
      const Transfer &t = mine.send[out++];
      if (last_of(t) >= 0) ops.push_back(send_op(t.peer, region(t)));
    }
    if (in < mine.recv.size() && mine.recv[in].round == round) {
      const Transfer &t = mine.recv[in++];
      if (last_of(t) >= 0) ops.push_back(recv_op(t.peer, region(t)));
    }
    add_step(program, std::move(ops), round);
  }
  return program;
}

}  // namespace

Program broadcast_schedule_to_program(const Schedule &schedule, const Params &params, int rank) {
  return broadcast_rank_program(schedule, params, schedule_spans(schedule, params), broadcast_messages(schedule), rank);
}

std::vector<Program> broadcast_schedule_to_programs(const Schedule &schedule, const Params &params) {
  const std::vector<Span> spans = schedule_spans(schedule, params);
  const std::vector<int> last = broadcast_messages(schedule);
  std::vector<Program> programs;
  programs.reserve(static_cast<std::size_t>(params.procs));
  for (int rank = 0; rank < params.procs; ++rank)
    programs.push_back(broadcast_rank_program(schedule, params, spans, last, rank));
  return programs;
}

FlatPrograms schedule_to_flat(const Schedule &schedule, const Params &params) {
  const std::vector<Span> spans = schedule_spans(schedule, params);
  // The layout first, then every rank's steps again, written straight into
  // their places: emitting a rank's steps costs less than holding every op
  // twice (at P = 10^5, 400 MB of fresh pages and their copy).
  FlatBuilder builder = FlatBuilder::layout_only(params.procs);
  for (int rank = 0; rank < params.procs; ++rank) {
    builder.begin_rank(rank);
    rank_steps(schedule, params, spans, rank, [&](const Op *ops, std::size_t n, int round, const std::uint32_t *) {
      builder.step(ops, n, round);
    });
  }
  std::vector<Op> ops;  // the current rank's steps, one after the other
  std::vector<std::uint32_t> tags;  // ops' tags
  std::vector<std::pair<std::size_t, std::size_t>> steps;  // (first op, ops)
  std::size_t next = 0;
  int rank = -1;
  FlatPrograms flat = builder.finish_writing([&](std::size_t, FlatOp *dst) {
    while (next == steps.size()) {  // the next rank's steps (every rank has at least one)
      ops.clear(), tags.clear(), steps.clear(), next = 0;
      rank_steps(schedule, params, spans, ++rank,
                 [&](const Op *step_ops, std::size_t n, int, const std::uint32_t *step_tags) {
                   steps.emplace_back(ops.size(), n);
                   ops.insert(ops.end(), step_ops, step_ops + n);
                   tags.insert(tags.end(), step_tags, step_tags + n);
                 });
    }
    const auto [first, n] = steps[next++];
    FlatBuilder::write_step(ops.data() + first, n, dst);
    for (std::size_t k = 0; k < n; ++k) dst[k].tag = tags[first + k];
  });
  if (flat.error.empty()) flat.tags = static_cast<std::uint32_t>(std::max(schedule.numbered, 0));
  return flat;
}

std::string to_table(const Schedule &schedule) {
  std::ostringstream os;
  os << schedule.algorithm << ": procs " << schedule.procs << ", segments " << schedule.segments << ", root "
     << schedule.root << ", rounds " << schedule.rounds;
  if (schedule.completion_time > 0) os << ", completion time " << schedule.completion_time << " s";
  os << "\nround  sender -> receiver  segment\n";
  struct Row {
    int round, from, to, segment;
  };
  std::vector<Row> rows;
  for (int rank = 0; rank < static_cast<int>(schedule.ranks.size()); ++rank)
    for (const Transfer &t : schedule.ranks[rank].send) rows.push_back({t.round, rank, t.peer, t.segment});
  std::sort(rows.begin(), rows.end(), [](const Row &a, const Row &b) {
    return std::tie(a.round, a.to, a.from) < std::tie(b.round, b.to, b.from);
  });
  for (const Row &r : rows) {
    char line[96];
    std::snprintf(line, sizeof line, "%5d  %6d -> %-8d  %7d\n", r.round, r.from, r.to, r.segment);
    os << line;
  }
  return os.str();
}

std::string to_json(const Schedule &schedule, bool with_completion_time) {
  std::ostringstream os;
  os.precision(17);
  os << "{\"algorithm\": \"" << schedule.algorithm << "\", \"procs\": " << schedule.procs
     << ", \"segments\": " << schedule.segments << ", \"root\": " << schedule.root
     << ", \"rounds\": " << schedule.rounds;
  if (with_completion_time) os << ", \"completion_time\": " << schedule.completion_time;
  os << ", \"ranks\": [";
  auto list = [&](const std::vector<Transfer> &transfers) {
    os << '[';
    for (std::size_t i = 0; i < transfers.size(); ++i)
      os << (i ? ", " : "") << '[' << transfers[i].round << ", " << transfers[i].peer << ", " << transfers[i].segment
         << ']';
    os << ']';
  };
  for (int rank = 0; rank < static_cast<int>(schedule.ranks.size()); ++rank) {
    os << (rank ? ", " : "") << "{\"rank\": " << rank << ", \"recv\": ";
    list(schedule.ranks[rank].recv);
    os << ", \"send\": ";
    list(schedule.ranks[rank].send);
    os << '}';
  }
  os << "]}";
  return os.str();
}

namespace detail {
namespace {

// std::stable_sort by time, for events that come as a few runs already in
// time order (bi_greedy: one, its clock never goes back; uni_greedy: one
// per segment): the runs merged pairwise, left first among equal times,
// which is exactly the stable order, in log2(runs) passes instead of
// log2(events) (at P = 10^5, 6 passes instead of 23).
void stable_sort_by_time(std::vector<GreedyEvent> &events) {
  std::vector<std::size_t> bounds{0};
  for (std::size_t i = 1; i < events.size(); ++i)
    if (events[i].time < events[i - 1].time) bounds.push_back(i);
  bounds.push_back(events.size());
  if (bounds.size() <= 2) return;
  const auto earlier = [](const GreedyEvent &a, const GreedyEvent &b) { return a.time < b.time; };
  std::vector<GreedyEvent> buffer(events.size());
  while (bounds.size() > 2) {
    std::vector<std::size_t> merged{0};
    for (std::size_t r = 0; r + 1 < bounds.size(); r += 2) {
      const std::size_t from = bounds[r], middle = bounds[r + 1];
      const std::size_t to = r + 2 < bounds.size() ? bounds[r + 2] : middle;
      std::merge(events.begin() + from, events.begin() + middle, events.begin() + middle, events.begin() + to,
                 buffer.begin() + from, earlier);
      merged.push_back(to);
    }
    events.swap(buffer);
    bounds.swap(merged);
  }
}

}  // namespace

Schedule greedy_schedule(const GreedyInput &input, const char *name, std::vector<GreedyEvent> events,
                         double completion_time) {
  Schedule schedule;
  schedule.algorithm = name;
  schedule.procs = input.procs;
  schedule.segments = input.segments;
  schedule.root = input.root;
  schedule.completion_time = completion_time;
  schedule.ranks.resize(static_cast<std::size_t>(input.procs));
  stable_sort_by_time(events);
  // The rounds first, then every transfer appended in one pass
  // (append_transfers reserves the lists and prefetches them).
  std::vector<int> rounds(events.size());
  // Per process: the last round it sent / received in, and what it received.
  std::vector<int> last_send(input.procs, -1), last_recv(input.procs, -1), recv_segment(input.procs, -1);
  int round = -1;
  double round_time = 0;
  for (std::size_t k = 0; k < events.size(); ++k) {
    const GreedyEvent &e = events[k];
    bool conflict = round < 0 || e.time != round_time || last_send[e.sender] == round ||
                    last_recv[e.receiver] == round ||
                    (last_recv[e.sender] == round && recv_segment[e.sender] == e.segment);
    if (conflict) ++round, round_time = e.time;
    last_send[e.sender] = round;
    last_recv[e.receiver] = round;
    recv_segment[e.receiver] = e.segment;
    rounds[k] = round;
  }
  append_transfers(schedule, events.size(), [&](std::size_t k) {
    const GreedyEvent &e = events[k];
    return FoundTransfer{e.sender, e.receiver, rounds[k], e.segment, e.time};
  });
  schedule.rounds = round + 1;
  return schedule;
}

}  // namespace detail
}  // namespace patcoll::core
