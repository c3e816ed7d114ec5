#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>

#include "pgn/lexer.h"
#include "reader_test_util.h"
#include "tests/formats/book_test_util.h"

using namespace tbkit;
using namespace tbkit::pgn;
using tbkit::pgn::testing::data_path;
using tbkit::pgn::testing::RecordingVisitor;

namespace {

RecordingVisitor read_text(const std::string& text, ReaderOptions o = {}) {
  RecordingVisitor v;
  (void)read_pgn_text(text, "t.pgn", v, o);
  return v;
}

// Writes `content` to NAME in `dir`; returns the path.
std::string temp_file(const test::ScratchDir& dir, const std::string& name, const std::string& content) {
  const auto path = dir / name;
  std::ofstream(path, std::ios::binary) << content;
  return path.string();
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : " ") + x;
  return s;
}

}  // namespace

TEST_CASE("reader: tags, escapes, moves, results", "[pgn][reader]") {
  auto v = read_text(
      "[Event \"a \\\"b\\\" \\\\ c\"]\n[Result \"0-1\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n"
      "[Event \"2\"]\n1. d4 0-1\n[Event \"3\"]\n1/2-1/2\n[Event \"4\"]\n*\n[Event \"5\"]\n[Result \"1/2-1/2\"]\n1. c4\n");
  REQUIRE(v.games.size() == 5);
  CHECK(v.games[0].tags[0].second == "a \"b\" \\ c");
  CHECK(joined(v.games[0].moves) == "e2e4 e7e5 g1f3 b8c6");
  CHECK(v.games[0].result == GameResult::kWhiteWins);  // movetext beats the tag
  CHECK(v.games[1].result == GameResult::kBlackWins);
  CHECK(v.games[2].result == GameResult::kDraw);
  CHECK(v.games[3].result == GameResult::kUnknown);
  CHECK(v.games[4].result == GameResult::kDraw);  // no result token: the tag's
  CHECK(v.games[4].moves.size() == 1);
  CHECK(v.games[1].location.game_number == 2);
  CHECK(v.games[1].location.line == 6);
}

TEST_CASE("reader: games with no tags or no moves", "[pgn][reader]") {
  auto v = read_text("1. e4 e5 *\n\n1. d4 *\n[Event \"x\"]\n\n[Event \"y\"]\n");
  REQUIRE(v.games.size() == 4);
  CHECK(v.games[0].tags.empty());
  CHECK(v.games[1].moves.size() == 1);
  CHECK(v.games[2].moves.empty());
  CHECK(v.games[2].moves_begun);
  CHECK(v.games[3].tags[0].second == "y");
  CHECK(read_text("").games.empty());
  CHECK(read_text("  \n\n ").games.empty());
}

TEST_CASE("reader: comments, NAGs, suffixes, move numbers, escape lines", "[pgn][reader]") {
  auto v = read_text(
      "%escaped line 1. a4\n{before} 1. e4 {c1} $1 1... e5!? 2.Nf3?! ; to the end\n2...Nc6 3.Bb5!! a6?? 4.Ba4 $14 *");
  REQUIRE(v.games.size() == 1);
  CHECK(joined(v.games[0].moves) == "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4");
  REQUIRE(v.games[0].comments.size() == 3);
  CHECK(v.games[0].comments[0] == "before");
  CHECK(v.games[0].comments[1] == "c1");
  CHECK(v.games[0].comments[2] == " to the end");
}

