// MPI driver: the one dispatch path (mpi/dispatch.hpp). Selection order
// (explicit > communicator > process > environment > auto), the Params a
// call gets (segmentation from the configuration, the cost model of the
// communicator > process > PATCOLL_MODEL > built-in), the Program cache
// (a repeated call hits; PATs that jitter within the quantum hit for a
// PAP-aware algorithm; a classic algorithm ignores PATs), a bad segment
// setting that is MPI_ERR_ARG and a bad cache size that keeps the default.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/pat.hpp"
#include "mpi/comm_cache.hpp"
#include "mpi/dispatch.hpp"
#include "api/handles.hpp"
#include "mpi_test.hpp"
#include "patcoll.h"
#include "runtime/background.hpp"

namespace {

using patcoll::core::Collective;
namespace mpi = patcoll::mpi;
namespace core = patcoll::core;

int g_rank = 0, g_size = 1;

// The Params of a call (mpi::call_params); MPI_SUCCESS expected.
core::Params params_of(mpi::CommState &state, const mpi::CallShape &shape, int *rc = nullptr) {
  core::Params params;
  const int code = mpi::call_params(state, shape, params);
  if (rc) *rc = code;
  return params;
}

mpi::CommState *state_of(MPI_Comm comm) {
  mpi::CommState *state = nullptr;
  return mpi::comm_state(comm, state) == MPI_SUCCESS ? state : nullptr;
}

std::string selected(mpi::CommState &state, const char *explicit_name) {
  const core::Params params = params_of(state, {Collective::reduce, 0, 1024, 4, true});
  const mpi::Entry *entry = nullptr;
  if (mpi::select(state, Collective::reduce, explicit_name, params, entry) != MPI_SUCCESS) return "error";
  return std::string(entry->name);
}

void selection_order(patcoll::test::Suite &suite, mpi::CommState &state) {
  const mpi::Entry *automatic =
      mpi::choose_auto(state, params_of(state, {Collective::reduce, 0, 1024, 4, true}));
  suite.check(selected(state, nullptr) == automatic->name, "nothing chosen: auto");
  patcoll::test::set_configuration("PATCOLL_REDUCE", "chain");
  suite.check(selected(state, nullptr) == "chain", "PATCOLL_REDUCE over auto");
  PAT_Set_algorithm(MPI_COMM_NULL, "reduce", "binary");
  suite.check(selected(state, nullptr) == "binary", "the process's choice over PATCOLL_REDUCE");
  PAT_Set_algorithm(MPI_COMM_WORLD, "reduce", "linear");
  suite.check(selected(state, nullptr) == "linear", "the communicator's choice over the process's");
  suite.check(selected(state, "binomial") == "binomial", "the explicit name over the communicator's");
  suite.check(selected(state, "auto") == automatic->name, "an explicit auto is auto");
  suite.check(selected(state, "no_such") == "error", "an unknown explicit name is an error");
  PAT_Set_algorithm(MPI_COMM_WORLD, "reduce", nullptr);
  PAT_Set_algorithm(MPI_COMM_NULL, "reduce", nullptr);
  patcoll::test::set_configuration("PATCOLL_REDUCE", nullptr);
  suite.check(selected(state, nullptr) == automatic->name, "choices cleared: auto again");
}

void params_from_configuration(patcoll::test::Suite &suite, mpi::CommState &state) {
  patcoll::test::set_configuration("PATCOLL_SEGMENTS", "7");
  core::Params p = params_of(state, {Collective::reduce, 0, 1000, 8, true});
  suite.check(p.segment_count == 7 && p.procs == g_size, "PATCOLL_SEGMENTS reaches the Params");
  patcoll::test::set_configuration("PATCOLL_SEGMENTS", "abc");
  int rc = MPI_SUCCESS;
  params_of(state, {Collective::reduce, 0, 1000, 8, true}, &rc);
  suite.check(rc == MPI_ERR_ARG, "PATCOLL_SEGMENTS=abc is MPI_ERR_ARG (it shapes schedules: never a silent default)");
  suite.check(core::config::settings()->problems_of(core::config::Scope::library).size() == 1,
              "PATCOLL_SEGMENTS=abc is one reported problem");
  patcoll::test::set_configuration("PATCOLL_SEGMENTS", nullptr);
  patcoll::test::set_configuration("PATCOLL_SEGMENT_BYTES", "64");
  p = params_of(state, {Collective::reduce, 0, 1000, 8, true});
  suite.check(p.segment_elements == 8, "PATCOLL_SEGMENT_BYTES=64 is 8 elements of 8 bytes");
  patcoll::test::set_configuration("PATCOLL_SEGMENT_BYTES", nullptr);
}

void cost_model_lookup(patcoll::test::Suite &suite, mpi::CommState &state) {
  const core::CostModel builtin;
  suite.check(mpi::cost_model(state).alpha == builtin.alpha, "built-in cost model by default");
  const std::string path = "/tmp/patcoll-test-dispatch-model-" + std::to_string(g_rank) + ".txt";
  if (FILE *f = std::fopen(path.c_str(), "w")) {
    std::fputs("alpha 1e-3\nbeta 2e-9\ngamma 3e-9\n", f);
    std::fclose(f);
  }
  patcoll::test::set_configuration("PATCOLL_MODEL", path.c_str());
  suite.check(mpi::cost_model(state).alpha == 1e-3 && mpi::cost_model(state).gamma == 3e-9,
              "PATCOLL_MODEL over the built-in model");
  PAT_Set_cost_model(MPI_COMM_NULL, 2e-3, 1e-9, 1e-10);
  suite.check(mpi::cost_model(state).alpha == 2e-3, "the process's model over PATCOLL_MODEL");
  PAT_Set_cost_model(MPI_COMM_WORLD, 4e-3, 1e-9, 1e-10);
  suite.check(mpi::cost_model(state).alpha == 4e-3, "the communicator's model over the process's");
  suite.check(params_of(state, {Collective::reduce, 0, 10, 4, true}).cost.alpha == 4e-3,
              "the Params carry the communicator's model");
  state.cost.reset();
  patcoll::mpi::process_defaults().cost.reset();
  patcoll::test::set_configuration("PATCOLL_MODEL", nullptr);
  std::remove(path.c_str());
  suite.check(mpi::cost_model(state).alpha == builtin.alpha, "models cleared: built-in again");
}

void program_cache(patcoll::test::Suite &suite, mpi::CommState &state) {
  std::vector<int> send(64, g_rank + 1), recv(64, 0);
  auto reduce = [&](const char *algorithm) {
    return PAT_Reduce_with(algorithm, send.data(), recv.data(), 64, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  };
  reduce("binomial");
  std::uint64_t hits = state.programs.hits(), misses = state.programs.misses();
  const bool ok = reduce("binomial") == MPI_SUCCESS;
  if (g_size == 1) {  // one rank copies: no Program
    suite.check(ok && state.programs.hits() == hits && state.programs.misses() == misses, "one rank builds nothing");
    return;
  }
  suite.check(ok && state.programs.hits() == hits + 1 && state.programs.misses() == misses,
              "the same call again is a cache hit");

  std::vector<double> pats(static_cast<std::size_t>(g_size), 0.0);
  pats.back() = 2e-3;
  PAT_Set_arrivals(MPI_COMM_WORLD, pats.data());
  reduce("binomial");
  suite.check(state.programs.hits() == hits + 2, "a classic algorithm ignores the PATs: still a hit");

  // A late rank 40 quanta behind, then the same pattern with 0.1 quantum
  // of jitter.
  const double quantum = core::pat_quantum(params_of(state, {Collective::reduce, 0, 64, 4, true}));
  pats.back() = 40 * quantum;
  PAT_Set_arrivals(MPI_COMM_WORLD, pats.data());
  reduce("clairvoyant");
  hits = state.programs.hits(), misses = state.programs.misses();
  std::vector<double> jittered = pats;
  jittered.back() += quantum / 10;
  PAT_Set_arrivals(MPI_COMM_WORLD, jittered.data());
  reduce("clairvoyant");
  suite.check(state.programs.hits() == hits + 1 && state.programs.misses() == misses,
              "PATs that jitter within the quantum hit the cached schedule");
  std::vector<double> other = pats;
  other.front() = 80 * quantum;
  PAT_Set_arrivals(MPI_COMM_WORLD, other.data());
  reduce("clairvoyant");
  suite.check(state.programs.misses() == misses + 1, "another pattern builds another schedule");
  PAT_Set_arrivals(MPI_COMM_WORLD, nullptr);
  if (g_rank == 0) suite.check(recv[0] == g_size * (g_size + 1) / 2, "the cached Programs still reduce");
}

// The PAT runtime's background collectives go through the same dispatch
// (mpi/dispatch.hpp): the communicator's cost model, core's PAT quantum,
// the configuration read once, and a Program cache. With a cost model
// whose round time is a second, the quantum (d/4) swallows the measured
// PATs of a phase, so every run after the first finds its Program; a
// PATCOLL_SEGMENTS put into the environment meanwhile is not re-read.
void background_cache(patcoll::test::Suite &suite) {
  if (PAT_Init(MPI_COMM_WORLD) != MPI_SUCCESS) {
    suite.check(false, std::string("PAT_Init: ") + PAT_Last_error());
    return;
  }
  PAT_Set_cost_model(MPI_COMM_WORLD, 1.0, 1e-9, 1e-10);
  const int block = 3, root = g_size - 1;
  std::vector<int> whole(static_cast<std::size_t>(block * g_size)), own(block, -1);
  for (std::size_t i = 0; i < whole.size(); ++i) whole[i] = static_cast<int>(i);
  PAT_Handle handle = nullptr;
  suite.check(PAT_Scatter_init_with("bsbn", whole.data(), block, MPI_INT, own.data(), block, MPI_INT, root,
                                    MPI_COMM_WORLD, MPI_INFO_NULL, &handle) == MPI_SUCCESS,
              "bsbn scatter set up");
  void *background = patcoll::runtime::background_of(handle);
  suite.check(background != nullptr, "a bsbn PAT_Handle is a background collective");
  std::uint64_t hits = 0, misses = 0;
  bool scattered = true;
  for (int run = 0; run < 3 && background; ++run) {
    if (run == 2) setenv("PATCOLL_SEGMENTS", "3", 1);  // not re-read: the configuration is a snapshot
    std::fill(own.begin(), own.end(), -1);
    int rc = PAT_Start(handle);
    if (rc == MPI_SUCCESS) rc = PAT_ProcessingStart();
    if (rc == MPI_SUCCESS) rc = PAT_Edge(0.5);
    if (rc == MPI_SUCCESS) rc = PAT_ProcessingEnd();
    if (rc == MPI_SUCCESS) rc = PAT_Wait(&handle);
    suite.check(rc == MPI_SUCCESS, "background run " + std::to_string(run) + ": " + PAT_Last_error());
    for (int i = 0; i < block; ++i) scattered = scattered && own[i] == g_rank * block + i;
    std::uint64_t h = 0, m = 0;
    patcoll::runtime::background_cache_counts(background, h, m);
    if (run == 0) {
      suite.check(m == 1 && h == 0, "the first run builds the Program");
    } else {
      suite.check(h == hits + 1 && m == misses,
                  "run " + std::to_string(run) + " with the same (quantised) PATs finds its Program in the cache");
    }
    hits = h, misses = m;
  }
  unsetenv("PATCOLL_SEGMENTS");
  suite.check(scattered, "every background run scattered the root's blocks");
  suite.check(PAT_Handle_free(&handle) == MPI_SUCCESS, "background collective freed");
  suite.check(PAT_Finalize() == MPI_SUCCESS, "PAT_Finalize");
  mpi::CommState *state = state_of(MPI_COMM_WORLD);
  if (state) state->cost.reset();
}

// A persistent PAP-aware collective prepares every start again (it follows
// the PAT vector): with the same PATs, the second start is a cache hit.
void persistent_cache(patcoll::test::Suite &suite, mpi::CommState &state) {
  std::vector<double> pats(static_cast<std::size_t>(g_size), 0.0);
  pats.back() = 1e-3;
  PAT_Set_arrivals(MPI_COMM_WORLD, pats.data());
  std::vector<int> send(64, g_rank + 1), recv(64, 0);
  PAT_Handle handle = nullptr;
  suite.check(PAT_Reduce_init_with("clairvoyant", send.data(), recv.data(), 64, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD,
                                   MPI_INFO_NULL, &handle) == MPI_SUCCESS,
              "persistent clairvoyant reduce set up");
  bool ok = PAT_Start(handle) == MPI_SUCCESS && PAT_Wait(&handle) == MPI_SUCCESS;  // init's Program
  const std::uint64_t hits = state.programs.hits(), misses = state.programs.misses();
  ok = ok && PAT_Start(handle) == MPI_SUCCESS && PAT_Wait(&handle) == MPI_SUCCESS;
  suite.check(ok, "two persistent starts");
  if (g_size > 1)
    suite.check(state.programs.hits() == hits + 1 && state.programs.misses() == misses,
                "the second PAT_Start with the same PATs hits the cache");
  if (g_rank == 0) suite.check(recv[0] == g_size * (g_size + 1) / 2, "the persistent reduce reduces");
  suite.check(PAT_Handle_free(&handle) == MPI_SUCCESS, "persistent handle freed");
  PAT_Set_arrivals(MPI_COMM_WORLD, nullptr);
}

void cache_capacity(patcoll::test::Suite &suite) {
  patcoll::test::set_configuration("PATCOLL_SCHEDULE_CACHE", "0");
  suite.check(mpi::schedule_cache_capacity() == 0, "PATCOLL_SCHEDULE_CACHE=0 disables the cache");
  patcoll::test::set_configuration("PATCOLL_SCHEDULE_CACHE", "x");
  suite.check(mpi::schedule_cache_capacity() == 16, "PATCOLL_SCHEDULE_CACHE=x keeps the default 16");
  patcoll::test::set_configuration("PATCOLL_SCHEDULE_CACHE", nullptr);
}

}  // namespace

// Counts that differ across ranks (rank 1 passes 63 elements, the others
// 64) are an error on some rank for every algorithm, never MPI_SUCCESS
// everywhere with elements missing (a receive shorter than the schedule's
// is MPI_ERR_TRUNCATE); nobody hangs (the executor drains), and the next
// call on the communicator is served correctly.
// (MPICH raises an error found while completing requests on
// MPI_COMM_WORLD's handler, which is fatal by default: the case sets it to
// return, as a program that wants errors back does.)
void differing_counts(patcoll::test::Suite &suite) {
  if (g_size < 2) return;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int wide = 64;
  std::vector<int> send(static_cast<std::size_t>(wide * g_size), 1), recv(static_cast<std::size_t>(wide * g_size));
  for (const char *collective : {"reduce", "allreduce", "scatter", "gather"}) {
    Collective c;
    core::parse_collective(collective, c);
    for (const std::string &algorithm : patcoll::test::algorithms_of(collective)) {
      if (algorithm == "native") continue;  // the MPI library's own behaviour is its business
      const int count = g_rank == 1 ? wide - 1 : wide;
      const int rc = patcoll::test::run_int(c, algorithm, send.data(), recv.data(), count, 0, MPI_COMM_WORLD);
      int mine = rc != MPI_SUCCESS, failed = 0;
      PMPI_Allreduce(&mine, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      const std::string what = std::string(collective) + " " + algorithm + ": ";
      suite.check(failed == 1, what + "counts that differ across ranks are an error on some rank");
      std::fill(recv.begin(), recv.end(), 0);
      const int again = patcoll::test::run_int(c, algorithm, send.data(), recv.data(), wide, 0, MPI_COMM_WORLD);
      const bool reduces = c == Collective::reduce || c == Collective::allreduce;
      const bool holds = g_rank == 0 || c == Collective::allreduce || c == Collective::scatter;
      bool right = again == MPI_SUCCESS;
      if (holds)
        for (int i = 0; i < (c == Collective::gather ? wide * g_size : wide) && right; ++i)
          right = recv[static_cast<std::size_t>(i)] == (reduces ? g_size : 1);
      suite.check(right, what + "the next call with equal counts is served correctly");
    }
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);  // the PAT runtime's thread
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  int rc;
  {
    patcoll::test::Suite suite;
    mpi::CommState *state = state_of(MPI_COMM_WORLD);
    suite.check(state != nullptr, "the communicator's state");
    if (state) {
      selection_order(suite, *state);
      params_from_configuration(suite, *state);
      cost_model_lookup(suite, *state);
      program_cache(suite, *state);
      persistent_cache(suite, *state);
      suite.check(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE provided");
      if (provided == MPI_THREAD_MULTIPLE) background_cache(suite);
      cache_capacity(suite);
      differing_counts(suite);
    }
    rc = suite.finish();
  }
  MPI_Finalize();
  return rc;
}
