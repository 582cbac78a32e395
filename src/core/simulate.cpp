// Discrete-event simulator; the model is documented in simulate.hpp.
//
// Implementation: a rank's steps are executed eagerly (a step's post time is
// known as soon as the previous step ends), messages are matched FIFO per
// ordered pair at posting time, and only port arbitration needs the event
// queue: a matched message competes for its two ports at its ready time
// (max of the two post times); if a port is busy it retries when that port
// frees up. Completing the last message of a step ends the step and posts
// the next one. Every message is touched O(1) times (plus retries under port
// contention), so a run costs O(ops · log ops).
#include "simulate.hpp"

#include <algorithm>
#include <cmath>
#include <queue>
#include <unordered_map>

namespace patcoll::core {

std::string_view to_string(PortModel model) {
  switch (model) {
    case PortModel::full_duplex: return "full_duplex";
    case PortModel::unidirectional: return "unidirectional";
  }
  return "?";
}

bool parse_port_model(std::string_view text, PortModel &out) {
  if (text == "full_duplex" || text == "full" || text == "bidirectional" || text == "bi") {
    out = PortModel::full_duplex;
    return true;
  }
  if (text == "unidirectional" || text == "uni") {
    out = PortModel::unidirectional;
    return true;
  }
  return false;
}

std::string_view to_string(Activity activity) {
  switch (activity) {
    case Activity::send: return "send";
    case Activity::recv: return "recv";
    case Activity::combine: return "combine";
    case Activity::copy: return "copy";
  }
  return "?";
}

double imbalance(const std::vector<double> &arrivals) {
  if (arrivals.empty()) return 0.0;
  const auto [lo, hi] = std::minmax_element(arrivals.begin(), arrivals.end());
  return *hi - *lo;
}

namespace {

struct Message {
  int src = 0, dst = 0;
  int src_step = 0, dst_step = 0;
  int src_op = 0, dst_op = 0;  // op indices within the two steps
  std::int64_t bytes = 0;
  bool combine = false;  // the recv combines (costs γ·bytes at dst)
};

struct Posted {
  int step;
  double time;
  std::int64_t count;
  bool combine = false;  // recv side only
  int op = 0;            // index of the op in its step
};

// Unmatched posts of one ordered pair: a FIFO of one side only (if both
// sides had posts waiting they would have matched). Nodes live in one pool
// with a free list, so a pair costs no allocation of its own.
struct PairQueue {
  std::int32_t head = -1, tail = -1;  // pool indices
  bool sends = false;                  // which side the waiting posts are
};

struct PostedNode {
  Posted posted;
  std::int32_t next = -1;
};

enum class EventKind : std::uint8_t { try_start, complete };

struct Event {
  double time;
  std::uint64_t sequence;
  EventKind kind;
  std::int64_t message;
  bool operator>(const Event &other) const {
    if (time != other.time) return time > other.time;
    return sequence > other.sequence;
  }
};

struct RankState {
  int step = 0;              // current step index
  int outstanding = 0;       // comm ops of the current step not yet complete
  double posted_at = 0;      // end of the current step's phase 1
  double comm_done = 0;      // latest completion in the current step
  std::int64_t combine_bytes = 0;  // combining recvs of the current step
  std::vector<double> done;  // completion time of each op of the current step
  double send_port_free = 0;
  double recv_port_free = 0;  // unused in the unidirectional model
  bool finished = false;
};

class Simulator {
 public:
  Simulator(const Params &params, const std::vector<Program> &programs, const SimulateOptions &options)
      : params_(params), programs_(programs), options_(options), ranks_(programs.size()) {
    pairs_.reserve(2 * programs.size());
  }