TEST_CASE("reader: variations skipped by default, followed on request", "[pgn][reader]") {
  const std::string text = "1. e4 e5 (1... c5 2. Nf3 (2. Nc3 Nc6) d6) (1... e6) 2. Nf3 {main} (2. Bc4 {side}) Nc6 *";
  auto skipped = read_text(text);
  CHECK(joined(skipped.games[0].moves) == "e2e4 e7e5 g1f3 b8c6");
  CHECK(skipped.games[0].comments == std::vector<std::string>{"main"});
  ReaderOptions o;
  o.follow_variations = true;
  auto followed = read_text(text, o);
  CHECK(joined(followed.games[0].moves) ==
        "e2e4 e7e5 (1)c7c5 (1)g1f3 (2)b1c3 (2)b8c6 (1)d7d6 (1)e7e6 g1f3 (1)f1c4 b8c6");
  CHECK(followed.games[0].comments == std::vector<std::string>{"main", "side"});
  CHECK_FALSE(followed.games[0].has_error);
  // A bad move inside a skipped variation is never looked at; in a followed one it drops that
  // variation only (see the next test).
  CHECK_FALSE(read_text("1. e4 (1. Ke2 Qxx9) e5 *").games[0].has_error);
  const auto bad_in_followed = read_text("1. e4 (1. Kxx9) e5 *", o);
  CHECK_FALSE(bad_in_followed.games[0].has_error);
  CHECK(joined(bad_in_followed.games[0].moves) == "e2e4 e7e5");
}

