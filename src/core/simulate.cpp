// Discrete-event simulator; the model is documented in simulate.hpp.
//
// Implementation: a rank's steps are executed eagerly (a step's post time is
// known as soon as the previous step ends), messages are matched FIFO per
// ordered pair at posting time (or by tag, FlatOp::tag: the numbered
// schedules' send and recv of one transfer, which pair exactly as FIFO
// would pair them, found with one array access instead of a hash table and
// a queue node), and only port arbitration needs the event
// queue: a matched message competes for its two ports at its ready time
// (max of the two post times); if a port is busy it retries when that port
// frees up. Completing the last message of a step ends the step and posts
// the next one. Every message is touched O(1) times (plus retries under port
// contention), so a run costs O(ops · log ops).
//
// At P = 10^5 the cost is memory latency, not arithmetic: the event loop
// visits ranks in time order, i.e. at random, so the data structures are
// laid out for one cache miss per visit where possible (docs/results/builders.md,
// "The simulator at P = 100 000"): the Programs flattened into one array
// of 32-byte ops laid out by round (flat.hpp), a 64-byte rank state, a
// 4-ary heap of 32-byte events for starts and FIFO lanes per message size
// for completions, an open-addressing table of the pairs with unmatched
// posts only.
#include "simulate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>

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

// The first op of a tag to be posted waits here (16 bytes a tag): its index
// in the ops + 1 (0: none yet, kUsed: paired), its rank and post time. Its
// step and index in the step are read back from its rank's state, which
// cannot leave that step before the op completes.
struct TagSlot {
  static constexpr std::uint32_t kUsed = ~std::uint32_t{0};
  double time;
  std::uint32_t op;
  std::int32_t rank;
};

enum class EventKind : std::uint8_t { try_start, complete };

// An event of the queue: ordered by (time, sequence), the sequence unique
// (creation order), so the order is total and any correct queue pops the
// same events in the same order. The kind rides in the key's low bit; the
// message's two ranks ride along so that the run loop can prefetch their
// states before it has read the message.
struct Event {
  double time;
  std::uint64_t key;  // sequence << 1 | kind
  std::int32_t message;
  std::int32_t src, dst;
  EventKind kind() const { return static_cast<EventKind>(key & 1); }
  bool before(const Event &other) const { return time < other.time || (time == other.time && key < other.key); }
};
static_assert(sizeof(Event) == 32);

// The event queue: a 4-ary min-heap (half the depth of a binary heap, so
// fewer cache misses per push/pop with 10^5 events in flight) plus FIFO
// lanes for completions. A completion is pushed at its start time plus
// α + β·bytes, and start times never decrease (events are handled in
// order), so the completions of one message size arrive in (time, key)
// order: a FIFO per size keeps them sorted at O(1) per event, and the heap
// holds only the starts and retries. A completion goes to the heap when
// it would break its lane's order or no lane is free for its size. top()
// is the least of the heap's top and the lanes' heads: the same total
// order as one heap of everything, so the same simulation.
class EventQueue {
 public:
  bool empty() const { return best_ < 0; }
  const Event &top() const { return best_ == kHeap ? heap_.front() : lanes_[static_cast<std::size_t>(best_)].front(); }
  void push(const Event &event) {
    heap_push(event);
    consider(kHeap, heap_.front());
  }
  void push_completion(const Event &event, std::int64_t bytes) {
    Lane *free = nullptr;
    for (Lane &lane : lanes_) {
      if (!lane.empty() && lane.bytes == bytes) {
        if (lane.back().before(event)) return lane_push(lane, event);
        return push(event);
      }
      if (lane.empty() && free == nullptr) free = &lane;
    }
    if (free != nullptr) {
      free->bytes = bytes;
      return lane_push(*free, event);
    }
    push(event);
  }
  void pop() {
    if (best_ == kHeap) heap_pop();
    else lanes_[static_cast<std::size_t>(best_)].pop();
    best_ = heap_.empty() ? -1 : kHeap;
    for (int l = 0; l < kLanes; ++l)
      if (!lanes_[static_cast<std::size_t>(l)].empty()) consider(l, lanes_[static_cast<std::size_t>(l)].front());
  }

