// Per-communicator state, the one of the library and the preload shim alike,
// cached on the user's communicator with one attribute: patcoll's private
// duplicate (so our traffic never matches user messages), the tag sequence,
// the PAT vector, per-communicator algorithm choices, the cache of built
// Programs, `auto`'s selectors, the arrival history per collective and call
// site (call_history.hpp) and what the shim has said about it. Freed by the
// attribute's delete callback when the user frees the communicator, and by
// the one finalize sweep at MPI_Finalize. (The PAT runtime's thread keeps a
// communicator of its own: MPI forbids collectives on one communicator from
// two threads at once.)
#pragma once

#include <mpi.h>

#include <array>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/cost.hpp"
#include "core/ir.hpp"
#include "core/select.hpp"
#include "core/traits.hpp"
#include "call_history.hpp"
#include "executor.hpp"

namespace patcoll::mpi {

namespace report {
struct CommRecord;
}

// A built Program with what running it needs: its shape and the
// workspaces (scratch, staging, requests) of its executions, kept for the
// next call. One workspace per execution active at the same time (a
// blocking call, or each non-blocking / persistent collective).
class CachedProgram {
 public:
  explicit CachedProgram(core::Program p) : program(std::move(p)), shape(ProgramShape::of(program)) {}
  const core::Program program;
  const ProgramShape shape;
  std::unique_ptr<Workspace> acquire();              // thread-safe
  void release(std::unique_ptr<Workspace> workspace);  // thread-safe

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<Workspace>> idle_;
};

// Least-recently-used cache of this rank's Programs keyed by everything a
// builder reads (the schedule cache of Clairvoyant and greedy). Entries are
// shared: an evicted Program stays alive while an execution holds it.
class ProgramCache {
 public:
  explicit ProgramCache(std::size_t capacity = 16) : capacity_(capacity) {}
  std::shared_ptr<CachedProgram> find(const std::string &key);
  // capacity 0: returned, not kept.
  std::shared_ptr<CachedProgram> insert(std::string key, core::Program program);
  std::size_t size() const { return entries_.size(); }
  std::uint64_t hits() const { return hits_; }
  std::uint64_t misses() const { return misses_; }

 private:
  std::size_t capacity_;
  std::list<std::pair<std::string, std::shared_ptr<CachedProgram>>> entries_;  // most recent first
  std::uint64_t hits_ = 0, misses_ = 0;
};

// PAT vectors handed over by another thread (the PAT runtime, src/runtime/).
// The runtime announces an exchange (expect) when PAT_Edge is called and
// delivers its result from its background thread; a collective on the
// communicator first waits for every announced exchange (so all ranks use
// the vector of the same edge) and then takes the newest vector.
struct ArrivalsMailbox {
  std::mutex mutex;
  std::condition_variable delivered_cv;
  std::uint64_t expected = 0, delivered = 0;
  bool fresh = false;           // a vector not yet taken
  std::vector<double> latest;   // empty: balanced