TEST_CASE("reader: a bad move in a followed variation drops that variation only, with a warning", "[pgn][reader]") {
  ReaderOptions o;
  o.follow_variations = true;
  {
    // The tester's file: Qxf7 is illegal in the inner variation; the main line and the outer
    // variation's good moves stand.
    RecordingVisitor v;
    const auto s = read_pgn_text("[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 (1... c5 2. Nf3 (2. Qxf7)) 2. Nf3 Nc6 1-0\n",
                                 "var.pgn", v, o);
    CHECK(s.games_read == 1);
    CHECK(s.games_used == 1);
    CHECK(s.skipped_by_reason.empty());
    CHECK(s.cut_by_reason.empty());
    CHECK(s.dropped_by_reason == std::map<std::string, std::uint64_t>{{"illegal_move", 1}});
    REQUIRE(v.games.size() == 1);
    CHECK_FALSE(v.games[0].has_error);
    CHECK(v.games[0].result == GameResult::kWhiteWins);
    CHECK(joined(v.games[0].moves) == "e2e4 e7e5 (1)c7c5 (1)g1f3 g1f3 b8c6");
    CHECK(s.diagnostics == std::vector<std::string>{
                               "var.pgn:4: game 1: warning: move 'Qxf7': no queen can move to f7; variation dropped "
                               "[illegal_move] (token 'Qxf7')"});
  }
  // From the bad move to its ')': the rest of that variation, its sub-variations and comments go;
  // the moves before it, later siblings and the enclosing line go on (each move legal where it is
  // delivered: RecordingVisitor marks any other "!ILLEGAL").
  const std::string text =
      "1. e4 e5 (1... c5 2. Nf3 (2. Nc3 Qxf2 {gone} (2... Nc6) Nc6) 2... d6 (2... Nc6 3. Bb5)) "
      "(1... e6 2. Ke3 {gone} (2. d4 d5) 2... d5) (1... d5 2. exd5) 2. Nf3 {kept} Nc6 *";
  for (const auto on_error : {ReaderOptions::OnError::kSkipGame, ReaderOptions::OnError::kCutGame}) {
    o.on_error = on_error;
    RecordingVisitor v;
    const auto s = read_pgn_text(text, "t.pgn", v, o);
    CHECK(s.games_used == 1);
    CHECK(s.skipped_by_reason.empty());
    CHECK(s.cut_by_reason.empty());
    CHECK(s.dropped_by_reason == std::map<std::string, std::uint64_t>{{"illegal_move", 2}});
    CHECK_FALSE(v.games[0].has_error);
    CHECK(joined(v.games[0].moves) ==
          "e2e4 e7e5 (1)c7c5 (1)g1f3 (2)b1c3 (1)d7d6 (2)b8c6 (2)f1b5 (1)e7e6 (1)d7d5 (1)e4d5 g1f3 b8c6");
    CHECK(v.games[0].comments == std::vector<std::string>{"kept"});
    CHECK(s.diagnostics ==
          std::vector<std::string>{
              "t.pgn:1: game 1: warning: move 'Qxf2': no queen can move to f2; variation dropped [illegal_move] (token 'Qxf2')",
              "t.pgn:1: game 1: warning: move 'Ke3': no king can move to e3; variation dropped [illegal_move] (token 'Ke3')"});
  }
  o.on_error = ReaderOptions::OnError::kSkipGame;
  {
    // A variation that has no move to replace is the bad one; so is one nested too deep.
    RecordingVisitor v;
    const auto s = read_pgn_text("{c} (1. d4 d5) 1. e4 (1. d4 ((1. c4))) e5 *", "t.pgn", v, o);
    CHECK(joined(v.games[0].moves) == "e2e4 (1)d2d4 e7e5");
    CHECK_FALSE(v.games[0].has_error);
    CHECK(s.diagnostics == std::vector<std::string>{
                               "t.pgn:1: game 1: warning: variation before any move; variation dropped [bad_variation] (token '(')",
                               "t.pgn:1: game 1: warning: variation before any move; variation dropped [bad_variation] (token '(')"});
    CHECK(s.dropped_by_reason == std::map<std::string, std::uint64_t>{{"bad_variation", 2}});
    std::string deep = "1. e4 e5 ";
    for (int i = 0; i < 65; ++i) deep += "(1... d5 ";
    deep += std::string(65, ')') + " 2. Nf3 *";
    RecordingVisitor w;
    const auto d = read_pgn_text(deep, "deep.pgn", w, o);
    CHECK_FALSE(w.games[0].has_error);
    REQUIRE(w.games[0].moves.size() == 2 + 64 + 1);
    CHECK(w.games[0].moves[65] == "(64)d7d5");
    CHECK(w.games[0].moves[66] == "g1f3");
    CHECK(d.diagnostics == std::vector<std::string>{"deep.pgn:1: game 1: warning: variations nested deeper than 64; "
                                                    "variation dropped [too_deep] (token '(')"});
    CHECK(d.dropped_by_reason == std::map<std::string, std::uint64_t>{{"too_deep", 1}});
  }
  {
    // A bad main-line move still fails the game, after any warnings.
    RecordingVisitor v;
    const auto s = read_pgn_text("1. e4 (1. d4 Kxe1) e5 2. Ke3 *", "t.pgn", v, o);
    CHECK(v.games[0].error.reason_code == "illegal_move");
    CHECK(s.skipped_by_reason == std::map<std::string, std::uint64_t>{{"illegal_move", 1}});
    REQUIRE(s.diagnostics.size() == 2);
    CHECK(s.diagnostics[0].find("warning: move 'Kxe1'") != std::string::npos);
    CHECK(s.diagnostics[1] == "t.pgn:1: game 1: move 'Ke3': no king can move to e3 [illegal_move] (token 'Ke3')");
  }
}

TEST_CASE("reader: null moves pass the move and the game goes on", "[pgn][reader]") {
  for (const char* null : {"--", "Z0", "0000", "@@@@"}) {
    INFO(null);
    auto v = read_text(std::string("1. e4 ") + null + " 2. d4 e5 *");
    REQUIRE(v.games.size() == 1);
    CHECK_FALSE(v.games[0].has_error);
    CHECK(joined(v.games[0].moves) == "e2e4 -- d2d4 e7e5");
  }
  // Passing while in check is not possible.
  auto c = read_text("1. e4 f5 2. Qh5+ -- *");
  CHECK(c.games[0].error.reason_code == "illegal_null_move");
}

