// The arrival report's recorder: report.hpp says what is recorded, the
// layout of the rank files is at serialize(), the JSON at write_report().
#include "mpi/report.hpp"


#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/config.hpp"
#include "core/json.hpp"
#include "core/traits.hpp"
#include "mpi/call_history.hpp"
#include "mpi/clock.hpp"
#include "mpi/comm_cache.hpp"
#include "mpi/finalize.hpp"

namespace patcoll::mpi::report {

constexpr int kCollectives = core::kCollectiveCount;

struct Sample {
  std::uint64_t call;  // the call's number among this collective's calls on the communicator
  double entry, leave;  // MPI_Wtime, local
};

struct Served {
  std::string_view name;
  std::uint64_t calls = 0;
};

// One (collective, call site, bytes) on one communicator, on this rank.
struct Site {
  core::Collective collective = core::Collective::reduce;
  const void *address = nullptr;  // nullptr: the overflow key
  std::int64_t bytes = 0;
  std::uint64_t first_call = 0;
  std::uint64_t calls = 0;
  double time = 0, min_time = std::numeric_limits<double>::infinity(), max_time = 0;
  std::array<Served, 4> served{};  // the last slot also counts any further names
  std::vector<Sample> samples;
  std::uint64_t stride = 1;        // of the evenly spaced half
};

struct CommRecord {
  std::vector<int> members;  // MPI_COMM_WORLD rank of each rank of the communicator
  int instance = 0;          // communicators with the same members recorded before here
  int rank = 0;
  bool inter = false;
  std::string name;
  std::array<std::uint64_t, kCollectives> calls{};
  struct Key {
    const void *address;
    std::int64_t bytes;
    int collective;
    bool operator==(const Key &) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key &k) const {
      std::uint64_t h = reinterpret_cast<std::uintptr_t>(k.address) * 0x9E3779B97F4A7C15ull;
      h ^= static_cast<std::uint64_t>(k.bytes) + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
      return static_cast<std::size_t>(h ^ static_cast<std::uint64_t>(k.collective));
    }
  };
  std::unordered_map<Key, std::size_t, KeyHash> index;
  std::deque<Site> sites;
};

