// MPI driver: inputs that would make ranks build different or degenerate
// schedules are refused with an MPI error code on every rank — never a
// wrong result with MPI_SUCCESS (docs/results/agreement.md). Cost models must be
// positive and finite, PAT vectors finite, and the schedule inputs (PAT
// vector, per-communicator and process-wide cost model, PATCOLL_SEGMENTS /
// PATCOLL_SEGMENT_BYTES) the same on every rank. A refused setter keeps
// the previous value, a successful one clears PAT_Last_error().
#include <mpi.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "core/algorithm.hpp"
#include "mpi/registry.hpp"
#include "mpi_test.hpp"
#include "patcoll.h"

using patcoll::core::Collective;
using patcoll::test::error_class_name;

namespace {

const double inf = std::numeric_limits<double>::infinity();
const double nan_value = std::numeric_limits<double>::quiet_NaN();

int error_class(int rc) {
  int cls = rc;
  MPI_Error_class(rc, &cls);
  return cls;
}

// Runs `algorithm` of `collective` (MPI_INT, MPI_SUM) on comm and compares
// with native; "" when right, else what went wrong.
std::string compare_with_native(Collective c, const std::string &algorithm, MPI_Comm comm, int count = 40) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int root = size - 1;
  const bool movement = c == Collective::scatter || c == Collective::gather;
  const std::size_t whole = static_cast<std::size_t>(count) * (movement ? size : 1);
  std::vector<int> send(c == Collective::gather ? count : whole), expected(whole, -1), got(whole, -1);
  for (std::size_t i = 0; i < send.size(); ++i) send[i] = rank * 100 + static_cast<int>(i % 89);
  auto run = [&](const std::string &name, std::vector<int> &out) {
    return patcoll::test::run_int(c, name, send.data(), out.data(), count, root, comm);
  };
  if (int rc = run("native", expected); rc != MPI_SUCCESS) return "native returned " + error_class_name(rc);
  const int rc = run(algorithm, got);
  if (rc != MPI_SUCCESS) return "returned " + error_class_name(rc) + " " + PAT_Last_error();
  const bool has_result = c == Collective::allreduce || c == Collective::scatter || rank == root;
  const std::size_t compared = c == Collective::scatter ? static_cast<std::size_t>(count) : whole;
  if (has_result && !std::equal(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(compared), expected.begin()))
    return "result differs from native";
  return {};
}

// Every PAP-aware and schedule-based algorithm of every collective (the
// ones whose schedule depends on the PAT vector and the cost model) gives
// native's result on comm.
void all_scheduled_right(patcoll::test::Suite &suite, MPI_Comm comm, const std::string &after) {
  int size;
  MPI_Comm_size(comm, &size);
  for (Collective c : {Collective::reduce, Collective::allreduce, Collective::scatter, Collective::gather})
    for (const auto &entry : patcoll::mpi::entries(c)) {
      if (!(entry.capabilities.bits & (patcoll::core::pap_aware | patcoll::core::schedule_based))) continue;
      const std::string verdict = compare_with_native(c, std::string(entry.name), comm);
      suite.check(verdict.empty(), std::string(patcoll::core::to_string(c)) + " " + std::string(entry.name) +
                                       " after " + after + " P=" + std::to_string(size) + ": " + verdict);
    }
}

