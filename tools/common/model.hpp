// --model FILE: the cost-model file patcoll-calibrate --out writes (and
// PATCOLL_MODEL names), read by core's parser (core/cost.hpp) the same way
// in every tool. Header-only: the tools that take --model link core anyway.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include "core/cost.hpp"

namespace patcoll::cli {

// Fills `model` from `path`; returns "" or what is wrong ("cannot read
// 'x'", or the parser's line and problem).
inline std::string load_model(const std::string &path, core::CostModel &model) {
  std::ifstream in(path);
  if (!in) return "cannot read '" + path + "'";
  std::ostringstream text;
  text << in.rdbuf();
  core::CostModel parsed = model;
  if (std::string e = core::parse_cost_model(text.str(), parsed); !e.empty()) return "'" + path + "': " + e;
  if (std::string e = core::check_cost_model(parsed); !e.empty()) return "'" + path + "': " + e;
  model = parsed;
  return {};
}

}  // namespace patcoll::cli
