#include <catch2/catch.hpp>

#include <cstdlib>

#include "formats/polyglot_book.h"
#include "pgn/book_builder.h"
#include "pgn/book_compat.h"
#include "tests/formats/book_test_util.h"

using namespace tbkit;
using namespace tbkit::pgn;

namespace {

constexpr const char* kPolyglot = "/usr/games/polyglot";

struct Variant {
  const char* name;        // golden file suffix
  const char* polyglot;    // make-book options
  CompatOptions options;
};

std::vector<Variant> variants() {
  std::vector<Variant> v;
  v.push_back({"default", "", {}});
  CompatOptions ply;
  ply.max_ply = 6;
  v.push_back({"max-ply-6", "-max-ply 6", ply});
  CompatOptions one;
  one.min_game = 1;
  v.push_back({"min-game", "-min-game 1", one});
  CompatOptions score = one;
  score.min_score = 50;
  v.push_back({"min-score", "-min-score 50 -min-game 1", score});
  CompatOptions white = one;
  white.only_white = true;
  v.push_back({"only-white", "-only-white -min-game 1", white});
  CompatOptions black = one;
  black.only_black = true;
  v.push_back({"only-black", "-only-black -min-game 1", black});
  CompatOptions uniform = one;
  uniform.uniform = true;
  v.push_back({"uniform", "-uniform -min-game 1", uniform});
  return v;
}

std::vector<char> build_compat(const std::filesystem::path& pgn, const CompatOptions& o, const std::filesystem::path& out, int threads = 1) {
  BookBuildOptions b;
  b.polyglot_compat = true;
  b.compat = o;
  b.threads = threads;
  b.chunk_size = 32 << 10;
  b.polyglot_output = out;
  auto s = build_book({pgn.string()}, b, {});
  if (!s.ok()) FAIL(s.error().message);
  return test::read_bytes(out);
}

bool have_polyglot() { return std::filesystem::exists(kPolyglot); }

std::vector<char> run_polyglot(const std::filesystem::path& pgn, const char* options, const std::filesystem::path& out) {
  const std::string cmd = std::string(kPolyglot) + " make-book -pgn '" + pgn.string() + "' -bin '" + out.string() + "' " + options + " > /dev/null 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  return test::read_bytes(out);
}

}  // namespace

TEST_CASE("Compat: golden make-book outputs", "[pgn][book][compat]") {
  test::ScratchDir dir;
  int compared = 0;
  for (const auto& v : variants()) {
    for (const char* file : {"crafted", "gnuchess-500"}) {
      const auto golden = test::data_path(std::string("books/compat/") + file + "-" + v.name + ".bin");
      if (!std::filesystem::exists(golden)) continue;
      INFO(file << " " << v.polyglot);
      CHECK(build_compat(test::data_path(std::string("books/") + file + ".pgn"), v.options, dir / "out.bin") == test::read_bytes(golden));
      ++compared;
    }
  }
  // Golden files exist for every variant of crafted.pgn and two of gnuchess-500.pgn.
  CHECK(compared == 9);
  // Two threads replay the chunks in input order: same bytes.
  CHECK(build_compat(test::data_path("books/gnuchess-500.pgn"), {}, dir / "t2.bin", 2) ==
        test::read_bytes(test::data_path("books/compat/gnuchess-500-default.bin")));
}

TEST_CASE("Compat: halving at 16384 games", "[pgn][book][compat]") {
  // 20 drawn 1.d4 games, 16484 won 1.e4 games, 30 drawn 1.d4 games. The 16384th e4 game triggers
  // make-book's halving of every move of the start position (rounding up): e4 n 16384 -> 8192,
  // sum 32768 -> 16384, then 100 more wins: weight 16584. d4 n 20, sum 20 -> 10, 10, then 30 more
  // draws: weight 40.
  test::ScratchDir dir;
  std::string pgn;
  const std::string draw = "[Result \"1/2-1/2\"]\n\n1. d4 d5 1/2-1/2\n\n";
  const std::string win = "[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n";
  for (int i = 0; i < 20; ++i) pgn += draw;
  for (int i = 0; i < 16484; ++i) pgn += win;
  for (int i = 0; i < 30; ++i) pgn += draw;
  test::write_text(dir / "many.pgn", pgn);
  CompatOptions o;
  o.max_ply = 1;
  const auto ours = build_compat(dir / "many.pgn", o, dir / "ours.bin");
  const auto book = formats::parse_polyglot_book(std::as_bytes(std::span<const char>(ours)), "ours.bin");
  REQUIRE(book.entries.size() == 2);
  CHECK(book.entries[0].weight == 16584);
  CHECK(book.entries[1].weight == 40);
  if (have_polyglot()) CHECK(ours == run_polyglot(dir / "many.pgn", "-max-ply 1", dir / "theirs.bin"));
}

TEST_CASE("Compat: halving and first appearance are per position within a key bucket", "[pgn][book][compat]") {
  // Two positions whose keys share their top bits (the replay's bucket). A's move reaches 16384
  // games, between B's plies: only A's moves are halved. B's two moves tie on weight and keep the
  // order they first appeared in (move 7 before move 3), not move order.
  constexpr std::uint64_t kA = 0x1230000000000005ULL;
  constexpr std::uint64_t kB = 0x1230000000000009ULL;
  PolyglotCompatBook book;
  auto add = [&](std::uint64_t key, std::uint16_t move, int result) {
    BookGame g;
    g.tag_result = result;
    g.plies.push_back(BookPly{key, move, true});
    book.add_game(g, 1024);
  };
  add(kB, 7, 0);
  for (int i = 0; i < 10000; ++i) add(kA, 1, 1);
  add(kB, 3, 0);
  add(kB, 7, 0);
  for (int i = 0; i < 6384; ++i) add(kA, 1, 1);
  add(kB, 3, 0);
  add(kB, 7, 0);
  add(kB, 3, 0);
  add(kA, 2, -1);  // a loss: sum 0, never written
  CompatOptions o;
  const std::vector<formats::PolyglotEntry> expected = {{kA, 1, 16384, 0}, {kB, 7, 3, 0}, {kB, 3, 3, 0}};
  CHECK(book.entries(o) == expected);
  tbb::task_arena arena(2);
  CHECK(book.entries(o, &arena) == expected);
}

TEST_CASE("Compat: byte-identical to polyglot make-book when installed", "[pgn][book][compat]") {
  if (!have_polyglot()) {
    WARN("polyglot is not installed: the live comparison is skipped (golden files were still compared)");
    return;
  }
  test::ScratchDir dir;
  for (const auto& v : variants()) {
    for (const char* file : {"crafted", "gnuchess-500"}) {
      INFO(file << " " << v.polyglot);
      const auto pgn = test::data_path(std::string("books/") + file + ".pgn");
      CHECK(build_compat(pgn, v.options, dir / "ours.bin") == run_polyglot(pgn, v.polyglot, dir / "theirs.bin"));
    }
  }
}

TEST_CASE("Compat: the command line maps make-book's defaults", "[pgn][book][compat][cli]") {
  const char* tbkit = std::getenv("TBKIT_BINARY");
  REQUIRE(tbkit);
  test::ScratchDir dir;
  const auto pgn = test::data_path("books/gnuchess-500.pgn");
  const std::string cmd = std::string(tbkit) + " book build -q --polyglot-compat '" + pgn.string() + "' -o '" + (dir / "cli.bin").string() + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  CHECK(test::read_bytes(dir / "cli.bin") == test::read_bytes(test::data_path("books/compat/gnuchess-500-default.bin")));
}