namespace {

constexpr std::size_t kMaxSites = 1024;
constexpr char kMagic[8] = {'P', 'A', 'T', 'C', 'R', 'E', 'P', '1'};

struct Recorder {
  std::string path;
  std::size_t cap = 1000;
  double flush_seconds = 10;
  bool hook = false, finished = false;
  std::map<MPI_Comm, CommRecord *> by_handle;  // records of callers without a communicator state
  int world_rank = 0, world_size = 1;
  double anchor = 0;  // clock::local_anchor() at the first call
  double next_flush = 0;
  std::string host;
  std::deque<std::unique_ptr<CommRecord>> comms;  // kept after MPI_Comm_free: their calls stay in the report
  std::map<std::vector<int>, int> instances;
  std::size_t site_count = 0;
};

std::mutex g_mutex;
std::atomic<int> g_enabled{-1};  // -1 unknown

Recorder &recorder() {
  static Recorder r = [] {
    Recorder out;
    const auto settings = core::config::settings();
    out.path = (*settings)[core::config::Var::report].text;
    out.cap = static_cast<std::size_t>((*settings)[core::config::Var::report_samples].integer);
    out.flush_seconds = (*settings)[core::config::Var::report_flush].number;
    return out;
  }();
  return r;
}

// --- call sites ---------------------------------------------------------------

std::string symbol(const void *address) {
  return address ? describe_call_site(address) : "(other call sites and sizes)";
}

// --- the rank file ----------------------------------------------------------
// Native byte order: u32/u64/i64/f64 as in memory, a string is u32 length +
// bytes. "PATCREP1", i32 world rank, i32 world size, f64 anchor (steady -
// MPI_Wtime), f64 offset to rank 0 (NaN: not aligned), str clock method,
// str host, u32 cap, u32 communicators; each: u32 instance, u8 inter, str
// name, u32 size, i32 rank, i32[size] members, u32 sites; each: u8
// collective, i64 bytes, u64 first call, u64 calls, f64 time, f64 min, f64
// max, str call site, u32 served, (str name, u64 calls) each, u32 samples,
// u64[n] call numbers, f64[n] entries, f64[n] exits.

class Writer {
 public:
  template <class T>
  void put(T value) {
    out_.append(reinterpret_cast<const char *>(&value), sizeof value);
  }
  void put(std::string_view text) {
    put(static_cast<std::uint32_t>(text.size()));
    out_.append(text.data(), text.size());
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

std::string serialize(const Recorder &r, double offset, std::string_view method) {
  Writer w;
  w.put(std::string_view(kMagic, sizeof kMagic));
  w.put(static_cast<std::int32_t>(r.world_rank));
  w.put(static_cast<std::int32_t>(r.world_size));
  w.put(r.anchor);
  w.put(offset);
  w.put(method);
  w.put(std::string_view(r.host));
  w.put(static_cast<std::uint32_t>(r.cap));
  w.put(static_cast<std::uint32_t>(r.comms.size()));
  for (const auto &comm : r.comms) {
    w.put(static_cast<std::uint32_t>(comm->instance));
    w.put(static_cast<std::uint8_t>(comm->inter));
    w.put(std::string_view(comm->name));
    w.put(static_cast<std::uint32_t>(comm->members.size()));
    w.put(static_cast<std::int32_t>(comm->rank));
    for (int m : comm->members) w.put(static_cast<std::int32_t>(m));
    w.put(static_cast<std::uint32_t>(comm->sites.size()));
    for (const Site &s : comm->sites) {
      w.put(static_cast<std::uint8_t>(s.collective));
      w.put(s.bytes);
      w.put(s.first_call);
      w.put(s.calls);
      w.put(s.time);
      w.put(s.min_time);
      w.put(s.max_time);
      w.put(std::string_view(symbol(s.address)));
      std::uint32_t served = 0;
      for (const Served &v : s.served) served += v.calls > 0;
      w.put(served);
      for (const Served &v : s.served)
        if (v.calls > 0) {
          w.put(v.name);
          w.put(v.calls);
        }
      w.put(static_cast<std::uint32_t>(s.samples.size()));
      for (const Sample &x : s.samples) w.put(x.call);
      for (const Sample &x : s.samples) w.put(x.entry);
      for (const Sample &x : s.samples) w.put(x.leave);
    }
  }
  return w.take();
}

std::string rank_file(const Recorder &r) { return r.path + ".rank" + std::to_string(r.world_rank); }

bool write_file(const std::string &path, const std::string &data) {
  const std::string temporary = path + ".tmp";
  std::FILE *f = std::fopen(temporary.c_str(), "wb");
  if (!f) return false;
  const bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size();
  if (std::fclose(f) != 0 || !ok) {
    std::remove(temporary.c_str());
    return false;
  }
  return std::rename(temporary.c_str(), path.c_str()) == 0;
}

void flush(Recorder &r) {
  if (!write_file(rank_file(r), serialize(r, std::numeric_limits<double>::quiet_NaN(), "")))
    std::fprintf(stderr, "patcoll: PATCOLL_REPORT: cannot write %s\n", rank_file(r).c_str());
}

// --- reading the rank files back at rank 0 ----------------------------------

class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  template <class T>
  T get() {
    T value{};
    if (!need(sizeof value)) return value;
    std::memcpy(&value, data_.data() + at_, sizeof value);
    at_ += sizeof value;
    return value;
  }
  std::string text() {
    const auto n = get<std::uint32_t>();
    if (!need(n)) return {};
    std::string out(data_.substr(at_, n));
    at_ += n;
    return out;
  }
  bool ok() const { return ok_; }

 private:
  bool need(std::size_t n) {
    if (!ok_ || data_.size() - at_ < n) ok_ = false;
    return ok_;
  }
  std::string_view data_;
  std::size_t at_ = 0;
  bool ok_ = true;
};

struct ReadSite {
  int collective = 0;
  std::int64_t bytes = 0;
  std::uint64_t first_call = 0, calls = 0;
  double time = 0, min_time = 0, max_time = 0;
  std::string site;
  std::vector<std::pair<std::string, std::uint64_t>> served;
  std::vector<std::uint64_t> call;
  std::vector<double> entry, leave;
};

struct ReadComm {
  int instance = 0;
  bool inter = false;
  std::string name;
  int rank = 0;
  std::vector<int> members;
  std::vector<ReadSite> sites;
};

struct ReadRank {
  int world_rank = 0;
  double offset = 0;
  std::string method, host;
  std::vector<ReadComm> comms;
};

bool parse(std::string_view data, ReadRank &out) {
  Reader in(data);
  if (data.size() < 12 || std::memcmp(data.data() + 4, kMagic, sizeof kMagic) != 0) return false;
  in.text();
  out.world_rank = in.get<std::int32_t>();
  in.get<std::int32_t>();
  in.get<double>();
  out.offset = in.get<double>();
  out.method = in.text();
  out.host = in.text();
  in.get<std::uint32_t>();
  const auto comms = in.get<std::uint32_t>();
  for (std::uint32_t c = 0; c < comms && in.ok(); ++c) {
    ReadComm comm;
    comm.instance = static_cast<int>(in.get<std::uint32_t>());
    comm.inter = in.get<std::uint8_t>() != 0;
    comm.name = in.text();
    const auto size = in.get<std::uint32_t>();
    comm.rank = in.get<std::int32_t>();
    for (std::uint32_t i = 0; i < size && in.ok(); ++i) comm.members.push_back(in.get<std::int32_t>());
    const auto sites = in.get<std::uint32_t>();
    for (std::uint32_t s = 0; s < sites && in.ok(); ++s) {
      ReadSite site;
      site.collective = in.get<std::uint8_t>();
      site.bytes = in.get<std::int64_t>();
      site.first_call = in.get<std::uint64_t>();
      site.calls = in.get<std::uint64_t>();
      site.time = in.get<double>();
      site.min_time = in.get<double>();
      site.max_time = in.get<double>();
      site.site = in.text();
      const auto served = in.get<std::uint32_t>();
      for (std::uint32_t v = 0; v < served && in.ok(); ++v) {
        std::string name = in.text();
        site.served.emplace_back(std::move(name), in.get<std::uint64_t>());
      }
      const auto n = in.get<std::uint32_t>();
      for (std::uint32_t k = 0; k < n && in.ok(); ++k) site.call.push_back(in.get<std::uint64_t>());
      for (std::uint32_t k = 0; k < n && in.ok(); ++k) site.entry.push_back(in.get<double>() + out.offset);
      for (std::uint32_t k = 0; k < n && in.ok(); ++k) site.leave.push_back(in.get<double>() + out.offset);
      comm.sites.push_back(std::move(site));
    }
    out.comms.push_back(std::move(comm));
  }
  return in.ok();
}

// --- the JSON report -----------------------------------------------------------

using core::json_string;

std::string number(double x) {
  if (!std::isfinite(x)) return "null";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", x);
  return buffer;
}

std::string base64(const std::vector<double> &values) {
  static constexpr char kTable[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const auto *bytes = reinterpret_cast<const unsigned char *>(values.data());
  const std::size_t n = values.size() * sizeof(double);
  std::string out;
  out.reserve((n + 2) / 3 * 4);
  for (std::size_t i = 0; i < n; i += 3) {
    const std::uint32_t v = (bytes[i] << 16) | (i + 1 < n ? bytes[i + 1] << 8 : 0) | (i + 2 < n ? bytes[i + 2] : 0);
    out += kTable[(v >> 18) & 63];
    out += kTable[(v >> 12) & 63];
    out += i + 1 < n ? kTable[(v >> 6) & 63] : '=';
    out += i + 2 < n ? kTable[v & 63] : '=';
  }
  return out;
}

template <class T, class F>
std::string json_list(const std::vector<T> &values, F format) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + format(values[i]);
  return out + "]";
}

// A call site across ranks: the communicator (members, instance), the
// collective, the bytes and the number of the first call made there.
struct SiteKey {
  std::vector<int> members;
  int instance;
  int collective;
  std::int64_t bytes;
  std::uint64_t first_call;
  auto operator<=>(const SiteKey &) const = default;
};

struct Merged {
  const ReadComm *comm = nullptr;  // as comm rank 0 (or the lowest recording rank) saw it
  std::vector<const ReadSite *> by_rank;  // per comm rank, nullptr where not recorded
  double total = 0;
};

// Rank 0: every rank's data -> PATH and the traces. False when a file
// cannot be written (said on stderr).
bool write_report(const Recorder &r, const std::vector<ReadRank> &ranks, const std::string &method) {
  std::map<SiteKey, Merged> merged;
  for (const ReadRank &rank : ranks)
    for (const ReadComm &comm : rank.comms)
      for (const ReadSite &site : comm.sites) {
        Merged &m = merged[{comm.members, comm.instance, site.collective, site.bytes, site.first_call}];
        if (m.by_rank.empty()) m.by_rank.assign(comm.members.size(), nullptr);
        if (comm.rank >= 0 && static_cast<std::size_t>(comm.rank) < m.by_rank.size()) m.by_rank[comm.rank] = &site;
        if (!m.comm || comm.rank == 0) m.comm = &comm;
        m.total += site.time;
      }
  std::vector<Merged *> order;
  for (auto &[key, m] : merged) order.push_back(&m);
  // By time in the collective, mean over the communicator's ranks (patcoll-report's order).
  auto mean = [](const Merged *m) {
    return m->total / static_cast<double>(std::max<std::size_t>(1, m->by_rank.size()));
  };
  std::stable_sort(order.begin(), order.end(), [&](const Merged *a, const Merged *b) { return mean(a) > mean(b); });

  // Communicators, numbered in order of first appearance.
  std::map<std::pair<std::vector<int>, int>, int> comm_ids;
  std::vector<const ReadComm *> comm_list;
  for (const Merged *m : order)
    if (comm_ids.emplace(std::make_pair(m->comm->members, m->comm->instance), static_cast<int>(comm_list.size()))
            .second)
      comm_list.push_back(m->comm);

  std::string base = r.path;
  if (base.size() > 5 && base.compare(base.size() - 5, 5, ".json") == 0) base.erase(base.size() - 5);
  std::string json = "{\n\"format\": \"patcoll-report\",\n\"version\": 1,\n\"complete\": true,\n";
  json += "\"world_size\": " + std::to_string(r.world_size) + ",\n\"clock\": " + json_string(method) + ",\n";
  json += "\"samples_cap\": " + std::to_string(r.cap) + ",\n";
  {
    std::vector<std::string> hosts;
    for (const ReadRank &rank : ranks) hosts.push_back(rank.host);
    std::sort(hosts.begin(), hosts.end());
    json += "\"hosts\": " + std::to_string(std::unique(hosts.begin(), hosts.end()) - hosts.begin()) + ",\n";
  }
  json += "\"communicators\": [";
  for (std::size_t c = 0; c < comm_list.size(); ++c) {
    const ReadComm &comm = *comm_list[c];
    json += std::string(c ? ",\n" : "\n") + "{\"id\": " + std::to_string(c) + ", \"name\": " + json_string(comm.name) +
            ", \"size\": " + std::to_string(comm.members.size()) + ", \"instance\": " + std::to_string(comm.instance) +
            ", \"inter\": " + (comm.inter ? "true" : "false") +
            ", \"members\": " + json_list(comm.members, [](int m) { return std::to_string(m); }) + "}";
  }
  json += "],\n\"sites\": [";
  bool ok = true;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const Merged &m = *order[k];
    const std::size_t size = m.by_rank.size();
    const ReadSite *lead = nullptr;
    for (const ReadSite *s : m.by_rank)
      if (s && !lead) lead = s;
    std::size_t recorded = 0;
    for (const ReadSite *s : m.by_rank) recorded += s != nullptr;
    // Calls sampled on every rank, aligned by call number.
    std::vector<std::uint64_t> common;
    if (recorded == size) {
      common = lead->call;
      for (const ReadSite *s : m.by_rank) {
        std::vector<std::uint64_t> both;
        std::set_intersection(common.begin(), common.end(), s->call.begin(), s->call.end(), std::back_inserter(both));
        common.swap(both);
      }
    }
    std::vector<double> entry(common.size() * size), leave(common.size() * size);
    double t0 = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < size && !common.empty(); ++i) {
      const ReadSite &s = *m.by_rank[i];
      std::size_t j = 0;
      for (std::size_t c = 0; c < common.size(); ++c) {
        while (s.call[j] != common[c]) ++j;
        entry[c * size + i] = s.entry[j];
        leave[c * size + i] = s.leave[j];
        t0 = std::min(t0, s.entry[j]);
      }
    }
    if (!std::isfinite(t0)) t0 = 0;
    for (double &x : entry) x -= t0;
    for (double &x : leave) x -= t0;
    std::string trace;
    if (!common.empty()) {
      trace = base + ".site" + std::to_string(k + 1) + ".trace";
      std::ofstream out(trace);
      out << "# patcoll arrival trace: " << core::to_string(static_cast<core::Collective>(lead->collective)) << ", "
          << lead->bytes << " bytes per rank, at " << (m.by_rank[0] ? m.by_rank[0]->site : lead->site) << " on "
          << m.comm->name << " (" << size << " ranks); " << common.size() << " sampled calls of " << lead->calls
          << "\n# one call per line: each rank's arrival, seconds after the earliest rank's (trace:FILE)\n";
      char buffer[32];
      for (std::size_t c = 0; c < common.size(); ++c) {
        const double lo = *std::min_element(entry.begin() + c * size, entry.begin() + (c + 1) * size);
        for (std::size_t i = 0; i < size; ++i) {
          std::snprintf(buffer, sizeof buffer, "%.9g", entry[c * size + i] - lo);
          out << (i ? " " : "") << buffer;
        }
        out << '\n';
      }
      if (!out) {
        std::fprintf(stderr, "patcoll: PATCOLL_REPORT: cannot write %s\n", trace.c_str());
        ok = false;
      }
    }
    std::string relative = trace;
    if (const auto slash = relative.rfind('/'); slash != std::string::npos) relative.erase(0, slash + 1);
    std::map<std::string, std::uint64_t> served;
    for (const ReadSite *s : m.by_rank)
      if (s)
        for (const auto &[name, calls] : s->served) served[name] += calls;
    std::string served_json = "{";
    for (const auto &[name, calls] : served)
      served_json += (served_json.size() > 1 ? ", " : "") + json_string(name) + ": " + std::to_string(calls);
    served_json += "}";
    auto per_rank = [&](auto field) {
      std::string out = "[";
      for (std::size_t i = 0; i < size; ++i)
        out += (i ? "," : "") + (m.by_rank[i] ? field(*m.by_rank[i]) : std::string("null"));
      return out + "]";
    };
    json += std::string(k ? ",\n" : "\n") + "{\"id\": " + std::to_string(k + 1) +
            ", \"communicator\": " + std::to_string(comm_ids[{m.comm->members, m.comm->instance}]) +
            ", \"collective\": " + json_string(core::to_string(static_cast<core::Collective>(lead->collective))) +
            ", \"bytes\": " + std::to_string(lead->bytes) + ", \"first_call\": " + std::to_string(lead->first_call) +
            ", \"call_site\": " + json_string(m.by_rank[0] ? m.by_rank[0]->site : lead->site) +
            ", \"call_sites\": " + per_rank([](const ReadSite &s) { return json_string(s.site); }) +
            ", \"calls\": " + per_rank([](const ReadSite &s) { return std::to_string(s.calls); }) +
            ", \"served_by\": " + served_json +
            ", \"time_s\": " + per_rank([](const ReadSite &s) { return number(s.time); }) +
            ", \"min_s\": " + per_rank([](const ReadSite &s) { return number(s.min_time); }) +
            ", \"max_s\": " + per_rank([](const ReadSite &s) { return number(s.max_time); }) +
            ",\n \"samples\": {\"count\": " + std::to_string(common.size()) + ", \"t0\": " + number(t0) +
            ", \"call\": " + json_list(common, [](std::uint64_t c) { return std::to_string(c); }) +
            ", \"encoding\": \"base64 float64 little-endian, calls x ranks, seconds after t0\"" +
            ",\n  \"entry\": \"" + base64(entry) + "\",\n  \"exit\": \"" + base64(leave) + "\"}" +
            ", \"trace\": " + (relative.empty() ? std::string("null") : json_string(relative)) + "}";
  }
  json += "\n]\n}\n";
  if (!write_file(r.path, json)) {
    std::fprintf(stderr, "patcoll: PATCOLL_REPORT: cannot write %s\n", r.path.c_str());
    return false;
  }
  return ok;
}

