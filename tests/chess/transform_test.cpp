// Board symmetries: colour flip, file mirror, rank mirror, diagonal flip, and their refusals.
#include <catch2/catch.hpp>

#include "chess/fen.h"
#include "chess/perft.h"
#include "chess/transform.h"

using namespace tbkit;
using namespace tbkit::chess;

namespace {

std::string transformed(const char* fen, Transform t) {
  auto pos = parse_fen(fen);
  INFO(fen);
  REQUIRE(pos.ok());
  auto out = transform(*pos, t);
  return out.ok() ? to_fen(*out) : "error: " + out.error().message;
}

}  // namespace

TEST_CASE("colour flip", "[chess][transform]") {
  CHECK(transformed("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", Transform::kColorFlip) ==
        "rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
  // Castling rights swap sides; en passant follows the board; counters are kept.
  CHECK(transformed("r3k3/8/8/3pP3/8/8/8/4K2R w Kq d6 3 9", Transform::kColorFlip) ==
        "4k2r/8/8/8/3Pp3/8/8/R3K3 b Qk d3 3 9");
  CHECK(transformed("4k3/8/8/8/8/8/8/4K3 w - - 0 1", Transform::kColorFlip) == "4k3/8/8/8/8/8/8/4K3 b - - 0 1");
  SECTION("flipping twice is the identity; perft counts agree") {
    auto pos = parse_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    REQUIRE(pos.ok());
    auto once = transform(*pos, Transform::kColorFlip);
    REQUIRE(once.ok());
    auto twice = transform(*once, Transform::kColorFlip);
    REQUIRE(twice.ok());
    CHECK(*twice == *pos);
    CHECK(perft(*once, 3) == 97862);
  }
}

TEST_CASE("file mirror", "[chess][transform]") {
  CHECK(transformed("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", Transform::kFileMirror) == "3k4/8/8/8/8/8/8/3K3R w - - 0 1");
  CHECK(transformed("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", Transform::kFileMirror) == "3k4/8/8/3Pp3/8/8/8/3K4 w - e6 0 1");
  CHECK_THAT(transformed("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", Transform::kFileMirror), Catch::Contains("castling rights"));
  auto pos = parse_fen("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1");
  REQUIRE(pos.ok());
  auto mirrored = transform(*pos, Transform::kFileMirror);
  REQUIRE(mirrored.ok());
  CHECK(perft(*mirrored, 4) == 43238);
}

TEST_CASE("rank mirror", "[chess][transform]") {
  CHECK(transformed("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", Transform::kRankMirror) == "R3K3/8/8/8/8/8/8/4k3 w - - 0 1");
  CHECK_THAT(transformed("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", Transform::kRankMirror), Catch::Contains("pawns"));
  CHECK_THAT(transformed("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", Transform::kRankMirror), Catch::Contains("castling"));
  // The side to move stays, so a mirrored check on the side not to move would be refused; here none.
  auto pos = parse_fen("8/8/3k4/8/8/2QK4/8/8 b - - 0 1");
  REQUIRE(pos.ok());
  auto mirrored = transform(*pos, Transform::kRankMirror);
  REQUIRE(mirrored.ok());
  CHECK(perft(*mirrored, 3) == perft(*pos, 3));
}

TEST_CASE("diagonal flip", "[chess][transform]") {
  CHECK(transformed("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", Transform::kDiagonalFlip) == "8/8/8/K6k/8/8/8/R7 w - - 0 1");
  CHECK_THAT(transformed("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", Transform::kDiagonalFlip), Catch::Contains("pawns"));
  CHECK_THAT(transformed("4k3/8/8/8/8/8/8/4K2R w K - 0 1", Transform::kDiagonalFlip), Catch::Contains("castling"));
  auto pos = parse_fen("8/8/3k4/8/1N6/2BK4/8/7r w - - 0 1");
  REQUIRE(pos.ok());
  auto flipped = transform(*pos, Transform::kDiagonalFlip);
  REQUIRE(flipped.ok());
  CHECK(perft(*flipped, 3) == perft(*pos, 3));
  auto back = transform(*flipped, Transform::kDiagonalFlip);
  REQUIRE(back.ok());
  CHECK(*back == *pos);
  CHECK(transform_square(Square(1, 0), Transform::kDiagonalFlip) == Square(0, 1));
  CHECK(transform_square(Square(4, 0), Transform::kColorFlip) == Square(4, 7));
  CHECK(transform_square(Square(0, 3), Transform::kFileMirror) == Square(7, 3));
}
