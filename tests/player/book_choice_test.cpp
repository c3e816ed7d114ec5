// Book move choice: weighted by games or best-scoring, min-games threshold, Polyglot books too.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>

#include <catch2/catch.hpp>

#include "chess/fen.h"
#include "chess/notation.h"
#include "formats/book_file.h"
#include "formats/polyglot_book.h"
#include "player/book.h"

using namespace tbkit;

namespace {

std::filesystem::path temp_path(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("tbkit-player-" + std::to_string(::getpid()) + "-" + name);
}

formats::BookRecord record(const chess::Position& pos, const char* uci, std::uint32_t games, std::uint32_t ww,
                           std::uint32_t d, std::uint32_t bw) {
  formats::BookRecord r;
  r.key = pos.key();
  r.move = formats::to_polyglot_move(*chess::parse_uci(pos, uci));
  r.flags = pos.side_to_move() == chess::Color::kBlack ? formats::kBookBlackToMove : 0;
  r.games = games;
  r.white_wins = ww;
  r.draws = d;
  r.black_wins = bw;
  return r;
}

}  // namespace

TEST_CASE("Book choice: weighted, best-scoring, min games, out of book", "[player][book]") {
  const chess::Position start;
  std::vector<formats::BookRecord> recs = {record(start, "e2e4", 60, 20, 20, 20), record(start, "d2d4", 30, 20, 10, 0),
                                           record(start, "g1f3", 2, 2, 0, 0)};
  std::sort(recs.begin(), recs.end());
  const auto path = temp_path("book.tbb");
  {
    auto w = formats::BookWriter::create(path, {});
    REQUIRE(w.ok());
    for (const auto& r : recs) REQUIRE(w->add(r).ok());
    REQUIRE(w->finish().ok());
  }
  auto book = player::OpeningBook::open(path);
  REQUIRE(book.ok());
  std::mt19937_64 rng(42);

  // Best-scoring: d4 scores 83% for White, g4f3 100% but under the 3-game threshold.
  player::BookPolicy best{3, player::BookSelection::kBest};
  CHECK(chess::to_uci(*book->choose(start, best, rng)) == "d2d4");
  player::BookPolicy best_all{1, player::BookSelection::kBest};
  CHECK(chess::to_uci(*book->choose(start, best_all, rng)) == "g1f3");

  // Weighted: about 2:1 between e4 and d4, never Nf3 below the threshold.
  std::map<std::string, int> counts;
  player::BookPolicy weighted{3, player::BookSelection::kWeighted};
  for (int i = 0; i < 3000; ++i) counts[chess::to_uci(*book->choose(start, weighted, rng))]++;
  CHECK(counts["g1f3"] == 0);
  CHECK(counts["e2e4"] > 1800);
  CHECK(counts["e2e4"] < 2200);
  CHECK(counts["d2d4"] + counts["e2e4"] == 3000);

  // Out of book: after 1.e4 the book has nothing.
  chess::Position after = start;
  after.do_move(*chess::parse_uci(after, "e2e4"));
  CHECK(!book->choose(after, weighted, rng).has_value());
  std::filesystem::remove(path);
}

TEST_CASE("Book choice reads Polyglot books by weight", "[player][book]") {
  const chess::Position start;
  std::vector<formats::PolyglotEntry> entries = {
      {start.key(), formats::to_polyglot_move(*chess::parse_uci(start, "c2c4")), 10, 0},
      {start.key(), formats::to_polyglot_move(*chess::parse_uci(start, "e2e4")), 30, 0}};
  const auto path = temp_path("book.bin");
  REQUIRE(formats::write_polyglot_book(path, entries).ok());
  auto book = player::OpeningBook::open(path);
  REQUIRE(book.ok());
  std::mt19937_64 rng(1);
  CHECK(chess::to_uci(*book->choose(start, {1, player::BookSelection::kBest}, rng)) == "e2e4");
  CHECK(!book->choose(start, {31, player::BookSelection::kWeighted}, rng).has_value());
  const auto c = book->candidates(start, 1);
  REQUIRE(c.size() == 2);
  CHECK(c[0].games == 30);
  std::filesystem::remove(path);
}
