// The validator must reject every kind of wrong Program it claims to catch;
// a validator that accepts everything would make every other test worthless.
#include <gtest/gtest.h>

#include "core/algorithm.hpp"
#include "core/builders/builders.hpp"
#include "core/validate.hpp"
#include "relay_programs.hpp"

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

// ---- Tags, groups and dependencies within a step (core/ir.hpp) -----------

namespace {

Params allreduce_params(int procs, std::int64_t count) {
  Params p;
  p.collective = Collective::allreduce;
  p.procs = procs;
  p.count = count;
  return p;
}

}  // namespace

TEST(ValidatorDependencies, AcceptsOneStepOwnerTrees) {
  for (int procs : {1, 2, 3, 5, 8, 13}) {
    for (int units : {1, procs, 3 * procs + 1}) {
      for (int window : {1, 2, 64}) {
        for (std::int64_t count : {std::int64_t{0}, std::int64_t{1}, std::int64_t{7}, std::int64_t{100}}) {
          const Params p = allreduce_params(procs, count);
          const auto programs = relay_programs::allreduce_owner_trees_all(p, units, window);
          EXPECT_EQ(validate_all_modes(p, programs), "") << "P " << procs << " units " << units << " window " << window << " count " << count;
        }
      }
    }
  }
}

TEST(ValidatorDependencies, InPlaceNeedsTheResultToWaitForThePart) {
  const Params p = allreduce_params(4, 40);
  const auto programs = relay_programs::allreduce_owner_trees_all(p, 8, 2, /*in_place_safe=*/false);
  EXPECT_EQ(validate(p, programs), "");
  ValidateOptions in_place;
  in_place.in_place = true;
  EXPECT_NE(validate(p, programs, in_place).find("neither waits for the other"), std::string::npos)
      << validate(p, programs, in_place);
}

TEST(ValidatorDependencies, TagsSeparateChannels) {
  // Rank 1 sends two halves on tags 1 and 2, the second first; rank 0
  // receives by tag, so they land right. With one tag they would cross.
  const Params p = reduce_params(2, 4);
  std::vector<Program> programs{{0, 2, 0, {}}, {1, 2, 0, {}}};
  add_step(programs[0], {copy_op(send_buf(0, 4), recv_buf(0, 4)), tagged(recv_op(1, recv_buf(0, 2), Combine::left), 1),
                         tagged(recv_op(1, recv_buf(2, 2), Combine::left), 2)});
  add_step(programs[1], {tagged(send_op(0, send_buf(2, 2)), 2), tagged(send_op(0, send_buf(0, 2)), 1)});
  EXPECT_EQ(validate(p, programs), "");
  programs[1].steps[0].ops[0].tag = 1;  // both on tag 1: FIFO crosses the halves
  programs[1].steps[0].ops[1].tag = 2;
  EXPECT_NE(validate(p, programs).find("combines element"), std::string::npos);
  programs[1].steps[0].ops[1].tag = 3;  // a tag nobody receives
  EXPECT_NE(validate(p, programs).find("with tag"), std::string::npos);
}

TEST(ValidatorDependencies, RejectsBrokenDependencies) {
  const Params p = allreduce_params(4, 40);
  const auto good = relay_programs::allreduce_owner_trees_all(p, 8, 2);
  ASSERT_EQ(validate(p, good), "");
  auto find = [](const Program &program, auto predicate) {
    const auto &ops = program.steps[0].ops;
    return static_cast<std::size_t>(std::find_if(ops.begin(), ops.end(), predicate) - ops.begin());
  };
  {  // waiting for a group that does not exist
    auto programs = good;
    const std::size_t o = find(programs[1], [](const Op &op) { return op.after >= 0; });
    programs[1].steps[0].ops[o].after = 999;
    EXPECT_NE(validate(p, programs).find("has no op in the step"), std::string::npos);
  }
  auto forward = [&](const Program &program) {
    return find(program, [](const Op &op) { return op.kind == OpKind::send && op.after >= 0 && op.after < 8; });
  };
  {  // a relay that does not wait for what it forwards sends memory being received
    auto programs = good;
    const std::size_t o = forward(programs[1]);  // unit 0: rank 1 relays to rank 3
    programs[1].steps[0].ops[o].after = -1;
    EXPECT_NE(validate(p, programs).find("a receive stores into a region the same step sends"), std::string::npos)
        << validate(p, programs);
  }
  {  // an owner that does not wait for the parts sends its own part only
    auto programs = good;
    const std::size_t o = forward(programs[0]);  // unit 0: rank 0 owns it
    programs[0].steps[0].ops[o].after = -1;
    EXPECT_NE(validate(p, programs).find("contributions"), std::string::npos) << validate(p, programs);
  }
  {  // a group that waits for itself
    auto programs = good;
    const std::size_t o = find(programs[2], [](const Op &op) { return op.kind == OpKind::send && op.group >= 8 && op.after >= 8; });
    ASSERT_LT(o, programs[2].steps[0].ops.size());
    programs[2].steps[0].ops[o].after = programs[2].steps[0].ops[o].group;
    EXPECT_NE(validate(p, programs).find("waits for itself"), std::string::npos);
  }
  {  // a local op cannot wait
    auto programs = good;
    programs[0].steps[0].ops[0].after = 0;
    EXPECT_NE(validate(p, programs).find("local op"), std::string::npos);
  }
  {  // a dependent op shares its channel with another op: matching would depend on timing
    auto programs = good;
    const std::size_t o = find(programs[1], [](const Op &op) { return op.kind == OpKind::send && op.after >= 0; });
    Op twin = programs[1].steps[0].ops[o];
    twin.after = -1;
    twin.group = -1;
    programs[1].steps[0].ops.push_back(twin);
    EXPECT_NE(validate(p, programs).find("matching would depend on timing"), std::string::npos);
  }
  {  // combining as the parts come needs a commutative op
    Params q = p;
    q.commutative = false;
    EXPECT_NE(validate(q, good).find("non-commutative"), std::string::npos);
  }
}

TEST(ValidatorDependencies, FindsADeadlockThroughDependencies) {
  // Each rank forwards only after receiving, and each receives only what
  // the other forwards: a cycle across ranks.
  const Params p = allreduce_params(2, 2);
  std::vector<Program> programs{{0, 2, 0, {}}, {1, 2, 0, {}}};
  for (int r = 0; r < 2; ++r)
    add_step(programs[r], {copy_op(send_buf(0, 2), recv_buf(0, 2)), tagged(recv_op(1 - r, scratch_buf(0, 2)), 0, 0),
                           tagged(send_op(1 - r, send_buf(0, 2)), 0, -1, 0)});
  programs[0].scratch_count = programs[1].scratch_count = 2;
  EXPECT_NE(validate(p, programs).find("deadlock"), std::string::npos);
}