  SimulateResult run() {
    const int procs = static_cast<int>(programs_.size());
    result_.arrival.assign(static_cast<std::size_t>(procs), 0.0);
    if (!params_.arrivals.empty()) {
      if (params_.arrivals.size() != programs_.size()) {
        result_.error = "the arrival vector has " + std::to_string(params_.arrivals.size()) + " entries for " +
                        std::to_string(procs) + " programs";
        return std::move(result_);
      }
      result_.arrival = params_.arrivals;
    }
    result_.exit.assign(static_cast<std::size_t>(procs), 0.0);
    for (int rank = 0; rank < procs && result_.error.empty(); ++rank) {
      if (programs_[static_cast<std::size_t>(rank)].rank != rank) {
        result_.error = "programs[" + std::to_string(rank) + "] is the program of rank " +
                        std::to_string(programs_[static_cast<std::size_t>(rank)].rank);
        break;
      }
      const double start = result_.arrival[static_cast<std::size_t>(rank)];
      RankState &state = ranks_[static_cast<std::size_t>(rank)];
      state.send_port_free = state.recv_port_free = start;
      run_steps_from(rank, start);
    }
    while (result_.error.empty() && !events_.empty()) {
      const Event event = events_.top();
      events_.pop();
      if (event.kind == EventKind::try_start)
        try_start(event.message, event.time);
      else
        complete(event.message, event.time);
    }
    if (result_.error.empty()) find_stuck_rank();
    if (!result_.error.empty()) return std::move(result_);
    summarise();
    return std::move(result_);
  }

 private:
  double bytes_of(std::int64_t count) const {
    return static_cast<double>(count) * static_cast<double>(params_.element_bytes);
  }

  void record(int rank, int step, Activity activity, int peer, double start, double end, std::int64_t bytes) {
    if (!options_.record_timeline) return;
    result_.timeline.push_back({rank, step, activity, peer, start, end, bytes});
  }

  void push(double time, EventKind kind, std::int64_t message) {
    events_.push(Event{time, next_sequence_++, kind, message});
  }

  // Executes steps of `rank` starting at `time` until one posts messages
  // (which then wait for the event queue) or the program ends.
  void run_steps_from(int rank, double time) {
    const Program &program = programs_[static_cast<std::size_t>(rank)];
    RankState &state = ranks_[static_cast<std::size_t>(rank)];
    while (state.step < static_cast<int>(program.steps.size())) {
      const Step &step = program.steps[static_cast<std::size_t>(state.step)];
      // Phase 1: local ops.
      for (const Op &op : step.ops) {
        if (op.kind != OpKind::local) continue;
        const std::int64_t bytes = op.src.count * params_.element_bytes;
        const bool copy = op.combine == Combine::store;
        const double seconds =
            static_cast<double>(bytes) * (copy ? options_.copy_seconds_per_byte : params_.cost.gamma);
        record(rank, state.step, copy ? Activity::copy : Activity::combine, -1, time, time + seconds, bytes);
        time += seconds;
      }
      // Phase 2: post sends and recvs.
      state.outstanding = 0;
      state.combine_bytes = 0;
      state.comm_done = time;
      state.posted_at = time;
      if (options_.combine_on_arrival) state.done.assign(step.ops.size(), time);
      for (std::size_t o = 0; o < step.ops.size(); ++o) {
        const Op &op = step.ops[o];
        if (op.kind == OpKind::local) continue;
        if (op.peer < 0 || op.peer >= static_cast<int>(programs_.size()) || op.peer == rank) {
          result_.error = "rank " + std::to_string(rank) + " step " + std::to_string(state.step) + ": " +
                          std::string(to_string(op.kind)) + " to an invalid peer " + std::to_string(op.peer);
          return;
        }
        ++state.outstanding;
        if (op.kind == OpKind::send) {
          post(rank, op.peer, true, Posted{state.step, time, op.src.count, false, static_cast<int>(o)});
        } else {
          const bool combine = op.combine != Combine::store;
          if (combine) state.combine_bytes += op.dst.count * params_.element_bytes;
          post(op.peer, rank, false, Posted{state.step, time, op.dst.count, combine, static_cast<int>(o)});
        }
        if (!result_.error.empty()) return;
      }
      if (state.outstanding > 0) return;  // the event queue resumes this rank
      ++state.step;
    }
    state.finished = true;
    result_.exit[static_cast<std::size_t>(rank)] = time;
  }