TEST_CASE("reader: FEN/SetUp start positions and variants", "[pgn][reader]") {
  auto v = read_text(
      "[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 1\"]\n1... Kd7 2. e4 *\n"
      "[Variant \"Crazyhouse\"]\n1. e4 e5 *\n"
      "[Variant \"From Position\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n1. e3 *\n"
      "[FEN \"not a fen\"]\n1. e4 *\n");
  REQUIRE(v.games.size() == 4);
  CHECK(v.games[0].start_fen == "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1");
  CHECK(joined(v.games[0].moves) == "e8d7 e2e4");
  CHECK(v.games[1].error.reason_code == "variant");
  CHECK_FALSE(v.games[1].moves_begun);
  CHECK_FALSE(v.games[2].has_error);
  CHECK(v.games[3].error.reason_code == "bad_fen");
  CHECK(v.games[3].error.token == "not a fen");
}

TEST_CASE("reader: errors skip or cut the game, name the place, and the run goes on", "[pgn][reader]") {
  const std::string text = "[Event \"ok\"]\n1. e4 e5 1-0\n\n[Event \"bad\"]\n\n1. e4 e5\n2. Ke3 Nc6 0-1\n\n1. d4 *\n";
  RecordingVisitor v;
  auto s = read_pgn_text(text, "games.pgn", v, ReaderOptions{});
  CHECK(s.games_read == 3);
  CHECK(s.games_used == 2);
  CHECK(s.skipped_by_reason == std::map<std::string, std::uint64_t>{{"illegal_move", 1}});
  REQUIRE(s.diagnostics.size() == 1);
  CHECK(s.diagnostics[0].rfind("games.pgn:7: game 2: ", 0) == 0);
  CHECK(s.diagnostics[0].find("(token 'Ke3')") != std::string::npos);
  REQUIRE(v.games.size() == 3);
  CHECK(v.games[1].result == GameResult::kUnknown);  // skipped
  CHECK(v.games[1].error.line == 7);
  CHECK(v.games[2].moves.size() == 1);

  ReaderOptions cut;
  cut.on_error = ReaderOptions::OnError::kCutGame;
  RecordingVisitor w;
  auto t = read_pgn_text(text, "games.pgn", w, cut);
  CHECK(t.games_used == 3);
  CHECK(t.cut_by_reason == std::map<std::string, std::uint64_t>{{"illegal_move", 1}});
  CHECK(joined(w.games[1].moves) == "e2e4 e7e5");
  CHECK(w.games[1].result == GameResult::kBlackWins);
  CHECK(w.games[1].has_error);

  for (const char* bad : {"1. e4 e5 2. Qxx9 *", "1. e4 ~ e5 *", "1. e4 e5 2. Bc5 *",
                          "1. e4 {open comment"}) {
    INFO(bad);
    auto r = read_text(bad);
    REQUIRE(r.games.size() == 1);
    CHECK(r.games[0].has_error);
  }
  CHECK(read_text("1. e4 {x").games[0].error.reason_code == "unterminated");
  CHECK(read_text("1. e4 ~ e5 *").games[0].error.reason_code == "bad_token");
  CHECK(read_text("1. Nf3 Nf6 2. Nc3 Nc6 3. Nb5 Nb4 4. Nbd4 Nbd5 5. Nb5 Nb4 6. a3 a6 7. Nd4 *").games[0].error.reason_code ==
        "ambiguous_move");
  CHECK(read_text("1. e4 d5 2. e5 d4 3. e6 d3 4. exf7+ Kd7 5. fxg8 *").games[0].error.reason_code == "missing_promotion");
}