void expect_class(patcoll::test::Suite &suite, int rc, int expected, const std::string &what) {
  suite.check(rc != MPI_SUCCESS && error_class(rc) == expected,
              what + ": expected " + error_class_name(expected) + ", got " + error_class_name(rc));
  suite.check(std::string(PAT_Last_error()).size() > 0, what + ": no PAT_Last_error() text");
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int status;
  {
    patcoll::test::Suite suite;
    const MPI_Comm world = MPI_COMM_WORLD;

    // --- cost models: positive and finite, per communicator and process-wide.
    struct Model { double alpha, beta, gamma; const char *name; };
    const Model bad_models[] = {{1e-6, inf, 1e-10, "beta = inf"},   {1e-6, 1e-9, inf, "gamma = inf"},
                                {inf, 1e-9, 1e-10, "alpha = inf"},  {nan_value, 1e-9, 1e-10, "alpha = nan"},
                                {1e-6, nan_value, 1e-10, "beta = nan"}, {0, 1e-9, 1e-10, "alpha = 0"},
                                {1e-6, 0, 1e-10, "beta = 0"},       {1e-6, 1e-9, 0, "gamma = 0"},
                                {-1e-6, 1e-9, 1e-10, "alpha < 0"}};
    for (const Model &m : bad_models) {
      expect_class(suite, PAT_Set_cost_model(world, m.alpha, m.beta, m.gamma), MPI_ERR_ARG,
                   std::string("PAT_Set_cost_model(world, ") + m.name + ")");
      expect_class(suite, PAT_Set_cost_model(MPI_COMM_NULL, m.alpha, m.beta, m.gamma), MPI_ERR_ARG,
                   std::string("PAT_Set_cost_model(MPI_COMM_NULL, ") + m.name + ")");
    }
    all_scheduled_right(suite, world, "refused infinite / zero cost models");

    // A successful setter clears the previous error text.
    suite.check(PAT_Set_cost_model(world, 2e-6, 5e-10, 2e-10) == MPI_SUCCESS, "valid cost model refused");
    suite.check(std::string(PAT_Last_error()).empty(), "PAT_Set_cost_model success left an old PAT_Last_error()");
    PAT_Set_cost_model(world, nan_value, 1, 1);
    suite.check(PAT_Set_cost_model(MPI_COMM_NULL, 2e-6, 5e-10, 2e-10) == MPI_SUCCESS &&
                    std::string(PAT_Last_error()).empty(),
                "PAT_Set_cost_model(MPI_COMM_NULL) success left an old PAT_Last_error()");
    PAT_Set_cost_model(world, nan_value, 1, 1);
    suite.check(PAT_Set_arrivals(world, nullptr) == MPI_SUCCESS && std::string(PAT_Last_error()).empty(),
                "PAT_Set_arrivals success left an old PAT_Last_error()");
    PAT_Set_cost_model(world, nan_value, 1, 1);
    suite.check(PAT_Set_algorithm(world, "reduce", "") == MPI_SUCCESS && std::string(PAT_Last_error()).empty(),
                "PAT_Set_algorithm success left an old PAT_Last_error()");

    // --- PAT vectors: finite on every rank; a non-finite value on one rank
    // is refused on every rank (the call is collective).
    std::vector<double> pats(static_cast<std::size_t>(size));
    for (int i = 0; i < size; ++i) pats[static_cast<std::size_t>(i)] = 1e-3 * ((i * 7) % 5);
    suite.check(PAT_Set_arrivals(world, pats.data()) == MPI_SUCCESS, "a valid PAT vector was refused");
    for (double bad : {nan_value, inf, -inf, 1e300}) {
      std::vector<double> mine = pats;
      if (rank == size - 1) mine[0] = bad;
      expect_class(suite, PAT_Set_arrivals(world, mine.data()), MPI_ERR_ARG,
                   "PAT_Set_arrivals with " + std::to_string(bad) + " on the last rank");
    }
    all_scheduled_right(suite, world, "a refused non-finite PAT vector");

    if (size > 1) {
      // --- PAT vectors that differ between ranks: refused on every rank, the
      // previous (agreed) vector stays, results stay right.
      std::vector<double> differing = pats;
      differing[static_cast<std::size_t>(rank)] += 5e-3;  // every rank believes itself late
      expect_class(suite, PAT_Set_arrivals(world, differing.data()), MPI_ERR_ARG, "PAT vectors differing across ranks");
      all_scheduled_right(suite, world, "refused differing PAT vectors");
      // One rank clears while the others set.
      expect_class(suite, PAT_Set_arrivals(world, rank == 0 ? nullptr : pats.data()), MPI_ERR_ARG,
                   "PAT vector cleared on rank 0 only");
      // --- cost models that differ between ranks.
      expect_class(suite, PAT_Set_cost_model(world, 1e-6 * (1 + rank), 1e-9, 1e-10), MPI_ERR_ARG,
                   "cost models differing across ranks");
      all_scheduled_right(suite, world, "refused differing cost models");

      // --- process-wide inputs, checked at the first collective on a
      // communicator: a process default cost model or PATCOLL_SEGMENTS that
      // differs between ranks is refused there (on every rank), then works
      // once the ranks agree.
      MPI_Comm fresh;
      MPI_Comm_dup(world, &fresh);
      PAT_Set_cost_model(MPI_COMM_NULL, 1e-6 * (1 + rank), 1e-9, 1e-10);
      {
        std::vector<int> in(8, rank), out(8, -1);
        expect_class(suite, PAT_Allreduce_with("ring", in.data(), out.data(), 8, MPI_INT, MPI_SUM, fresh), MPI_ERR_ARG,
                     "process-wide cost models differing across ranks");
        suite.check(out == std::vector<int>(8, -1), "refused call touched the receive buffer");
      }
      PAT_Set_cost_model(MPI_COMM_NULL, 2e-6, 5e-10, 2e-10);
      patcoll::test::set_configuration("PATCOLL_SEGMENTS", rank == 0 ? "2" : "3");
      {
        std::vector<int> in(8, rank), out(8, -1);
        expect_class(suite, PAT_Reduce_with("clairvoyant", in.data(), out.data(), 8, MPI_INT, MPI_SUM, 0, fresh),
                     MPI_ERR_ARG, "PATCOLL_SEGMENTS differing across ranks");
        suite.check(out == std::vector<int>(8, -1), "refused call touched the receive buffer");
      }
      patcoll::test::set_configuration("PATCOLL_SEGMENTS", nullptr);
      all_scheduled_right(suite, fresh, "the ranks agreed again");
      MPI_Comm_free(&fresh);
    }

    // --- malformed PATCOLL_SEGMENTS / PATCOLL_SEGMENT_BYTES: MPI_ERR_ARG,
    // buffers untouched (the same value on every rank).
    for (const char *variable : {"PATCOLL_SEGMENTS", "PATCOLL_SEGMENT_BYTES"})
      for (const char *bad : {"abc", "0", "-3", "12x", "99999999999999999999999"}) {
        patcoll::test::set_configuration(variable, bad);
        std::vector<int> in(8, rank), out(8, -1);
        expect_class(suite, PAT_Allreduce_with("ring", in.data(), out.data(), 8, MPI_INT, MPI_SUM, world), MPI_ERR_ARG,
                     std::string(variable) + "=" + bad);
        suite.check(out == std::vector<int>(8, -1), std::string(variable) + "=" + bad + ": receive buffer touched");
        patcoll::test::set_configuration(variable, nullptr);
      }
    // PATCOLL_CLAIRVOYANT_JOIN shapes Clairvoyant's schedule the same way:
    // a value that is not a join rule is MPI_ERR_ARG, not the default.
    patcoll::test::set_configuration("PATCOLL_CLAIRVOYANT_JOIN", "middle");
    {
      std::vector<int> in(8, rank), out(8, -1);
      expect_class(suite, PAT_Allreduce_with("ring", in.data(), out.data(), 8, MPI_INT, MPI_SUM, world), MPI_ERR_ARG,
                   "PATCOLL_CLAIRVOYANT_JOIN=middle");
      suite.check(out == std::vector<int>(8, -1), "PATCOLL_CLAIRVOYANT_JOIN=middle: receive buffer touched");
    }
    patcoll::test::set_configuration("PATCOLL_CLAIRVOYANT_JOIN", nullptr);
    all_scheduled_right(suite, world, "malformed segment variables were unset");

    PAT_Set_arrivals(world, nullptr);
    status = suite.finish();
  }
  MPI_Finalize();
  return status;
}
