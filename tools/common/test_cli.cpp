// The shared CLI parsing: every tool reads numbers, sizes, durations and
// ranges the same way, and refuses what it cannot read exactly.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cli.hpp"

using namespace patcoll::cli;

TEST(Sizes, BinarySuffixesEverywhere) {
  std::int64_t v = 0;
  EXPECT_EQ(parse_size("1M", v), "");
  EXPECT_EQ(v, 1 << 20);  // not 10^6 (patcoll-sim read 1M as 10^6 before)
  EXPECT_EQ(parse_size("1Mi", v), "");
  EXPECT_EQ(v, 1 << 20);
  EXPECT_EQ(parse_size("4K", v), "");
  EXPECT_EQ(v, 4096);
  EXPECT_EQ(parse_size("4KB", v), "");
  EXPECT_EQ(v, 4096);
  EXPECT_EQ(parse_size("1.5K", v), "");
  EXPECT_EQ(v, 1536);
  EXPECT_EQ(parse_size("2G", v), "");
  EXPECT_EQ(v, std::int64_t{2} << 30);
  EXPECT_EQ(parse_size("123", v), "");
  EXPECT_EQ(v, 123);
}

TEST(Sizes, MalformedAndOverflowingAreRefused) {
  std::int64_t v = 7;
  for (const char *bad : {"", "5X", "abc", "-1", "1.3K", "1e3", "nan", "inf", " 4", "4 ", "K", "1KK", "0x10",
                          "99999999999999999999999", "9999999999G"})
    EXPECT_NE(parse_size(bad, v), "") << bad;
  EXPECT_EQ(v, 7);  // untouched on error
  EXPECT_NE(parse_size("99999999999", v, 0, 0x7fffffff), "");  // would wrap an int
  EXPECT_NE(parse_size("3", v, 4, 10), "");
}

TEST(Integers, StrictAndRangeChecked) {
  std::int64_t v = 0;
  EXPECT_EQ(parse_integer("42", v), "");
  EXPECT_EQ(v, 42);
  EXPECT_EQ(parse_integer("-3", v, -5, 5), "");
  EXPECT_EQ(v, -3);
  for (const char *bad : {"", "5X", "4.0", "1K", "+", "-", "99999999999999999999"}) EXPECT_NE(parse_integer(bad, v), "") << bad;
  EXPECT_NE(parse_integer("0", v, 1, 10), "");
}

TEST(Reals, FiniteOnlyAndBounded) {
  double v = 0;
  EXPECT_EQ(parse_real("2.5e-6", v), "");
  EXPECT_DOUBLE_EQ(v, 2.5e-6);
  for (const char *bad : {"", "nan", "inf", "-inf", "1e999", "1x", "abc", "0x1p3"}) EXPECT_NE(parse_real(bad, v), "") << bad;
  EXPECT_NE(parse_real("-1", v, 0.0), "");
  EXPECT_NE(parse_real("0", v, 0.0, /*low_open=*/true), "");
  EXPECT_EQ(parse_real("0", v, 0.0), "");
}

TEST(Durations, UnitsAndRefusals) {
  double v = 0;
  EXPECT_EQ(parse_seconds("20ms", v), "");
  EXPECT_DOUBLE_EQ(v, 0.02);
  EXPECT_EQ(parse_seconds("5us", v), "");
  EXPECT_DOUBLE_EQ(v, 5e-6);
  EXPECT_EQ(parse_seconds("1.5", v), "");
  EXPECT_DOUBLE_EQ(v, 1.5);
  for (const char *bad : {"", "-1ms", "nanms", "1h", "ms", "infs"}) EXPECT_NE(parse_seconds(bad, v), "") << bad;
}

TEST(Lists, ValuesAndRanges) {
  std::vector<std::int64_t> sizes;
  EXPECT_EQ(parse_size_list("4K:16M:x4", sizes), "");
  EXPECT_EQ(sizes, (std::vector<std::int64_t>{4096, 16384, 65536, 262144, 1048576, 4194304, 16777216}));
  EXPECT_EQ(parse_size_list("1,2,8:10:+1", sizes), "");
  EXPECT_EQ(sizes, (std::vector<std::int64_t>{1, 2, 8, 9, 10}));
  for (const char *bad : {"", "1,,2", "4:1:x2", "1:8:x1", "1:8:+0", "0:8:x2", "1:2", "1:2:3", "1:1000000000:+1"})
    EXPECT_NE(parse_size_list(bad, sizes), "") << bad;
  std::vector<double> reals;
  EXPECT_EQ(parse_real_list("1e-6,2e-6", reals, 0.0, true), "");
  EXPECT_EQ(reals.size(), 2u);
  EXPECT_NE(parse_real_list("1e-6,nan", reals, 0.0, true), "");
  EXPECT_NE(parse_real_list("-1", reals, 0.0, true), "");
}

