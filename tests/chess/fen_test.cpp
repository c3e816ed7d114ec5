// FEN parsing: every error case with its message and code, the lenient forms, and printing.
#include <catch2/catch.hpp>

#include "chess/fen.h"

using namespace tbkit;
using namespace tbkit::chess;

namespace {

struct ErrorCase {
  const char* what;
  const char* fen;
  const char* message;  // a distinctive substring of the expected message
  ErrorCode code;
};

const ErrorCase kErrors[] = {
    {"bad character", "rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "board: bad character 'x' at rank 7", ErrorCode::kInvalidArgument},
    {"digit 9", "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "bad character '9' at rank 6", ErrorCode::kInvalidArgument},
    {"control byte", "4k3/8/8/8/8/8/8/4K2\x01 w - - 0 1", "bad character 0x01 at rank 1", ErrorCode::kInvalidArgument},
    {"rank too long (pieces)", "rnbqkbnrr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rank 8 has more than 8 squares", ErrorCode::kInvalidArgument},
    {"rank too long (digits)", "rnbqkbnr/pppppppp/8/8/4p4/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rank 4 has more than 8 squares", ErrorCode::kInvalidArgument},
    {"two digits", "4k3/8/8/8/44/8/8/4K3 w - - 0 1", "rank 4: two digits in a row ('44')", ErrorCode::kInvalidArgument},
    {"rank too short", "rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rank 7 has 7 squares, expected 8", ErrorCode::kInvalidArgument},
    {"last rank too short", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1", "rank 1 has 7 squares, expected 8", ErrorCode::kInvalidArgument},
    {"too many ranks", "rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "more than 8 ranks", ErrorCode::kInvalidArgument},
    {"too few ranks", "rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "only 7 ranks, expected 8", ErrorCode::kInvalidArgument},
    {"missing king", "rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", "missing black king", ErrorCode::kIllegal},
    {"missing white king", "4k3/8/8/8/8/8/8/8 w - - 0 1", "missing white king", ErrorCode::kIllegal},
    {"two kings", "4k3/8/8/8/8/8/8/K3K3 w - - 0 1", "2 white kings", ErrorCode::kIllegal},
    {"side not to move in check", "4k3/8/8/8/8/8/8/4R1K1 w - - 0 1", "the side not to move (black) is in check", ErrorCode::kIllegal},
    {"black to move, white in check", "4k3/8/8/8/8/8/8/r3K3 b - - 0 1", "the side not to move (white) is in check", ErrorCode::kIllegal},
    {"pawn on rank 8", "P3k3/8/8/8/8/8/8/4K3 w - - 0 1", "pawn on a8", ErrorCode::kIllegal},
    {"pawn on rank 1", "4k3/8/8/8/8/8/8/4K2p w - - 0 1", "pawn on h1", ErrorCode::kIllegal},
    {"castling right without the king", "4k3/8/8/8/8/8/8/R4K1R w K - 0 1", "right 'K' but the king is not on e1", ErrorCode::kIllegal},
    {"castling right without the rook", "4k3/8/8/8/8/8/8/4K2R w KQ - 0 1", "right 'Q' but no rook on a1", ErrorCode::kIllegal},
    {"black castling right without the rook", "r3k3/8/8/8/8/8/8/4K3 w k - 0 1", "right 'k' but no rook on h8", ErrorCode::kIllegal},
    {"castling letter", "4k3/8/8/8/8/8/8/4K2R w KX - 0 1", "castling: bad character 'X'", ErrorCode::kInvalidArgument},
    {"castling repeated", "4k3/8/8/8/8/8/8/4K2R w KK - 0 1", "right 'K' repeated", ErrorCode::kInvalidArgument},
    {"en passant on the wrong rank", "4k3/8/8/8/3pP3/8/8/4K3 w - e3 0 1", "en passant 'e3' is not on the 6th rank", ErrorCode::kIllegal},
    {"en passant on the wrong rank (black)", "4k3/8/8/3pP3/8/8/8/4K3 b - d6 0 1", "is not on the 3rd rank", ErrorCode::kIllegal},
    {"en passant without a pushed pawn", "4k3/8/8/4P3/8/8/8/4K3 w - d6 0 1", "has no pushed pawn on d5", ErrorCode::kIllegal},
    {"en passant square occupied", "4k3/8/3n4/3pP3/8/8/8/4K3 w - d6 0 1", "d6 or d7 is occupied", ErrorCode::kIllegal},
    {"en passant origin occupied", "4k3/3n4/8/3pP3/8/8/8/4K3 w - d6 0 1", "d6 or d7 is occupied", ErrorCode::kIllegal},
    {"en passant not a square", "4k3/8/8/8/8/8/8/4K3 w - e9 0 1", "en passant: 'e9' is not a square", ErrorCode::kInvalidArgument},
    {"bad side field", "4k3/8/8/8/8/8/8/4K3 x - - 0 1", "side to move: 'x' is not 'w' or 'b'", ErrorCode::kInvalidArgument},
    {"side field in capitals", "4k3/8/8/8/8/8/8/4K3 W - - 0 1", "'W' is not 'w' or 'b'", ErrorCode::kInvalidArgument},
    {"halfmove not a number", "4k3/8/8/8/8/8/8/4K3 w - - x 1", "halfmove clock: 'x' is not a number", ErrorCode::kInvalidArgument},
    {"halfmove negative", "4k3/8/8/8/8/8/8/4K3 w - - -1 1", "halfmove clock: -1 is out of range 0..65535", ErrorCode::kInvalidArgument},
    {"halfmove trailing junk", "4k3/8/8/8/8/8/8/4K3 w - - 3a 1", "halfmove clock: '3a' is not a number", ErrorCode::kInvalidArgument},
    {"fullmove zero", "4k3/8/8/8/8/8/8/4K3 w - - 0 0", "fullmove number: 0 is out of range 1..1000000", ErrorCode::kInvalidArgument},
    {"fullmove huge", "4k3/8/8/8/8/8/8/4K3 w - - 0 99999999999", "fullmove number: '99999999999' is not a number", ErrorCode::kInvalidArgument},
    {"too few fields", "4k3/8/8/8/8/8/8/4K3 w -", "expected at least 4 fields", ErrorCode::kInvalidArgument},
    {"too many fields", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 extra", "expected at most 6 fields, got 7", ErrorCode::kInvalidArgument},
    {"empty", "   ", "fen: empty", ErrorCode::kInvalidArgument},
    {"nine white pawns", "4k3/8/8/8/8/P7/PPPPPPPP/4K3 w - - 0 1", "9 white pawns", ErrorCode::kIllegal},
};

}  // namespace

TEST_CASE("FEN errors name the field and the fault", "[chess][fen]") {
  for (const auto& e : kErrors) {
    INFO(e.what << ": " << e.fen);
    auto pos = parse_fen(e.fen);
    REQUIRE_FALSE(pos.ok());
    CHECK_THAT(pos.error().message, Catch::Contains(e.message));
    CHECK(pos.error().code == e.code);
  }
}

TEST_CASE("FEN lenient forms", "[chess][fen]") {
  SECTION("missing fullmove, or both counters") {
    auto five = parse_fen("4k3/8/8/8/8/8/8/4K3 b - - 7");
    REQUIRE(five.ok());
    CHECK(five->halfmove_clock() == 7);
    CHECK(five->fullmove_number() == 1);
    auto four = parse_fen("4k3/8/8/8/8/8/8/4K3 b - -");
    REQUIRE(four.ok());
    CHECK(four->halfmove_clock() == 0);
    CHECK(four->fullmove_number() == 1);
    CHECK(to_fen(*four) == "4k3/8/8/8/8/8/8/4K3 b - - 0 1");
  }
  SECTION("surrounding and repeated whitespace, trailing newline") {
    auto pos = parse_fen("  4k3/8/8/8/8/8/8/4K3   w\t- -  0 1\r\n");
    REQUIRE(pos.ok());
    CHECK(to_fen(*pos) == "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
  }
  SECTION("castling rights in any order print in KQkq order") {
    auto pos = parse_fen("r3k2r/8/8/8/8/8/8/R3K2R w qkQK - 0 1");
    REQUIRE(pos.ok());
    CHECK(pos->castling_rights() == 0xF);
    CHECK(to_fen(*pos) == "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
  }
}

TEST_CASE("FEN round trip of the start position", "[chess][fen]") {
  auto pos = parse_fen(kStartFen);
  REQUIRE(pos.ok());
  CHECK(to_fen(*pos) == kStartFen);
  CHECK(*pos == Position());
  CHECK(pos->side_to_move() == Color::kWhite);
  CHECK(pos->piece_on(Square(4, 0)) == Piece(Color::kWhite, PieceType::kKing));
  CHECK(pos->piece_on(Square(3, 7)) == Piece(Color::kBlack, PieceType::kQueen));
  auto later = parse_fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
  REQUIRE(later.ok());
  CHECK(later->halfmove_clock() == 2);
  CHECK(later->fullmove_number() == 3);
  CHECK(to_fen(*later) == "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
}
