#include <catch2/catch.hpp>

#include "chess/fen.h"
#include "chess/movegen.h"
#include "chess/notation.h"
#include "formats/polyglot_book.h"
#include "tests/formats/book_test_util.h"

using namespace tbkit;
using namespace tbkit::formats;

namespace {

chess::Position play(const std::string& fen, std::initializer_list<const char*> moves) {
  auto pos = chess::parse_fen(fen);
  REQUIRE(pos.ok());
  for (const char* m : moves) {
    auto mv = chess::parse_san(*pos, m);
    REQUIRE(mv.ok());
    pos->do_move(*mv);
  }
  return *pos;
}

}  // namespace

TEST_CASE("Polyglot move encoding", "[formats][polyglot]") {
  // e2e4: to e4 (file 4, rank 3) = 4 + 3*8 = 28; from e2 = 12 -> 28 | 12 << 6.
  chess::Position start;
  auto e4 = chess::parse_uci(start, "e2e4");
  REQUIRE(e4.ok());
  CHECK(to_polyglot_move(*e4) == (28 | (12 << 6)));

  // Castling is written king-takes-rook: e1h1 and e1a1, e8h8 and e8a8.
  auto castle = chess::parse_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
  REQUIRE(castle.ok());
  auto short_w = chess::parse_san(*castle, "O-O");
  auto long_w = chess::parse_san(*castle, "O-O-O");
  REQUIRE((short_w.ok() && long_w.ok()));
  CHECK(polyglot_move_text(to_polyglot_move(*short_w)) == "e1h1");
  CHECK(polyglot_move_text(to_polyglot_move(*long_w)) == "e1a1");
  auto black = chess::parse_fen("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1");
  REQUIRE(black.ok());
  CHECK(polyglot_move_text(to_polyglot_move(*chess::parse_san(*black, "O-O"))) == "e8h8");
  CHECK(polyglot_move_text(to_polyglot_move(*chess::parse_san(*black, "O-O-O"))) == "e8a8");

  // Promotion piece codes: knight 1 .. queen 4 in bits 12-14.
  auto promo = chess::parse_fen("8/P6k/8/8/8/8/8/K7 w - - 0 1");
  REQUIRE(promo.ok());
  CHECK(to_polyglot_move(*chess::parse_san(*promo, "a8=N")) >> 12 == 1);
  CHECK(to_polyglot_move(*chess::parse_san(*promo, "a8=B")) >> 12 == 2);
  CHECK(to_polyglot_move(*chess::parse_san(*promo, "a8=R")) >> 12 == 3);
  CHECK(to_polyglot_move(*chess::parse_san(*promo, "a8=Q")) >> 12 == 4);

  // Every legal move round-trips through the encoding, in positions with castling, ep and promotions.
  for (const char* fen : {"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                          "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1"}) {
    auto pos = chess::parse_fen(fen);
    REQUIRE(pos.ok());
    for (chess::Move m : chess::legal_moves(*pos)) {
      auto back = from_polyglot_move(*pos, to_polyglot_move(m));
      REQUIRE(back.ok());
      CHECK(*back == m);
    }
  }
  // The king's own castling move (e1g1), written by some tools, is accepted too.
  auto king_form = from_polyglot_move(*castle, std::uint16_t(6 | (4 << 6)));
  REQUIRE(king_form.ok());
  CHECK(king_form->is_castling());
  CHECK_FALSE(from_polyglot_move(start, std::uint16_t(36 | (12 << 6))).ok());  // e2e5
}

TEST_CASE("Polyglot book: the Lasker trap fixture", "[formats][polyglot]") {
  auto book = read_polyglot_book(test::data_path("books/lasker-trap.bin"));
  REQUIRE(book.ok());
  CHECK(book->warnings.empty());
  REQUIRE(book->entries.size() == 7);
  // The seven Black moves of the trap, each with weight 2: 1.d4 d5 2.c4 e5 3.dxe5 d4 4.e3 Bb4+ 5.Bd2 dxe3
  // 6.Bxb4 exf2+ 7.Ke2 fxg1=N+.
  const std::string start = std::string(chess::kStartFen);
  struct Expect { chess::Position pos; const char* san; };
  const Expect expected[] = {
      {play(start, {"d4"}), "d5"},
      {play(start, {"d4", "d5", "c4"}), "e5"},
      {play(start, {"d4", "d5", "c4", "e5", "dxe5"}), "d4"},
      {play(start, {"d4", "d5", "c4", "e5", "dxe5", "d4", "e3"}), "Bb4+"},
      {play(start, {"d4", "d5", "c4", "e5", "dxe5", "d4", "e3", "Bb4+", "Bd2"}), "dxe3"},
      {play(start, {"d4", "d5", "c4", "e5", "dxe5", "d4", "e3", "Bb4+", "Bd2", "dxe3", "Bxb4"}), "exf2+"},
      {play(start, {"d4", "d5", "c4", "e5", "dxe5", "d4", "e3", "Bb4+", "Bd2", "dxe3", "Bxb4", "exf2+", "Ke2"}), "fxg1=N+"},
  };
  for (const auto& e : expected) {
    INFO(e.san);
    auto entries = book->lookup(e.pos.key());
    REQUIRE(entries.size() == 1);
    CHECK(entries[0].weight == 2);
    CHECK(entries[0].learn == 0);
    auto m = from_polyglot_move(e.pos, entries[0].move);
    REQUIRE(m.ok());
    CHECK(chess::to_san(e.pos, *m) == e.san);
  }
  CHECK(book->lookup(chess::Position().key()).empty());
}

TEST_CASE("Polyglot book: trailing partial entry and unsorted input", "[formats][polyglot]") {
  test::ScratchDir dir;
  auto bytes = test::read_bytes(test::data_path("books/lasker-trap.bin"));
  REQUIRE(bytes.size() == 112);
  bytes.insert(bytes.end(), {'\x01', '\x02', '\x03', '\x04', '\x05'});
  test::write_bytes(dir / "partial.bin", bytes);
  auto book = read_polyglot_book(dir / "partial.bin");
  REQUIRE(book.ok());
  CHECK(book->entries.size() == 7);
  REQUIRE(book->warnings.size() == 1);
  CHECK_THAT(book->warnings[0], Catch::Contains("offset 112") && Catch::Contains("partial entry"));

  // Swap the first and last entries: the reader re-sorts and says so.
  auto swapped = test::read_bytes(test::data_path("books/lasker-trap.bin"));
  std::swap_ranges(swapped.begin(), swapped.begin() + 16, swapped.end() - 16);
  auto unsorted = parse_polyglot_book(std::as_bytes(std::span<const char>(swapped)), "swapped.bin");
  CHECK(unsorted.warnings.size() == 1);
  REQUIRE(unsorted.entries.size() == 7);
  CHECK(std::is_sorted(unsorted.entries.begin(), unsorted.entries.end(), [](auto& a, auto& b) { return a.key < b.key; }));

  CHECK(read_polyglot_book(dir / "missing.bin").error().code == ErrorCode::kIo);
}

TEST_CASE("Polyglot book: write then read back byte for byte", "[formats][polyglot]") {
  test::ScratchDir dir;
  auto original = read_polyglot_book(test::data_path("books/lasker-trap.bin"));
  REQUIRE(original.ok());
  REQUIRE(write_polyglot_book(dir / "copy.bin", original->entries).ok());
  CHECK(test::read_bytes(dir / "copy.bin") == test::read_bytes(test::data_path("books/lasker-trap.bin")));
  CHECK_FALSE(std::filesystem::exists(dir / "copy.bin.tmp"));
}
