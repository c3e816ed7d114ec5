// Game status: mate, stalemate, insufficient material, fifty-move rule and threefold repetition.
#include <catch2/catch.hpp>

#include <string>

#include "chess/fen.h"
#include "chess/notation.h"

using namespace tbkit::chess;

namespace {

GameStatus status_of(const char* fen) {
  auto pos = parse_fen(fen);
  INFO(fen);
  REQUIRE(pos.ok());
  return pos->status();
}

void play(Position& pos, const char* san_moves) {
  std::string moves = san_moves;
  std::size_t start = 0;
  while (start < moves.size()) {
    std::size_t end = moves.find(' ', start);
    if (end == std::string::npos) end = moves.size();
    const std::string text = moves.substr(start, end - start);
    INFO(text);
    auto m = parse_san(pos, text);
    REQUIRE(m.ok());
    pos.do_move(*m);
    start = end + 1;
  }
}

}  // namespace

TEST_CASE("checkmate and stalemate", "[chess][status]") {
  CHECK(status_of("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3") == GameStatus::kCheckmate);
  CHECK(status_of("R5k1/5ppp/8/8/8/8/8/4K3 b - - 0 1") == GameStatus::kCheckmate);
  CHECK(status_of("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1") == GameStatus::kStalemate);
  CHECK(status_of("k7/8/1QK5/8/8/8/8/8 b - - 0 1") == GameStatus::kStalemate);
  // Check that can be answered is no mate.
  CHECK(status_of("R5k1/5p1p/8/8/8/8/8/4K3 b - - 0 1") == GameStatus::kOngoing);
  CHECK(status_of(kStartFen.data()) == GameStatus::kOngoing);
  CHECK(std::string(to_string(GameStatus::kCheckmate)) == "checkmate");
}

TEST_CASE("insufficient material", "[chess][status]") {
  CHECK(status_of("4k3/8/8/8/8/8/8/4K3 w - - 0 1") == GameStatus::kInsufficientMaterial);
  CHECK(status_of("4k3/8/8/8/8/8/8/2B1K3 w - - 0 1") == GameStatus::kInsufficientMaterial);
  CHECK(status_of("4k3/8/8/8/8/8/8/4K1n1 w - - 0 1") == GameStatus::kInsufficientMaterial);
  // Bishops all on dark squares (c1, f8), or all on light squares (f1, c8, e6).
  CHECK(status_of("4kb2/8/8/8/8/8/8/2B1K3 w - - 0 1") == GameStatus::kInsufficientMaterial);
  CHECK(status_of("2b1k3/8/4B3/8/8/8/8/4KB2 w - - 0 1") == GameStatus::kInsufficientMaterial);
  // Opposite-coloured bishops, two knights, knight against bishop, any pawn, rook or queen: play on.
  CHECK(status_of("2b1k3/8/8/8/8/8/8/2B1K3 w - - 0 1") == GameStatus::kOngoing);
  CHECK(status_of("4k3/8/8/8/8/8/8/1N2K1N1 w - - 0 1") == GameStatus::kOngoing);
  CHECK(status_of("4k3/8/8/8/8/8/8/2b1K1N1 w - - 0 1") == GameStatus::kOngoing);
  CHECK(status_of("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1") == GameStatus::kOngoing);
  CHECK(status_of("4k3/8/8/8/8/8/8/R3K3 w - - 0 1") == GameStatus::kOngoing);
  CHECK(status_of("4k3/8/8/8/8/8/8/3QK3 w - - 0 1") == GameStatus::kOngoing);
}

