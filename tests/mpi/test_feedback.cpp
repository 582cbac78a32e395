// MPI driver: `auto`'s measured feedback (PATCOLL_AUTO_FEEDBACK,
// docs/results/adaptive.md). The measurements are injected through the dispatch
// path's test hook (no timed assertion); the selection, the exchange and
// the agreement are the library's own. Facts:
//  - a PAP-aware choice whose measured time after the last arrival exceeds
//    native's is dropped for that pattern, and auto ends on native;
//  - one rank measuring it slower is enough (the exchange is a MAX), and
//    every rank drops it at the same call;
//  - a choice measured faster than native is kept; native runs on exactly
//    `feedback_samples` calls of the pattern to measure it;
//  - without a PAT vector, an algorithm the model predicts faster than
//    native (classic or PAP-aware, never a background row) is measured
//    alike: dropped when slower, kept when faster;
//  - with PATCOLL_AUTO_FEEDBACK=0 nothing is probed or dropped;
//  - non-blocking calls between the blocking ones run the blocking calls'
//    decision: never a probe, the probes of the blocking calls unmoved,
//    and native once the blocking calls' measurements dropped the choice;
//  - with the real clock every rank still chooses alike on every call, and
//    freeing a communicator with exchanges in flight does not hang;
//  - random delays drawn anew every call, with history PATs: the blocking
//    calls run the reactive algorithm, the non-blocking ones never do.
// Every call's result is checked against PMPI's.
#include <mpi.h>

#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/select.hpp"
#include "mpi/dispatch.hpp"
#include "mpi/registry.hpp"
#include "mpi_test.hpp"
#include "patcoll.h"

namespace {

using patcoll::core::Collective;

enum class Measured { clock, pap_slower, one_rank_says_slower, non_root_says_slower, pap_faster };
Measured g_measured = Measured::clock;
bool g_balanced = false;  // run_calls without a PAT vector

// The rank whose tail alone says "slower" in one_rank_says_slower: the
// root for reduce (only the root's tail counts there: a reduce is done
// when its root is), any rank for allreduce.
int deciding_rank(Collective collective) { return collective == Collective::reduce ? 0 : 1; }

// The injected tail of one rank: native 10 ms; a PAP-aware algorithm 20 ms
// (slower), 20 ms on the deciding rank only and 5 ms elsewhere, or 5 ms
// (faster). A per-rank jitter makes every rank's value differ.
double injected(Collective collective, std::string_view algorithm, int rank, double tail) {
  const double jitter = 1e-5 * rank;
  const bool native = algorithm == "native";
  switch (g_measured) {
    case Measured::clock:
      return tail;
    case Measured::pap_slower:
      return (native ? 10e-3 : 20e-3) + jitter;
    case Measured::one_rank_says_slower:
      return native ? 10e-3 + jitter : rank == deciding_rank(collective) ? 20e-3 : 5e-3 + jitter;
    case Measured::non_root_says_slower:  // faster at the root (rank 0), slower at rank 1
      return native ? 10e-3 + jitter : rank == 1 ? 20e-3 : 5e-3 + jitter;
    case Measured::pap_faster:
      return (native ? 10e-3 : 5e-3) + jitter;
  }
  return tail;
}

// One rank's side of the driver's auto calls of `collective` on `comm`
// (1 MiB of floats: above auto's 16 KiB): the buffers, PMPI's result, and
// for each call (blocking, or PAT_I* and PAT_Wait) what ran; every result
// and every rank's agreement on the choice are tallied.
struct Calls {
  static constexpr int count = 1 << 18, root = 0;
  Collective collective;
  MPI_Comm comm;
  int rank = 0, size = 1;
  const char *name;
  std::vector<float> send = std::vector<float>(count), got = std::vector<float>(count),
                     want = std::vector<float>(count);
  bool results = true, agreement = true;
  Calls(Collective c, MPI_Comm communicator)
      : collective(c), comm(communicator), name(c == Collective::allreduce ? "allreduce" : "reduce") {
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int i = 0; i < count; ++i) send[static_cast<std::size_t>(i)] = static_cast<float>((rank + 1) * (i % 5));
    if (collective == Collective::allreduce) PMPI_Allreduce(send.data(), want.data(), count, MPI_FLOAT, MPI_SUM, comm);
    else PMPI_Reduce(send.data(), want.data(), count, MPI_FLOAT, MPI_SUM, root, comm);
  }
  // One call; the algorithm it ran.
  std::string run(bool nonblocking) {
    std::fill(got.begin(), got.end(), -1.0f);
    int rc = MPI_SUCCESS;
    if (nonblocking) {
      PAT_Handle handle = nullptr;
      rc = collective == Collective::allreduce
               ? PAT_Iallreduce(send.data(), got.data(), count, MPI_FLOAT, MPI_SUM, comm, &handle)
               : PAT_Ireduce(send.data(), got.data(), count, MPI_FLOAT, MPI_SUM, root, comm, &handle);
      if (rc == MPI_SUCCESS) rc = PAT_Wait(&handle);
    } else {
      rc = collective == Collective::allreduce ? PAT_Allreduce(send.data(), got.data(), count, MPI_FLOAT, MPI_SUM, comm)
                                               : PAT_Reduce(send.data(), got.data(), count, MPI_FLOAT, MPI_SUM, root, comm);
    }
    results = results && rc == MPI_SUCCESS && (collective == Collective::reduce && rank != root ? true : got == want);
    std::string ran = patcoll::test::last_algorithm(comm, name);
    agreement = agreement && patcoll::test::same_on_every_rank(comm, ran);
    return ran;
  }
};

