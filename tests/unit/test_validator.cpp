// The validator must reject every kind of wrong Program it claims to catch;
// a validator that accepts everything would make every other test worthless.
#include <gtest/gtest.h>

#include "core/algorithm.hpp"
#include "core/builders/builders.hpp"
#include "core/validate.hpp"

using namespace patcoll::core;

namespace {

Params reduce_params(int procs, std::int64_t count, bool commutative = true) {
  Params p;
  p.collective = Collective::reduce;
  p.procs = procs;
  p.count = count;
  p.commutative = commutative;
  return p;
}

std::vector<Program> linear(const Params &p) {
  std::vector<Program> out;
  for (int r = 0; r < p.procs; ++r) out.push_back(reduce_linear(p, r));
  return out;
}

TEST(Validator, AcceptsLinearReduce) {
  auto p = reduce_params(4, 10);
  EXPECT_EQ(validate_all_modes(p, linear(p)), "");
}

TEST(Validator, RejectsAMissingReceive) {
  auto p = reduce_params(3, 10);
  auto programs = linear(p);
  programs[0].steps.pop_back();
  EXPECT_NE(validate(p, programs), "");
}

TEST(Validator, RejectsCountMismatch) {
  auto p = reduce_params(3, 10);
  auto programs = linear(p);
  programs[1].steps[0].ops[0].src.count = 9;
  EXPECT_NE(validate(p, programs).find("elements"), std::string::npos);
}

TEST(Validator, RejectsDoubleCounting) {
  auto p = reduce_params(3, 4);
  auto programs = linear(p);
  // Rank 1 sends twice, the root combines both.
  programs[1].steps.push_back(programs[1].steps[0]);
  programs[0].steps.push_back(programs[0].steps[1]);
  EXPECT_NE(validate(p, programs).find("twice"), std::string::npos);
}

TEST(Validator, RejectsMisplacedSegments) {
  auto p = reduce_params(2, 4);
  std::vector<Program> programs(2);
  programs[0] = {0, 2, 0, {}};
  programs[1] = {1, 2, 0, {}};
  add_step(programs[0], {copy_op(send_buf(0, 4), recv_buf(0, 4))});
  add_step(programs[0], {recv_op(1, recv_buf(0, 2), Combine::right)});
  add_step(programs[0], {recv_op(1, recv_buf(2, 2), Combine::right)});
  add_step(programs[1], {send_op(0, send_buf(2, 2)), send_op(0, send_buf(0, 2))});
  EXPECT_NE(validate(p, programs).find("combines element"), std::string::npos);
}

TEST(Validator, RejectsMissingContributions) {
  auto p = reduce_params(3, 4);
  auto programs = linear(p);
  programs[0].steps.pop_back();
  programs[2].steps.clear();
  EXPECT_NE(validate(p, programs).find("contributions"), std::string::npos);
}

TEST(Validator, RejectsRendezvousDeadlock) {
  auto p = reduce_params(2, 4);
  std::vector<Program> programs(2);
  programs[0] = {0, 2, 4, {}};
  programs[1] = {1, 2, 4, {}};
  // Both receive first, then send: deadlocks under rendezvous.
  add_step(programs[0], {copy_op(send_buf(0, 4), recv_buf(0, 4))});
  add_step(programs[0], {recv_op(1, scratch_buf(0, 4))});
  add_step(programs[0], {send_op(1, send_buf(0, 4))});
  add_step(programs[1], {recv_op(0, scratch_buf(0, 4))});
  add_step(programs[1], {send_op(0, send_buf(0, 4))});
  EXPECT_NE(validate(p, programs).find("deadlock"), std::string::npos);
}

TEST(Validator, RejectsWritesIntoTheSendBuffer) {
  auto p = reduce_params(2, 4);
  auto programs = linear(p);
  programs[1].steps.insert(programs[1].steps.begin(), Step{-1, {copy_op(send_buf(1, 1), send_buf(0, 1))}});
  EXPECT_NE(validate(p, programs).find("send buffer"), std::string::npos);
}

TEST(Validator, RejectsOutOfOrderNonCommutativeCombine) {
  auto p = reduce_params(3, 4, /*commutative=*/false);
  auto programs = linear(p);
  EXPECT_EQ(validate(p, programs), "");
  // Combine rank 2 before rank 1 would merge {0} with {2}: not adjacent.
  std::swap(programs[0].steps[1], programs[0].steps[2]);
  std::swap(programs[1].steps, programs[2].steps);
  programs[1].rank = 1;
  programs[2].rank = 2;
  EXPECT_NE(validate(p, programs).find("rank order"), std::string::npos);
}

TEST(Validator, RejectsOverlappingStoreAndSendInOneStep) {
  auto p = reduce_params(2, 4);
  std::vector<Program> programs(2);
  programs[0] = {0, 2, 4, {}};
  programs[1] = {1, 2, 4, {}};
  add_step(programs[0], {copy_op(send_buf(0, 4), scratch_buf(0, 4))});
  add_step(programs[0], {send_op(1, scratch_buf(0, 2)), recv_op(1, scratch_buf(1, 2))});
  add_step(programs[1], {recv_op(0, scratch_buf(0, 2)), send_op(0, send_buf(0, 2))});
  EXPECT_NE(validate(p, programs).find("stores into a region the same step sends"), std::string::npos);
}

TEST(Validator, SinglePortRejectsTwoSendsInAStep) {
  Params p;
  p.collective = Collective::scatter;
  p.procs = 3;
  p.count = 1;
  std::vector<Program> programs(3);
  for (int r = 0; r < 3; ++r) programs[r] = {r, 3, 0, {}};
  add_step(programs[0], {copy_op(send_buf(0, 1), recv_buf(0, 1)), send_op(1, send_buf(1, 1)), send_op(2, send_buf(2, 1))});
  add_step(programs[1], {recv_op(0, recv_buf(0, 1))});
  add_step(programs[2], {recv_op(0, recv_buf(0, 1))});
  EXPECT_EQ(validate_all_modes(p, programs), "");
  ValidateOptions single;
  single.single_port = true;
  EXPECT_NE(validate(p, programs, single), "");
}

TEST(Validator, ScatterWrongBlockIsRejected) {
  Params p;
  p.collective = Collective::scatter;
  p.procs = 2;
  p.count = 2;
  std::vector<Program> programs(2);
  for (int r = 0; r < 2; ++r) programs[r] = {r, 2, 0, {}};
  add_step(programs[0], {copy_op(send_buf(0, 2), recv_buf(0, 2)), send_op(1, send_buf(0, 2))});
  add_step(programs[1], {recv_op(0, recv_buf(0, 2))});
  EXPECT_NE(validate(p, programs), "");
}

}  // namespace
