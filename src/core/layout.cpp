#include "layout.hpp"

#include <algorithm>

namespace patcoll::core {
namespace {

bool per_rank(const Params &p) { return p.counts.size() == static_cast<std::size_t>(p.procs); }
// At procs = 1 both hold and agree (one block, one pair).
bool per_pair(const Params &p) {
  return p.counts.size() == static_cast<std::size_t>(p.procs) * static_cast<std::size_t>(p.procs);
}

}  // namespace

std::int64_t block_count(const Params &p, int rank) {
  return per_rank(p) ? p.counts[static_cast<std::size_t>(rank)] : p.count;
}

std::int64_t block_offset(const Params &p, int rank) {
  if (!per_rank(p)) return static_cast<std::int64_t>(rank) * p.count;
  std::int64_t offset = 0;
  for (int r = 0; r < rank; ++r) offset += p.counts[static_cast<std::size_t>(r)];
  return offset;
}

std::int64_t total(const Params &p) { return block_offset(p, p.procs); }

int block_owner(const Params &p, std::int64_t index) {
  if (index < 0) return -1;
  if (!per_rank(p)) {
    if (p.count <= 0 || index >= static_cast<std::int64_t>(p.procs) * p.count) return -1;
    return static_cast<int>(index / p.count);
  }
  std::int64_t end = 0;
  for (int r = 0; r < p.procs; ++r) {
    end += p.counts[static_cast<std::size_t>(r)];
    if (index < end) return r;
  }
  return -1;
}

std::int64_t pair_count(const Params &p, int source, int dest) {
  return per_pair(p) ? p.counts[static_cast<std::size_t>(source) * p.procs + dest] : p.count;
}

std::int64_t send_offset(const Params &p, int source, int dest) {
  if (!per_pair(p)) return static_cast<std::int64_t>(dest) * p.count;
  std::int64_t offset = 0;
  for (int d = 0; d < dest; ++d) offset += pair_count(p, source, d);
  return offset;
}

std::int64_t recv_offset(const Params &p, int source, int dest) {
  if (!per_pair(p)) return static_cast<std::int64_t>(source) * p.count;
  std::int64_t offset = 0;
  for (int s = 0; s < source; ++s) offset += pair_count(p, s, dest);
  return offset;
}

std::int64_t send_total(const Params &p, int source) { return send_offset(p, source, p.procs); }
std::int64_t recv_total(const Params &p, int dest) { return recv_offset(p, p.procs, dest); }

std::int64_t pair_index(const Params &p, int source, int dest) {
  if (!per_pair(p)) return (static_cast<std::int64_t>(source) * p.procs + dest) * p.count;
  std::int64_t index = 0;
  for (int s = 0; s < source; ++s) index += send_total(p, s);
  return index + send_offset(p, source, dest);
}

int pair_source(const Params &p, std::int64_t index) {
  if (index < 0) return -1;
  if (!per_pair(p)) {
    const std::int64_t per_source = static_cast<std::int64_t>(p.procs) * p.count;
    if (per_source <= 0 || index >= per_source * p.procs) return -1;
    return static_cast<int>(index / per_source);
  }
  std::int64_t end = 0;
  for (int s = 0; s < p.procs; ++s) {
    end += send_total(p, s);
    if (index < end) return s;
  }
  return -1;
}

int send_pair_at(const Params &p, int source, std::int64_t offset) {
  if (offset < 0) return -1;
  std::int64_t end = 0;
  for (int d = 0; d < p.procs; ++d) {
    end += pair_count(p, source, d);
    if (offset < end) return d;
  }
  return -1;
}

int recv_pair_at(const Params &p, int dest, std::int64_t offset) {
  if (offset < 0) return -1;
  std::int64_t end = 0;
  for (int s = 0; s < p.procs; ++s) {
    end += pair_count(p, s, dest);
    if (offset < end) return s;
  }
  return -1;
}

std::vector<std::int64_t> prefix_offsets(const std::vector<std::int64_t> &sizes) {
  std::vector<std::int64_t> offsets(sizes.size() + 1, 0);
  for (std::size_t i = 0; i < sizes.size(); ++i) offsets[i + 1] = offsets[i] + sizes[i];
  return offsets;
}

}  // namespace patcoll::core