// `calls` blocking auto calls of `collective` on a fresh duplicate of
// `parent` with the last rank late in the PAT vector; the algorithm of
// each call. Checks every result and that every rank chose alike. With
// `nonblocking`, each blocking call is followed by a non-blocking one
// (PAT_I*, PAT_Wait), whose algorithms go there.
std::vector<std::string> run_calls(patcoll::test::Suite &suite, MPI_Comm parent, Collective collective, int calls,
                                   const std::string &what, std::vector<std::string> *nonblocking = nullptr) {
  MPI_Comm comm;
  MPI_Comm_dup(parent, &comm);
  Calls calls_of(collective, comm);
  const int size = calls_of.size;
  // The last rank late by the model's balanced time (the built-in cost
  // model: the tests set no PATCOLL_MODEL), as in tests/unit/test_select.cpp.
  patcoll::core::Params call;
  call.collective = collective;
  call.procs = size;
  call.count = Calls::count;
  call.element_bytes = sizeof(float);
  double balanced = 1.0;
  for (const patcoll::core::Prediction &p : patcoll::core::predict_candidates(call))
    if (p.name == patcoll::core::native_name) balanced = p.seconds;
  std::vector<double> pats(static_cast<std::size_t>(size), 0.0);
  pats[static_cast<std::size_t>(size - 1)] = balanced;
  PAT_Set_arrivals(comm, g_balanced ? nullptr : pats.data());
  const char *name = calls_of.name;
  const std::string where = " (" + what + ", P=" + std::to_string(size) + ")";
  std::vector<std::string> chosen;
  for (int k = 0; k < calls; ++k) {
    chosen.push_back(calls_of.run(false));
    if (nonblocking) nonblocking->push_back(calls_of.run(true));
  }
  suite.check(calls_of.results, std::string(name) + ": every call's result" + where);
  suite.check(calls_of.agreement, std::string(name) + ": every rank chose the same algorithm on every call" + where);
  PAT_Set_arrivals(comm, nullptr);
  MPI_Comm_free(&comm);  // exchanges may still be in flight: completed, not hung
  return chosen;
}

const patcoll::mpi::Entry *entry_of(const std::string &name) {
  const patcoll::mpi::Entry *entry = nullptr;
  for (Collective c : {Collective::reduce, Collective::allreduce})
    if (!entry) entry = patcoll::mpi::find_entry(c, name);
  return entry && !entry->native() ? entry : nullptr;
}
bool pap_aware(const std::string &name) {
  const patcoll::mpi::Entry *entry = entry_of(name);
  return entry && (entry->capabilities & patcoll::core::pap_aware);
}
bool background(const std::string &name) {
  const patcoll::mpi::Entry *entry = entry_of(name);
  return entry && (entry->capabilities & patcoll::core::background);
}

std::string joined(const std::vector<std::string> &names) {
  std::string out;
  for (const std::string &n : names) out += (out.empty() ? "" : " ") + n;
  return out;
}