// At MPI_Finalize (every rank): align the clocks, gather, write, clean up.
int finalize_hook(MPI_Comm, int, void *, void *) {
  std::lock_guard<std::mutex> lock(g_mutex);
  Recorder &r = recorder();
  if (r.finished) return MPI_SUCCESS;
  r.finished = true;
  MPI_Comm world = MPI_COMM_NULL;
  if (PMPI_Comm_dup(MPI_COMM_WORLD, &world) != MPI_SUCCESS) return MPI_SUCCESS;
  const clock::Alignment alignment = clock::align_to_root(world, clock::local_anchor());
  const std::string blob = serialize(r, alignment.offset, alignment.method);
  int size = static_cast<int>(blob.size());
  std::vector<int> sizes(static_cast<std::size_t>(r.world_size)), displacements(sizes.size());
  PMPI_Gather(&size, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, world);
  std::string all;
  if (r.world_rank == 0) {
    long long total = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      displacements[i] = static_cast<int>(total);
      total += sizes[i];
    }
    all.resize(static_cast<std::size_t>(total));
  }
  PMPI_Gatherv(blob.data(), size, MPI_BYTE, all.data(), sizes.data(), displacements.data(), MPI_BYTE, 0, world);
  int written = 0;
  if (r.world_rank == 0) {
    std::vector<ReadRank> ranks(sizes.size());
    bool parsed = true;
    for (std::size_t i = 0; i < sizes.size(); ++i)
      parsed = parse(std::string_view(all).substr(static_cast<std::size_t>(displacements[i]),
                                                  static_cast<std::size_t>(sizes[i])),
                     ranks[i]) &&
               parsed;
    written = parsed && write_report(r, ranks, alignment.method) ? 1 : 0;
    if (!parsed)
      std::fprintf(stderr, "patcoll: PATCOLL_REPORT: a rank's data did not parse; %s not written\n", r.path.c_str());
  }
  PMPI_Bcast(&written, 1, MPI_INT, 0, world);
  if (written) std::remove(rank_file(r).c_str());
  PMPI_Comm_free(&world);
  return MPI_SUCCESS;
}

