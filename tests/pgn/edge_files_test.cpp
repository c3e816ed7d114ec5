// Every PGN of the chess-library and python-chess edge-case collections reads without a crash and
// gives the game, error and move counts worked out by reading each file (see data/pgn/edge).
#include <catch2/catch.hpp>

#include <filesystem>
#include <iterator>
#include <map>
#include <set>

#include "reader_test_util.h"

using namespace tbkit::pgn;
using tbkit::pgn::testing::data_path;
using tbkit::pgn::testing::RecordedGame;
using tbkit::pgn::testing::RecordingVisitor;

namespace {

struct Expected {
  const char* file;
  std::uint64_t games;
  std::uint64_t used;
  std::map<std::string, std::uint64_t> skipped;
  std::size_t moves;  // main-line moves delivered, over all games (skipped games' prefixes included)
};

const Expected kExpected[] = {
    {"chess-library/backslash_header.pgn", 1, 1, {}, 95},
    {"chess-library/basic.pgn", 1, 1, {}, 130},
    // 1...0-0-0 with the queen still on d8: illegal.
    {"chess-library/black2move.pgn", 1, 0, {{"illegal_move", 1}}, 0},
    {"chess-library/book.pgn", 1, 1, {}, 16},
    {"chess-library/castling.pgn", 1, 1, {}, 6},
    {"chess-library/comment_before_moves.pgn", 1, 1, {}, 139},
    // Cut off in the middle of "63. Kx": 124 good plies, then a malformed move.
    {"chess-library/corrupted.pgn", 1, 0, {{"bad_san", 1}}, 124},
    // The first game has tags only; the second starts at the repeated Event tag.
    {"chess-library/empty_body.pgn", 2, 2, {}, 252},
    {"chess-library/multiple.pgn", 4, 4, {}, 130 + 84 + 176 + 142},
    {"chess-library/newline.pgn", 1, 1, {}, 6},
    {"chess-library/no_moves.pgn", 1, 1, {}, 0},
    {"chess-library/no_moves_but_comment_followed_by_termination_marker.pgn", 2, 2, {}, 0},
    {"chess-library/no_moves_but_game_termination.pgn", 1, 1, {}, 0},
    {"chess-library/no_moves_but_game_termination_2.pgn", 1, 1, {}, 0},
    {"chess-library/no_moves_but_game_termination_3.pgn", 1, 1, {}, 0},
    {"chess-library/no_moves_but_game_termination_multiple.pgn", 2, 2, {}, 126},
    {"chess-library/no_moves_but_game_termination_multiple_2.pgn", 3, 3, {}, 0},
    {"chess-library/no_moves_two_games.pgn", 2, 2, {}, 0},
    {"chess-library/no_result.pgn", 1, 1, {}, 0},
    {"chess-library/non_ascii.pgn", 1, 1, {}, 20},
    {"chess-library/skip.pgn", 2, 2, {}, 260},
    {"chess-library/square_bracket_in_header.pgn", 1, 1, {}, 130},
    {"chess-library/threefold_repetition.pgn", 1, 1, {}, 9},
    {"chess-library/unescaped_quote_header.pgn", 1, 1, {}, 20},
    {"chess-library/variations.pgn", 1, 1, {}, 108},
    {"python-chess/anastasian-lewis.pgn", 1, 1, {}, 84},
    {"python-chess/antichess-programfox.pgn", 2, 0, {{"variant", 2}}, 0},
    {"python-chess/chessbase-empty-line.pgn", 1, 1, {}, 134},
    {"python-chess/cutechess-fischerrandom.pgn", 4, 0, {{"variant", 4}}, 0},
    {"python-chess/kasparov-deep-blue-1997.pgn", 6, 6, {}, 89 + 89 + 95 + 111 + 98 + 37},
    {"python-chess/knightvuillaume-jannlee-zh-lichess.pgn", 1, 0, {{"variant", 1}}, 0},
    {"python-chess/molinari-bordais-1979.pgn", 1, 1, {}, 10},
    {"python-chess/nepomniachtchi-liren-game1.pgn", 1, 1, {}, 97},
    {"python-chess/saturs-jannlee-zh-lichess.pgn", 1, 0, {{"variant", 1}}, 0},
    {"python-chess/stockfish-learning.pgn", 1, 1, {}, 154},
    {"python-chess/uci-moves.pgn", 1, 1, {}, 113},
    {"python-chess/utf8-bom.pgn", 2, 2, {}, 0},
};

const RecordedGame& only_game(const RecordingVisitor& v) {
  REQUIRE(v.games.size() == 1);
  return v.games[0];
}

std::string tag_value(const RecordedGame& g, const std::string& name) {
  for (const auto& [k, v] : g.tags)
    if (k == name) return v;
  return "<missing>";
}

}  // namespace

