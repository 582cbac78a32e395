// JSON text helpers shared by the tools and the arrival report (no JSON
// library in the dependency list: the output is small and flat).
#pragma once

#include <string>
#include <string_view>

namespace patcoll::core {

// `text` as a JSON string literal, quotes included (", \ and control
// characters escaped; other bytes, UTF-8 included, as they are).
std::string json_string(std::string_view text);

}  // namespace patcoll::core