bool prepare_locked(Recorder &r) {
  if (r.hook) return true;
  int initialized = 0, finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  if (!initialized || finalized) return false;
  if (patcoll::mpi::at_finalize(finalize_hook) != MPI_SUCCESS) return false;
  PMPI_Comm_rank(MPI_COMM_WORLD, &r.world_rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &r.world_size);
  char host[MPI_MAX_PROCESSOR_NAME] = {0};
  int length = 0;
  PMPI_Get_processor_name(host, &length);
  r.host.assign(host, static_cast<std::size_t>(std::max(0, length)));
  r.anchor = clock::local_anchor();
  r.next_flush = clock::now() + r.flush_seconds;
  r.hook = true;
  return true;
}

// A new record of `comm` (its members and its instance among communicators
// with the same members), kept until the report is written.
CommRecord *new_comm_record(Recorder &r, MPI_Comm comm) {
  auto record = std::make_unique<CommRecord>();
  int inter = 0, size = 0;
  PMPI_Comm_test_inter(comm, &inter);
  record->inter = inter != 0;
  PMPI_Comm_size(comm, &size);
  PMPI_Comm_rank(comm, &record->rank);
  MPI_Group group = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
  PMPI_Comm_group(comm, &group);
  PMPI_Comm_group(MPI_COMM_WORLD, &world);
  std::vector<int> ranks(static_cast<std::size_t>(size));
  for (int i = 0; i < size; ++i) ranks[static_cast<std::size_t>(i)] = i;
  record->members.assign(ranks.size(), MPI_UNDEFINED);
  PMPI_Group_translate_ranks(group, size, ranks.data(), world, record->members.data());
  PMPI_Group_free(&group);
  PMPI_Group_free(&world);
  record->instance = r.instances[record->members]++;
  char name[MPI_MAX_OBJECT_NAME] = {0};
  int length = 0;
  PMPI_Comm_get_name(comm, name, &length);
  record->name = length > 0 ? std::string(name, static_cast<std::size_t>(length)) : "unnamed communicator";
  r.comms.push_back(std::move(record));
  return r.comms.back().get();
}