void run(patcoll::test::Suite &suite, MPI_Comm parent) {
  const int calls = 40;
  for (Collective collective : {Collective::allreduce, Collective::reduce}) {
    const std::string coll = collective == Collective::allreduce ? "allreduce" : "reduce";
    for (Measured measured : {Measured::pap_slower, Measured::one_rank_says_slower}) {
      g_measured = measured;
      const std::string what = measured == Measured::pap_slower
                                   ? "every rank measures it slower"
                                   : "only rank " + std::to_string(deciding_rank(collective)) + " measures it slower";
      const std::vector<std::string> names = run_calls(suite, parent, collective, calls, what);
      const std::string first = names.front();
      int size = 1;
      MPI_Comm_size(parent, &size);
      if (size == 4 || size == 8)  // (the model's side: tests/unit/test_select.cpp)
        suite.check(pap_aware(first), coll + ": one late, P = 4, 8: the model chooses a PAP-aware algorithm (" +
                                          first + ")");
      // The model's choice, PAP-aware or a classic algorithm predicted no
      // slower than native (native's prediction is the best classic's), is
      // measured alike.
      if (first == "native") {  // nothing predicted as fast: nothing to drop or probe
        suite.check(joined(names) == joined(std::vector<std::string>(calls, first)),
                    coll + ": native throughout when the model chooses it (" + joined(names) + ", P=" +
                        std::to_string(size) + ")");
        continue;
      }
      // Dropped once both sides have 3 measurements (call 5) and the
      // exchange is back (2 calls later): from call 7 on it never runs.
      bool after = false;
      for (int k = 7; k < calls; ++k) after = after || names[static_cast<std::size_t>(k)] == first;
      suite.check(!after, coll + ": " + first + " is dropped by call 7 (" + joined(names) + "; " + what +
                              ", P=" + std::to_string(size) + ")");
      suite.check(names.back() == "native" && names[calls - 2] == "native",
                  coll + ": auto ends on native (" + joined(names) + "; " + what + ", P=" + std::to_string(size) +
                      ")");
    }

    // Measured faster: kept; native measured on exactly 3 calls (1, 3, 5).
    // For reduce also when a rank other than the root measures it slower:
    // only the root's tail counts there.
    std::vector<Measured> kept_cases{Measured::pap_faster};
    if (collective == Collective::reduce) kept_cases.push_back(Measured::non_root_says_slower);
    for (Measured kept : kept_cases) {
      g_measured = kept;
      const std::string what =
          kept == Measured::pap_faster ? "measured faster" : "faster at the root, slower at rank 1";
      const std::vector<std::string> names = run_calls(suite, parent, collective, calls, what);
      const std::string first = names.front();
      if (first != "native") {
        std::vector<std::string> want(calls, first);
        want[1] = want[3] = want[5] = "native";
        suite.check(names == want, coll + ": " + what + ": kept, native probed on calls 1, 3, 5 (" + joined(names) +
                                       ")");
      }
    }

    // Non-blocking calls in between: not measured, they run what the
    // blocking calls decided.
    g_measured = Measured::pap_slower;
    std::vector<std::string> unmeasured;
    const std::vector<std::string> blocking = run_calls(suite, parent, collective, calls, "non-blocking in between",
                                                        &unmeasured);
    if (blocking.front() != "native") {
      const std::string choice = blocking.front();
      const bool probes = blocking[1] == "native" && blocking[3] == "native" && blocking[5] == "native" &&
                          blocking[2] == choice && blocking[4] == choice;
      suite.check(probes, coll + ": the blocking calls' probes are calls 1, 3, 5 with non-blocking calls between (" +
                              joined(blocking) + ")");
      bool early = true, late = false;
      for (int k = 0; k < 5; ++k) early = early && unmeasured[static_cast<std::size_t>(k)] == choice;
      for (int k = 7; k < calls; ++k)
        late = late || blocking[static_cast<std::size_t>(k)] == choice || unmeasured[static_cast<std::size_t>(k)] == choice;
      suite.check(early, coll + ": non-blocking calls run the choice, never a probe, until it is judged (" +
                             joined(unmeasured) + ")");
      suite.check(!late, coll + ": after the blocking calls drop " + choice + ", non-blocking calls run native too (" +
                             joined(unmeasured) + ")");
    }

    // No PAT vector: an algorithm the model predicts faster than native
    // (with equal arrivals) is measured as a PAP-aware choice is: dropped when slower
    // (by call 7), kept when faster with native probed on calls 1, 3, 5;
    // native throughout where the model predicts none faster.
    g_balanced = true;
    for (Measured measured : {Measured::pap_slower, Measured::pap_faster}) {
      g_measured = measured;
      const std::string what = measured == Measured::pap_slower ? "no PATs, measured slower" : "no PATs, measured faster";
      const std::vector<std::string> names = run_calls(suite, parent, collective, calls, what);
      const std::string first = names.front();
      if (first == "native") {
        suite.check(joined(names) == joined(std::vector<std::string>(calls, "native")),
                    coll + ": " + what + ": native throughout (" + joined(names) + ")");
        continue;
      }
      suite.check(!background(first), coll + ": " + what + ": a foreground algorithm (" + first + ")");
      std::vector<std::string> want(calls, first);
      want[1] = want[3] = want[5] = "native";
      if (measured == Measured::pap_slower)
        for (int k = 6; k < calls; ++k) want[static_cast<std::size_t>(k)] = "native";
      suite.check(names == want, coll + ": " + what + ": " + first +
                                     (measured == Measured::pap_slower ? " dropped at call 6" : " kept") +
                                     ", native probed on calls 1, 3, 5 (" + joined(names) + ")");
    }
    g_balanced = false;

    // Feedback off: the model alone, the same algorithm every call.
    g_measured = Measured::pap_slower;
    patcoll::test::set_configuration("PATCOLL_AUTO_FEEDBACK", "0");
    const std::vector<std::string> off = run_calls(suite, parent, collective, calls, "feedback off");
    patcoll::test::set_configuration("PATCOLL_AUTO_FEEDBACK", nullptr);
    suite.check(joined(off) == joined(std::vector<std::string>(calls, off.front())),
                coll + ": PATCOLL_AUTO_FEEDBACK=0: the model's choice every call (" + joined(off) + ")");

    // The real clock: whatever it measures, every rank agrees (run_calls).
    g_measured = Measured::clock;
    run_calls(suite, parent, collective, calls, "measured by the clock");
  }
}