  void expect();
  void deliver(std::vector<double> arrivals);  // thread-safe
  void clear();  // the next collective goes back to balanced arrivals
  // Waits for the announced exchanges; true and `out` set when a vector
  // arrived since the last take.
  bool take(std::vector<double> &out);
};

// `auto`'s measured feedback on one communicator (dispatch.hpp,
// docs/results/adaptive.md): the blocking call being measured and the exchanges of
// earlier calls' measurements still in flight.
struct AutoFeedback {
  std::uint64_t calls = 0;  // auto calls on the communicator so far (agreed: counted alike on every rank)
  // The common clock of the measurements (mpi/clock.hpp): MPI_Wtime() +
  // clock_offset is rank 0's clock. Aligned at the first measured call
  // with a PAT vector (every rank at the same call), or taken from the
  // history's alignment.
  bool aligned = false;
  double clock_offset = 0;
  struct Measured {
    bool armed = false;  // set by `auto` for a call to measure, taken after the blocking call
    core::Collective collective = core::Collective::reduce;
    std::string pattern;            // core::Selection::pattern
    std::string_view algorithm;     // what ran
    double arrival_offset = 0;      // PAT of the latest rank minus this rank's (seconds)
    double predicted_arrival = 0;   // this rank's PAT (seconds after the earliest rank's)
    // This rank's tail is the collective's: every rank's for allreduce,
    // the root's only for reduce (measure_blocking_call).
    bool tail_counts = true;
  } current;
  struct Exchange {
    MPI_Request request = MPI_REQUEST_NULL;
    // MPI_MAX of {planned tail, -elapsed, id, -id, entry, exit, entry - PAT,
    // PAT - entry}; the last four on the common clock (measure_blocking_call).
    double mine[8] = {}, agreed[8] = {};
    core::Collective collective = core::Collective::reduce;
    std::string pattern;
    std::string_view algorithm;
    std::uint64_t due = 0;  // completed at this auto call
  };
  std::deque<Exchange> in_flight;  // oldest first; elements do not move while MPI holds their buffers
};

// The reactive algorithms' mechanism on a communicator (mpi/reactive.hpp):
// a second private duplicate for their control messages, created by the
// first reactive call, freed with the state.
struct ReactiveControl {
  MPI_Comm control = MPI_COMM_NULL;
};

struct CommState {
  MPI_Comm comm = MPI_COMM_NULL;  // private duplicate
  int size = 1;
  int rank = 0;
  int tag_ub = 32767;
  std::uint64_t sequence = 0;
  std::vector<double> arrivals;  // empty: balanced
  std::optional<core::CostModel> cost;
  std::array<std::string, core::kCollectiveCount> algorithm;  // per core::Collective; "" = not set
  ProgramCache programs;
  // The process-wide schedule inputs (PATCOLL_MODEL, PAT_Set_cost_model
  // with MPI_COMM_NULL, PATCOLL_SEGMENTS/_BYTES) were found equal on every
  // rank at the first collective on this communicator (docs/results/agreement.md).
  bool process_inputs_agreed = false;
  std::shared_ptr<ArrivalsMailbox> mailbox = std::make_shared<ArrivalsMailbox>();  // shared with the runtime
  // `auto` with a PAT vector (core/select.hpp): per collective, its cache
  // and current choice; and the algorithm that served each collective's
  // last call (PAT_Get_last_algorithm).
  std::array<core::Selector, core::kCollectiveCount> selectors;
  std::array<std::string_view, core::kCollectiveCount> last_algorithm;
  AutoFeedback feedback;
  // PATCOLL_PATS=history: the arrival history of its blocking calls (null
  // when off or on one rank).
  std::unique_ptr<CallHistory> history;
  // "'MPI_COMM_WORLD' (8 ranks)": for messages.
  std::string label;
  // PATCOLL_REPORT: this communicator's record in the arrival report
  // (report.hpp; owned by the recorder, which keeps it after the
  // communicator is freed).
  report::CommRecord *report = nullptr;
  ReactiveControl reactive;
  // PATCOLL_VERBOSE: the serving algorithms the shim has named, per collective.
  std::array<std::set<std::string>, core::kCollectiveCount> reported;

  // The tag of the next collective call: the same on every rank because
  // collectives on a communicator are called in the same order everywhere;
  // above the history's tags.
  int next_tag() { return next_tags(1); }
  // `count` consecutive tags from the one returned (a Program with
  // Op::tag < count, core::Algorithm::tags), never wrapping past MPI_TAG_UB;
  // the same on every rank when every rank asks for the same count.
  // count <= tag_space().
  int next_tags(int count) {
    const std::uint64_t range = tag_space();
    std::uint64_t at = sequence % range;
    if (at + static_cast<std::uint64_t>(count) > range) {
      sequence += range - at;
      at = 0;
    }
    sequence += static_cast<std::uint64_t>(count);
    return kHistoryTags + static_cast<int>(at);
  }
  int tag_space() const { return tag_ub - kHistoryTags + 1; }
};

// Programs kept per cache (PATCOLL_SCHEDULE_CACHE).
std::size_t schedule_cache_capacity();

// The state of `comm`, created on first use (collective over `comm` only
// the first time: MPI_Comm_dup). A thread's last communicator is found
// again without a lock or an attribute lookup.
int comm_state(MPI_Comm comm, CommState *&out);
// The state of an intracommunicator (`inter` false), or `inter` true and
// no state: one test of the communicator per thread's last one.
int intra_comm_state(MPI_Comm comm, CommState *&out, bool &inter);
// The state of `comm` if patcoll has served it before, else nullptr (local:
// never creates one).
int existing_comm_state(MPI_Comm comm, CommState *&out);

// Process-wide defaults (PAT_Set_algorithm / PAT_Set_cost_model with
// MPI_COMM_NULL).
struct ProcessDefaults {
  std::array<std::string, core::kCollectiveCount> algorithm;
  std::optional<core::CostModel> cost;
};
ProcessDefaults &process_defaults();

}  // namespace patcoll::mpi