TEST_CASE("fifty-move rule", "[chess][status]") {
  CHECK(status_of("4k3/8/8/8/8/8/8/R3K3 w - - 99 80") == GameStatus::kOngoing);
  CHECK(status_of("4k3/8/8/8/8/8/8/R3K3 w - - 100 80") == GameStatus::kFiftyMoves);
  CHECK(status_of("4k3/8/8/8/8/8/8/R3K3 w - - 150 80") == GameStatus::kFiftyMoves);
  // Mate and stalemate on the hundredth half-move take precedence.
  CHECK(status_of("R5k1/5ppp/8/8/8/8/8/4K3 b - - 100 80") == GameStatus::kCheckmate);
  CHECK(status_of("7k/5Q2/6K1/8/8/8/8/8 b - - 100 80") == GameStatus::kStalemate);
  SECTION("the clock reaches 100 by moving") {
    auto pos = parse_fen("4k3/8/8/8/8/8/8/R3K3 w - - 99 80");
    REQUIRE(pos.ok());
    play(*pos, "Ra2");
    CHECK(pos->halfmove_clock() == 100);
    CHECK(pos->status() == GameStatus::kFiftyMoves);
  }
  SECTION("the clock saturates at the largest FEN value instead of wrapping") {
    auto pos = parse_fen("4k3/8/8/8/8/8/8/R3K3 w - - 65535 80");
    REQUIRE(pos.ok());
    play(*pos, "Ra2");
    CHECK(pos->halfmove_clock() == 65535);
    CHECK(pos->status() == GameStatus::kFiftyMoves);
  }
  SECTION("a capture or pawn move resets the clock") {
    const char* fen = "4k3/8/8/8/8/8/r3P3/4K3 b - - 98 80";
    auto pos = parse_fen(fen);
    REQUIRE(pos.ok());
    play(*pos, "Rb2 Kf1 Rb1+");
    CHECK(pos->halfmove_clock() == 101);
    CHECK(pos->status() == GameStatus::kFiftyMoves);
    auto pushed = parse_fen(fen);
    REQUIRE(pushed.ok());
    play(*pushed, "Rb2 e4");
    CHECK(pushed->halfmove_clock() == 0);
    CHECK(pushed->status() == GameStatus::kOngoing);
    auto captured = parse_fen(fen);
    REQUIRE(captured.ok());
    play(*captured, "Rxe2+");
    CHECK(captured->halfmove_clock() == 0);
    CHECK(captured->status() == GameStatus::kOngoing);
  }
}

TEST_CASE("threefold repetition through do_move history", "[chess][status]") {
  Position pos;
  play(pos, "Nf3 Nf6 Ng1 Ng8");
  CHECK(pos.repetition_count() == 1);
  CHECK(pos.status() == GameStatus::kOngoing);
  play(pos, "Nf3 Nf6 Ng1");
  CHECK(pos.status() == GameStatus::kOngoing);
  play(pos, "Ng8");
  CHECK(pos.repetition_count() == 2);
  CHECK(pos.status() == GameStatus::kRepetition);
  SECTION("undo takes it back") {
    auto m = parse_san(pos, "Nf3");
    REQUIRE(m.ok());
    pos.do_move(*m);
    CHECK(pos.repetition_count() == 2);  // the position after Nf3 has occurred twice before
    pos.undo_move(*m);
    CHECK(pos.repetition_count() == 2);
  }
  SECTION("repetitions count from the last irreversible move") {
    play(pos, "e4 Nf6 Nf3 Ng8 Ng1");
    CHECK(pos.repetition_count() == 1);
    play(pos, "Nf6 Nf3 Ng8");
    CHECK(pos.status() == GameStatus::kOngoing);
    play(pos, "Ng1");
    CHECK(pos.repetition_count() == 2);
    CHECK(pos.status() == GameStatus::kRepetition);
  }
  SECTION("any three occurrences count, not only consecutive cycles") {
    Position other;
    play(other, "Nf3 Nf6 Ng1 Ng8 Nc3 Nc6 Nb1 Nb8");
    CHECK(other.repetition_count() == 2);
    CHECK(other.status() == GameStatus::kRepetition);
  }
  SECTION("clear_history forgets earlier occurrences") {
    pos.clear_history();
    CHECK(pos.repetition_count() == 0);
    CHECK(pos.status() == GameStatus::kOngoing);
  }
}