  // Posts one side of the message src -> dst and matches it FIFO.
  void post(int src, int dst, bool is_send, Posted posted) {
    PairQueue &pair = pairs_[(static_cast<std::uint64_t>(src) << 32) | static_cast<std::uint32_t>(dst)];
    if (pair.head < 0 || pair.sends == is_send) {  // nothing to match: wait in the FIFO
      std::int32_t node;
      if (free_node_ >= 0) {
        node = free_node_;
        free_node_ = pool_[static_cast<std::size_t>(node)].next;
        pool_[static_cast<std::size_t>(node)] = PostedNode{posted, -1};
      } else {
        node = static_cast<std::int32_t>(pool_.size());
        pool_.push_back(PostedNode{posted, -1});
      }
      if (pair.head < 0) {
        pair.head = node;
        pair.sends = is_send;
      } else {
        pool_[static_cast<std::size_t>(pair.tail)].next = node;
      }
      pair.tail = node;
      return;
    }
    const std::int32_t node = pair.head;
    const Posted other = pool_[static_cast<std::size_t>(node)].posted;
    pair.head = pool_[static_cast<std::size_t>(node)].next;
    pool_[static_cast<std::size_t>(node)].next = free_node_;
    free_node_ = node;
    const Posted &send = is_send ? posted : other;
    const Posted &recv = is_send ? other : posted;
    if (send.count != recv.count) {
      result_.error = "rank " + std::to_string(src) + " step " + std::to_string(send.step) + " sends " +
                      std::to_string(send.count) + " elements to rank " + std::to_string(dst) + " whose step " +
                      std::to_string(recv.step) + " receives " + std::to_string(recv.count);
      return;
    }
    const Message message{src,     dst,     send.step, recv.step, send.op, recv.op, send.count * params_.element_bytes,
                          recv.combine};
    std::int64_t id;
    if (!free_messages_.empty()) {  // slots of completed messages are reused
      id = free_messages_.back();
      free_messages_.pop_back();
      messages_[static_cast<std::size_t>(id)] = message;
    } else {
      id = static_cast<std::int64_t>(messages_.size());
      messages_.push_back(message);
    }
    push(std::max(send.time, recv.time), EventKind::try_start, id);
  }

  double &sender_port(int rank) { return ranks_[static_cast<std::size_t>(rank)].send_port_free; }
  double &receiver_port(int rank) {
    RankState &state = ranks_[static_cast<std::size_t>(rank)];
    return options_.ports == PortModel::unidirectional ? state.send_port_free : state.recv_port_free;
  }

  void try_start(std::int64_t id, double time) {
    const Message &message = messages_[static_cast<std::size_t>(id)];
    double &out = sender_port(message.src);
    double &in = receiver_port(message.dst);
    const double free = std::max(out, in);
    if (free > time) {
      push(free, EventKind::try_start, id);
      return;
    }
    const double end = time + params_.cost.alpha + params_.cost.beta * static_cast<double>(message.bytes);
    out = in = end;
    record(message.src, message.src_step, Activity::send, message.dst, time, end, message.bytes);
    record(message.dst, message.dst_step, Activity::recv, message.src, time, end, message.bytes);
    ++result_.messages;
    result_.bytes += message.bytes;
    push(end, EventKind::complete, id);
  }

  void complete(std::int64_t id, double time) {
    const Message message = messages_[static_cast<std::size_t>(id)];
    free_messages_.push_back(id);
    finish_op(message.src, time, message.src_op);
    if (result_.error.empty()) finish_op(message.dst, time, message.dst_op);
  }

  void finish_op(int rank, double time, int op) {
    RankState &state = ranks_[static_cast<std::size_t>(rank)];
    state.comm_done = std::max(state.comm_done, time);
    if (options_.combine_on_arrival) state.done[static_cast<std::size_t>(op)] = time;
    if (--state.outstanding > 0) return;
    double end = state.comm_done;
    if (state.combine_bytes > 0) {
      if (options_.combine_on_arrival) {
        end = std::max(end, combines_on_arrival(rank, state));
      } else {  // phase 4: combining recvs, at the receiver, after the transfers
        const double seconds = static_cast<double>(state.combine_bytes) * params_.cost.gamma;
        record(rank, state.step, Activity::combine, -1, end, end + seconds, state.combine_bytes);
        end += seconds;
      }
    }
    ++state.step;
    run_steps_from(rank, end);
  }

