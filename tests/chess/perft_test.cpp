// Perft suites as data (data/perft/): the CPW results, the 126-position perftsuite and a slice of
// random.perft, each checked to the depths that fit the ctest budget.
//
// Budget: `#ifdef NDEBUG` picks the depths. The release build runs deeper than the Debug -O1 ASan+UBSan
// build; the depths below keep the release run under ~20 s and the sanitizer run under ~60 s for this
// whole file on one core (measured: ~3 s release, ~4 s ASan, wall time on the busy 2-core build machine).
#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "chess/fen.h"
#include "chess/perft.h"
#include "chess/perft_suite.h"

using namespace tbkit::chess;

namespace {

#ifdef NDEBUG
constexpr std::uint64_t kCpwNodeBudget = 20'000'000;  // per position: deepest count not above this
constexpr int kSuiteDepth = 4;
constexpr int kRandomCases = 300;
constexpr int kRandomDepth = 4;
#else
constexpr std::uint64_t kCpwNodeBudget = 5'000'000;
constexpr int kSuiteDepth = 4;
constexpr int kRandomCases = 300;
constexpr int kRandomDepth = 3;
#endif

std::vector<PerftCase> load_suite(const std::string& file) {
  const std::string path = std::string(TBKIT_DATA_DIR) + "/perft/" + file;
  std::ifstream in(path);
  INFO(path);
  REQUIRE(in);
  auto cases = parse_perft_suite(in, path);
  INFO((cases.ok() ? std::string() : cases.error().message));
  REQUIRE(cases.ok());
  return std::move(cases).value();
}

// Checks every expected count of a case up to max_depth (and, with a node budget, skips deeper
// counts above it). Returns the number of counts checked.
int check_case(const PerftCase& c, int max_depth, std::uint64_t node_budget) {
  INFO(c.name << " (line " << c.line << "): " << c.fen);
  auto pos = parse_fen(c.fen);
  INFO((pos.ok() ? std::string() : pos.error().message));
  REQUIRE(pos.ok());
  const std::string fen_before = to_fen(*pos);
  int checked = 0;
  for (const auto& [depth, expected] : c.expected) {
    if (depth > max_depth || expected > node_budget) continue;
    INFO("depth " << depth);
    CHECK(perft(*pos, depth) == expected);
    ++checked;
  }
  // perft restores the position it walked.
  CHECK(to_fen(*pos) == fen_before);
  CHECK(pos->key() == pos->compute_key());
  return checked;
}

}  // namespace

TEST_CASE("CPW perft results", "[chess][perft][slow]") {
  const auto cases = load_suite("cpw_perft_results.epd");
  REQUIRE(cases.size() == 8);
  int checked = 0;
  for (const auto& c : cases) checked += check_case(c, 20, kCpwNodeBudget);
  // At least depth 3 of every position, and the one-count entry (position 8 at D5) in release.
  CHECK(checked >= 3 * 7);
}

TEST_CASE("perftsuite.epd to depth 4", "[chess][perft][slow]") {
  const auto cases = load_suite("perftsuite.epd");
  // 127 lines, 126 distinct positions (6KQ/8/8/8/8/8/8/7k b appears twice).
  REQUIRE(cases.size() == 127);
  std::set<std::string> distinct;
  for (const auto& c : cases) distinct.insert(c.fen);
  CHECK(distinct.size() == 126);
  int checked = 0;
  for (const auto& c : cases) checked += check_case(c, kSuiteDepth, UINT64_MAX);
  CHECK(checked == 127 * kSuiteDepth);
}

TEST_CASE("random.perft slice", "[chess][perft][slow]") {
  const auto cases = load_suite("random.perft");
  REQUIRE(cases.size() > std::size_t(kRandomCases));
  // Spread the slice over the whole file rather than its first positions.
  const std::size_t stride = cases.size() / std::size_t(kRandomCases);
  int checked = 0;
  for (std::size_t i = 0; i < cases.size() && checked < kRandomCases * kRandomDepth; i += stride)
    checked += check_case(cases[i], kRandomDepth, UINT64_MAX);
  CHECK(checked == kRandomCases * kRandomDepth);
}

TEST_CASE("perft suite parser reports the line at fault", "[chess][perft]") {
  std::istringstream bad_epd("4k3/8/8/8/8/8/8/4K3 w - - 0 1 ;D1 5\n4k3/8/8/8/8/8/8/4K3 w - - 0 1 ;X1 5\n");
  auto r = parse_perft_suite(bad_epd, "mem.epd");
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message, Catch::Contains("mem.epd:2"));
  CHECK_THAT(r.error().message, Catch::Contains("X1 5"));

  std::istringstream orphan("perft 1 20\n");
  auto r2 = parse_perft_suite(orphan, "mem.perft");
  REQUIRE_FALSE(r2.ok());
  CHECK_THAT(r2.error().message, Catch::Contains("before any 'epd'"));

  std::istringstream good("id one\nepd 4k3/8/8/8/8/8/8/4K3 w - -\nperft 1 5\nperft 2 25\n");
  auto r3 = parse_perft_suite(good, "mem.perft");
  REQUIRE(r3.ok());
  REQUIRE(r3->size() == 1);
  CHECK((*r3)[0].name == "one");
  CHECK((*r3)[0].expected.size() == 2);
  CHECK((*r3)[0].expected[1] == std::pair<int, std::uint64_t>(2, 25));
}
