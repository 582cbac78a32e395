#include "call_history.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string_view>

#include "core/config.hpp"
#include "core/hash.hpp"
#include "core/traits.hpp"
#include "mpi/clock.hpp"

namespace patcoll::mpi {
namespace {

namespace config = core::config;

constexpr int kGatherTag = 0, kRelayTag = 1;  // 2 and 3: the clock alignment (mpi/clock.hpp)
constexpr int kSlots = 8;           // keys per rank in one exchange (the most recently used)
constexpr std::size_t kMaxSites = 16;  // keys kept per communicator (least recently used dropped)
constexpr std::uint64_t kKeyMask = (std::uint64_t{1} << 52) - 1;  // exact in a double

using core::fnv1a;

std::string_view base_name(const char *path) {
  std::string_view name = path ? path : "";
  if (const std::size_t slash = name.rfind('/'); slash != std::string_view::npos) name.remove_prefix(slash + 1);
  return name;
}

std::uint64_t site_key_uncached(const void *address) {
  Dl_info info{};
  std::uintptr_t offset = reinterpret_cast<std::uintptr_t>(address);
  std::string_view object;
  if (dladdr(address, &info) != 0 && info.dli_fbase) {
    offset -= reinterpret_cast<std::uintptr_t>(info.dli_fbase);
    object = base_name(info.dli_fname);
  }
  std::uint64_t hash = fnv1a(object.data(), object.size());
  hash = fnv1a(&offset, sizeof offset, hash);
  hash &= kKeyMask;
  return hash == 0 ? 1 : hash;
}

void wait_all(std::vector<MPI_Request> &requests) {
  if (!requests.empty()) PMPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  requests.clear();
}

}  // namespace

HistoryOptions history_options() {
  const auto settings = config::settings();
  HistoryOptions o;
  o.enabled = (*settings)[config::Var::pats].text == "history";
  o.entry_clock = (*settings)[config::Var::history_estimate].text == "entry";
  o.window = static_cast<int>((*settings)[config::Var::history_window].integer);
  o.period = static_cast<int>((*settings)[config::Var::history_period].integer);
  o.quantum = (*settings)[config::Var::history_quantum].number;
  return o;
}

std::uint64_t call_site_key(const void *return_address) {
  if (!return_address) return 0;
  struct Slot {
    const void *address = nullptr;
    std::uint64_t key = 0;
  };
  thread_local Slot cache[64];
  Slot &slot = cache[(reinterpret_cast<std::uintptr_t>(return_address) >> 2) % 64];
  if (slot.address != return_address) slot = {return_address, site_key_uncached(return_address)};
  return slot.key;
}

std::string describe_call_site(const void *return_address) {
  if (!return_address) return "(unknown)";
  Dl_info info{};
  char text[512];
  if (dladdr(return_address, &info) == 0 || !info.dli_fbase) {
    std::snprintf(text, sizeof text, "%p", return_address);
    return text;
  }
  const std::string object(base_name(info.dli_fname));
  const auto address = reinterpret_cast<std::uintptr_t>(return_address);
  if (info.dli_sname && info.dli_saddr)
    std::snprintf(text, sizeof text, "%s+0x%lx (%s)", info.dli_sname,
                  static_cast<unsigned long>(address - reinterpret_cast<std::uintptr_t>(info.dli_saddr)),
                  object.c_str());
  else
    std::snprintf(text, sizeof text, "%s+0x%lx", object.c_str(),
                  static_cast<unsigned long>(address - reinterpret_cast<std::uintptr_t>(info.dli_fbase)));
  return text;
}

CallHistory::CallHistory(MPI_Comm comm, int rank, int size, const HistoryOptions &options)
    : comm_(comm), rank_(rank), size_(size), options_(options) {
  options_.window = std::max(1, options_.window);
  options_.period = std::max(1, options_.period);
  if (options_.entry_clock && size_ > 1) clock_offset_ = clock::align_to_root(comm_, clock::local_anchor()).offset;
}

CallHistory::~CallHistory() { finish(); }

std::uint64_t CallHistory::key(core::Collective collective, std::uint64_t site) const {
  const std::uint64_t c = static_cast<std::uint64_t>(collective) + 1;
  std::uint64_t k = ((per_site_ ? site : 0) * 0x9E3779B97F4A7C15ull + c * 0xC2B2AE3D27D4EB4Full) & kKeyMask;
  return k == 0 ? 1 : k;
}

CallHistory::Site &CallHistory::site_of(std::uint64_t key, core::Collective collective) {
  auto it = std::find_if(sites_.begin(), sites_.end(), [&](const Site &s) { return s.key == key; });
  if (it == sites_.end()) {
    if (sites_.size() >= kMaxSites) sites_.erase(sites_.begin());  // least recently used
    Site site(options_.window);
    site.key = key;
    site.collective = collective;
    sites_.push_back(std::move(site));
  } else if (it + 1 != sites_.end()) {
    std::rotate(it, it + 1, sites_.end());  // most recently used last
  }
  return sites_.back();
}

void CallHistory::enter(core::Collective collective, const void *site, double entry) {
  const double start_hook = MPI_Wtime();
  ++calls_;
  if (pending_ && rank_ == 0 && !relayed_ && calls_ == relay_at_) {
    const double start = MPI_Wtime();
    relay();
    wait_seconds_ += MPI_Wtime() - start;
  }
  if (pending_ && calls_ == apply_at_) {
    const double start = MPI_Wtime();
    if (rank_ == 0 && !relayed_) relay();
    wait_all(requests_);
    pending_ = false;
    wait_seconds_ += MPI_Wtime() - start;
    apply();
  }
  Site &s = site_of(key(collective, call_site_key(site)), collective);
  if (!s.address) s.address = site;
  if (options_.entry_clock) s.own.record(entry + clock_offset_);
  else if (last_exit_ >= 0) s.own.record(entry - last_exit_);
  s.last_call = calls_;
  ++s.samples;
  current_ = &s;
  hook_seconds_ += MPI_Wtime() - start_hook;
}

const std::vector<double> &CallHistory::arrivals() const {
  static const std::vector<double> none;
  return current_ ? current_->pats : none;
}

void CallHistory::exit() {
  const double start = MPI_Wtime();
  if (!pending_ && size_ > 1 && calls_ % static_cast<std::uint64_t>(options_.period) == 0) start_exchange();
  const double end = MPI_Wtime();
  hook_seconds_ += end - start;
  last_exit_ = end;
}

// One row: up to kSlots keys, most recently used first, each as
// [key, last call, samples, width values] (entry times of the last
// `window` calls at the key, NaN where there were fewer; or the
// predicted offset).
void CallHistory::start_exchange() {
  width_ = options_.entry_clock ? options_.window : 1;
  const int slot = slot_width();
  row_.assign(static_cast<std::size_t>(kSlots * slot), 0.0);
  int used = 0;
  for (auto it = sites_.rbegin(); it != sites_.rend() && used < kSlots; ++it, ++used) {
    double *out = &row_[static_cast<std::size_t>(used * slot)];
    out[0] = static_cast<double>(it->key);
    out[1] = static_cast<double>(it->last_call);
    out[2] = static_cast<double>(it->samples);
    if (options_.entry_clock) {
      std::fill(out + 3, out + 3 + width_, std::numeric_limits<double>::quiet_NaN());
      const std::vector<double> recent = it->own.recent();
      std::copy(recent.begin(), recent.end(), out + 3 + width_ - static_cast<std::ptrdiff_t>(recent.size()));
    } else {
      out[3] = it->own.predict();
    }
  }
  const std::size_t relay_size = 1 + static_cast<std::size_t>(kSlots) * (1 + static_cast<std::size_t>(size_));
  received_.assign(relay_size, 0.0);
  if (rank_ == 0) {
    gathered_.assign(static_cast<std::size_t>(size_) * row_.size(), 0.0);
    std::copy(row_.begin(), row_.end(), gathered_.begin());
    gather_requests_.assign(static_cast<std::size_t>(size_ - 1), MPI_REQUEST_NULL);
    for (int peer = 1; peer < size_; ++peer)
      PMPI_Irecv(&gathered_[static_cast<std::size_t>(peer) * row_.size()], static_cast<int>(row_.size()), MPI_DOUBLE,
                peer, kGatherTag, comm_, &gather_requests_[static_cast<std::size_t>(peer - 1)]);
  } else {
    requests_.assign(2, MPI_REQUEST_NULL);
    PMPI_Irecv(received_.data(), static_cast<int>(relay_size), MPI_DOUBLE, 0, kRelayTag, comm_, &requests_[0]);
    PMPI_Isend(row_.data(), static_cast<int>(row_.size()), MPI_DOUBLE, 0, kGatherTag, comm_, &requests_[1]);
  }
  const auto period = static_cast<std::uint64_t>(options_.period);
  pending_ = true;
  relayed_ = false;
  relay_at_ = calls_ + std::max<std::uint64_t>(1, period / 2);
  apply_at_ = calls_ + period;
  ++exchanges_;
}

// Rank 0, every row in: one PAT vector per key that every rank saw at the
// same calls; a key some rank lacks, or saw at other calls, marks the
// sites as not shared (received_[0] = 1).
void CallHistory::relay() {
  wait_all(gather_requests_);
  const int slot = slot_width();
  const std::size_t row = static_cast<std::size_t>(kSlots * slot);
  auto find = [&](int rank, double key) -> const double * {
    const double *base = &gathered_[static_cast<std::size_t>(rank) * row];
    for (int s = 0; s < kSlots; ++s)
      if (base[s * slot] == key) return base + s * slot;
    return nullptr;
  };
  bool split = false;
  int out = 0;
  std::vector<double> values(static_cast<std::size_t>(size_) * static_cast<std::size_t>(width_));
  for (int s = 0; s < kSlots; ++s) {
    const double *mine = &gathered_[static_cast<std::size_t>(s * slot)];
    if (mine[0] == 0) continue;
    bool shared = true;
    for (int r = 0; r < size_ && shared; ++r) {
      const double *theirs = find(r, mine[0]);
      shared = theirs && theirs[1] == mine[1] && theirs[2] == mine[2];
      if (shared)
        std::copy(theirs + 3, theirs + 3 + width_, values.begin() + static_cast<std::ptrdiff_t>(r) * width_);
    }
    if (!shared) {
      split = true;
      continue;
    }
    const std::vector<double> vector =
        options_.entry_clock ? mean_relative_arrivals(values, size_, width_) : values;
    double *dst = &received_[1 + static_cast<std::size_t>(out) * (1 + static_cast<std::size_t>(size_))];
    dst[0] = mine[0];
    std::copy(vector.begin(), vector.end(), dst + 1);
    ++out;
  }
  for (int r = 1; r < size_ && !split; ++r) {  // a key rank 0 has not seen
    const double *base = &gathered_[static_cast<std::size_t>(r) * row];
    for (int s = 0; s < kSlots && !split; ++s)
      if (base[s * slot] != 0 && !find(0, base[s * slot])) split = true;
  }
  received_[0] = split ? 1 : 0;
  for (int peer = 1; peer < size_; ++peer) {
    requests_.push_back(MPI_REQUEST_NULL);
    PMPI_Isend(received_.data(), static_cast<int>(received_.size()), MPI_DOUBLE, peer, kRelayTag, comm_,
              &requests_.back());
  }
  relayed_ = true;
}

void CallHistory::apply() {
  if (received_.empty()) return;
  if (received_[0] != 0) per_site_ = false;
  for (int s = 0; s < kSlots; ++s) {
    const double *slot = &received_[1 + static_cast<std::size_t>(s) * (1 + static_cast<std::size_t>(size_))];
    if (slot[0] == 0) continue;
    const auto key = static_cast<std::uint64_t>(slot[0]);
    auto it = std::find_if(sites_.begin(), sites_.end(), [&](const Site &site) { return site.key == key; });
    if (it == sites_.end()) continue;  // dropped since (least recently used)
    std::vector<double> pats = relative_pats(std::vector<double>(slot + 1, slot + 1 + size_), options_.quantum);
    if (pats != it->pats) {
      it->pats = std::move(pats);
      ++updates_;
    }
  }
}

void CallHistory::finish() {
  if (!pending_) return;
  if (rank_ == 0 && !relayed_) relay();
  wait_all(requests_);
  pending_ = false;
}

std::string CallHistory::describe() const {
  std::string out;
  for (const Site &s : sites_) {
    if (s.pats.empty()) continue;
    char head[64];
    std::snprintf(head, sizeof head, " (%llu calls):", static_cast<unsigned long long>(s.samples));
    out += std::string(out.empty() ? "" : "; ") + core::traits(s.collective).name.data() + " at " +
           (per_site_ ? describe_call_site(s.address) : std::string("any call site")) + head;
    for (double p : s.pats) {
      char value[32];
      std::snprintf(value, sizeof value, " %.0f", p * 1e6);
      out += value;
    }
    out += " us";
  }
  return out.empty() ? "(none)" : out;
}

}  // namespace patcoll::mpi
