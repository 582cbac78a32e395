// FNV-1a over bytes: the one hash of agreement checks, names and call
// sites (the same value on every rank for the same bytes).
#pragma once

#include <cstddef>
#include <cstdint>

namespace patcoll::core {

inline std::uint64_t fnv1a(const void *data, std::size_t bytes, std::uint64_t hash = 1469598103934665603ull) {
  const auto *p = static_cast<const unsigned char *>(data);
  for (std::size_t i = 0; i < bytes; ++i) hash = (hash ^ p[i]) * 1099511628211ull;
  return hash;
}

}  // namespace patcoll::core