TEST_CASE("reader: CRLF, BOM, no final newline, tiny buffers", "[pgn][reader]") {
  const test::ScratchDir scratch;
  const std::string lf = "[Event \"e\"]\n[White \"w\"]\n\n1. e4 {a\nb} e5 (1... c5) 2. Nf3 1-0\n\n[Event \"f\"]\n\n1. d4 d5";
  std::string crlf;
  for (char c : lf) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  const auto reference = read_text(lf);
  REQUIRE(reference.games.size() == 2);
  CHECK(joined(reference.games[1].moves) == "d2d4 d7d5");
  for (const std::string& text : {lf, crlf, "\xEF\xBB\xBF" + lf}) {
    for (std::size_t buffer : {std::size_t{1}, std::size_t{2}, std::size_t{5}, std::size_t{64}, std::size_t{1} << 20}) {
      INFO("buffer " << buffer << " size " << text.size());
      RecordingVisitor v;
      ReaderOptions o;
      o.buffer_size = buffer;
      auto s = read_pgn(temp_file(scratch, "crlf.pgn", text), v, o);
      REQUIRE(s.ok());
      CHECK(s->bytes == text.size());
      REQUIRE(v.games.size() == 2);
      for (std::size_t g = 0; g < 2; ++g) {
        CHECK(v.games[g].moves == reference.games[g].moves);
        CHECK(v.games[g].tags == reference.games[g].tags);
        CHECK(v.games[g].location.line == reference.games[g].location.line);
      }
    }
  }
}

TEST_CASE("reader: .pgn.zst input, and bad input files", "[pgn][reader]") {
  RecordingVisitor plain, zst;
  auto a = read_pgn(data_path("pgn/small.pgn"), plain, ReaderOptions{});
  auto b = read_pgn(data_path("pgn/small.pgn.zst"), zst, ReaderOptions{});
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(b->games_read == 2);
  CHECK(b->bytes == a->bytes);
  CHECK(zst.digest() == plain.digest());
  CHECK(zst.games[0].result == GameResult::kWhiteWins);
  CHECK(zst.games[0].moves.size() == 7);

  RecordingVisitor v;
  auto truncated = read_pgn(data_path("pgn/truncated.pgn.zst"), v, ReaderOptions{});
  REQUIRE_FALSE(truncated.ok());
  CHECK(truncated.error().code == ErrorCode::kCorrupt);
  CHECK(truncated.error().message.find("truncated.pgn.zst") != std::string::npos);
  auto missing = read_pgn(data_path("pgn/no-such-file.pgn"), v, ReaderOptions{});
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == ErrorCode::kIo);
}

TEST_CASE("reader: begin_moves false skips move resolution", "[pgn][reader]") {
  RecordingVisitor v;
  v.want_moves = false;
  auto s = read_pgn_text("1. e4 Qxx9 *\n\n1. d4 *\n", "t", v, ReaderOptions{});
  CHECK(s.games_read == 2);
  CHECK(s.games_used == 2);
  CHECK(v.games[0].moves.empty());
}