TEST_CASE("edge-case files: game, error and move counts", "[pgn][edge]") {
  for (const auto& e : kExpected) {
    INFO(e.file);
    for (std::size_t buffer : {std::size_t{1} << 20, std::size_t{7}}) {
      INFO("buffer " << buffer);
      RecordingVisitor v;
      ReaderOptions o;
      o.buffer_size = buffer;
      auto s = read_pgn(data_path(std::string("pgn/edge/") + e.file), v, o);
      REQUIRE(s.ok());
      CHECK(s->games_read == e.games);
      CHECK(s->games_used == e.used);
      CHECK(s->skipped_by_reason == e.skipped);
      CHECK(v.games.size() == e.games);
      std::size_t moves = 0;
      for (const auto& g : v.games) {
        moves += g.moves.size();
        for (const auto& m : g.moves) CHECK(m.find("ILLEGAL") == std::string::npos);
      }
      CHECK(moves == e.moves);
    }
  }
}

TEST_CASE("edge-case files: every file of the collections has its expected counts", "[pgn][edge]") {
  const std::filesystem::path root = data_path("pgn/edge");
  std::set<std::string> on_disk, listed;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root))
    if (e.is_regular_file() && e.path().extension() == ".pgn") on_disk.insert(e.path().lexically_relative(root).string());
  for (const auto& e : kExpected) listed.insert(e.file);
  CHECK(listed.size() == std::size(kExpected));
  CHECK(on_disk == listed);
}

TEST_CASE("edge-case files: tags, results and errors", "[pgn][edge]") {
  auto read = [](const char* file) {
    RecordingVisitor v;
    auto s = read_pgn(data_path(std::string("pgn/edge/") + file), v, ReaderOptions{});
    REQUIRE(s.ok());
    return v;
  };
  {
    auto v = read("chess-library/unescaped_quote_header.pgn");
    const auto& g = only_game(v);
    CHECK(tag_value(g, "Event") == "Tournament \"Championship\" Finals");
    CHECK(tag_value(g, "Site") == "Club \"Victory\"");
    CHECK(tag_value(g, "Black") == "Jones, \"Lightning\" Mike");
    CHECK(g.result == GameResult::kUnknown);
  }
  {
    auto v = read("chess-library/backslash_header.pgn");
    const auto& g = only_game(v);
    CHECK(tag_value(g, "Event") == "Tournament \\");
    CHECK(tag_value(g, "Site") == "Madrid ESP");
    CHECK(g.result == GameResult::kWhiteWins);
  }
  {
    auto v = read("chess-library/square_bracket_in_header.pgn");
    const auto& g = only_game(v);
    CHECK(tag_value(g, "Event") == "Batch 10: s20red4c4_t3 vs master[!important]");
    CHECK(tag_value(g, "Variation") == "closing ] opening");
    CHECK(tag_value(g, "White") == "New-cfe8\"dsadsa\"ce842c");
    CHECK(g.start_fen == "rn1qk2r/pbpp2pp/4pn2/3P1p2/1bP5/2N2NP1/1P2PP1P/R1BQKB1R w KQkq - 0 1");
    CHECK(g.result == GameResult::kDraw);
  }
  {
    // The movetext result wins over the Result tag.
    auto v = read("chess-library/no_moves_but_game_termination_2.pgn");
    CHECK(only_game(v).result == GameResult::kDraw);
    auto w = read("chess-library/no_moves_but_game_termination_3.pgn");
    CHECK(only_game(w).result == GameResult::kUnknown);
  }
  {
    auto v = read("python-chess/utf8-bom.pgn");
    REQUIRE(v.games.size() == 2);
    CHECK(v.games[0].tags.at(0).first == "Event");
    CHECK(v.games[0].tags.at(0).second == "A");
    CHECK(v.games[1].tags.at(0).second == "B");
    CHECK(v.games[1].location.line == 14);
  }
  {
    auto v = read("chess-library/black2move.pgn");
    const auto& g = only_game(v);
    REQUIRE(g.has_error);
    CHECK(g.error.reason_code == "illegal_move");
    CHECK(g.error.token == "0-0-0");
    CHECK(g.error.line == 4);
  }
  {
    auto v = read("chess-library/corrupted.pgn");
    const auto& g = only_game(v);
    REQUIRE(g.has_error);
    CHECK(g.error.reason_code == "bad_san");
    CHECK(g.error.token == "Kx");
    CHECK(g.error.line == 57);
  }
  {
    auto v = read("chess-library/comment_before_moves.pgn");
    const auto& g = only_game(v);
    REQUIRE(!g.comments.empty());
    CHECK(g.comments[0] == " The original result of the game (1-0) was overturned by an arbiter decision. ");
    CHECK(g.result == GameResult::kBlackWins);
  }
  {
    // Followed variations: every variation move is legal in its own line.
    RecordingVisitor v;
    ReaderOptions o;
    o.follow_variations = true;
    auto s = read_pgn(data_path("pgn/edge/chess-library/variations.pgn"), v, o);
    REQUIRE(s.ok());
    const auto& g = only_game(v);
    CHECK_FALSE(g.has_error);
    std::size_t main = 0, var = 0;
    for (const auto& m : g.moves) {
      CHECK(m.find("ILLEGAL") == std::string::npos);
      (m[0] == '(' ? var : main) += 1;
    }
    CHECK(main == 108);
    CHECK(var > 0);
  }
}
