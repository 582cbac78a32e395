#include "cli.hpp"

#include "core/json.hpp"
#include "core/traits.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <type_traits>

#ifndef PATCOLL_VERSION_STRING
#error "PATCOLL_VERSION_STRING comes from CMakeLists.txt"
#endif

namespace patcoll::cli {

namespace {

constexpr std::size_t kMaxListValues = 100000;

std::string quoted(const std::string &text) { return "'" + text + "'"; }

bool is_number_start(const std::string &text) {
  return !text.empty() && (std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.' || text[0] == '-' ||
                           text[0] == '+');
}

// A strict decimal real: the whole `text` is a finite number.
bool strict_real(const std::string &text, double &out) {
  if (!is_number_start(text)) return false;  // rejects " 1", "nan", "inf", "0x10"
  for (char c : text)
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+'))
      return false;
  errno = 0;
  char *end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(value)) return false;
  out = value;
  return true;
}

template <class T, class ParseOne>
std::string parse_list(const std::string &text, std::vector<T> &out, ParseOne parse_one) {
  out.clear();
  for (const std::string &item : split(text, ',')) {
    const auto range = split(item, ':');
    if (range.size() == 1) {
      T value{};
      if (std::string e = parse_one(item, value); !e.empty()) return e;
      out.push_back(value);
    } else if (range.size() == 3 && range[2].size() > 1 && (range[2][0] == 'x' || range[2][0] == '+')) {
      T first{}, last{};
      if (std::string e = parse_one(range[0], first); !e.empty()) return e;
      if (std::string e = parse_one(range[1], last); !e.empty()) return e;
      double step = 0;
      const bool geometric = range[2][0] == 'x';
      if (!strict_real(range[2].substr(1), step) || (geometric ? step <= 1 : step <= 0))
        return "range step of " + quoted(item) + " must grow (xK with K > 1, or +K with K > 0)";
      if (geometric && !(static_cast<double>(first) > 0)) return "geometric range " + quoted(item) + " must start above 0";
      if (last < first) return "range " + quoted(item) + " ends below its start";
      for (double v = static_cast<double>(first); v <= static_cast<double>(last) * (1 + 1e-12);
           v = geometric ? v * step : v + step) {
        if (out.size() >= kMaxListValues) return "list " + quoted(text) + " has more than 100000 values";
        out.push_back(static_cast<T>(std::is_integral_v<T> ? std::llround(v) : v));
      }
    } else {
      return "bad list item " + quoted(item) + " (a value, a:b:xK or a:b:+K)";
    }
    if (out.size() > kMaxListValues) return "list " + quoted(text) + " has more than 100000 values";
  }
  if (out.empty()) return "empty list";
  return {};
}

}  // namespace

const char *version() { return PATCOLL_VERSION_STRING; }

std::string version_text(const std::string &tool) {
  return tool + " (patcoll) " + version() + "\nBSD-3-Clause licence (see LICENSE)\n";
}

void die(const std::string &tool, const std::string &message) {
  std::fflush(stdout);
  std::fprintf(stderr, "%s: %s\n", tool.c_str(), message.c_str());
  std::exit(2);
}

std::string json_string(const std::string &text) { return core::json_string(text); }

std::vector<std::string> split(const std::string &text, char separator) {
  std::vector<std::string> parts;
  std::string item;
  for (char c : text) {
    if (c == separator) {
      parts.push_back(item);
      item.clear();
    } else {
      item += c;
    }
  }
  parts.push_back(item);
  return parts;
}

