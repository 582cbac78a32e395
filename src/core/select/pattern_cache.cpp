#include "pattern_cache.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/simulate.hpp"

namespace patcoll::core {

std::string shape_key(const Params &p) {
  std::ostringstream os;
  os.precision(17);
  os << static_cast<int>(p.collective) << ' ' << p.procs << ' ' << p.root << ' ' << p.count << ' ' << p.element_bytes
     << ' ' << p.commutative << ' ' << p.segment_count << ' ' << p.segment_elements << ' ' << p.cost.alpha << ' '
     << p.cost.beta << ' ' << p.cost.gamma << " r";
  for (int k : p.radix) os << ' ' << k;
  os << " s";
  for (std::int64_t size : p.segment_sizes) os << ' ' << size;
  if (!p.counts.empty()) os << " v";  // the v-forms only
  for (std::int64_t count : p.counts) os << ' ' << count;
  return os.str();
}

std::vector<bool> late_ranks(const std::vector<double> &arrivals) {
  const double half = 0.5 * imbalance(arrivals);
  std::vector<bool> late(arrivals.size());
  for (std::size_t i = 0; i < arrivals.size(); ++i) late[i] = arrivals[i] > half;
  return late;
}

double PatternCache::balanced_time(const std::string &shape, const Params &params, std::size_t limit,
                                   bool &forgot_shapes) {
  forgot_shapes = false;
  auto balanced = balanced_.find(shape);
  if (balanced == balanced_.end()) {
    const double best = balanced_prediction(params);
    if (balanced_.size() > limit) {
      balanced_.clear();
      forgot_shapes = true;
    }
    balanced = balanced_.emplace(shape, std::isfinite(best) ? best : 0.0).first;
  }
  return balanced->second;
}

std::string PatternCache::key(const std::string &shape, const std::vector<double> &arrivals) {
  std::ostringstream os;
  os.precision(17);
  os << shape << " a";
  for (double a : arrivals) os << ' ' << a;
  return os.str();
}

CachedPattern *PatternCache::family_of(const std::string &shape, const std::vector<double> &arrivals, double quantum,
                                       const FamilyReach &reach_of, std::string &key) {
  if (reach_of.quanta <= 0 || quantum <= 0) return nullptr;
  // Within a few quanta, or a fraction of the imbalance when the quantum
  // is small against the jitter (a model calibrated on a quiet machine).
  const double reach = (1 + 1e-9) * std::max(reach_of.quanta * quantum, reach_of.fraction * imbalance(arrivals));
  const std::vector<bool> late = late_ranks(arrivals);
  CachedPattern *nearest = nullptr;
  double nearest_distance = INFINITY;
  const std::string *nearest_key = nullptr;
  // The nearest; among equally near ones the least key, so every rank
  // picks the same whatever the map's order.
  for (auto &[candidate, slot] : patterns_) {
    if (slot.late != late || slot.arrivals.size() != arrivals.size() || slot.shape != shape) continue;
    double distance = 0;
    for (std::size_t i = 0; i < arrivals.size() && distance <= reach; ++i)
      distance = std::max(distance, std::abs(arrivals[i] - slot.arrivals[i]));
    if (distance > reach || distance > nearest_distance) continue;
    if (distance == nearest_distance && candidate > *nearest_key) continue;
    nearest = &slot;
    nearest_distance = distance;
    nearest_key = &candidate;
  }
  if (nearest) key = *nearest_key;
  return nearest;
}

CachedPattern *PatternCache::find(const std::string &shape, const std::vector<double> &arrivals, double quantum,
                                  bool families, const FamilyReach &reach, std::string &key) {
  key = PatternCache::key(shape, arrivals);
  CachedPattern *slot = nullptr;
  if (auto it = patterns_.find(key); it != patterns_.end()) slot = &it->second;
  // The family exists to share measurements: the model alone (feedback
  // off) judges every quantised vector on its own.
  else if (families) slot = family_of(shape, arrivals, quantum, reach, key);
  if (slot) lru_.splice(lru_.begin(), lru_, slot->position);
  return slot;
}

CachedPattern &PatternCache::insert(const std::string &key, const std::string &shape, const Params &quantised,
                                    std::size_t entries, bool balanced) {
  ++simulations_;
  while (!lru_.empty() && patterns_.size() >= std::max<std::size_t>(1, entries)) {
    patterns_.erase(lru_.back());
    lru_.pop_back();
  }
  lru_.push_front(key);
  CachedPattern &fresh = patterns_[key];
  fresh.position = lru_.begin();
  fresh.predictions = balanced ? predict_balanced(quantised) : predict_candidates(quantised);
  fresh.shape = shape;
  fresh.imbalance = imbalance(quantised.arrivals);
  fresh.arrivals = quantised.arrivals;
  fresh.late = late_ranks(quantised.arrivals);
  return fresh;
}

CachedPattern *PatternCache::at(const std::string &key) {
  auto it = patterns_.find(key);
  return it == patterns_.end() ? nullptr : &it->second;
}

const CachedPattern *PatternCache::at(const std::string &key) const {
  auto it = patterns_.find(key);
  return it == patterns_.end() ? nullptr : &it->second;
}

}  // namespace patcoll::core
