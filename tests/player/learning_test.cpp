// Book learning: the confidence bounds, the learned move-choice rule, a game's experience record,
// and the UCI engine recording its games and choosing by what it learned.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>

#include <catch2/catch.hpp>

#include "chess/fen.h"
#include "chess/notation.h"
#include "formats/book_file.h"
#include "formats/experience.h"
#include "formats/polyglot_book.h"
#include "player/learning.h"
#include "player/uci.h"

using namespace tbkit;

namespace {

std::filesystem::path temp_dir(const std::string& name) {
  const auto p = std::filesystem::temp_directory_path() / ("tbkit-learning-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p;
}

chess::Move uci(const chess::Position& pos, const char* text) { return *chess::parse_uci(pos, text); }

player::MoveExperience experience(const chess::Position& pos, const char* move, std::uint32_t w, std::uint32_t d,
                                  std::uint32_t l) {
  return {uci(pos, move), w + d + l, w, d, l};
}

// The moves of a line from the initial position.
std::vector<chess::Move> line(const std::vector<const char*>& moves) {
  chess::Position pos;
  std::vector<chess::Move> out;
  for (const char* m : moves) {
    out.push_back(uci(pos, m));
    pos.do_move(out.back());
  }
  return out;
}

// Writes a .tbb whose initial position has these (move, games) entries, all drawn.
void write_book(const std::filesystem::path& path, const std::vector<std::pair<const char*, std::uint32_t>>& moves) {
  const chess::Position start;
  std::vector<formats::BookRecord> recs;
  for (const auto& [m, games] : moves) {
    formats::BookRecord r;
    r.key = start.key();
    r.move = formats::to_polyglot_move(uci(start, m));
    r.games = games;
    r.draws = games;
    recs.push_back(r);
  }
  std::sort(recs.begin(), recs.end());
  auto w = formats::BookWriter::create(path, {});
  REQUIRE(w.ok());
  for (const auto& r : recs) REQUIRE(w->add(r).ok());
  REQUIRE(w->finish().ok());
}

std::string run_session(const std::string& script) {
  std::istringstream in(script);
  std::ostringstream out;
  player::run_uci(in, out);
  return out.str();
}

}  // namespace

TEST_CASE("Wilson bounds: exact values, none without games, narrowing with games", "[player][learning]") {
  const auto none = player::wilson_bounds(0.5, 0, 1.0);
  CHECK(none.lower == 0.0);
  CHECK(none.upper == 1.0);
  // 3 wins in 3 at z = 1: centre (1 + 1/6) / (4/3) = 0.875, half-width (1/6) / (4/3) = 0.125.
  const auto won = player::wilson_bounds(1.0, 3, 1.0);
  CHECK(won.lower == Approx(0.75));
  CHECK(won.upper == Approx(1.0));
  // 3 losses in 3: upper bound z^2 / (n + z^2) = 1/4.
  CHECK(player::wilson_bounds(0.0, 3, 1.0).upper == Approx(0.25));
  // Symmetric about 1/2, and narrower with more games.
  const auto a = player::wilson_bounds(0.3, 10, 1.0), b = player::wilson_bounds(0.7, 10, 1.0);
  CHECK(a.lower == Approx(1 - b.upper));
  const auto c = player::wilson_bounds(0.3, 100, 1.0);
  CHECK(c.upper - c.lower < a.upper - a.lower);
  CHECK(c.lower < 0.3);
  CHECK(c.upper > 0.3);
}

TEST_CASE("Learned choice: losers left, a winner kept, the untried still tried", "[player][learning]") {
  const chess::Position start;
  const std::vector<player::BookCandidate> book = {{uci(start, "e2e4"), 60, 0.5}, {uci(start, "d2d4"), 30, 0.5},
                                                   {uci(start, "c2c4"), 10, 0.5}};
  std::mt19937_64 rng(7);
  const player::LearnPolicy policy;  // min 3 games, z = 1, explore 0.1

  SECTION("nothing learned: the book's weights") {
    std::map<std::string, int> n;
    for (int i = 0; i < 3000; ++i) {
      const auto c = player::choose_with_experience(book, {}, policy, rng);
      REQUIRE(c.move);
      CHECK(!c.proven);
      n[chess::to_uci(*c.move)]++;
    }
    CHECK(n["e2e4"] > 1650);
    CHECK(n["e2e4"] < 1950);
    CHECK(n["c2c4"] > 200);
  }
  SECTION("a move that lost three times is left; two games are not enough") {
    const std::vector<player::MoveExperience> lost = {experience(start, "e2e4", 0, 0, 3)};
    std::map<std::string, int> n;
    for (int i = 0; i < 2000; ++i) {
      const auto c = player::choose_with_experience(book, lost, policy, rng);
      REQUIRE(c.move);
      REQUIRE(c.left.size() == 1);
      CHECK(chess::to_uci(c.left[0]) == "e2e4");
      n[chess::to_uci(*c.move)]++;
    }
    CHECK(n["e2e4"] == 0);
    CHECK(n["d2d4"] > 1300);  // 30 : 10 between the rest
    const std::vector<player::MoveExperience> twice = {experience(start, "e2e4", 0, 0, 2)};
    const auto c = player::choose_with_experience(book, twice, policy, rng);
    CHECK(c.left.empty());
  }
  SECTION("a move that won keeps being chosen, the others still sometimes") {
    const std::vector<player::MoveExperience> won = {experience(start, "c2c4", 3, 0, 0)};
    std::map<std::string, int> n;
    int proven = 0;
    for (int i = 0; i < 4000; ++i) {
      const auto c = player::choose_with_experience(book, won, policy, rng);
      REQUIRE(c.move);
      proven += c.proven;
      n[chess::to_uci(*c.move)]++;
    }
    // 90% proven, plus its 10% weight share of the exploring 10%.
    CHECK(proven > 3500);
    CHECK(proven < 3700);
    CHECK(n["c2c4"] > 3550);
    CHECK(n["e2e4"] > 150);
    CHECK(n["d2d4"] > 50);
  }
  SECTION("a winner the book does not have is played; all book moves lost: out of book") {
    const std::vector<player::MoveExperience> learned = {experience(start, "e2e4", 0, 1, 4), experience(start, "d2d4", 0, 0, 5),
                                                         experience(start, "c2c4", 1, 0, 6)};
    const auto out = player::choose_with_experience(book, learned, policy, rng);
    CHECK(!out.move);
    CHECK(out.left.size() == 3);
    auto more = learned;
    more.push_back(experience(start, "g1f3", 4, 0, 0));
    const auto in = player::choose_with_experience(book, more, policy, rng);
    REQUIRE(in.move);
    CHECK(chess::to_uci(*in.move) == "g1f3");
    // Not enough games for a learned-only move: it is no candidate.
    const std::vector<player::MoveExperience> once = {experience(start, "g1f3", 2, 0, 0)};
    const auto none = player::choose_with_experience({}, once, policy, rng);
    CHECK(!none.move);
  }
}

TEST_CASE("A game's record: both sides' plies, the result from the final position", "[player][learning]") {
  const chess::Position start;
  const auto fools = line({"f2f3", "e7e5", "g2g4", "d8h4"});
  const auto g = player::experience_of_game(start, fools);
  CHECK(g.result == formats::ExperienceResult::kBlackWins);
  REQUIRE(g.plies.size() == 4);
  CHECK(g.plies[0].key == start.key());
  CHECK(!g.plies[0].black_to_move);
  CHECK(g.plies[1].black_to_move);
  CHECK(g.plies[3].move == formats::to_polyglot_move(fools[3]));
  const auto open = player::experience_of_game(start, line({"e2e4", "e7e5"}));
  CHECK(open.result == formats::ExperienceResult::kUnknown);
  CHECK(player::experience_of_game(start, line({"e2e4"}), formats::ExperienceResult::kDraw).result ==
        formats::ExperienceResult::kDraw);
}

TEST_CASE("UCI: BookLearning records games and leaves the moves that lost", "[player][learning][uci]") {
  const auto dir = temp_dir("uci");
  const auto book = dir / "b.tbb";
  write_book(book, {{"e2e4", 50}, {"d2d4", 50}});
  const std::string setup =
      "setoption name BookFile value " + book.string() + "\nsetoption name BookLearning value true\n";

  // Off by default: nothing is written.
  run_session("setoption name BookFile value " + book.string() + "\nucinewgame\nposition startpos\ngo depth 1\nquit\n");
  CHECK(!std::filesystem::exists(formats::journal_path(book)));

  // Three games lost after 1.e4 (the GUI's last position is the mate), one with no result.
  std::string games = setup;
  for (int i = 0; i < 3; ++i)
    games += "ucinewgame\nposition startpos moves e2e4\ngo depth 1\n"
             "position startpos moves e2e4 e7e5 g2g4 d8h4\n";  // not mate: g4 then Qh4 is no mate here
  const std::string out = run_session(games + "quit\n");
  CHECK(out.find("info string learned from the game") != std::string::npos);
  auto stats = formats::read_experience_stats(book);
  REQUIRE(stats.ok());
  CHECK(stats->games == 3);
  // An unfinished game is a game, not a loss: e4 is not left yet.
  const chess::Position start;
  auto e4 = std::find_if(stats->entries.begin(), stats->entries.end(), [&](const formats::LearnedEntry& e) {
    return e.key == start.key() && e.move == formats::to_polyglot_move(uci(start, "e2e4"));
  });
  REQUIRE(e4 != stats->entries.end());
  CHECK(e4->games == 3);
  CHECK(e4->losses == 0);

  // Three games lost by mate after 1.f3 (the GUI shows the final position): f3 is left for good.
  write_book(book, {{"f2f3", 90}, {"d2d4", 10}});
  std::filesystem::remove(formats::journal_path(book));
  std::filesystem::remove(formats::learned_path(book));
  std::string lost = setup;
  for (int i = 0; i < 3; ++i)
    lost += "ucinewgame\nposition startpos\ngo depth 1\nposition startpos moves f2f3 e7e5 g2g4 d8h4\n";
  // The engine may have chosen d4 in some of them: then the final position is not that line's.
  run_session(lost + "quit\n");
  stats = formats::read_experience_stats(book);
  REQUIRE(stats.ok());
  CHECK(stats->games == 3);
  auto f3 = std::find_if(stats->entries.begin(), stats->entries.end(), [&](const formats::LearnedEntry& e) {
    return e.key == start.key() && e.move == formats::to_polyglot_move(uci(start, "f2f3"));
  });
  REQUIRE(f3 != stats->entries.end());
  CHECK(f3->losses == 3);
  CHECK(f3->games == 3);

  // Twenty new games from the start: never 1.f3 again, with learning; with it off, mostly f3.
  std::string after = setup, off = "setoption name BookFile value " + book.string() + "\n";
  for (int i = 0; i < 20; ++i) {
    after += "ucinewgame\nposition startpos\ngo depth 1\n";
    off += "ucinewgame\nposition startpos\ngo depth 1\n";
  }
  const std::string learned = run_session(after + "quit\n");
  CHECK(learned.find("bestmove f2f3") == std::string::npos);
  CHECK(learned.find("bestmove d2d4") != std::string::npos);
  CHECK(learned.find("info string learned: left f2f3") != std::string::npos);
  const std::string plain = run_session(off + "quit\n");
  CHECK(plain.find("bestmove f2f3") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("UCI: ExperienceFile names the store, and a bad name is refused", "[player][learning][uci]") {
  const auto dir = temp_dir("file");
  const auto journal = dir / "mine.exp";
  const std::string out = run_session("setoption name ExperienceFile value " + (dir / "mine.txt").string() +
                                      "\nsetoption name ExperienceFile value " + journal.string() +
                                      "\nsetoption name BookLearning value true\nucinewgame\n"
                                      "position startpos moves f2f3 e7e5 g2g4\ngo depth 2\nquit\n");
  CHECK(out.find("info string error: ExperienceFile: expected the journal's path, ending in .exp") != std::string::npos);
  CHECK(out.find("bestmove d8h4") != std::string::npos);
  auto stats = formats::read_experience_stats(dir / "mine");
  REQUIRE(stats.ok());
  CHECK(stats->games == 1);
  // The mate it played ended the game: Black's win, recorded from both sides.
  std::uint32_t wins = 0, losses = 0;
  for (const auto& e : stats->entries) wins += e.wins, losses += e.losses;
  CHECK(wins == 2);
  CHECK(losses == 2);
  std::filesystem::remove_all(dir);
}