// Arrivals drawn anew every call (each rank sleeps 0-24 ms before it, a
// new draw per call and rank) with history PATs (PATCOLL_PATS=history and
// its common clock): the vectors miss the arrivals by far more than half
// the balanced time, so auto's measured blocking calls leave the vectors
// aside and run the reactive algorithm, measured against native; the
// non-blocking calls in between never run it (blocking only). The real
// clock decides; the facts hold for any timing: the delays are
// milliseconds, the model's balanced time of a 1 MiB allreduce or reduce
// at P <= 8 a fraction of one.
void run_unpredictable(patcoll::test::Suite &suite, MPI_Comm parent, Collective collective) {
  g_measured = Measured::clock;
  patcoll::test::set_configuration("PATCOLL_PATS", "history");
  MPI_Comm comm;
  MPI_Comm_dup(parent, &comm);  // its state is made with the history
  Calls calls_of(collective, comm);
  const int size = calls_of.size;
  const char *name = calls_of.name;
  const std::string where = " (random delays, history PATs, P=" + std::to_string(size) + ")";
  std::vector<std::string> blocking, unmeasured;
  unsigned state = 12345u + 7919u * static_cast<unsigned>(calls_of.rank);
  for (int k = 0; k < 64; ++k) {
    state = state * 1103515245u + 12345u;
    usleep((state >> 8) % 25000);
    blocking.push_back(calls_of.run(false));
    if (k % 4 == 3) unmeasured.push_back(calls_of.run(true));
  }
  MPI_Comm_free(&comm);
  patcoll::test::set_configuration("PATCOLL_PATS", nullptr);
  suite.check(calls_of.results, std::string(name) + ": every call's result" + where);
  suite.check(calls_of.agreement, std::string(name) + ": every rank chose the same algorithm on every call" + where);
  if (size < 2) return;
  bool reacted = false;
  for (const std::string &n : blocking) reacted = reacted || n == "reactive";
  suite.check(reacted, std::string(name) + ": blocking calls run the reactive algorithm (" + joined(blocking) + ")" + where);
  bool never = true;
  for (const std::string &n : unmeasured) never = never && n != "reactive";
  suite.check(never, std::string(name) + ": non-blocking calls never do (" + joined(unmeasured) + ")" + where);
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  patcoll::mpi::set_feedback_hook(injected);
  patcoll::test::Suite suite;
  run(suite, MPI_COMM_WORLD);
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  run(suite, half);
  MPI_Comm_free(&half);
  for (Collective collective : {Collective::allreduce, Collective::reduce}) run_unpredictable(suite, MPI_COMM_WORLD, collective);
  patcoll::mpi::set_feedback_hook(nullptr);
  const int rc = suite.finish();
  MPI_Finalize();
  return rc;
}