TEST_CASE("reader: max_ply stops move resolution, while game ends, results and token errors stay the same", "[pgn][reader]") {
  const test::ScratchDir scratch;
  const std::string text =
      "[Event \"a\"]\n\n1. e4 e5 2. Nf3 {c} Nc6 (2... d6 3. d4 (3. Bc4) exd4) 3. Bb5 $1 a6 4. Ba4!? Nf6 1-0\n\n"
      // Illegal moves past the limit go unnoticed; a comment holding a result and a tag-like line does not end the game.
      "[Event \"b\"]\n[Result \"0-1\"]\n\n1. d4 d5 2. c4 Qxh1 { 1-0\n[Event \"x\"] } 3. Zz9 0-1\n\n"
      // A bad character past the limit still fails the game; so does an unterminated comment.
      "[Event \"c\"]\n\n1. c4 e5 2. g3 ~ Nf6 *\n\n"
      "1. e4 c5 2. Nf3 d6 3. d4 ; line comment { not a brace\n cxd4 1/2-1/2\n"
      "%escape line 1-0\n1. f4 e5 2. fxe5 d6 3. exd6 {open";
  const auto full = read_text(text);
  REQUIRE(full.games.size() == 5);
  CHECK(full.games[1].has_error);  // Qxh1 is illegal
  for (std::uint32_t limit : {0u, 1u, 2u, 3u, 4u, 5u, 100u}) {
    for (std::size_t buffer : {std::size_t{1}, std::size_t{3}, std::size_t{1} << 20}) {
      INFO("max_ply " << limit << " buffer " << buffer);
      ReaderOptions o;
      o.max_ply = limit;
      o.buffer_size = buffer;
      o.follow_variations = true;
      RecordingVisitor v;
      auto s = read_pgn(temp_file(scratch, "max_ply.pgn", text), v, o);
      REQUIRE(s.ok());
      REQUIRE(v.games.size() == full.games.size());
      // Game 0 with variations: main line and variation moves below the limit.
      std::vector<std::string> expected0;
      const std::vector<std::pair<std::string, int>> plies0 = {
          {"e2e4", 0}, {"e7e5", 1}, {"g1f3", 2}, {"b8c6", 3}, {"(1)d7d6", 3}, {"(1)d2d4", 4}, {"(2)f1c4", 4},
          {"(1)e5d4", 5}, {"f1b5", 4}, {"a7a6", 5}, {"b5a4", 6}, {"g8f6", 7}};
      for (const auto& [m, ply] : plies0)
        if (std::uint32_t(ply) < limit) expected0.push_back(m);
      CHECK(v.games[0].moves == expected0);
      for (std::size_t g = 0; g < v.games.size(); ++g) {
        INFO("game " << g);
        CHECK(v.games[g].tags == full.games[g].tags);
        CHECK(v.games[g].location.line == full.games[g].location.line);
        if (g == 1) continue;
        CHECK(v.games[g].result == full.games[g].result);
        CHECK(v.games[g].has_error == full.games[g].has_error);
        CHECK(v.games[g].error.reason_code == full.games[g].error.reason_code);
      }
      // Game 1's illegal move is the 4th ply: seen only when the limit lets it be resolved.
      CHECK(v.games[1].has_error == (limit > 3));
      CHECK(v.games[1].result == (limit > 3 ? GameResult::kUnknown : GameResult::kBlackWins));
      CHECK(v.games[2].error.reason_code == "bad_token");
      CHECK(v.games[4].error.reason_code == "unterminated");
      CHECK(v.games[3].result == GameResult::kDraw);
    }
  }
}

TEST_CASE("reader: movetext on a tag's line, and malformed tags say what is wrong", "[pgn][reader]") {
  for (const std::string text : {"[Event \"a\"]\n[Result \"1-0\"] 1. e4 e5 1-0\n", "[Event \"a\"] [Result \"1-0\"] 1. e4 e5 1-0",
                                 "[Event \"a\"]\r\n[Result \"1-0\"]\t1.e4 e5 1-0\r\n"}) {
    INFO(text);
    RecordingVisitor v;
    const auto s = read_pgn_text(text, "t.pgn", v, ReaderOptions{});
    CHECK(s.games_used == 1);
    CHECK(s.diagnostics.empty());
    REQUIRE(v.games.size() == 1);
    CHECK(v.games[0].tags == std::vector<std::pair<std::string, std::string>>{{"Event", "a"}, {"Result", "1-0"}});
    CHECK(joined(v.games[0].moves) == "e2e4 e7e5");
    CHECK(v.games[0].result == GameResult::kWhiteWins);
  }
  auto two = read_text("[Event \"a\"] 1. e4 e5 1-0 [Event \"b\"] 1. d4 *");
  REQUIRE(two.games.size() == 2);
  CHECK(two.games[0].tags == std::vector<std::pair<std::string, std::string>>{{"Event", "a"}});
  CHECK(two.games[1].tags == std::vector<std::pair<std::string, std::string>>{{"Event", "b"}});
  CHECK(joined(two.games[1].moves) == "d2d4");
  // A strict close (quote, ']', then the line's end or '[') still wins, so "] and quotes inside values survive.
  auto strict = read_text("[Event \"a \"b\"] c\"]\n[Site \"s\"] {x} 1. d4 *\n[Event \"e\"]\n*");
  REQUIRE(strict.games.size() == 2);
  CHECK(strict.games[0].tags == std::vector<std::pair<std::string, std::string>>{{"Event", "a \"b\"] c"}, {"Site", "s"}});
  CHECK(joined(strict.games[0].moves) == "d2d4");

  const auto diagnostic = [](const std::string& text) {
    RecordingVisitor v;
    const auto s = read_pgn_text(text, "t.pgn", v, ReaderOptions{});
    REQUIRE(s.diagnostics.size() == 1);
    return s.diagnostics[0];
  };
  CHECK(diagnostic("[Event \"a\" 1. e4 *\n") ==
        "t.pgn:1: game 1: malformed tag: the value of 'Event' has no closing quote followed by ']' [bad_tag] "
        "(token '[Event \"a\" 1. e4 *')");
  CHECK(diagnostic("[Event a]\n1. e4 *") ==
        "t.pgn:1: game 1: malformed tag: tag name 'Event' is not followed by a quoted value [bad_tag] (token '[Event a]')");
  CHECK(diagnostic("[ \"a\"]\n1. e4 *") ==
        "t.pgn:1: game 1: malformed tag: no tag name after '[' [bad_tag] (token '[ \"a\"]')");
  CHECK(diagnostic("[Event \"a\"]\n[Site \"open") ==
        "t.pgn:2: game 1: input ends inside a tag value [unterminated] (token '[Site \"open')");
  CHECK(diagnostic("1. e4 {open") == "t.pgn:1: game 1: input ends inside a comment [unterminated] (token '{open')");
}