std::string parse_size(const std::string &text, std::int64_t &out, std::int64_t low, std::int64_t high) {
  const std::string bad = "bad size " + quoted(text) + " (a whole number of bytes or elements; K/M/G = 2^10/2^20/2^30)";
  std::size_t digits = 0;
  while (digits < text.size() && (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.'))
    ++digits;
  double value = 0;
  if (digits == 0 || !strict_real(text.substr(0, digits), value)) return bad;
  std::string suffix = text.substr(digits);
  if (suffix.size() > 1 && suffix.back() == 'B') suffix.pop_back();  // 4KB, 4KiB
  double scale = 1;
  if (suffix.empty() || suffix == "B") scale = 1;
  else if (suffix == "K" || suffix == "k" || suffix == "Ki") scale = 1024.0;
  else if (suffix == "M" || suffix == "Mi") scale = 1024.0 * 1024;
  else if (suffix == "G" || suffix == "Gi") scale = 1024.0 * 1024 * 1024;
  else return bad;
  const double scaled = value * scale;
  if (scaled != std::floor(scaled)) return bad;
  if (scaled >= 9.2e18 || scaled > static_cast<double>(high) || scaled < static_cast<double>(low))
    return "size " + quoted(text) + " is outside " + std::to_string(low) + " .. " + std::to_string(high);
  out = static_cast<std::int64_t>(scaled);
  return {};
}

std::string parse_integer(const std::string &text, std::int64_t &out, std::int64_t low, std::int64_t high) {
  const std::string bad = "bad integer " + quoted(text);
  if (text.empty()) return bad;
  for (std::size_t i = 0; i < text.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(text[i])) && !(i == 0 && text[i] == '-' && text.size() > 1))
      return bad;
  errno = 0;
  char *end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (errno == ERANGE || value < low || value > high)
    return "integer " + quoted(text) + " is outside " + std::to_string(low) + " .. " + std::to_string(high);
  out = value;
  return {};
}

std::string parse_real(const std::string &text, double &out, double low, bool low_open) {
  double value = 0;
  if (!strict_real(text, value)) return "bad number " + quoted(text) + " (a finite decimal number)";
  if (low_open ? !(value > low) : !(value >= low))
    return "number " + quoted(text) + " must be " + (low_open ? "above " : "at least ") + std::to_string(low);
  out = value;
  return {};
}

std::string parse_seconds(const std::string &text, double &out) {
  struct Unit {
    const char *suffix;
    double scale;
  };
  for (Unit unit : {Unit{"ms", 1e-3}, Unit{"us", 1e-6}, Unit{"ns", 1e-9}, Unit{"s", 1.0}}) {
    const std::string suffix = unit.suffix;
    if (text.size() > suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0) {
      double value = 0;
      if (!strict_real(text.substr(0, text.size() - suffix.size()), value) || value < 0)
        return "bad duration " + quoted(text) + " (non-negative seconds; s/ms/us/ns suffixes)";
      out = value * unit.scale;
      return {};
    }
  }
  double value = 0;
  if (!strict_real(text, value) || value < 0)
    return "bad duration " + quoted(text) + " (non-negative seconds; s/ms/us/ns suffixes)";
  out = value;
  return {};
}

std::string parse_size_list(const std::string &text, std::vector<std::int64_t> &out, std::int64_t low,
                            std::int64_t high) {
  return parse_list<std::int64_t>(text, out, [&](const std::string &item, std::int64_t &value) {
    return parse_size(item, value, low, high);
  });
}

std::string parse_real_list(const std::string &text, std::vector<double> &out, double low, bool low_open) {
  return parse_list<double>(text, out, [&](const std::string &item, double &value) {
    return parse_real(item, value, low, low_open);
  });
}

std::string parse_procs(const std::string &text, std::vector<std::int64_t> &out, bool single) {
  if (std::string e = parse_size_list(text, out, 1, kMaxProcs); !e.empty()) {
    if (e.rfind("size ", 0) == 0) return "process count" + e.substr(4);  // "size 'x' is outside ..."
    if (e.rfind("bad size ", 0) == 0)
      return "bad process count" + e.substr(8, e.find(" (") - 8) + " (a whole number, 1 .. 2^20; ranges a:b:xK)";
    return e;
  }
  if (single && out.size() != 1) return "one process count expected, got " + quoted(text);
  return {};
}

std::string root_problem(std::int64_t root, std::int64_t procs) {
  if (root >= 0 && root < procs) return {};
  return "root " + std::to_string(root) + " is outside 0 .. " + std::to_string(procs - 1) + " (" +
         std::to_string(procs) + " processes)";
}

std::string unknown_collective(const std::string &name) {
  std::string known;  // every collective, in collectives.def's order
  for (const auto &t : patcoll::core::collectives()) known += (known.empty() ? "" : ", ") + std::string(t.name);
  return "unknown collective " + quoted(name) + " (" + known + ")";
}

std::string unknown_algorithm(const std::string &name, const std::string &collectives) {
  return "unknown algorithm " + quoted(name) + " for " + collectives + " (patcoll-info lists them)";
}

Arguments::Arguments(std::string tool, std::string usage, int argc, char **argv, int first)
    : tool_(std::move(tool)), usage_(std::move(usage)), argc_(argc), argv_(argv), index_(first) {}

Arguments::Arguments(std::string tool, std::string usage, int argc, char **argv, std::vector<Flag> table, int first)
    : tool_(std::move(tool)), usage_(std::move(usage)), argc_(argc), argv_(argv), index_(first),
      table_(std::move(table)) {}

void Arguments::fail(const std::string &message) const {
  if (throws_) throw BadArguments{message};
  die(tool_, message);
}

bool Arguments::next(std::string &flag) {
  if (index_ >= argc_) return false;
  std::string word = argv_[index_++];
  has_inline_value_ = false;
  if (word == "--help" || word == "-h") {
    std::cout << usage_;
    std::exit(0);
  }
  if (word == "--version") {
    std::cout << version_text(tool_);
    std::exit(0);
  }
  if (word.size() < 2 || word[0] != '-') fail("unexpected argument " + quoted(word) + " (see --help)");
  if (auto equals = word.find('='); word.rfind("--", 0) == 0 && equals != std::string::npos) {
    inline_value_ = word.substr(equals + 1);
    has_inline_value_ = true;
    word.erase(equals);
  }
  flag_ = spelled_ = flag = word;
  if (table_.empty()) return true;
  for (const Flag &f : table_) {
    bool match = word == f.name;
    for (const std::string &alias : split(f.aliases, ' ')) match |= !alias.empty() && word == alias;
    if (!match) continue;
    flag_ = flag = f.name;
    if (!f.takes_value && has_inline_value_) fail(spelled_ + " takes no value");
    return true;
  }
  unknown();
}

std::string Arguments::value() {
  if (has_inline_value_) {
    has_inline_value_ = false;
    return inline_value_;
  }
  if (index_ >= argc_) fail(spelled_ + " needs a value");
  return argv_[index_++];
}

void Arguments::unknown() const { fail("unknown option " + quoted(spelled_) + " (see --help)"); }

std::int64_t Arguments::size(std::int64_t low, std::int64_t high) {
  std::int64_t out = 0;
  if (std::string e = parse_size(value(), out, low, high); !e.empty()) fail_value(e);
  return out;
}

std::int64_t Arguments::integer(std::int64_t low, std::int64_t high) {
  std::int64_t out = 0;
  if (std::string e = parse_integer(value(), out, low, high); !e.empty()) fail_value(e);
  return out;
}

double Arguments::real(double low, bool low_open) {
  double out = 0;
  if (std::string e = parse_real(value(), out, low, low_open); !e.empty()) fail_value(e);
  return out;
}

double Arguments::seconds() {
  double out = 0;
  if (std::string e = parse_seconds(value(), out); !e.empty()) fail_value(e);
  return out;
}

Progress::Progress(std::string tool, std::int64_t total, bool enabled, double interval)
    : tool_(std::move(tool)), total_(total), enabled_(enabled), interval_(interval),
      start_(std::chrono::steady_clock::now()), last_(start_) {}

void Progress::step(std::int64_t done) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  const std::chrono::duration<double> interval(interval_);
  if (now - start_ < interval || (printed_ && now - last_ < interval)) return;
  last_ = now;
  printed_ = true;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  std::fprintf(stderr, "%s: %lld/%lld cases (%.0f%%), %.0f s\n", tool_.c_str(), static_cast<long long>(done),
               static_cast<long long>(total_), total_ > 0 ? 100.0 * static_cast<double>(done) / total_ : 100.0,
               elapsed);
}

void Progress::finish() {
  if (!enabled_ || !printed_) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::fprintf(stderr, "%s: %lld cases done in %.1f s\n", tool_.c_str(), static_cast<long long>(total_), elapsed);
}

}  // namespace patcoll::cli
