// The UCI "go" command's parameters, and the search's clock arithmetic with extreme values (the
// dev build's UndefinedBehaviorSanitizer aborts on any overflow).
#include <atomic>
#include <cstdint>
#include <limits>
#include <string>

#include <catch2/catch.hpp>

#include "chess/notation.h"
#include "chess/position.h"
#include "player/search.h"
#include "player/uci.h"

using namespace tbkit;
using player::kMaxGoDepth;
using player::kMaxGoMilliseconds;
using player::parse_go_command;

TEST_CASE("go: each parameter reaches the search limits", "[player][uci]") {
  const chess::Position start;
  const auto go = parse_go_command("wtime 60000 btime 50000 winc 1000 binc 900 movestogo 20 depth 9 nodes 12345", start);
  CHECK(go.errors.empty());
  CHECK(go.limits.time_ms[0] == 60000);
  CHECK(go.limits.time_ms[1] == 50000);
  CHECK(go.limits.inc_ms[0] == 1000);
  CHECK(go.limits.inc_ms[1] == 900);
  CHECK(go.limits.movestogo == 20);
  CHECK(go.limits.depth == 9);
  CHECK(go.limits.nodes == 12345);
  CHECK_FALSE(go.limits.infinite);
  CHECK(parse_go_command("movetime 250", start).limits.movetime_ms == 250);
  CHECK(parse_go_command("mate 3", start).limits.depth == 7);
  CHECK(parse_go_command("infinite", start).limits.infinite);
  CHECK(parse_go_command("ponder wtime 1000", start).limits.infinite);

  // searchmoves takes the legal moves that follow it and stops at the first word that is not one.
  const auto some = parse_go_command("searchmoves e2e4 d2d4 e2e5 nodes 7", start);
  REQUIRE(some.search_moves.size() == 2);
  CHECK(chess::to_uci(some.search_moves[0]) == "e2e4");
  CHECK(chess::to_uci(some.search_moves[1]) == "d2d4");
  CHECK(some.limits.nodes == 7);  // the words after the list are read as usual
}

TEST_CASE("go: numbers out of range are clamped, never wrapped", "[player][uci]") {
  const chess::Position start;
  // 2^32 once wrapped to depth 0 (no limit), and 2 * 2^62 + 1 overflowed.
  CHECK(parse_go_command("depth 4294967296", start).limits.depth == kMaxGoDepth);
  CHECK(parse_go_command("depth -3", start).limits.depth == 1);
  CHECK(parse_go_command("mate 4611686018427387904", start).limits.depth == kMaxGoDepth - 1);
  CHECK(parse_go_command("mate 0", start).limits.depth == 3);
  const auto go = parse_go_command(
      "wtime 9223372036854775807 btime -5 winc 9223372036854775807 binc -1 movestogo 99999999999 movetime 0", start);
  CHECK(go.limits.time_ms[0] == kMaxGoMilliseconds);
  CHECK(go.limits.time_ms[1] == 0);
  CHECK(go.limits.inc_ms[0] == kMaxGoMilliseconds);
  CHECK(go.limits.inc_ms[1] == 0);
  CHECK(go.limits.movestogo == 1000);
  CHECK(go.limits.movetime_ms == 1);
  CHECK(parse_go_command("nodes 0", start).limits.nodes == 1);
}

TEST_CASE("go: a keyword without its number is reported and skipped", "[player][uci]") {
  const chess::Position start;
  const auto go = parse_go_command("depth x nodes", start);
  REQUIRE(go.errors.size() == 2);
  CHECK(go.errors[0] == "go: 'depth' needs a number");
  CHECK(go.errors[1] == "go: 'nodes' needs a number");
  CHECK(go.limits.depth == 0);
  CHECK(go.limits.nodes == 0);
  // Unknown words are ignored, as the protocol asks.
  const auto odd = parse_go_command("banana depth 2", start);
  CHECK(odd.errors.empty());
  CHECK(odd.limits.depth == 2);
}

TEST_CASE("Search: extreme clocks and overheads stay within the node limit", "[player][search]") {
  const chess::Position start;
  player::Searcher s(1);
  std::atomic<bool> stop{false};
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  player::SearchLimits limits;
  limits.nodes = 2000;
  limits.time_ms[0] = kMax;
  limits.inc_ms[0] = kMax;
  limits.movestogo = 1;
  const auto r = s.search(start, limits, stop, nullptr);
  CHECK_FALSE(r.best.is_none());
  CHECK(r.nodes <= 2000 + 64);  // a few nodes under way when the limit is reached still count
  limits.move_overhead_ms = std::numeric_limits<std::int64_t>::min();
  limits.time_ms[0] = 5000;
  CHECK_FALSE(s.search(start, limits, stop, nullptr).best.is_none());
}