TEST_CASE("reader: promotion piece in parentheses, e.p. glued or apart", "[pgn][reader]") {
  auto promotions = read_text("[FEN \"8/P6k/8/8/8/8/1p5K/8 w - - 0 1\"]\n1. a8(Q) b1(n) 2. Qa7+ *");
  CHECK_FALSE(promotions.games[0].has_error);
  CHECK(joined(promotions.games[0].moves) == "a7a8q b2b1n a8a7");
  // With a space, "(Q)" is a variation: the move before it has no promotion piece.
  auto spaced = read_text("[FEN \"8/P6k/8/8/8/8/1p5K/8 w - - 0 1\"]\n1. a8 (Q) *");
  CHECK(spaced.games[0].error.reason_code == "missing_promotion");
  CHECK(spaced.games[0].error.token == "a8");

  for (const char* text : {"1. e4 a6 2. e5 d5 3. exd6e.p. Qxd6 *", "1. e4 a6 2. e5 d5 3. exd6 e.p. Qxd6 *",
                           "1. e4 a6 2. e5 d5 3. exd6e.p.! Qxd6 *"}) {
    INFO(text);
    auto v = read_text(text);
    CHECK_FALSE(v.games[0].has_error);
    CHECK(joined(v.games[0].moves) == "e2e4 a7a6 e4e5 d7d5 e5d6 d8d6");
  }
  ReaderOptions o;
  o.follow_variations = true;
  auto black = read_text("1. a3 e5 2. a4 e4 3. d4 exd3 e.p. (3... exd3e.p. 4. Qxd3) 4. cxd3 *", o);
  CHECK_FALSE(black.games[0].has_error);
  CHECK(joined(black.games[0].moves) == "a2a3 e7e5 a3a4 e5e4 d2d4 e4d3 (1)e4d3 (1)d1d3 c2d3");
}

namespace {

// Counts each game's tags.
class TagCounter : public Visitor {
 public:
  void begin_game(const GameLocation& /*location*/) override { tags.push_back(0); }
  void tag(std::string_view /*name*/, std::string_view /*value*/) override { ++tags.back(); }
  std::vector<std::size_t> tags;
};

}  // namespace

