// `auto`'s selector replayed against a golden trace (tests/unit/golden/select_replay.txt).
//
// A long scripted sequence of calls (Params with a PAT vector or none) and
// measured tails drives core::Selector through every rule of
// docs/results/selection.md and docs/results/adaptive.md: the size rule, balanced
// vectors, the model's ranking and hysteresis, quantisation, the cache and
// its bound, the period, families, the probes, drops on a clear and on a
// small loss, the re-probe every feedback_age calls, same-minute
// confirmation under drift, the model error across patterns, the losing
// shape, unmeasured calls and feedback switched off and on. Every Selection
// and every Verdict is written as one line; the trace must equal the golden
// file byte for byte, so a change of the selector's structure that changes
// any decision fails here. On a mismatch the trace is written to
// select_replay.actual.txt in the working directory (copy it over the golden
// file only when a change of behaviour is intended).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "core/algorithm.hpp"
#include "core/pat.hpp"
#include "core/select.hpp"
#include "core/simulate.hpp"

namespace patcoll::core {
namespace {

std::string number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

Params call(Collective collective, int procs, std::int64_t count) {
  Params p;
  p.collective = collective;
  p.procs = procs;
  p.count = count;
  p.element_bytes = 4;
  return p;
}

std::vector<double> one_late(int procs, int late, double delay) {
  std::vector<double> a(static_cast<std::size_t>(procs), 0.0);
  a[static_cast<std::size_t>(late)] = delay;
  return a;
}

double balanced_time(Params p) {
  p.arrivals.clear();
  double best = INFINITY;
  for (const Prediction &q : predict_candidates(p))
    if (!q.pap_aware) best = std::min(best, q.seconds);
  return best;
}

double predicted_after_last(const Selection &s) {
  for (const Prediction &q : s.predictions)
    if (q.name == s.name) return q.seconds - imbalance(s.arrivals);
  return NAN;
}

// A deterministic generator (no library distribution: the same numbers
// with every standard library).
struct Lcg {
  std::uint64_t state;
  double next() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) / 9007199254740992.0;
  }
};

class Replay {
 public:
  std::ostringstream out;

  void scenario(const std::string &name, Selector &selector) {
    out << "== " << name << " (hysteresis " << number(selector.options().hysteresis) << ", period "
        << selector.options().period << ", cache " << selector.options().cache_entries << ", feedback "
        << selector.options().feedback << ")\n";
    step_ = 0;
  }

  Selection select(Selector &selector, const Params &p, bool measured = true) {
    const Selection s = selector.select(p, measured);
    out << "s" << step_++ << (measured ? "" : " unmeasured") << " coll=" << to_string(p.collective)
        << " n=" << p.count << " -> " << s.name << " changed=" << s.changed << " deferred=" << s.deferred
        << " simulated=" << s.simulated << " hit=" << s.cache_hit << " family=" << s.family
        << " probe=" << s.probe << " pattern=[" << s.pattern << "] arrivals=";
    for (double a : s.arrivals) out << number(a) << ',';
    out << " predictions=";
    for (const Prediction &q : s.predictions) out << q.name << (q.pap_aware ? "*" : "") << ':' << number(q.seconds) << ',';
    out << '\n';
    return s;
  }

  void record(Selector &selector, const std::string &pattern, std::string_view algorithm, double tail) {
    const std::optional<Verdict> v = selector.record(pattern, algorithm, tail);
    out << "  r " << algorithm << ' ' << number(tail) << " [" << pattern << "]";
    if (v)
      out << " VERDICT " << v->name << " tail=" << number(v->tail) << " native=" << number(v->native_tail)
          << " samples=" << v->samples << '/' << v->native_samples;
    out << '\n';
  }

  void end(Selector &selector) { out << "simulations=" << selector.simulations() << '\n'; }

 private:
  int step_ = 0;
};

// Every call of `p` (its vector set by `arrivals(k)`) selected and its tail
// recorded at once: `tail(k, selection)`; NaN records nothing.
void drive(Replay &r, Selector &selector, Params p, int calls, const std::function<std::vector<double>(int)> &arrivals,
           const std::function<double(int, const Selection &)> &tail) {
  for (int k = 0; k < calls; ++k) {
    if (arrivals) p.arrivals = arrivals(k);
    const Selection s = r.select(selector, p);
    const double t = tail(k, s);
    if (!std::isnan(t)) r.record(selector, s.pattern, s.name, t);
  }
}

bool native(const Selection &s) { return s.name == native_name; }

