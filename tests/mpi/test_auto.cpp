// MPI driver: `auto` with an arrival pattern (docs/results/selection.md), through
// the public API only. Every rank must choose the same algorithm (checked by
// comparing the choices of all ranks), results equal native's, and the
// choice follows the pattern: no vector or a balanced one -> native or a
// classic algorithm predicted faster; one rank late by far more than the
// collective -> a PAP-aware algorithm; never a commutative-only algorithm
// for a non-commutative op; small messages -> native.
#include <mpi.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/algorithm.hpp"
#include "mpi_test.hpp"
#include "patcoll.h"

namespace {

int g_rank = 0, g_size = 1;

bool pap_aware(const std::string &name) {
  for (const char *n : {"clairvoyant", "uni_greedy", "bi_greedy", "slt", "prr", "slin", "sbn", "sls"})
    if (name == n) return true;
  return false;
}
// `name` is native or an algorithm `auto` may run in the foreground for
// `collective` (a catalogue row, not one of the PAT runtime's).
bool foreground(patcoll::core::Collective collective, const std::string &name) {
  if (name == "native") return true;
  const patcoll::core::Algorithm *algorithm = patcoll::core::find_algorithm(collective, name);
  return algorithm && !(algorithm->capabilities & patcoll::core::background);
}

// A non-commutative, associative user op: x ∘ y = x (the left operand
// wins). Reduced in rank order, the result is rank 0's value.
void left_wins(void *in, void *inout, int *len, MPI_Datatype *) {
  std::memcpy(inout, in, static_cast<std::size_t>(*len) * sizeof(int));
}

void run(patcoll::test::Suite &suite, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int count = 1 << 18;  // 1 MiB of floats: above auto's 16 KiB
  std::vector<float> send(count), got(count), want(count);
  for (int i = 0; i < count; ++i) send[static_cast<std::size_t>(i)] = static_cast<float>((rank + 1) * (i % 7));
  PMPI_Allreduce(send.data(), want.data(), count, MPI_FLOAT, MPI_SUM, comm);
  const std::string where = " (P=" + std::to_string(size) + ")";

  auto allreduce = [&](const char *what) {
    std::fill(got.begin(), got.end(), -1.0f);
    const int rc = PAT_Allreduce(send.data(), got.data(), count, MPI_FLOAT, MPI_SUM, comm);
    suite.check(rc == MPI_SUCCESS && got == want, std::string(what) + ": allreduce result" + where);
    const std::string chosen = patcoll::test::last_algorithm(comm, "allreduce");
    suite.check(patcoll::test::same_on_every_rank(comm, chosen), std::string(what) + ": every rank chose the same (" + chosen + ")" + where);
    return chosen;
  };

  // No PAT vector: native, or a classic algorithm the model predicts
  // faster (then measured against native: tests/mpi/test_feedback.cpp).
  PAT_Set_arrivals(comm, nullptr);
  const std::string unpatterned = allreduce("no PATs");
  suite.check(foreground(patcoll::core::Collective::allreduce, unpatterned), "no PATs: native or a foreground algorithm (" + unpatterned + ")" + where);

  if (size < 2) return;
  // Balanced vector: as without one.
  std::vector<double> pats(static_cast<std::size_t>(size), 0.0);
  PAT_Set_arrivals(comm, pats.data());
  const std::string balanced = allreduce("balanced");
  suite.check(foreground(patcoll::core::Collective::allreduce, balanced), "balanced PATs: native or a foreground algorithm (" + balanced + ")" + where);

  // One rank late by 1 s (hundreds of times the modelled collective): with
  // P >= 4 the model predicts the Clairvoyant allreduce faster after the
  // last arrival (tests/unit/test_select.cpp proves the model's side); with
  // a pattern, auto runs native, a PAP-aware algorithm, or (with the
  // measured feedback, the default) a classic one predicted as fast as
  // native, measured against native's probes; never a background row.
  pats[static_cast<std::size_t>(size - 1)] = 1.0;
  PAT_Set_arrivals(comm, pats.data());
  const std::string late = allreduce("one late by 1 s");
  suite.check(foreground(patcoll::core::Collective::allreduce, late), "one late: native or a foreground algorithm (" + late + ")" + where);
  if (size >= 4) suite.check(pap_aware(late), "one late, P >= 4: a PAP-aware algorithm (" + late + ")" + where);
  // Back to balanced: the balanced ranking's choice, as at first.
  std::fill(pats.begin(), pats.end(), 0.0);
  PAT_Set_arrivals(comm, pats.data());
  const std::string again = allreduce("balanced again");
  // (No vector and a balanced one are the same pattern: its choice, or
  // native on the calls that probe it.)
  suite.check(again == unpatterned || again == balanced,
              "balanced again: the balanced pattern's choice or native probe (" + again + "; before: " + unpatterned +
                  ", " + balanced + ")" + where);

  // Changing patterns, 12 calls: every rank agrees every time (checked in allreduce()).
  for (int k = 0; k < 12; ++k) {
    std::fill(pats.begin(), pats.end(), 0.0);
    pats[static_cast<std::size_t>(k % size)] = 0.002 * k;
    pats[static_cast<std::size_t>((3 * k + 1) % size)] += 0.0005 * (k % 3);
    PAT_Set_arrivals(comm, pats.data());
    allreduce(("changing pattern " + std::to_string(k)).c_str());
  }

  // Reduce, one late, at a non-zero root.
  {
    std::fill(pats.begin(), pats.end(), 0.0);
    pats[0] = 1.0;
    PAT_Set_arrivals(comm, pats.data());
    const int root = size - 1;
    std::vector<float> reduced(count, -1.0f);
    const int rc = PAT_Reduce(send.data(), reduced.data(), count, MPI_FLOAT, MPI_SUM, root, comm);
    suite.check(rc == MPI_SUCCESS && (rank != root || reduced == want), "one late: reduce result" + where);
    const std::string chosen = patcoll::test::last_algorithm(comm, "reduce");
    // (With only rank 0 late, the linear reduce the MPI library could run
    // is already at the bound, so native is a right answer here too.)
    suite.check(patcoll::test::same_on_every_rank(comm, chosen) && foreground(patcoll::core::Collective::reduce, chosen),
                "one late: reduce chose native or a foreground algorithm (" + chosen + ")" + where);
  }

  // A non-commutative op: never a commutative-only algorithm; right result.
  {
    MPI_Op op;
    MPI_Op_create(left_wins, 0, &op);
    std::vector<int> isend(count / 4), iwant(count / 4), igot(count / 4);
    for (std::size_t i = 0; i < isend.size(); ++i) isend[i] = rank + static_cast<int>(i % 5);
    PMPI_Allreduce(isend.data(), iwant.data(), count / 4, MPI_INT, op, comm);
    PAT_Set_arrivals(comm, pats.data());
    const int rc = PAT_Allreduce(isend.data(), igot.data(), count / 4, MPI_INT, op, comm);
    const std::string chosen = patcoll::test::last_algorithm(comm, "allreduce");
    suite.check(rc == MPI_SUCCESS && igot == iwant, "non-commutative op: result (" + chosen + ")" + where);
    suite.check(chosen != "ring" && chosen != "prr" && chosen != "slt" && chosen != "clairvoyant",
                "non-commutative op: no commutative-only algorithm (" + chosen + ")" + where);
    MPI_Op_free(&op);
  }

  // Small messages: native, unmeasured, even with a late rank.
  {
    std::vector<float> small_got(16), small_want(16);
    PMPI_Allreduce(send.data(), small_want.data(), 16, MPI_FLOAT, MPI_SUM, comm);
    PAT_Allreduce(send.data(), small_got.data(), 16, MPI_FLOAT, MPI_SUM, comm);
    suite.check(small_got == small_want && patcoll::test::last_algorithm(comm, "allreduce") == "native",
                "small message with a late rank: native (" + patcoll::test::last_algorithm(comm, "allreduce") + ")" + where);
  }
  PAT_Set_arrivals(comm, nullptr);
}

void api_errors(patcoll::test::Suite &suite) {
  const char *name = "x";
  suite.check(PAT_Get_last_algorithm(MPI_COMM_WORLD, "reduce", nullptr) == MPI_ERR_ARG, "NULL name: MPI_ERR_ARG");
  suite.check(PAT_Get_last_algorithm(MPI_COMM_WORLD, "bogus", &name) == MPI_ERR_ARG,
              "unknown collective: MPI_ERR_ARG");
  suite.check(PAT_Get_last_algorithm(MPI_COMM_NULL, "reduce", &name) == MPI_ERR_COMM,
              "MPI_COMM_NULL: MPI_ERR_COMM");
  MPI_Comm fresh;
  MPI_Comm_dup(MPI_COMM_WORLD, &fresh);
  name = "x";
  suite.check(PAT_Get_last_algorithm(fresh, "gather", &name) == MPI_SUCCESS && name == nullptr,
              "a communicator patcoll never served: NULL, and no set-up (local call)");
  MPI_Comm_free(&fresh);
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  patcoll::test::Suite suite;
  api_errors(suite);
  run(suite, MPI_COMM_WORLD);
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, g_rank % 2, g_rank, &half);
  run(suite, half);
  MPI_Comm_free(&half);
  const int rc = suite.finish();
  MPI_Finalize();
  return rc;
}
