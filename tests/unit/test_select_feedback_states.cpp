// The measured feedback's state machine (core/select/feedback.hpp), one
// transition at a time: each test is one rule of docs/results/adaptive.md.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/select.hpp"

namespace patcoll::core {
namespace {

using Kind = FeedbackEvent::Kind;

struct Machine {
  FeedbackRules rules;
  ShapeFeedback shape;
  PatternFeedback pattern;

  Machine() { cached(); }
  void cached() { transition(rules, &shape, &pattern, {.kind = Kind::pattern_cached}); }
  // One measured call of the shape's pattern choosing `choice`: the clock
  // ticks, then the call is selected. True when native runs instead.
  bool call(std::string_view choice = "clairvoyant", bool measured = true) {
    if (measured) transition(rules, &shape, nullptr, {.kind = Kind::shape_call});
    return transition(rules, &shape, &pattern, {.kind = Kind::call_selected, .algorithm = choice, .measured = measured})
        .probe;
  }
  std::optional<Verdict> record(std::string_view algorithm, double tail, double predicted = NAN) {
    return transition(rules, &shape, &pattern,
                      {.kind = Kind::measured_tail_recorded, .algorithm = algorithm, .tail = tail,
                       .predicted_after_last = predicted})
        .verdict;
  }
  // A call whose measurement is recorded at once: `choice` at `tail`, native at `native_tail`.
  std::optional<Verdict> measured_call(double tail, double native_tail, std::string_view choice = "clairvoyant") {
    const bool probe = call(choice);
    return record(probe ? native_name : choice, probe ? native_tail : tail);
  }
};

TEST(FeedbackStates, ANewPatternProbesNativeOnItsOddCallsUntilNativeHasItsSamples) {
  Machine m;
  std::string runs;
  for (int k = 0; k < 8; ++k) {
    runs += m.call() ? 'N' : 'C';
    if (k < 5) {
      EXPECT_EQ(m.pattern.state, PatternState::probing_native) << "after call " << k;
    }
  }
  EXPECT_EQ(runs, "CNCNCNCC");
  EXPECT_EQ(m.pattern.native_runs, m.rules.samples);
  EXPECT_EQ(m.shape.state, ShapeState::trusting);
}

TEST(FeedbackStates, AChoiceMeasuredFasterIsConfirmed) {
  Machine m;
  for (int k = 0; k < 8; ++k) EXPECT_FALSE(m.measured_call(7e-3, 10e-3)) << "call " << k;
  EXPECT_EQ(m.pattern.state, PatternState::confirmed);
  EXPECT_TRUE(m.pattern.dropped.empty());
}

TEST(FeedbackStates, AClearLossDropsTheChoiceOnSamplesTailsOfEach) {
  Machine m;
  std::optional<Verdict> verdict;
  int call = 0;
  for (; call < 10 && !verdict; ++call) verdict = m.measured_call(14e-3, 10e-3);
  ASSERT_TRUE(verdict);
  EXPECT_EQ(call, 6);  // the third native tail comes with call 5
  EXPECT_EQ(verdict->name, "clairvoyant");
  EXPECT_EQ(verdict->samples, m.rules.samples);
  EXPECT_EQ(verdict->native_samples, m.rules.samples);
  EXPECT_EQ(m.pattern.state, PatternState::dropped);
  EXPECT_TRUE(m.pattern.dropped.count("clairvoyant"));
}

TEST(FeedbackStates, ASmallLossIsConfirmedUntilBothSidesFillTheWindow) {
  Machine m;
  bool confirming = false;
  std::optional<Verdict> verdict;
  for (int k = 0; k < 16 && !verdict; ++k) {
    verdict = m.measured_call(11e-3, 10e-3);
    confirming = confirming || m.pattern.state == PatternState::confirming;
  }
  EXPECT_TRUE(confirming);
  ASSERT_TRUE(verdict);
  EXPECT_EQ(verdict->samples, m.rules.window);
  EXPECT_EQ(verdict->native_samples, m.rules.window);
}

TEST(FeedbackStates, AChoiceSlowerThanNativesOlderTailsConfirmsOnTailsOfTheSameMinutes) {
  Machine m;
  for (int k = 0; k < 8; ++k) m.measured_call(7e-3, 10e-3);  // confirmed: 0.7x native
  ASSERT_EQ(m.pattern.state, PatternState::confirmed);
  // The machine slows down 2.5x: the choice's new tails exceed native's old ones.
  for (int k = 0; k < 3; ++k) m.record("clairvoyant", 17.5e-3);
  EXPECT_EQ(m.pattern.state, PatternState::confirming);
  EXPECT_TRUE(m.call());  // native now, to compare the same minutes
}

TEST(FeedbackStates, ThePeriodElapsedMovesAConfirmedPatternToReProbe) {
  Machine m;
  for (int k = 0; k < 8; ++k) m.measured_call(7e-3, 10e-3);
  ASSERT_EQ(m.pattern.state, PatternState::confirmed);
  int probes = 0, calls = 0;
  for (; calls < 200 && probes == 0; ++calls) probes += m.call();
  EXPECT_EQ(probes, 1);
  EXPECT_EQ(m.shape.clock, 6 + m.rules.age);  // native last ran on the 6th call (clock 6)
  EXPECT_EQ(m.pattern.state, PatternState::confirmed);  // the probe ran: the age starts again
  EXPECT_FALSE(m.call());
}

TEST(FeedbackStates, ADropMakesTheShapeLosingForLossCallsDoubledAtTheNextDrop) {
  Machine m;
  while (!m.measured_call(14e-3, 10e-3)) {}
  EXPECT_EQ(m.shape.state, ShapeState::losing);
  EXPECT_EQ(m.shape.loss_calls, m.rules.loss_calls);
  for (std::size_t k = 0; k < m.rules.loss_calls; ++k) m.call(native_name);
  EXPECT_EQ(m.shape.state, ShapeState::trusting);
  // Another pattern of the shape drops its choice: losing for twice as long.
  m.pattern = PatternFeedback{};
  m.cached();
  while (!m.measured_call(14e-3, 10e-3, "bi_greedy")) {}
  EXPECT_EQ(m.shape.loss_calls, 2 * m.rules.loss_calls);
  EXPECT_EQ(m.shape.state, ShapeState::losing);
}

TEST(FeedbackStates, AnUnmeasuredCallMakesNoTransition) {
  Machine m;
  m.call();
  const std::size_t calls = m.pattern.calls, clock = m.shape.clock;
  for (int k = 0; k < 5; ++k) EXPECT_FALSE(m.call("clairvoyant", false));
  EXPECT_EQ(m.pattern.calls, calls);
  EXPECT_EQ(m.shape.clock, clock);
  EXPECT_TRUE(m.call());  // the second measured call is still the first probe
}

TEST(FeedbackStates, WithFeedbackOffThePatternTrustsTheModel) {
  Machine m;
  m.rules.feedback = false;
  for (int k = 0; k < 8; ++k) EXPECT_FALSE(m.call()) << "call " << k;
  EXPECT_EQ(m.pattern.state, PatternState::trusting_model);
}

TEST(FeedbackStates, ANonFiniteTailIsIgnored) {
  Machine m;
  m.call();
  EXPECT_FALSE(m.record("clairvoyant", NAN));
  EXPECT_FALSE(m.record("clairvoyant", INFINITY));
  EXPECT_TRUE(m.pattern.tails.empty());
}

TEST(FeedbackStates, TheModelErrorIsTheMedianOfMeasuredMinusPredictedOnceThereAreSamples) {
  Machine m;
  m.record(native_name, 12e-3, 10e-3);
  m.record(native_name, 13e-3, 10e-3);
  EXPECT_TRUE(std::isnan(m.shape.error_of(native_name, m.rules.samples)));
  m.record(native_name, 11e-3, 10e-3);
  EXPECT_NEAR(m.shape.error_of(native_name, m.rules.samples), 2e-3, 1e-15);
  m.record("clairvoyant", 5e-3);  // no prediction: no error
  EXPECT_FALSE(m.shape.model_error.count("clairvoyant"));
}

TEST(FeedbackStates, TheSelectorReportsAPatternsState) {
  Selector selector;
  Params p;
  p.collective = Collective::reduce;
  p.procs = 8;
  p.count = 1 << 20;
  p.element_bytes = 4;
  p.arrivals.assign(8, 0.0);
  p.arrivals[7] = balanced_prediction(p);
  std::string pattern;
  for (int k = 0; k < 10; ++k) {
    const Selection s = selector.select(p);
    pattern = s.pattern;
    if (k == 0) {
      EXPECT_EQ(selector.pattern_state(pattern), PatternState::probing_native);
    }
    selector.record(s.pattern, s.name, s.name == native_name ? 10e-3 : 20e-3);
  }
  EXPECT_EQ(selector.pattern_state(pattern), PatternState::dropped);
  EXPECT_EQ(selector.pattern_state("no such pattern"), PatternState::trusting_model);
}

}  // namespace
}  // namespace patcoll::core