TEST(Version, IsTheProjectVersion) {
  EXPECT_EQ(std::string(version()), PATCOLL_VERSION_STRING);
  EXPECT_NE(version_text("patcoll-sim").find("patcoll-sim (patcoll) " PATCOLL_VERSION_STRING), std::string::npos);
}

// ---- the flag convention ------------------------------------------------------

namespace {
std::vector<char *> argv_of(std::vector<std::string> &words) {
  std::vector<char *> argv;
  for (std::string &w : words) argv.push_back(w.data());
  return argv;
}
}  // namespace

TEST(FlagTable, AliasesReturnTheFlagsNameAndKeepTheirSpelling) {
  std::vector<std::string> words{"tool", "--pap", "one-late:1ms", "--collective=reduce", "-o", "x", "--json"};
  auto argv = argv_of(words);
  Arguments args("patcoll-x", "usage", static_cast<int>(argv.size()), argv.data(),
                 {flags::pattern, flags::coll, flags::out, flags::json});
  std::string flag;
  ASSERT_TRUE(args.next(flag));
  EXPECT_EQ(flag, "--pattern");
  EXPECT_EQ(args.spelled(), "--pap");
  EXPECT_EQ(args.value(), "one-late:1ms");
  ASSERT_TRUE(args.next(flag));
  EXPECT_EQ(flag, "--coll");
  EXPECT_EQ(args.value(), "reduce");
  ASSERT_TRUE(args.next(flag));
  EXPECT_EQ(flag, "--out");
  EXPECT_EQ(args.value(), "x");
  ASSERT_TRUE(args.next(flag));
  EXPECT_EQ(flag, "--json");
  EXPECT_FALSE(args.next(flag));
}

TEST(FlagTable, UnknownFlagsAndValuedSwitchesAreOneMessage) {
  for (const auto &[word, message] : std::vector<std::pair<std::string, std::string>>{
           {"--bogus", "unknown option '--bogus' (see --help)"},
           {"--json=1", "--json takes no value"},
           {"stray", "unexpected argument 'stray' (see --help)"}}) {
    std::vector<std::string> words{"tool", word};
    auto argv = argv_of(words);
    Arguments args("patcoll-x", "usage", 2, argv.data(), {flags::json});
    args.throw_on_error();
    std::string flag;
    try {
      args.next(flag);
      ADD_FAILURE() << word << " accepted";
    } catch (const BadArguments &bad) {
      EXPECT_EQ(bad.message, message);
    }
  }
}

TEST(FlagTable, ValueErrorsNameTheFlagAsTyped) {
  std::vector<std::string> words{"tool", "--bytes", "5X"};
  auto argv = argv_of(words);
  Arguments args("patcoll-x", "usage", 3, argv.data(), {flags::size});
  args.throw_on_error();
  std::string flag;
  ASSERT_TRUE(args.next(flag));
  try {
    args.size();
    ADD_FAILURE() << "5X accepted";
  } catch (const BadArguments &bad) {
    EXPECT_EQ(bad.message.rfind("--bytes: bad size '5X'", 0), 0u) << bad.message;
  }
}

TEST(SharedValues, ProcsRootAndNamesReadTheSameEverywhere) {
  std::vector<std::int64_t> procs;
  EXPECT_EQ(parse_procs("4:16:x2", procs), "");
  EXPECT_EQ(procs, (std::vector<std::int64_t>{4, 8, 16}));
  EXPECT_EQ(parse_procs("0", procs), "process count '0' is outside 1 .. 1048576");
  EXPECT_NE(parse_procs("4,8", procs, /*single=*/true), "");
  EXPECT_EQ(root_problem(3, 4), "");
  EXPECT_EQ(root_problem(4, 4), "root 4 is outside 0 .. 3 (4 processes)");
  EXPECT_EQ(json_string("a\"b\\\n"), "\"a\\\"b\\\\\\u000a\"");
}
