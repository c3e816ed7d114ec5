// Learning from games: PGN to experience records, and `tbkit book learn` / `book probe` end to end.
#include <catch2/catch.hpp>

#include <sys/types.h>

#include <string>
#include <vector>

#include "formats/book_file.h"
#include "formats/experience.h"
#include "pgn/book_learn.h"
#include "tests/cli/cli_runner.h"
#include "tests/formats/book_test_util.h"
#include "tests/support/processes.h"

namespace tbkit::pgn {
namespace {

const std::string kGames = test::data_path("pgn/learn/three-games.pgn").string();
const std::string kIllegal = test::data_path("pgn/learn/illegal-move.pgn").string();

TEST_CASE("book learn: every game's plies, both sides, with its result", "[learn]") {
  auto games = read_experience({kGames});
  REQUIRE(games.ok());
  REQUIRE(games->size() == 4);
  using formats::ExperienceResult;
  CHECK((*games)[0].result == ExperienceResult::kWhiteWins);
  CHECK((*games)[1].result == ExperienceResult::kDraw);
  CHECK((*games)[2].result == ExperienceResult::kUnknown);
  CHECK((*games)[3].result == ExperienceResult::kBlackWins);
  const auto& first = (*games)[0].plies;
  REQUIRE(first.size() == 4);
  CHECK(first[0].key == 0x463b96181691fc9cULL);  // the start position's Polyglot key
  CHECK(first[0].move == 0x031c);                // e2e4 in Polyglot encoding
  CHECK_FALSE(first[0].black_to_move);
  CHECK(first[1].key == 0x823c9b50fd114196ULL);  // after 1.e4
  CHECK(first[1].black_to_move);
  CHECK(first[3].black_to_move);
}

TEST_CASE("book learn: an unreadable game refuses the file, naming file and line", "[learn]") {
  auto games = read_experience({kGames, kIllegal});
  REQUIRE_FALSE(games.ok());
  CHECK(games.error().code == ErrorCode::kCorrupt);
  CHECK(games.error().message.find("illegal-move.pgn:4") != std::string::npos);
}

TEST_CASE("book learn and probe: the CLI", "[learn][cli]") {
  test::ScratchDir dir;
  const std::string book = (dir / "b.tbb").string();
  auto r = testing::run_tbkit("book learn " + kGames + " --into " + book);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("4 games (1 without a result)") != std::string::npos);

  r = testing::run_tbkit("book probe " + book);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("Learned (b.tbb.learn, 4 games)") != std::string::npos);
  CHECK(r.out.find("e4       e2e4            3      1      1      1       0   50.0") != std::string::npos);
  CHECK(r.out.find("d4       d2d4            1      0      0      0       1      -") != std::string::npos);

  // Black's replies to 1.e4, from Black's view: 1-0 after e5 is a loss, 0-1 after e5 a win.
  r = testing::run_tbkit("book probe " + book + " --moves e4 --json");
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("\"learned\": {\"games\": 4, \"moves\": [{\"san\": \"e5\", \"uci\": \"e7e5\", \"games\": 2, \"wins\": 1, "
                   "\"draws\": 0, \"losses\": 1, \"unknown\": 0, \"score_pct\": 50.0}") != std::string::npos);

  // Learning the same games again doubles the counts; an unreadable file changes nothing.
  REQUIRE(testing::run_tbkit("book learn " + kGames + " --into " + book + " -q").exit_code == 0);
  const auto before = test::read_bytes(formats::learned_path(book));
  r = testing::run_tbkit("book learn " + kGames + " " + kIllegal + " --into " + book);
  CHECK(r.exit_code == 4);
  CHECK(r.err.find("illegal-move.pgn:4") != std::string::npos);
  CHECK(test::read_bytes(formats::learned_path(book)) == before);
  CHECK(std::filesystem::file_size(formats::journal_path(book)) == 0);
  auto stats = formats::read_learned(formats::learned_path(book));
  REQUIRE(stats.ok());
  CHECK(stats->games == 8);
  CHECK(stats->folded_epoch == 2);

  // The book's own statistics and the learned ones side by side.
  REQUIRE(testing::run_tbkit("book build " + kGames + " -o " + book + " -q").exit_code == 0);
  r = testing::run_tbkit("book probe " + book + " --json");
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("\"moves\": [{\"san\": \"e4\", \"uci\": \"e2e4\", \"weight\"") != std::string::npos);
  CHECK(r.out.find("\"learned\": {\"games\": 8, \"moves\": [{\"san\": \"e4\", \"uci\": \"e2e4\", \"games\": 6,") != std::string::npos);

  r = testing::run_tbkit("book learn " + (dir / "missing.pgn").string() + " --into " + book);
  CHECK(r.exit_code == 3);
}

TEST_CASE("book learn: the learned counts of a PGN equal the counts of the book built from it", "[learn][cli]") {
  test::ScratchDir dir;
  const std::string book = (dir / "g.tbb").string(), pgn = test::data_path("books/gnuchess-500.pgn").string();
  REQUIRE(testing::run_tbkit("book build " + pgn + " -o " + book + " -q -t 1").exit_code == 0);
  REQUIRE(testing::run_tbkit("book learn " + pgn + " --into " + book + " -q").exit_code == 0);
  auto built = formats::BookFile::open(book);
  REQUIRE(built.ok());
  auto learned = formats::read_learned(formats::learned_path(book));
  REQUIRE(learned.ok());
  CHECK(learned->games == 500);
  REQUIRE(built->records().size() > 1000);
  REQUIRE(learned->entries.size() == built->records().size());
  for (std::size_t i = 0; i < learned->entries.size(); ++i) {
    const auto& l = learned->entries[i];
    const auto& b = built->records()[i];
    INFO("entry " << i);
    REQUIRE(l.key == b.key);
    REQUIRE(l.move == b.move);
    CHECK(l.flags == b.flags);
    CHECK(l.games == b.games);
    CHECK(l.wins == b.mover_wins());
    CHECK(l.draws == b.draws);
    CHECK(l.losses == b.mover_losses());
  }
}

TEST_CASE("book learn: tbkit run N times at once on one book loses and doubles nothing", "[learn][cli]") {
  test::ScratchDir dir;
  const std::string book = (dir / "b.tbb").string();
  constexpr int kRuns = 6;
  std::vector<pid_t> pids;
  for (int i = 0; i < kRuns; ++i) {
    const pid_t pid = testing::spawn_tbkit({"book", "learn", kGames, "--into", book, "-q"});
    REQUIRE(pid > 0);
    pids.push_back(pid);
  }
  test::wait_all_ok(pids);
  auto stats = formats::read_learned(formats::learned_path(book));
  REQUIRE(stats.ok());
  CHECK(stats->games == 4 * kRuns);
  const auto start = stats->lookup(0x463b96181691fc9cULL);
  REQUIRE(start.size() == 2);
  CHECK(start[0].games + start[1].games == 4 * kRuns);
  auto journal = formats::read_journal(formats::journal_path(book));
  REQUIRE(journal.ok());
  CHECK(journal->games.empty());
}

}  // namespace
}  // namespace tbkit::pgn