// The deterministic sample: call number n of the key is kept when it is in
// the first half of the cap, or on the stride of the second half.
void add_sample(Site &s, std::size_t cap, std::uint64_t n, std::uint64_t call, double entry, double leave) {
  if (cap == 0) return;
  const std::size_t head = cap / 2, tail = cap - head;
  if (n >= head) {
    const std::uint64_t m = n - head;
    if (m % s.stride != 0) return;
    if (s.samples.size() - head >= tail) {  // full: keep every other one, double the stride
      std::size_t kept = head;
      for (std::size_t j = head; j < s.samples.size(); j += 2) s.samples[kept++] = s.samples[j];
      s.samples.resize(kept);
      s.stride *= 2;
      if (m % s.stride != 0) return;
    }
  }
  s.samples.push_back({call, entry, leave});
}

}  // namespace

bool enabled() {
  int state = g_enabled.load(std::memory_order_relaxed);
  if (state < 0) {
    state = core::config::settings()->values[static_cast<int>(core::config::Var::report)].text.empty() ? 0 : 1;
    g_enabled.store(state, std::memory_order_relaxed);
  }
  return state == 1;
}

void prepare() {
  if (!enabled()) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  prepare_locked(recorder());
}

void record(CommRecord **cached, MPI_Comm comm, core::Collective collective, const void *call_site,
            std::int64_t bytes, double entry, double leave, std::string_view served_by) {
  if (comm == MPI_COMM_NULL) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  Recorder &r = recorder();
  if (r.finished || !prepare_locked(r)) return;
  CommRecord *comm_record = cached ? *cached : nullptr;
  if (!comm_record) {
    // Without the communicator's state: by handle (a handle MPI reuses
    // after MPI_Comm_free would continue the freed communicator's record).
    if (!cached) {
      if (auto it = r.by_handle.find(comm); it != r.by_handle.end()) comm_record = it->second;
    }
    if (!comm_record) {
      comm_record = new_comm_record(r, comm);
      if (!cached) r.by_handle[comm] = comm_record;
    }
    if (cached) *cached = comm_record;
  }
  const int c = static_cast<int>(collective);
  const std::uint64_t call = comm_record->calls[static_cast<std::size_t>(c)]++;
  CommRecord::Key key{call_site, bytes, c};
  auto it = comm_record->index.find(key);
  if (it == comm_record->index.end()) {
    if (r.site_count >= kMaxSites) {
      key = {nullptr, -1, c};
      it = comm_record->index.find(key);
    }
    if (it == comm_record->index.end()) {
      it = comm_record->index.emplace(key, comm_record->sites.size()).first;
      Site &fresh = comm_record->sites.emplace_back();
      fresh.collective = collective;
      fresh.address = key.address;
      fresh.bytes = key.bytes;
      fresh.first_call = call;
      ++r.site_count;
    }
  }
  Site &s = comm_record->sites[it->second];
  const double elapsed = leave - entry;
  add_sample(s, r.cap, s.calls, call, entry, leave);
  ++s.calls;
  s.time += elapsed;
  s.min_time = std::min(s.min_time, elapsed);
  s.max_time = std::max(s.max_time, elapsed);
  Served *slot = &s.served.back();
  for (Served &v : s.served)
    if (v.calls == 0 || v.name == served_by) {
      slot = &v;
      break;
    }
  if (slot->calls == 0) slot->name = served_by;
  ++slot->calls;
  if (r.flush_seconds > 0 && leave >= r.next_flush) {
    flush(r);
    r.next_flush = clock::now() + r.flush_seconds;
  }
}

