// The explorer's API without sockets: the same JSON as the command line, 400s naming the field,
// 404 for every path that is not the page's or the API's.
#include <catch2/catch.hpp>

#include <string>

#include "explore/assets.h"
#include "explore/query.h"
#include "tests/explore/explore_fixture.h"

using namespace tbkit;
using test::get;

namespace {

// Query-string escaping of a FEN: spaces as '+', the rest as is ('/' may stay in a query).
std::string query_fen(const std::string& fen) {
  std::string out;
  for (char c : fen) out += c == ' ' ? std::string("+") : std::string(1, c);
  return out;
}

}  // namespace

TEST_CASE("explore API: /api/book is the object tbkit book probe --json prints", "[explore][book]") {
  const auto& f = test::explore_fixture();
  struct Case {
    std::string fen;
    int book;
  };
  const Case cases[] = {
      {"startpos", 0},
      {"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", 0},
      {"r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", 0},
      {"rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2", 1},
  };
  for (const auto& c : cases) {
    INFO(c.fen << " book " << c.book);
    const auto& path = c.book == 0 ? f.book : f.polyglot;
    const auto cli = test::run_tbkit_command("book probe '" + path.string() + "' '" + c.fen + "' --json");
    REQUIRE((cli.code == 0 || cli.code == 5));
    const auto api = get("/api/book", "fen=" + query_fen(c.fen) + "&book=" + std::to_string(c.book));
    CHECK(api.status == 200);
    CHECK(api.content_type == "application/json; charset=utf-8");
    CHECK(api.body + "\n" == cli.out);
  }
  // The start position has moves with games, W/D/L and ratings, and the learned store's moves.
  const auto start = get("/api/book", "fen=startpos");
  CHECK_THAT(start.body, Catch::Contains("\"format\": \"tbkit\"") && Catch::Contains("\"games\": ") &&
                             Catch::Contains("\"avg_rating\": ") && Catch::Contains("\"learned\": {\"games\": "));
}

TEST_CASE("explore API: /api/tables is the object tbkit probe --json prints", "[explore][probe]") {
  const auto& f = test::explore_fixture();
  const std::string dirs = " -d '" + f.tables.string() + "' -d '" + f.syzygy.string() + "'";
  for (const std::string fen : {"8/8/8/5k2/8/8/1Q6/K7 w - - 0 1", "8/8/3k4/8/8/8/8/R5K1 w - - 0 1", "8/8/3k4/8/8/8/8/R5K1 b - - 0 1",
                                "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"}) {
    INFO(fen);
    const auto cli = test::run_tbkit_command("probe '" + fen + "' --json" + dirs);
    REQUIRE(cli.code == 0);
    const auto api = get("/api/tables", "fen=" + query_fen(fen));
    CHECK(api.status == 200);
    CHECK(api.body + "\n" == cli.out);
  }
  // Real values: KQvK from the probe tests' position, with Syzygy's 50-move values beside DTM.
  const auto kq = get("/api/tables", "fen=" + query_fen("8/8/8/5k2/8/8/1Q6/K7 w - - 0 1"));
  CHECK_THAT(kq.body, Catch::Contains("\"result\": \"win\", \"dtm_plies\": 19, \"mate_in_moves\": 10") &&
                          Catch::Contains("\"wdl50\": \"win\"") && Catch::Contains("{\"san\": \"Qf6+\", \"uci\": \"b2f6\", \"result\": \"draw\""));
  // A position no table covers: 404, not covered, naming the material.
  const auto none = get("/api/tables", "fen=startpos");
  CHECK(none.status == 404);
  CHECK_THAT(none.body, Catch::Contains("\"covered\": false") && Catch::Contains("\"field\": \"fen\""));
}

TEST_CASE("explore API: /api/position applies moves in SAN or UCI and lists the legal ones", "[explore]") {
  const auto start = get("/api/position", "fen=startpos");
  REQUIRE(start.status == 200);
  CHECK_THAT(start.body, Catch::Contains("\"fen\": \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\""));
  std::size_t moves = 0;
  for (std::size_t at = start.body.find("\"uci\""); at != std::string::npos; at = start.body.find("\"uci\"", at + 1)) ++moves;
  CHECK(moves == 20);
  const auto line = get("/api/position", "fen=startpos&moves=e2e4,e7e5+Nf3");
  REQUIRE(line.status == 200);
  CHECK_THAT(line.body, Catch::Contains("\"fen\": \"rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2\"") &&
                            Catch::Contains("\"line\": [{\"san\": \"e4\", \"uci\": \"e2e4\"}, {\"san\": \"e5\", \"uci\": \"e7e5\"}, "
                                            "{\"san\": \"Nf3\", \"uci\": \"g1f3\"}]") &&
                            Catch::Contains("{\"san\": \"Nc6\", \"uci\": \"b8c6\"}"));
  const auto mate = get("/api/position", "fen=startpos&moves=f3+e5+g4+Qh4");
  CHECK_THAT(mate.body, Catch::Contains("\"status\": \"checkmate\"") && Catch::Contains("\"legal_moves\": []"));
}