 private:
  static constexpr int kLanes = 8, kHeap = kLanes;
  // A ring buffer of events of one message size, in (time, key) order.
  struct Lane {
    std::int64_t bytes = -1;
    std::vector<Event> ring;  // capacity a power of two
    std::size_t head = 0, size = 0;
    bool empty() const { return size == 0; }
    const Event &front() const { return ring[head]; }
    const Event &back() const { return ring[(head + size - 1) & (ring.size() - 1)]; }
    void pop() { head = (head + 1) & (ring.size() - 1), --size; }
  };
  void lane_push(Lane &lane, const Event &event) {
    if (lane.size == lane.ring.size()) {
      std::vector<Event> grown(std::max<std::size_t>(64, 2 * lane.ring.size()));
      for (std::size_t i = 0; i < lane.size; ++i) grown[i] = lane.ring[(lane.head + i) & (lane.ring.size() - 1)];
      lane.ring.swap(grown);
      lane.head = 0;
    }
    lane.ring[(lane.head + lane.size) & (lane.ring.size() - 1)] = event;
    ++lane.size;
    consider(static_cast<int>(&lane - lanes_), lane.front());
  }
  // Makes `source` the best when its head `head` comes first.
  void consider(int source, const Event &head) {
    if (best_ < 0 || head.before(top())) best_ = source;
  }
  void heap_push(const Event &event) {
    std::size_t i = heap_.size();
    heap_.push_back(event);
    while (i > 0) {
      const std::size_t parent = (i - 1) / 4;
      if (!event.before(heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = event;
  }
  void heap_pop() {
    const Event last = heap_.back();
    heap_.pop_back();
    const std::size_t n = heap_.size();
    if (n == 0) return;
    std::size_t i = 0;
    for (;;) {
      const std::size_t first = 4 * i + 1;
      if (first >= n) break;
      std::size_t best = first;
      const std::size_t end = std::min(first + 4, n);
      for (std::size_t c = first + 1; c < end; ++c)
        if (heap_[c].before(heap_[best])) best = c;
      if (!heap_[best].before(last)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = last;
  }

  std::vector<Event> heap_;
  Lane lanes_[kLanes];
  int best_ = -1;  // where top() is: a lane, kHeap, or -1 when empty
};

// The pairs with unmatched posts, by key src << 32 | dst: open addressing
// (linear probing, Fibonacci hashing, backward-shift deletion). A pair
// whose FIFO empties is erased, so the table holds only the pairs with
// messages waiting — as small as the traffic in flight, not as the set of
// every pair that ever talked (millions for Clairvoyant at P = 10^5).
class PairTable {
 public:
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};  // src, dst < 2^31: no real key
  PairTable() { resize(64); }
  // The slot of `key`, inserted (an empty FIFO) if absent. Valid until the
  // next insertion.
  std::size_t find_or_insert(std::uint64_t key) {
    if (2 * (size_ + 1) > slots_.size()) resize(2 * slots_.size());
    std::size_t i = home(key);
    while (slots_[i].key != kEmpty) {
      if (slots_[i].key == key) return i;
      i = (i + 1) & mask_;
    }
    slots_[i].key = key;
    slots_[i].queue = PairQueue{};
    ++size_;
    return i;
  }
  PairQueue &queue(std::size_t slot) { return slots_[slot].queue; }
  void erase(std::size_t slot) {
    std::size_t hole = slot;
    for (std::size_t j = (hole + 1) & mask_; slots_[j].key != kEmpty; j = (j + 1) & mask_) {
      // Move j into the hole unless its home lies cyclically in (hole, j].
      const std::size_t h = home(slots_[j].key);
      const bool stays = hole < j ? (hole < h && h <= j) : (hole < h || h <= j);
      if (stays) continue;
      slots_[hole] = slots_[j];
      hole = j;
    }
    slots_[hole].key = kEmpty;
    --size_;
  }

 private:
  struct Slot {
    std::uint64_t key = kEmpty;
    PairQueue queue;
  };
  std::size_t home(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  void resize(std::size_t capacity) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    shift_ = 64;
    for (std::size_t c = capacity; c > 1; c >>= 1) --shift_;
    size_ = 0;
    for (const Slot &slot : old)
      if (slot.key != kEmpty) {
        std::size_t i = home(slot.key);
        while (slots_[i].key != kEmpty) i = (i + 1) & mask_;
        slots_[i] = slot;
        ++size_;
      }
  }
  std::vector<Slot> slots_;
  std::size_t mask_ = 0, size_ = 0;
  int shift_ = 64;
};

// One cache line per rank: the event loop touches ranks at random.
struct alignas(64) RankState {
  std::uint32_t cursor = 0;  // the current step's first op in Simulator::ops_
  int step = 0;              // current step index
  int outstanding = 0;       // comm ops of the current step not yet complete
  // The step's combining recv (its index in the step; the last one when
  // there are several), -1 when there is none. With combine_on_arrival, not
  // `general`: it is the only one and no send or store of the step touches
  // its region, so it is released by its own completion (combine_done);
  // `general`: the full rule, with every op's completion in
  // Simulator::done_.
  int combine_op = -1;
  bool general = false;
  bool dependencies = false;  // the step's ops wait for groups (DepStep)
  bool finished = false;
  double posted_at = 0;      // end of the current step's phase 1
  double comm_done = 0;      // latest completion in the current step
  double combine_done = 0;   // completion of combine_op
  double send_port_free = 0;
  double recv_port_free = 0;  // unused in the unidirectional model
};

// A rank's step whose ops wait for groups (core/ir.hpp): each op is
// posted when its group is complete, a combining recv applied as it comes
// (the rank's one CPU, in completion order), and a group complete once
// its last op is (applied).
struct DepStep {
  std::vector<int> left;       // per group: its comm ops not complete
  std::vector<double> ready;   // per group: when its last op completed (applied)
  std::vector<int> waiters;    // the comm ops that wait for group g: waiters[from[g] .. from[g + 1]) (in op order)
  std::vector<int> from;
  std::vector<int> fill;       // scratch of start_dep_step
  double cpu = 0;              // the CPU's next free time
  double end = 0;              // the step's latest completion so far
};

class Simulator {
 public:
  Simulator(const Params &params, const FlatPrograms &flat, const SimulateOptions &options)
      : params_(params), flat_(flat), ops_(flat.ops), deps_(flat.deps), options_(options),
        ranks_(static_cast<std::size_t>(flat.procs)), done_(static_cast<std::size_t>(flat.procs)) {
    if (!deps_.empty()) dep_steps_.resize(static_cast<std::size_t>(flat.procs));
  }

  SimulateResult run() {
    const int procs = flat_.procs;
    result_.arrival.assign(static_cast<std::size_t>(procs), 0.0);
    if (!params_.arrivals.empty()) {
      if (params_.arrivals.size() != static_cast<std::size_t>(procs)) {
        result_.error = "the arrival vector has " + std::to_string(params_.arrivals.size()) + " entries for " +
                        std::to_string(procs) + " programs";
        return std::move(result_);
      }
      result_.arrival = params_.arrivals;
    }
    result_.exit.assign(static_cast<std::size_t>(procs), 0.0);
    if (!flat_.error.empty()) {
      result_.error = flat_.error;
      return std::move(result_);
    }
    if (!deps_.empty() && (procs >= (1 << 21) || std::any_of(deps_.begin(), deps_.end(), [](const FlatDeps &d) {
                             return d.tag < 0 || d.tag >= (1 << 21);
                           }))) {
      result_.error = "tags and dependencies are simulated for fewer than 2^21 ranks, with tags in [0, 2^21)";
      return std::move(result_);
    }
    if (flat_.tags > 0) {  // zero pages: only the slots used are touched
      tag_slots_.reset(static_cast<TagSlot *>(std::calloc(flat_.tags, sizeof(TagSlot))));
      if (!tag_slots_) {
        result_.error = "cannot allocate the slots of " + std::to_string(flat_.tags) + " tags";
        return std::move(result_);
      }
    }
    for (int rank = 0; rank < procs && result_.error.empty(); ++rank) {
      if (rank == flat_.misplaced) {
        result_.error = "programs[" + std::to_string(rank) + "] is the program of rank " +
                        std::to_string(flat_.misplaced_rank);
        break;
      }
      const double start = result_.arrival[static_cast<std::size_t>(rank)];
      RankState &state = ranks_[static_cast<std::size_t>(rank)];
      state.send_port_free = state.recv_port_free = start;
      state.cursor = flat_.first[static_cast<std::size_t>(rank)];
      if (state.cursor == FlatOp::kNone) finish(rank, start);  // no steps
      else run_steps_from(rank, start);
    }
    while (result_.error.empty() && !events_.empty()) {
      const Event event = events_.top();
      events_.pop();
      // The next event is most likely the new top: start fetching the two
      // rank states and the message it will touch while this one is
      // handled (at P = 10^5 they are cache misses; the order of events is
      // not affected).
      if (!events_.empty()) {
        const Event &next = events_.top();
        __builtin_prefetch(&ranks_[static_cast<std::size_t>(next.src)]);
        __builtin_prefetch(&ranks_[static_cast<std::size_t>(next.dst)]);
        __builtin_prefetch(&messages_[static_cast<std::size_t>(next.message)]);
      }
      if (event.kind() == EventKind::try_start)
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

  Event event(double time, EventKind kind, std::int32_t id, const Message &message) {
    return Event{time, next_sequence_++ << 1 | static_cast<std::uint64_t>(kind), id, message.src, message.dst};
  }

  // One past the last op of the step that starts at ops_[first].
  std::size_t step_end(std::size_t first) const {
    while (!(ops_[first].flags & FlatOp::kLast)) ++first;
    return first + 1;
  }

  void finish(int rank, double time) {
    ranks_[static_cast<std::size_t>(rank)].finished = true;
    result_.exit[static_cast<std::size_t>(rank)] = time;
  }

  // Moves `state` past the step whose ops end at `last`; false when that
  // was the Program's last step.
  bool next_step(RankState &state, std::size_t last) {
    const std::uint32_t next = ops_[last - 1].next;
    if (next == FlatOp::kNone) return false;
    state.cursor = next;
    ++state.step;
    return true;
  }

  // Bytes of the step's combining recvs.
  std::int64_t combine_bytes(std::size_t first, std::size_t last) const {
    std::int64_t bytes = 0;
    for (std::size_t o = first; o < last; ++o)
      if (ops_[o].combining_recv()) bytes += ops_[o].count * params_.element_bytes;
    return bytes;
  }

  // Executes steps of `rank` starting at `time` until one posts messages
  // (which then wait for the event queue) or the program ends.
  void run_steps_from(int rank, double time) {
    RankState &state = ranks_[static_cast<std::size_t>(rank)];
    for (;;) {
      const std::size_t first = state.cursor, last = step_end(first);
      // Phase 1: local ops.
      for (std::size_t o = first; o < last; ++o) {
        const FlatOp &op = ops_[o];
        if (op.kind != OpKind::local || (op.flags & FlatOp::kEmpty)) continue;
        const std::int64_t bytes = op.count * params_.element_bytes;
        const bool copy = op.combine == Combine::store;
        const double seconds =
            static_cast<double>(bytes) * (copy ? options_.copy_seconds_per_byte : params_.cost.gamma);
        record(rank, state.step, copy ? Activity::copy : Activity::combine, -1, time, time + seconds, bytes);
        time += seconds;
      }
      // Phase 2: post sends and recvs.
      state.outstanding = 0;
      state.comm_done = time;
      state.posted_at = time;
      state.combine_op = -1;
      state.general = false;
      state.dependencies = false;
      for (std::size_t o = first; o < last && !deps_.empty(); ++o) state.dependencies = state.dependencies || deps_[o].after >= 0;
      if (state.dependencies) start_dep_step(rank, first, last, time);
      for (std::size_t o = first; o < last; ++o) {
        const FlatOp &op = ops_[o];
        if (op.kind == OpKind::local) continue;
        const int index = static_cast<int>(o - first);  // within the step
        if (op.peer < 0 || op.peer >= flat_.procs || op.peer == rank) {
          result_.error = "rank " + std::to_string(rank) + " step " + std::to_string(state.step) + ": " +
                          std::string(to_string(op.kind)) + " to an invalid peer " + std::to_string(op.peer);
          return;
        }
        ++state.outstanding;
        const bool combine = op.combining_recv();
        if (combine && !state.dependencies) {
          state.general = state.general || state.combine_op >= 0;  // a second one
          state.combine_op = index;
        }
        if (state.dependencies && deps_[o].after >= 0) continue;  // posted when its group is complete
        post_op(rank, o, index, time);
        if (!result_.error.empty()) return;
      }
      if (state.dependencies) {  // groups without comm ops are complete at once
        DepStep &dep = dep_steps_[static_cast<std::size_t>(rank)];
        for (std::size_t g = 0; g < dep.left.size() && result_.error.empty(); ++g)
          if (dep.left[g] == 0) release_group(rank, first, static_cast<int>(g), time);
        if (!result_.error.empty()) return;
      }
      if (state.outstanding > 0) {  // the event queue resumes this rank
        if (options_.combine_on_arrival && state.combine_op >= 0 && !state.general) {
          const FlatOp &target = ops_[first + static_cast<std::size_t>(state.combine_op)];
          for (std::size_t o = first; o < last; ++o)
            if (ops_[o].barrier() && target.touches(ops_[o])) state.general = true;
        }
        if (state.general && options_.combine_on_arrival) done_[static_cast<std::size_t>(rank)].assign(last - first, time);
        return;
      }
      if (!next_step(state, last)) break;
    }
    finish(rank, time);
  }

  // Posts op ops_[o] (index `index` in its step) of `rank` at `time`.
  void post_op(int rank, std::size_t o, int index, double time) {
    const FlatOp &op = ops_[o];
    const RankState &state = ranks_[static_cast<std::size_t>(rank)];
    const bool is_send = op.kind == OpKind::send;
    const Posted posted{state.step, time, op.count, op.combining_recv(), index};
    const std::int32_t tag = deps_.empty() ? 0 : deps_[o].tag;
    if (op.tag != FlatOp::kNone) post_tagged(rank, o, posted);
    else if (is_send) post(rank, op.peer, true, posted, tag);
    else post(op.peer, rank, false, posted, tag);
  }

  // A step with dependencies starts: its groups' counts.
  void start_dep_step(int rank, std::size_t first, std::size_t last, double time) {
    DepStep &dep = dep_steps_[static_cast<std::size_t>(rank)];
    dep.left.clear();
    dep.ready.clear();
    for (std::size_t o = first; o < last; ++o) {
      const int g = deps_[o].group;
      if (g < 0) continue;
      if (static_cast<std::size_t>(g) >= dep.left.size()) {
        dep.left.resize(static_cast<std::size_t>(g) + 1, -1);
        dep.ready.resize(static_cast<std::size_t>(g) + 1, time);
      }
      if (dep.left[static_cast<std::size_t>(g)] < 0) dep.left[static_cast<std::size_t>(g)] = 0;
      if (ops_[o].kind != OpKind::local) ++dep.left[static_cast<std::size_t>(g)];
    }
    // Each group's waiting comm ops, so that a release touches only them
    // (a scan of the step per release is quadratic in a step of thousands of ops).
    const std::size_t groups = dep.left.size();
    auto awaited = [&](std::size_t o) {  // the group op o waits for, or `groups` (none it can be posted by)
      const int a = deps_[o].after;
      return a >= 0 && static_cast<std::size_t>(a) < groups && ops_[o].kind != OpKind::local ? static_cast<std::size_t>(a)
                                                                                             : groups;
    };
    dep.from.assign(groups + 1, 0);
    for (std::size_t o = first; o < last; ++o)
      if (const std::size_t a = awaited(o); a < groups) ++dep.from[a + 1];
    for (std::size_t g = 0; g < groups; ++g) dep.from[g + 1] += dep.from[g];
    dep.waiters.resize(static_cast<std::size_t>(dep.from[groups]));
    dep.fill.assign(dep.from.begin(), dep.from.end() - 1);  // each group's next free place
    for (std::size_t o = first; o < last; ++o)
      if (const std::size_t a = awaited(o); a < groups)
        dep.waiters[static_cast<std::size_t>(dep.fill[a]++)] = static_cast<int>(o - first);
    dep.cpu = dep.end = time;
  }

  // Group g of `rank`'s step [first, last) is complete at `time`: posts
  // the ops that wait for it.
  void release_group(int rank, std::size_t first, int g, double time) {
    DepStep &dep = dep_steps_[static_cast<std::size_t>(rank)];
    dep.left[static_cast<std::size_t>(g)] = -1;  // released once
    for (int k = dep.from[static_cast<std::size_t>(g)]; k < dep.from[static_cast<std::size_t>(g) + 1] && result_.error.empty(); ++k) {
      const int index = dep.waiters[static_cast<std::size_t>(k)];
      post_op(rank, first + static_cast<std::size_t>(index), index, time);
    }
  }

  // Op `op` of `rank`'s step with dependencies completed at `time`.
  void finish_dep_op(int rank, double time, int op) {
    RankState &state = ranks_[static_cast<std::size_t>(rank)];
    DepStep &dep = dep_steps_[static_cast<std::size_t>(rank)];
    const std::size_t first = state.cursor, o = first + static_cast<std::size_t>(op);
    double applied = time;
    if (ops_[o].combining_recv()) {
      const std::int64_t bytes = ops_[o].count * params_.element_bytes;
      const double start = std::max(time, dep.cpu);
      applied = dep.cpu = start + static_cast<double>(bytes) * params_.cost.gamma;
      if (bytes > 0) record(rank, state.step, Activity::combine, -1, start, applied, bytes);
    }
    dep.end = std::max(dep.end, applied);
    const int g = deps_[o].group;
    if (g >= 0) {
      dep.ready[static_cast<std::size_t>(g)] = std::max(dep.ready[static_cast<std::size_t>(g)], applied);
      if (--dep.left[static_cast<std::size_t>(g)] == 0)
        release_group(rank, first, g, dep.ready[static_cast<std::size_t>(g)]);
      if (!result_.error.empty()) return;
    }
    if (--state.outstanding > 0) return;
    const double end = dep.end;
    if (next_step(state, step_end(first))) run_steps_from(rank, end);
    else finish(rank, end);
  }

  // Posts one side of the message src -> dst (on channel `tag`) and
  // matches it FIFO.
  void post(int src, int dst, bool is_send, Posted posted, std::int32_t tag = 0) {
    const std::uint64_t key = tag == 0 ? (static_cast<std::uint64_t>(src) << 32) | static_cast<std::uint32_t>(dst)
                                       : std::uint64_t{1} << 63 | static_cast<std::uint64_t>(tag) << 42 |
                                             static_cast<std::uint64_t>(src) << 21 | static_cast<std::uint64_t>(dst);
    const std::size_t slot = pairs_.find_or_insert(key);
    PairQueue &pair = pairs_.queue(slot);
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
    if (pair.head < 0) pairs_.erase(slot);  // `pair` is gone from here on
    matched(src, dst, is_send, posted, other);
  }

  // Posts op ops_[o] of `rank`, which carries a tag: the first of the tag's
  // two ops waits in its slot, the second is matched with it.
  void post_tagged(int rank, std::size_t o, const Posted &posted) {
    const FlatOp &op = ops_[o];
    const auto where = [&](int r, int step) { return "rank " + std::to_string(r) + " step " + std::to_string(step); };
    if (op.tag >= flat_.tags) {
      result_.error = where(rank, posted.step) + ": tag " + std::to_string(op.tag) + " out of range (the programs have " +
                      std::to_string(flat_.tags) + " tags)";
      return;
    }
    TagSlot &slot = tag_slots_.get()[op.tag];
    if (slot.op == 0) {
      slot = TagSlot{posted.time, static_cast<std::uint32_t>(o) + 1, rank};
      return;
    }
    if (slot.op == TagSlot::kUsed) {
      result_.error = where(rank, posted.step) + ": tag " + std::to_string(op.tag) + " pairs more than two ops";
      return;
    }
    const std::size_t other_index = slot.op - 1;
    const FlatOp &other_op = ops_[other_index];
    const RankState &waiting = ranks_[static_cast<std::size_t>(slot.rank)];
    const int other_step = waiting.step;
    slot.op = TagSlot::kUsed;
    const bool is_send = op.kind == OpKind::send;
    if (other_op.kind == op.kind || other_op.peer != rank || op.peer != slot.rank) {
      result_.error = where(rank, posted.step) + ": tag " + std::to_string(op.tag) + " pairs its " +
                      std::string(to_string(op.kind)) + (is_send ? " to rank " : " from rank ") + std::to_string(op.peer) +
                      " with " + where(slot.rank, other_step) + "'s " + std::string(to_string(other_op.kind)) +
                      (other_op.kind == OpKind::send ? " to rank " : " from rank ") + std::to_string(other_op.peer);
      return;
    }
    const Posted other{other_step, slot.time, other_op.count, other_op.combining_recv(),
                       static_cast<int>(other_index - waiting.cursor)};
    if (is_send) matched(rank, slot.rank, true, posted, other);
    else matched(slot.rank, rank, false, posted, other);
  }

  // The two posts of the message src -> dst met: checks them and queues
  // the message's start.
  void matched(int src, int dst, bool is_send, const Posted &posted, const Posted &other) {
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
    std::int32_t id;
    if (!free_messages_.empty()) {  // slots of completed messages are reused
      id = free_messages_.back();
      free_messages_.pop_back();
      messages_[static_cast<std::size_t>(id)] = message;
    } else {
      if (messages_.size() == static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
        result_.error = "more than 2^31 - 1 messages in flight";
        return;
      }
      id = static_cast<std::int32_t>(messages_.size());
      messages_.push_back(message);
    }
    events_.push(event(std::max(send.time, recv.time), EventKind::try_start, id, message));
  }

  double &sender_port(int rank) { return ranks_[static_cast<std::size_t>(rank)].send_port_free; }
  double &receiver_port(int rank) {
    RankState &state = ranks_[static_cast<std::size_t>(rank)];
    return options_.ports == PortModel::unidirectional ? state.send_port_free : state.recv_port_free;
  }

  void try_start(std::int32_t id, double time) {
    const Message &message = messages_[static_cast<std::size_t>(id)];
    double &out = sender_port(message.src);
    double &in = receiver_port(message.dst);
    const double free = std::max(out, in);
    if (free > time) {
      events_.push(event(free, EventKind::try_start, id, message));
      return;
    }
    const double end = time + params_.cost.alpha + params_.cost.beta * static_cast<double>(message.bytes);
    out = in = end;
    record(message.src, message.src_step, Activity::send, message.dst, time, end, message.bytes);
    record(message.dst, message.dst_step, Activity::recv, message.src, time, end, message.bytes);
    ++result_.messages;
    result_.bytes += message.bytes;
    events_.push_completion(event(end, EventKind::complete, id, message), message.bytes);
  }

  void complete(std::int32_t id, double time) {
    const Message message = messages_[static_cast<std::size_t>(id)];
    free_messages_.push_back(id);
    finish_op(message.src, time, message.src_op);
    if (result_.error.empty()) finish_op(message.dst, time, message.dst_op);
  }

  void finish_op(int rank, double time, int op) {
    RankState &state = ranks_[static_cast<std::size_t>(rank)];
    if (state.dependencies) return finish_dep_op(rank, time, op);
    state.comm_done = std::max(state.comm_done, time);
    if (options_.combine_on_arrival) {
      if (state.general) done_[static_cast<std::size_t>(rank)][static_cast<std::size_t>(op)] = time;
      else if (op == state.combine_op) state.combine_done = time;
    }
    if (--state.outstanding > 0) return;
    double end = state.comm_done;
    const std::size_t first = state.cursor, last = step_end(first);
    if (state.combine_op >= 0) {
      if (options_.combine_on_arrival && !state.general) {
        const std::int64_t bytes = ops_[first + static_cast<std::size_t>(state.combine_op)].count * params_.element_bytes;
        if (bytes > 0) end = std::max(end, single_combine(rank, state, bytes));
      } else if (const std::int64_t bytes = combine_bytes(first, last); bytes > 0) {
        if (options_.combine_on_arrival) {
          end = std::max(end, combines_on_arrival(rank, state, first, last));
        } else {  // phase 4: combining recvs, at the receiver, after the transfers
          const double seconds = static_cast<double>(bytes) * params_.cost.gamma;
          record(rank, state.step, Activity::combine, -1, end, end + seconds, bytes);
          end += seconds;
        }
      }
    }
    if (next_step(state, last)) run_steps_from(rank, end);
    else finish(rank, end);
  }

  // combines_on_arrival's result for a step whose one combining recv no
  // barrier touches (the common case: Clairvoyant, chains, trees): it
  // starts when it is in and the CPU is free.
  double single_combine(int rank, const RankState &state, std::int64_t bytes) {
    const double start = std::max(state.posted_at, state.combine_done);
    const double end = start + static_cast<double>(bytes) * params_.cost.gamma;
    record(rank, state.step, Activity::combine, -1, start, end, bytes);
    return end;
  }

  // The executor's rule (mpi/executor.hpp), replayed once the step's
  // completion times are known: a combining recv is released when its
  // message is in and every send / store-recv of the step touching the same
  // region is complete; the rank's one CPU applies released combines back
  // to back (commutative op: any order, all orders give the same end) or
  // in op order (non-commutative: the executor orders only combines into
  // overlapping memory, this model orders them all — at most later).
  // Returns when the last combine ends.
  double combines_on_arrival(int rank, const RankState &state, std::size_t first, std::size_t last) {
    const std::vector<double> &done = done_[static_cast<std::size_t>(rank)];
    releases_.clear();
    barriers_.clear();
    for (std::size_t o = first; o < last; ++o)
      if (ops_[o].barrier()) barriers_.push_back(o - first);
    for (std::size_t o = first; o < last; ++o) {
      const FlatOp &op = ops_[o];
      if (!op.combining_recv()) continue;
      double release = done[o - first];
      for (std::size_t b : barriers_)
        if (op.touches(ops_[first + b])) release = std::max(release, done[b]);
      releases_.push_back({release, o - first});
    }
    if (params_.commutative) std::sort(releases_.begin(), releases_.end());
    double cpu = state.posted_at;
    for (const auto &[release, o] : releases_) {
      const std::int64_t bytes = ops_[first + o].count * params_.element_bytes;
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
    const auto procs = static_cast<std::size_t>(flat_.procs);
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
  const FlatPrograms &flat_;
  const std::vector<FlatOp> &ops_;
  const std::vector<FlatDeps> &deps_;
  const SimulateOptions &options_;
  std::vector<RankState> ranks_;
  std::vector<std::vector<double>> done_;  // per rank: completion time of each op of a `general` step
  std::vector<DepStep> dep_steps_;          // per rank, when the Programs have dependencies
  std::vector<Message> messages_;
  std::vector<std::int32_t> free_messages_;
  PairTable pairs_;
  std::unique_ptr<TagSlot, decltype(&std::free)> tag_slots_{nullptr, &std::free};
  std::vector<PostedNode> pool_;
  std::int32_t free_node_ = -1;
  EventQueue events_;
  std::vector<std::pair<double, std::size_t>> releases_;  // combines_on_arrival scratch
  std::vector<std::size_t> barriers_;
  std::uint64_t next_sequence_ = 0;
  SimulateResult result_;
};

}  // namespace

SimulateResult simulate(const Params &params, const FlatPrograms &programs, const SimulateOptions &options) {
  return Simulator(params, programs, options).run();
}

SimulateResult simulate(const Params &params, const std::vector<Program> &programs, const SimulateOptions &options) {
  return simulate(params, flatten(programs), options);
}

SimulateResult simulate(const Algorithm &algorithm, const Params &params, const SimulateOptions &options) {
  if (std::string reason = unsupported_reason(algorithm, params); !reason.empty()) {
    SimulateResult result;
    result.error = std::move(reason);
    return result;
  }
  return simulate(params, build_flat(algorithm, params), options);
}

}  // namespace patcoll::core
