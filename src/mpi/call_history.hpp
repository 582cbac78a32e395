// The `history` PAT source (PATCOLL_PATS=history), for the library and the
// preload shim alike: arrival times learned from the calls themselves, kept
// per (communicator, collective, call site), so that two MPI_Allreduce
// calls in different places of a program, or an MPI_Allreduce with a late
// rank and the balanced MPI_Reduce that follows it, learn separately.
//
// Every rank records its entry time at each blocking collective call on the
// communicator (on a clock aligned to rank 0's: MPI_Wtime plus an offset
// measured once, 0 when the clock is global or every rank shares a node),
// under the call's key: its collective and its call site (the caller's
// return address as an offset into its object, the same on every rank of an
// SPMD program). Every `period` calls each rank sends the recent entries of
// its most recently used keys to rank 0 with one non-blocking send on
// patcoll's private duplicate; rank 0 turns each key that every rank saw at
// the same calls into a PAT vector and relays all of them `period`/2 calls
// later; every rank applies them `period` calls after the start, at the
// same call index. The vectors come out of one exchange, so they are the
// same on every rank by construction: no agreement round and no blocking
// collective of the shim's own.
//
// Keys that the ranks do not share (a rank calls the collective from
// another place in the code) are detected at the exchange; the
// communicator then keeps one history per collective from that point on,
// on every rank at the same call.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "arrival_history.hpp"
#include "core/ir.hpp"

namespace patcoll::mpi {

struct HistoryOptions {
  bool enabled = false;     // PATCOLL_PATS=history
  bool entry_clock = true;  // PATCOLL_HISTORY_ESTIMATE=entry (else exit->entry offsets)
  int window = 5;           // PATCOLL_HISTORY_WINDOW
  int period = 8;           // PATCOLL_HISTORY_PERIOD
  double quantum = 1e-5;    // PATCOLL_HISTORY_QUANTUM
};
// From the configuration registry (core/config.hpp).
HistoryOptions history_options();

// A 52-bit key of the code location `return_address` points into: its
// object's file name and the offset in it, so equal on every rank running
// the same binary (address-space randomisation included). 0 for nullptr.
// Cached per thread: a few nanoseconds after the first call from a site.
std::uint64_t call_site_key(const void *return_address);
// "function+0x1c (object)" or "object+0x1234" (dladdr), for messages.
std::string describe_call_site(const void *return_address);

// Tags on patcoll's private duplicate that the history uses; the executor's
// tags start above them (CommState::next_tag).
inline constexpr int kHistoryTags = 4;

class CallHistory {
 public:
  // Collective over `comm` (patcoll's private duplicate): measures the
  // clock offset to rank 0.
  CallHistory(MPI_Comm comm, int rank, int size, const HistoryOptions &options);
  ~CallHistory();
  CallHistory(const CallHistory &) = delete;
  CallHistory &operator=(const CallHistory &) = delete;

  // At every blocking collective call on the communicator, in call order,
  // on every rank: its entry (MPI_Wtime) and exit.
  void enter(core::Collective collective, const void *site, double entry);
  void exit();
  // The PAT vector learned for the call being served (the last enter());
  // empty while there is none.
  const std::vector<double> &arrivals() const;
  // Completes an exchange in flight (the communicator is being freed or
  // MPI finalised; every rank does the same).
  void finish();

  // Whether entry times are on the clock aligned to rank 0's
  // (PATCOLL_HISTORY_ESTIMATE=entry), and this rank's offset to it:
  // MPI_Wtime() + clock_offset() is rank 0's clock.
  bool aligned() const { return options_.entry_clock; }
  double clock_offset() const { return clock_offset_; }

  // Statistics (PATCOLL_VERBOSE=2).
  std::uint64_t calls() const { return calls_; }
  std::uint64_t exchanges() const { return exchanges_; }
  std::uint64_t updates() const { return updates_; }
  double seconds_in_hooks() const { return hook_seconds_; }
  double seconds_waiting() const { return wait_seconds_; }
  bool per_call_site() const { return per_site_; }
  std::size_t keys() const { return sites_.size(); }
  // "allreduce at main+0x1c (app) (40 calls): 0 0 0 4000 us; ..." for
  // every key with a vector.
  std::string describe() const;

  // The key under which a call of `collective` from `site` is kept (the
  // site is dropped once the ranks were seen to disagree on sites).
  std::uint64_t key(core::Collective collective, std::uint64_t site) const;

 private:
  struct Site {
    std::uint64_t key = 0;
    const void *address = nullptr;  // this process's first return address at the key (messages)
    core::Collective collective = core::Collective::reduce;
    ArrivalHistory own;
    std::uint64_t last_call = 0;  // calls_ at its last entry
    std::uint64_t samples = 0;
    std::vector<double> pats;     // the vector learned (empty: none)
    explicit Site(int window) : own(window) {}
  };
  Site &site_of(std::uint64_t key, core::Collective collective);
  void start_exchange();
  void relay();
  void apply();
  int slot_width() const { return 3 + width_; }

  MPI_Comm comm_;
  int rank_, size_;
  HistoryOptions options_;
  double clock_offset_ = 0;
  double last_exit_ = -1;
  std::uint64_t calls_ = 0;
  bool per_site_ = true;
  std::vector<Site> sites_;   // most recently used last
  Site *current_ = nullptr;
  // The exchange in flight.
  bool pending_ = false, relayed_ = false;
  std::uint64_t relay_at_ = 0, apply_at_ = 0;
  int width_ = 1;                   // values per key in a row
  std::vector<double> row_;         // this rank's keys and values
  std::vector<double> gathered_;    // rank 0: every rank's row
  std::vector<double> received_;    // the relayed vectors
  std::vector<MPI_Request> gather_requests_, requests_;
  std::uint64_t exchanges_ = 0, updates_ = 0;
  double hook_seconds_ = 0, wait_seconds_ = 0;
};

}  // namespace patcoll::mpi