TEST_CASE("reader: a huge tag section, or a line of many tags or games, is read in full", "[pgn][reader]") {
  // Quadratic work (every tag name against every earlier one, or every tag scanning the rest of its
  // line) once took minutes here (82 s measured); linear work well under a second. No clock is
  // asserted (timings belong to benchmarks): ctest's timeout is what a regression would hit.
  constexpr std::size_t kTags = 400'000;
  std::string lines, one_line;
  for (std::size_t i = 0; i < kTags; ++i) {
    const std::string tag = "[T" + std::to_string(i) + " \"v\"]";
    lines += tag + "\n";
    one_line += tag + " ";
  }
  std::string games_line;
  for (std::size_t i = 0; i < kTags / 4; ++i) games_line += "[Event \"g\"] * ";
  // A repeated name starts the next game: the first name (kept in the list), the last (in the set).
  for (const std::string& text : {lines + "[T0 \"again\"]\n1. e4 *\n", one_line + "[T399999 \"again\"] 1. e4 *"}) {
    TagCounter v;
    const auto s = read_pgn_text(text, "t.pgn", v, ReaderOptions{});
    CHECK(s.games_read == 2);
    CHECK(s.games_used == 2);
    CHECK(v.tags == std::vector<std::size_t>{kTags, 1});
  }
  TagCounter games;
  const auto s = read_pgn_text(games_line + "\n", "t.pgn", games, ReaderOptions{});
  CHECK(s.games_used == kTags / 4);
  CHECK(s.diagnostics.empty());
}

TEST_CASE("reader: diagnostics quote tokens printable, on one line", "[pgn][reader]") {
  const std::string text = std::string("1. e4 \x01\x02 *\n\n") + "1. e4 \xFF\xFE" + "abc *\n\n" +
                           "[Event \"x\x07\"\n1. e4 *\n\n" + "1. e4 " + std::string(100, 'N') + " *\n\n" +
                           "1. e4 {never\nclosed\n";
  RecordingVisitor v;
  const auto s = read_pgn_text(text, "t.pgn", v, ReaderOptions{});
  CHECK(s.diagnostics == std::vector<std::string>{
                             "t.pgn:1: game 1: unexpected character [bad_token] (token '\\x01')",
                             "t.pgn:3: game 2: move '\\xFF\\xFEabc': too long [bad_san] (token '\\xFF\\xFEabc')",
                             "t.pgn:5: game 3: malformed tag: the value of 'Event' has no closing quote followed by ']' "
                             "[bad_tag] (token '[Event \"x\\x07\"')",
                             "t.pgn:8: game 4: move '" + std::string(40, 'N') + "...': too long [bad_san] (token '" +
                                 std::string(40, 'N') + "...')",
                             "t.pgn:10: game 5: input ends inside a comment [unterminated] (token '{never\\x0Aclosed\\x0A')"});
  // The visitor gets the token as it is (up to 80 bytes).
  REQUIRE(v.games.size() == 5);
  CHECK(v.games[1].error.token == "\xFF\xFE" "abc");
  CHECK(v.games[3].error.token == std::string(80, 'N'));

  // Random bytes: every diagnostic is printable (escaping changes nothing) and quotes at most 40
  // characters of its token.
  std::mt19937 rng(7);
  std::string noise;
  for (int i = 0; i < 200'000; ++i) noise += char(rng() % 256);
  ReaderOptions many;
  many.max_diagnostics = 100'000;
  RecordingVisitor w;
  const auto n = read_pgn_text(noise, "noise.bin", w, many);
  CHECK(n.diagnostics.size() > 100);
  std::size_t quoted = 0;
  for (const auto& d : n.diagnostics) {
    INFO(d);
    CHECK(printable_token(d, std::string::npos) == d);
    const auto token = d.find(" (token '");
    if (token == std::string::npos) continue;
    CHECK(d.size() - token <= std::string(" (token '')").size() + 4 * 40 + 3);
    ++quoted;
  }
  CHECK(quoted > 100);
}