std::int64_t reduction_bytes(int count, MPI_Datatype datatype) {
  if (datatype == MPI_DATATYPE_NULL) return -1;
  int size = 0;
  PMPI_Type_size(datatype, &size);
  return static_cast<std::int64_t>(count) * size;
}

std::int64_t movement_bytes(core::Collective collective, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            const void *recvbuf, int recvcount, MPI_Datatype recvtype) {
  // Scatter: the received block (the root's send block when it receives in
  // place); gather and allgather(v): the sent block (the rank's receive block in place).
  const bool use_send =
      collective == core::Collective::scatter ? recvbuf == MPI_IN_PLACE : sendbuf != MPI_IN_PLACE;
  return use_send ? reduction_bytes(sendcount, sendtype) : reduction_bytes(recvcount, recvtype);
}

std::size_t memory_bytes() {
  std::lock_guard<std::mutex> lock(g_mutex);
  const Recorder &r = recorder();
  std::size_t total = sizeof r;
  for (const auto &comm : r.comms) {
    total += sizeof *comm + comm->members.capacity() * sizeof(int) + comm->index.size() * 48;
    for (const Site &s : comm->sites) total += sizeof s + s.samples.capacity() * sizeof(Sample);
  }
  return total;
}

}  // namespace patcoll::mpi::report