std::string replay() {
  Replay r;
  const Collective reductions[] = {Collective::reduce, Collective::allreduce};

  {  // The size rule: no vector, small messages, one process.
    Selector s;
    r.scenario("size rule", s);
    for (Collective c : {Collective::reduce, Collective::allreduce, Collective::scatter, Collective::gather})
      for (std::int64_t n : {4, 1 << 12, 1 << 20}) r.select(s, call(c, 8, n));
    Params p = call(Collective::allreduce, 8, 16);
    p.arrivals = one_late(8, 7, 1.0);
    r.select(s, p);
    p.commutative = false;
    r.select(s, p);
    p = call(Collective::reduce, 1, 1 << 20);
    p.arrivals = {0.5};
    r.select(s, p);
    p = call(Collective::reduce, 8, 3);  // fewer elements than processes
    r.select(s, p);
    r.end(s);
  }

  {  // Balanced vectors, jitter below the quantum, then imbalance and back.
    Selector s;
    r.scenario("balanced", s);
    for (Collective c : {Collective::reduce, Collective::allreduce, Collective::scatter, Collective::gather}) {
      Params p = call(c, 16, 1 << 18);
      p.arrivals.assign(16, 0.0);
      r.select(s, p);
      p.arrivals[3] = 1e-4 * balanced_time(p);
      r.select(s, p);
      p.arrivals[3] = 2 * balanced_time(p);
      r.select(s, p);
      p.arrivals.assign(16, 0.0);
      r.select(s, p);
    }
    r.end(s);
  }

  {  // Hysteresis: eager, sticky, default.
    for (double h : {0.0, 0.99, 0.05}) {
      Selector s(SelectOptions{.hysteresis = h});
      r.scenario("hysteresis", s);
      Params p = call(Collective::reduce, 16, 1 << 20);
      const double d = balanced_time(p);
      for (int k = 0; k < 6; ++k) {
        p.arrivals = one_late(16, 15, d * (0.05 + 0.4 * k));
        r.select(s, p);
      }
      r.end(s);
    }
  }

  for (Collective c : reductions) {  // A clear loss: every PAP-aware choice 40 % slower, one by one dropped.
    Selector s;
    r.scenario(std::string("clear loss ") + std::string(to_string(c)), s);
    Params p = call(c, 8, 1 << 20);
    p.arrivals = one_late(8, 7, balanced_time(p));
    drive(r, s, p, 60, nullptr, [](int, const Selection &x) { return native(x) ? 10e-3 : 14e-3; });
    Params other = p;
    other.arrivals = one_late(8, 3, p.arrivals[7]);
    r.select(s, other);
    Params bigger = p;
    bigger.count *= 2;
    bigger.arrivals = one_late(8, 7, 2 * p.arrivals[7]);
    r.select(s, bigger);
    r.end(s);
  }

  {  // A small loss, judged on the full window.
    Selector s;
    r.scenario("small loss", s);
    Params p = call(Collective::reduce, 8, 1 << 20);
    p.arrivals = one_late(8, 7, balanced_time(p));
    drive(r, s, p, 20, nullptr, [](int, const Selection &x) { return native(x) ? 10e-3 : 11e-3; });
    r.end(s);
  }

  {  // A winner kept: re-probed once per feedback_age calls.
    Selector s;
    r.scenario("winner, re-probe", s);
    Params p = call(Collective::allreduce, 8, 1 << 20);
    p.arrivals = one_late(8, 7, balanced_time(p));
    drive(r, s, p, 200, nullptr, [](int, const Selection &x) { return native(x) ? 10e-3 : 7e-3; });
    r.end(s);
  }

  {  // Drift: the machine slows down 2.5x at call 30; the choice alone slows 3x at call 90.
    Selector s;
    r.scenario("drift", s);
    Params p = call(Collective::reduce, 8, 1 << 20);
    p.arrivals = one_late(8, 7, balanced_time(p));
    drive(r, s, p, 140, nullptr, [](int k, const Selection &x) {
      const double load = k < 30 ? 1.0 : 2.5;
      return load * (native(x) ? 10e-3 : (k < 90 ? 7e-3 : 21e-3));
    });
    r.end(s);
  }

  {  // Patterns that never repeat: the model error across the shape (a ratio of 4, then an added wait).
    Selector s(SelectOptions{.period = 1});
    r.scenario("model error across patterns", s);
    Params p = call(Collective::allreduce, 8, 1 << 20);
    const double d = balanced_time(p);
    drive(r, s, p, 16, [&](int k) { return one_late(8, 7, d * (1 + 0.25 * k)); },
          [](int, const Selection &x) { return predicted_after_last(x) * (native(x) ? 1.0 : 4.0); });
    r.end(s);
    Selector t;
    r.scenario("additive error", t);
    Params q = call(Collective::reduce, 8, 1 << 20);
    const double e = balanced_time(q);
    std::vector<double> alternating(8, 0.0);
    for (int i = 1; i < 8; i += 2) alternating[static_cast<std::size_t>(i)] = 0.5 * e;
    drive(r, t, q, 60, [&](int k) { return k < 30 ? one_late(8, 7, 0.25 * e) : alternating; },
          [&](int, const Selection &x) { return predicted_after_last(x) + 2 * e; });
    r.end(t);
  }

  {  // Losing: PAP-aware 4x slower than modelled, native as modelled, then 6x.
    Selector s;
    r.scenario("losing shape", s);
    Params p = call(Collective::reduce, 8, 1 << 20);
    p.arrivals = one_late(8, 7, balanced_time(p));
    drive(r, s, p, 60, nullptr, [](int k, const Selection &x) {
      return predicted_after_last(x) * (native(x) ? (k < 10 ? 1.0 : 6.0) : 4.0);
    });
    r.end(s);
  }

  for (Collective c : reductions) {  // Families: a jittering alternating pattern, PAP-aware 2x slower.
    Selector s;
    r.scenario(std::string("family ") + std::string(to_string(c)), s);
    Params p = call(c, 8, 1 << 20);
    const double d = balanced_time(p), quantum = s.options().quantum_fraction * d;
    drive(r, s, p, 60,
          [&](int k) {
            std::vector<double> a(8, 0.0);
            for (int i = 1; i < 8; i += 2) a[static_cast<std::size_t>(i)] = d + 0.9 * quantum * std::sin(1.7 * k + 2.3 * i);
            return a;
          },
          [](int, const Selection &x) { return native(x) ? 10e-3 : 20e-3; });
    r.end(s);
    // The family's reach, and feedback off (no families, the period).
    Selector far(SelectOptions{.period = 1});
    r.scenario("family reach", far);
    Params q = call(Collective::reduce, 8, 1 << 20);
    q.arrivals = one_late(8, 7, d);
    r.select(far, q);
    for (double steps : {2.0, 3.0, 4.4}) {
      q.arrivals = one_late(8, 7, d + steps * quantum);
      r.select(far, q);
    }
    r.end(far);
    Selector off(SelectOptions{.feedback = false});
    r.scenario("feedback off", off);
    drive(r, off, p, 30,
          [&](int k) {
            std::vector<double> a(8, 0.0);
            for (int i = 1; i < 8; i += 2) a[static_cast<std::size_t>(i)] = d + 0.9 * quantum * std::sin(1.7 * k + 2.3 * i);
            return a;
          },
          [](int, const Selection &x) { return native(x) ? 10e-3 : 20e-3; });
    r.end(off);
  }

  {  // The period and the losing shape's deferred calls: after a drop, new
     // patterns (another late rank, beyond any family) deferred run native.
    Selector s(SelectOptions{.period = 4});
    r.scenario("period after a drop", s);
    Params p = call(Collective::reduce, 8, 1 << 20);
    const double d = balanced_time(p);
    drive(r, s, p, 160, [&](int k) { return k < 10 ? one_late(8, 7, d) : one_late(8, 1 + k % 7, d * (1 + 0.37 * (k % 11))); },
          [](int k, const Selection &x) { return native(x) ? 10e-3 : (k < 10 ? 30e-3 : 8e-3); });
    r.end(s);
  }

  {  // Unmeasured calls between the measured ones.
    Selector s;
    r.scenario("unmeasured", s);
    Params p = call(Collective::reduce, 8, 1 << 20);
    p.arrivals = one_late(8, 7, balanced_time(p));
    for (int k = 0; k < 12; ++k) {
      const Selection x = r.select(s, p);
      r.record(s, x.pattern, x.name, native(x) ? 10e-3 : 20e-3);
      for (int j = 0; j < 2; ++j) r.select(s, p, false);
    }
    r.end(s);
  }

  {  // The cache's bound: evicted patterns are simulated again, their measurements ignored.
    Selector s(SelectOptions{.cache_entries = 4, .period = 1});
    r.scenario("cache bound", s);
    Params p = call(Collective::gather, 8, 1 << 16);
    const double d = balanced_time(p);
    std::vector<std::string> patterns;
    for (int k = 1; k <= 10; ++k) {
      p.arrivals = one_late(8, k % 8, d * k);
      patterns.push_back(r.select(s, p).pattern);
    }
    r.record(s, patterns.front(), native_name, 1e-3);
    r.record(s, "no such pattern", native_name, 1e-3);
    r.record(s, "", "clairvoyant", 1e-3);
    p.arrivals = one_late(8, 10 % 8, d * 10);
    r.select(s, p);
    p.arrivals = one_late(8, 1, d * 1);
    r.select(s, p);
    r.end(s);
  }

  for (Collective c : reductions) {  // A long mixed run: shapes, patterns, jitter, noise, drift, lag, unmeasured calls, feedback toggled.
    Selector s;
    r.scenario(std::string("mixed ") + std::string(to_string(c)), s);
    Lcg lcg{42 + static_cast<std::uint64_t>(c)};
    struct Pending {
      std::string pattern;
      std::string name;
      double tail;
    };
    std::deque<Pending> lag;  // recorded two calls later, as the dispatch path does
    const std::int64_t counts[] = {1 << 20, 1 << 18};
    for (int k = 0; k < 600; ++k) {
      if (k == 400) s.set_feedback(false);
      if (k == 450) s.set_feedback(true);
      Params p = call(c, 8, counts[(k / 50) % 2]);
      const double d = balanced_time(p), quantum = s.options().quantum_fraction * d;
      const int kind = static_cast<int>(lcg.next() * 6);
      if (kind == 0) {
        p.arrivals.assign(8, 0.0);
      } else if (kind == 1) {
        p.arrivals = one_late(8, 7, d + 1.5 * quantum * (lcg.next() - 0.5));
      } else if (kind == 2) {
        p.arrivals.assign(8, 0.0);
        for (int i = 1; i < 8; i += 2) p.arrivals[static_cast<std::size_t>(i)] = d + 1.5 * quantum * (lcg.next() - 0.5);
      } else if (kind == 3) {
        p.arrivals.assign(8, 0.0);
        for (int i = 0; i < 8; ++i) p.arrivals[static_cast<std::size_t>(i)] = d * lcg.next();
      } else if (kind == 4) {
        p.arrivals = one_late(8, static_cast<int>(lcg.next() * 8), 3 * d);
      }  // kind 5: no vector
      const bool measured = lcg.next() > 0.15;
      const Selection x = r.select(s, p, measured);
      while (lag.size() >= 2) {
        r.record(s, lag.front().pattern, lag.front().name, lag.front().tail);
        lag.pop_front();
      }
      if (!measured || x.pattern.empty()) continue;
      const double load = k < 200 ? 1.0 : (k < 350 ? 3.0 : 1.5);
      const double noise = 1 + 0.3 * (lcg.next() - 0.5);
      const double after = predicted_after_last(x);
      const double base = std::isnan(after) ? 1e-3 : after;
      const double clairvoyant = k < 250 || k >= 400 ? 0.8 : 2.0;  // slower alone for a while
      const double factor = native(x) ? 1.0 : (x.name == "clairvoyant" ? clairvoyant : 1.6);
      lag.push_back({x.pattern, std::string(x.name), load * base * factor * noise});
    }
    r.end(s);
  }

  {  // Two patterns of one shape whose choice wins, then slows down alone:
     // two drops, the second doubling the losing period; then new, unjudged
     // patterns of the shape (deferred: native while losing).
    Selector s;
    r.scenario("repeated drops", s);
    Params p = call(Collective::reduce, 8, 1 << 20);
    const double d = balanced_time(p);
    drive(r, s, p, 120, [&](int k) { return one_late(8, k % 2 ? 3 : 7, d); },
          [](int k, const Selection &x) { return native(x) ? 10e-3 : (k < 60 ? 7e-3 : 21e-3); });
    drive(r, s, p, 200, [&](int k) { return one_late(8, 1 + k % 5, d * (2 + 0.3 * k)); },
          [](int, const Selection &x) { return x.pattern.empty() ? NAN : (native(x) ? 10e-3 : 9e-3); });
    r.end(s);
  }
  return r.out.str();
}

std::string golden_path() {
  std::string here = __FILE__;
  return here.substr(0, here.find_last_of('/') + 1) + "golden/select_replay.txt";
}

TEST(SelectReplay, TheScriptedSequenceReproducesTheGoldenTraceByteForByte) {
  const std::string trace = replay();
  std::ifstream in(golden_path(), std::ios::binary);
  ASSERT_TRUE(in) << "cannot read " << golden_path();
  std::stringstream golden;
  golden << in.rdbuf();
  if (golden.str() != trace) {
    std::ofstream("select_replay.actual.txt", std::ios::binary) << trace;
    std::istringstream a(golden.str()), b(trace);
    std::string la, lb;
    int line = 1;
    while (std::getline(a, la) && std::getline(b, lb) && la == lb) ++line;
    FAIL() << "the trace differs from " << golden_path() << " from line " << line << ":\n  golden: " << la
           << "\n  actual: " << lb << "\n(the whole trace: select_replay.actual.txt)";
  }
}

}  // namespace
}  // namespace patcoll::core
