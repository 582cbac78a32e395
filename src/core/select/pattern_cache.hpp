// `auto`'s selector, part 2 of 3: the pattern cache.
//
// A PAT vector is made relative to the earliest rank and quantised to a
// fraction of the balanced best-classic prediction of its call shape
// (everything of the call but the vector), so a pattern that jitters by
// less than that is the same pattern; the model's ranking (ranking.hpp) of
// each quantised vector is cached, LRU, with the feedback's record of the
// pattern (feedback.hpp). With the feedback on, a new vector near a cached
// one of the same shape with the same late ranks is that pattern (its
// family): it shares its predictions, measurements and drops.
#pragma once

#include <cstddef>
#include <list>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/algorithm.hpp"
#include "feedback.hpp"
#include "ranking.hpp"

namespace patcoll::core {

// Everything of the call but the PAT vector: the decision's "shape".
std::string shape_key(const Params &);
// Late ranks of a quantised vector: arrival above half its imbalance.
std::vector<bool> late_ranks(const std::vector<double> &arrivals);

struct CachedPattern {
  std::vector<Prediction> predictions;  // the model's ranking, fastest first
  std::string shape;                    // shape_key of the pattern
  double imbalance = 0;  // of the quantised vector: run time minus this = time after the last arrival
  // The quantised vector and its late ranks: what a family member is matched against.
  std::vector<double> arrivals;
  std::vector<bool> late;
  PatternFeedback feedback;
  std::list<std::string>::iterator position;  // in the LRU order
};

// How far a family reaches: within `quanta` quanta, or `fraction` of the
// vector's imbalance if more (every rank, L-infinity). `quanta` <= 0: no families.
struct FamilyReach {
  double quanta = 2;
  double fraction = 0.15;
};

class PatternCache {
 public:
  // The balanced best-classic prediction of `shape` (0 when none), the
  // quantum's base, computed once per shape. `forgot_shapes`: the table of
  // shapes was full and cleared first (the caller forgets its per-shape
  // records with it).
  double balanced_time(const std::string &shape, const Params &params, std::size_t limit, bool &forgot_shapes);

  // The key of a quantised vector of `shape`.
  static std::string key(const std::string &shape, const std::vector<double> &arrivals);
  // The pattern filed under `key` or, when `families`, the nearest cached
  // pattern of `shape` whose family `arrivals` belongs to (ties: the least
  // key, so every rank picks the same); `key` becomes its key. Moves it to
  // the front of the LRU order. nullptr on a miss.
  CachedPattern *find(const std::string &shape, const std::vector<double> &arrivals, double quantum, bool families,
                      const FamilyReach &reach, std::string &key);
  // Simulates every candidate on `quantised` (`balanced`: native and the
  // classic algorithms, predict_balanced) and caches the ranking under
  // `key`, evicting the least recently used beyond `entries`.
  CachedPattern &insert(const std::string &key, const std::string &shape, const Params &quantised, std::size_t entries,
                        bool balanced = false);
  CachedPattern *at(const std::string &key);
  const CachedPattern *at(const std::string &key) const;

  std::size_t simulations() const { return simulations_; }  // cache misses so far

 private:
  CachedPattern *family_of(const std::string &shape, const std::vector<double> &arrivals, double quantum,
                           const FamilyReach &reach, std::string &key);
  std::list<std::string> lru_;
  std::unordered_map<std::string, CachedPattern> patterns_;
  std::unordered_map<std::string, double> balanced_;  // shape key -> balanced best-classic time
  std::size_t simulations_ = 0;
};

}  // namespace patcoll::core