TEST_CASE("explore API: bad FENs, moves and queries get a 400 naming the field", "[explore]") {
  struct Case {
    std::string path, query, field;
    int status;
  };
  const Case cases[] = {
      {"/api/position", "fen=8/8/8/8/8/8/8/8+w+-+-+0+1", "fen", 400},
      {"/api/position", "", "fen", 400},
      {"/api/position", "fen=", "fen", 400},
      {"/api/position", "fen=startpos&moves=e2e5", "moves", 400},
      {"/api/position", "fen=startpos&moves=e4+e4", "moves", 400},
      {"/api/position", "fen=startpos&moves=%zz", "moves", 400},
      {"/api/position", "fen=start%00pos", "fen", 400},
      {"/api/position", "fen=startpos&fen=startpos", "fen", 400},
      {"/api/position", "fen=startpos&colour=white", "colour", 400},
      {"/api/position", "=x", "query", 400},
      {"/api/book", "fen=startpos&book=x", "book", 400},
      {"/api/book", "fen=startpos&book=-1", "book", 400},
      {"/api/book", "fen=startpos&book=99999999999999999999999", "book", 400},
      {"/api/book", "fen=startpos&book=2", "book", 404},
      {"/api/book", "fen=rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR+x+KQkq+-+0+1", "fen", 400},
      {"/api/tables", "fen=8/8/8/5k2/8/8/1Q6/K7+x+-+-+0+1", "fen", 400},
      {"/api/tables", "fen=8/8/8/5k2/8/8/1Q6/K7+w+-+-+0+1&line=1", "line", 400},
      {"/api/info", "x=1", "query", 400},
      {"/api/position", ":p=1", ":p", 400},
  };
  for (const auto& c : cases) {
    INFO(c.path << "?" << c.query);
    const auto r = get(c.path, c.query);
    CHECK(r.status == c.status);
    CHECK(r.content_type == "application/json; charset=utf-8");
    CHECK_THAT(r.body, Catch::StartsWith("{\"error\": \"") && Catch::Contains("\"field\": \"" + c.field + "\""));
  }
  // The illegal move is named, with its ply.
  CHECK_THAT(get("/api/position", "fen=startpos&moves=e4+e4").body, Catch::Contains("\"move\": \"e4\", \"ply\": 2"));
  // Other methods than GET and HEAD.
  const auto post = test::fixture_explorer().handle({"POST", "/api/position", "fen=startpos"});
  CHECK(post.status == 405);
}

TEST_CASE("explore API: only the page's own files are served, traversal and other paths are 404", "[explore]") {
  const auto page = get("/");
  CHECK(page.status == 200);
  CHECK(page.content_type == "text/html; charset=utf-8");
  CHECK_THAT(page.body, Catch::Contains("<svg id=\"board\"") && Catch::Contains("/app.js"));
  const auto js = get("/app.js");
  CHECK(js.status == 200);
  CHECK(js.content_type == "text/javascript; charset=utf-8");
  CHECK_THAT(js.body, Catch::Contains("/api/position"));
  CHECK(get("/style.css").status == 200);
  // Every embedded file, byte for byte.
  for (const auto& a : explore::embedded_assets()) CHECK(get(std::string(a.path)).body == a.body);
  for (const std::string path : {"/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2fetc%2fpasswd", "/%2E%2E%2Fapp.js",
                                 "/app.js/../../../etc/passwd", "//etc/passwd", "/etc/passwd", "/index.html", "/app.js/",
                                 "/./app.js", "/api/../app.js", "/api", "/api/", "/api/book/", "/APP.JS", "", "app.js",
                                 "/%00", "/app.js%00", "/....//....//etc/passwd", "/~root", "/CMakeLists.txt",
                                 "/explore/assets/app.js"}) {
    INFO(path);
    const auto r = get(path);
    CHECK(r.status == 404);
    CHECK(r.body.find("root:") == std::string::npos);
  }
}

TEST_CASE("explore query: percent-decoding and parameters", "[explore]") {
  CHECK(*explore::percent_decode("a%2Fb+c%20d") == "a/b c d");
  CHECK_FALSE(explore::percent_decode("%"));
  CHECK_FALSE(explore::percent_decode("%4"));
  CHECK_FALSE(explore::percent_decode("%g0"));
  CHECK_FALSE(explore::percent_decode("%00"));
  const auto q = explore::parse_query("fen=startpos&&moves=e2e4%2Ce7e5&empty=");
  REQUIRE(q.ok());
  CHECK(q.params.size() == 3);
  CHECK(q.params.at("moves") == "e2e4,e7e5");
  CHECK(q.params.at("empty").empty());
  const auto twice = explore::parse_query("a=1&a=2");
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.field == "a");
  CHECK(twice.problem == "a: given twice");
  // A name holding ':' is still the field named (the fuzzer's find: tests/fuzzFail/explore/).
  const auto colon = explore::parse_query("a:b=1&a:b=2");
  CHECK(colon.field == "a:b");
}