  // The executor's rule (mpi/executor.hpp), replayed once the step's
  // completion times are known: a combining recv is released when its
  // message is in and every send / store-recv of the step touching the same
  // region is complete; the rank's one CPU applies released combines back
  // to back (commutative op: any order, all orders give the same end) or
  // in op order (non-commutative: the executor orders only combines into
  // overlapping memory, this model orders them all — at most later).
  // Returns when the last combine ends.
  double combines_on_arrival(int rank, const RankState &state) {
    const Step &step = programs_[static_cast<std::size_t>(rank)].steps[static_cast<std::size_t>(state.step)];
    releases_.clear();
    barriers_.clear();
    for (std::size_t o = 0; o < step.ops.size(); ++o) {
      const Op &op = step.ops[o];
      if (op.kind == OpKind::send || (op.kind == OpKind::recv && op.combine == Combine::store)) barriers_.push_back(o);
    }
    auto touches = [](const Region &a, const Region &b) {
      return a.buffer == b.buffer && a.count > 0 && b.count > 0 && a.offset < b.offset + b.count &&
             b.offset < a.offset + a.count;
    };
    for (std::size_t o = 0; o < step.ops.size(); ++o) {
      const Op &op = step.ops[o];
      if (op.kind != OpKind::recv || op.combine == Combine::store) continue;
      double release = state.done[o];
      for (std::size_t b : barriers_) {
        const Op &barrier = step.ops[b];
        if (touches(op.dst, barrier.kind == OpKind::send ? barrier.src : barrier.dst))
          release = std::max(release, state.done[b]);
      }
      releases_.push_back({release, o});
    }
    if (params_.commutative) std::sort(releases_.begin(), releases_.end());
    double cpu = state.posted_at;
    for (const auto &[release, o] : releases_) {
      const std::int64_t bytes = step.ops[o].dst.count * params_.element_bytes;
      const double start = std::max(cpu, release);
      cpu = start + static_cast<double>(bytes) * params_.cost.gamma;
      if (bytes > 0) record(rank, state.step, Activity::combine, -1, start, cpu, bytes);
    }
    return cpu;
  }

  void find_stuck_rank() {
    for (std::size_t rank = 0; rank < ranks_.size(); ++rank) {
      if (ranks_[rank].finished) continue;
      result_.error = "deadlock: rank " + std::to_string(rank) + " never completes step " +
                      std::to_string(ranks_[rank].step) + " (a message it posted has no partner)";
      return;
    }
  }

  void summarise() {
    const std::size_t procs = programs_.size();
    if (procs == 0) return;
    const double first_arrival = *std::min_element(result_.arrival.begin(), result_.arrival.end());
    const double last_exit = *std::max_element(result_.exit.begin(), result_.exit.end());
    result_.run_time = last_exit - first_arrival;
    double sum = 0, worst = 0;
    for (std::size_t rank = 0; rank < procs; ++rank) {
      const double elapsed = result_.exit[rank] - result_.arrival[rank];
      sum += elapsed;
      worst = std::max(worst, elapsed);
    }
    result_.average_elapsed = sum / static_cast<double>(procs);
    result_.max_elapsed = worst;
  }

  const Params &params_;
  const std::vector<Program> &programs_;
  const SimulateOptions &options_;
  std::vector<RankState> ranks_;
  std::vector<Message> messages_;
  std::vector<std::int64_t> free_messages_;
  std::unordered_map<std::uint64_t, PairQueue> pairs_;
  std::vector<PostedNode> pool_;
  std::int32_t free_node_ = -1;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  std::vector<std::pair<double, std::size_t>> releases_;  // combines_on_arrival scratch
  std::vector<std::size_t> barriers_;
  std::uint64_t next_sequence_ = 0;
  SimulateResult result_;
};

}  // namespace

SimulateResult simulate(const Params &params, const std::vector<Program> &programs, const SimulateOptions &options) {
  return Simulator(params, programs, options).run();
}

SimulateResult simulate(const Algorithm &algorithm, const Params &params, const SimulateOptions &options) {
  if (std::string reason = unsupported_reason(algorithm, params); !reason.empty()) {
    SimulateResult result;
    result.error = std::move(reason);
    return result;
  }
  return simulate(params, build_all(algorithm, params), options);
}

}  // namespace patcoll::core
