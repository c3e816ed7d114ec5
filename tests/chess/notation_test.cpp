// SAN and UCI: every accepted input form, disambiguation, rejections with their reasons, and printing.
#include <catch2/catch.hpp>

#include <string>

#include "chess/fen.h"
#include "chess/movegen.h"
#include "chess/notation.h"

using namespace tbkit;
using namespace tbkit::chess;

namespace {

Position at(const char* fen) {
  auto pos = parse_fen(fen);
  INFO(fen);
  REQUIRE(pos.ok());
  return *pos;
}

// The move a SAN text names, as UCI, or the error message.
std::string san(const Position& pos, const std::string& text) {
  auto m = parse_san(pos, text);
  return m.ok() ? to_uci(*m) : "error: " + m.error().message;
}

std::string uci(const Position& pos, const std::string& text) {
  auto m = parse_uci(pos, text);
  return m.ok() ? to_uci(*m) : "error: " + m.error().message;
}

// to_san of the move given in UCI.
std::string print(const Position& pos, const std::string& uci_text) {
  auto m = parse_uci(pos, uci_text);
  INFO(uci_text);
  REQUIRE(m.ok());
  return to_san(pos, *m);
}

constexpr const char* kCastles = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
constexpr const char* kPromote = "2r1r3/1P3k2/8/8/8/8/5K2/8 w - - 0 1";
constexpr const char* kEnPassant = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2";
constexpr const char* kTwoKnights = "rnbqkbnr/pppppppp/8/8/8/5N2/PPP1PPPP/RNBQKB1R w KQkq - 0 1";
constexpr const char* kTwoRooks = "4k3/8/8/R7/8/8/8/R3K3 w - - 0 1";
constexpr const char* kThreeQueens = "1k6/8/8/8/4Q2Q/8/8/K6Q w - - 0 1";

}  // namespace

TEST_CASE("SAN accepted forms", "[chess][notation]") {
  const Position start;
  SECTION("plain, long algebraic, 'P', dash and capture marks") {
    CHECK(san(start, "e4") == "e2e4");
    CHECK(san(start, "Pe4") == "e2e4");
    CHECK(san(start, "e2e4") == "e2e4");
    CHECK(san(start, "e2-e4") == "e2e4");
    CHECK(san(start, "Nf3") == "g1f3");
    CHECK(san(start, "Ngf3") == "g1f3");
    CHECK(san(start, "N1f3") == "g1f3");
    CHECK(san(start, "Ng1f3") == "g1f3");
    CHECK(san(start, "Ng1-f3") == "g1f3");
    CHECK(san(start, "  Nc3 ") == "b1c3");
  }
  SECTION("annotation suffixes") {
    for (const char* suffix : {"+", "#", "!", "?", "!!", "??", "!?", "?!", "+!", "#?!"}) {
      INFO(suffix);
      CHECK(san(start, std::string("e4") + suffix) == "e2e4");
    }
  }
  SECTION("castling, letter O or digit 0") {
    const Position pos = at(kCastles);
    CHECK(san(pos, "O-O") == "e1g1");
    CHECK(san(pos, "0-0") == "e1g1");
    CHECK(san(pos, "O-O-O") == "e1c1");
    CHECK(san(pos, "0-0-0") == "e1c1");
    CHECK(san(pos, "O-O+") == "e1g1");
    CHECK(parse_san(pos, "O-O")->is_castling());
    const Position black = at("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1");
    CHECK(san(black, "O-O") == "e8g8");
    CHECK(san(black, "0-0-0") == "e8c8");
  }
  SECTION("promotions: =Q, Q, (Q), with and without capture") {
    const Position pos = at(kPromote);
    CHECK(san(pos, "b8=Q") == "b7b8q");
    CHECK(san(pos, "b8Q") == "b7b8q");
    CHECK(san(pos, "b8(Q)") == "b7b8q");
    CHECK(san(pos, "b8=N") == "b7b8n");
    CHECK(san(pos, "b8R") == "b7b8r");
    CHECK(san(pos, "b8(B)") == "b7b8b");
    CHECK(san(pos, "bxc8=Q+") == "b7c8q");
    CHECK(san(pos, "bc8=Q") == "b7c8q");
    CHECK(san(pos, "bxc8N") == "b7c8n");
    CHECK(san(pos, "bxc8(R)") == "b7c8r");
  }
  SECTION("en passant, with or without the e.p. suffix") {
    const Position pos = at(kEnPassant);
    CHECK(san(pos, "exd6") == "e5d6");
    CHECK(san(pos, "exd6e.p.") == "e5d6");
    CHECK(san(pos, "exd6 e.p.") == "e5d6");
    CHECK(san(pos, "exd6 e.p.+") == "e5d6");
    CHECK(san(pos, "ed6") == "e5d6");
    CHECK(parse_san(pos, "exd6")->is_en_passant());
  }
}

TEST_CASE("SAN disambiguation", "[chess][notation]") {
  SECTION("by file: Nbd2 and Nfd2") {
    const Position pos = at(kTwoKnights);
    CHECK(san(pos, "Nbd2") == "b1d2");
    CHECK(san(pos, "Nfd2") == "f3d2");
    CHECK(san(pos, "N1d2") == "b1d2");
    CHECK(san(pos, "N3d2") == "f3d2");
    CHECK(san(pos, "Nb1d2") == "b1d2");
    CHECK_THAT(san(pos, "Nd2"), Catch::Contains("ambiguous: could be Nbd2, Nfd2"));
    CHECK(print(pos, "b1d2") == "Nbd2");
    CHECK(print(pos, "f3d2") == "Nfd2");
    // No clash, no disambiguation.
    CHECK(print(pos, "b1c3") == "Nc3");
  }
  SECTION("by rank: R1a3 and R5a3") {
    const Position pos = at(kTwoRooks);
    CHECK(san(pos, "R1a3") == "a1a3");
    CHECK(san(pos, "R5a3") == "a5a3");
    CHECK_THAT(san(pos, "Ra3"), Catch::Contains("ambiguous"));
    CHECK(print(pos, "a1a3") == "R1a3");
    CHECK(print(pos, "a5a3") == "R5a3");
    CHECK(print(pos, "a1b1") == "Rb1");
  }
  SECTION("by full square: Qh4e1") {
    const Position pos = at(kThreeQueens);
    CHECK(san(pos, "Qh4e1") == "h4e1");
    CHECK(san(pos, "Qe4e1") == "e4e1");
    CHECK(san(pos, "Qh1e1") == "h1e1");
    CHECK(san(pos, "Qee1") == "e4e1");
    CHECK(san(pos, "Q1e1") == "h1e1");
    CHECK_THAT(san(pos, "Qhe1"), Catch::Contains("ambiguous: could be"));
    CHECK_THAT(san(pos, "Q4e1"), Catch::Contains("ambiguous"));
    CHECK_THAT(san(pos, "Qe1"), Catch::Contains("ambiguous"));
    CHECK(print(pos, "h4e1") == "Qh4e1");
    CHECK(print(pos, "e4e1") == "Qee1");
    CHECK(print(pos, "h1e1") == "Q1e1");
  }
  SECTION("a pinned piece does not count as a rival") {
    // The knight on c3 is pinned by the bishop on a5, so Ne2 needs no disambiguation.
    const Position pos = at("4k3/8/8/b7/8/2N5/8/4K1N1 w - - 0 1");
    CHECK(print(pos, "g1e2") == "Ne2");
    CHECK(san(pos, "Ne2") == "g1e2");
  }
}

TEST_CASE("SAN rejections name the reason", "[chess][notation]") {
  const Position start;
  struct Reject { const char* fen; const char* text; const char* message; ErrorCode code; };
  const Reject rejects[] = {
      {kStartFen.data(), "e5", "no pawn can move to e5", ErrorCode::kIllegal},
      {kStartFen.data(), "Nd4", "no knight can move to d4", ErrorCode::kIllegal},
      {kStartFen.data(), "Ke2", "no king can move to e2", ErrorCode::kIllegal},
      {kStartFen.data(), "O-O", "castling short is not legal here", ErrorCode::kIllegal},
      {kStartFen.data(), "0-0-0", "castling long is not legal here", ErrorCode::kIllegal},
      {kTwoKnights, "Nd2", "ambiguous", ErrorCode::kIllegal},
      {kPromote, "b8", "must name its promotion piece", ErrorCode::kIllegal},
      {kPromote, "bxc8", "must name its promotion piece", ErrorCode::kIllegal},
      {kPromote, "b8=K", "bad promotion piece", ErrorCode::kInvalidArgument},
      {kPromote, "b8=P", "bad promotion piece", ErrorCode::kInvalidArgument},
      {kPromote, "b8(X)", "bad promotion piece", ErrorCode::kInvalidArgument},
      {kTwoRooks, "Ra8=Q", "only pawns promote", ErrorCode::kInvalidArgument},
      {kStartFen.data(), "", "empty", ErrorCode::kInvalidArgument},
      {kStartFen.data(), "+!", "empty", ErrorCode::kInvalidArgument},
      {kStartFen.data(), "hello", "expected a destination square", ErrorCode::kInvalidArgument},
      {kStartFen.data(), "Zz9", "bad destination square", ErrorCode::kInvalidArgument},
      {kStartFen.data(), "N", "expected a destination square", ErrorCode::kInvalidArgument},
      {kStartFen.data(), "Nggf3", "bad disambiguation", ErrorCode::kInvalidArgument},
      {kStartFen.data(), "Ng1f3f3", "expected a destination square", ErrorCode::kInvalidArgument},
      {kStartFen.data(), "e2e5", "no pawn can move to e5", ErrorCode::kIllegal},
      {kStartFen.data(), "Nf3x", "'x' after the destination square", ErrorCode::kInvalidArgument},
      {kStartFen.data(), "e4-", "'-' after the destination square", ErrorCode::kInvalidArgument},
  };
  for (const auto& r : rejects) {
    INFO(r.fen << "  '" << r.text << "'");
    auto m = parse_san(at(r.fen), r.text);
    REQUIRE_FALSE(m.ok());
    CHECK_THAT(m.error().message, Catch::Contains(r.message));
    CHECK_THAT(m.error().message, Catch::Contains(std::string("move '") + r.text + "'"));
    CHECK(m.error().code == r.code);
  }
}

TEST_CASE("to_san prints checks, mates, promotions and castling", "[chess][notation]") {
  CHECK(print(Position(), "e2e4") == "e4");
  CHECK(print(Position(), "g1f3") == "Nf3");
  CHECK(print(at(kCastles), "e1g1") == "O-O");
  CHECK(print(at(kCastles), "e1c1") == "O-O-O");
  CHECK(print(at("5k2/8/8/8/8/8/8/4K2R w K - 0 1"), "e1g1") == "O-O+");
  CHECK(print(at("6k1/5ppp/8/8/8/8/8/R3K3 w Q - 0 1"), "a1a8") == "Ra8#");
  CHECK(print(at("6k1/5ppp/8/8/8/8/8/R3K3 w Q - 0 1"), "e1c1") == "O-O-O");
  CHECK(print(at(kPromote), "b7b8q") == "b8=Q");
  CHECK(print(at(kPromote), "b7b8n") == "b8=N");
  CHECK(print(at(kPromote), "b7c8q") == "bxc8=Q");
  CHECK(print(at("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1"), "b7b8q") == "b8=Q+");
  CHECK(print(at("k7/2P5/1K6/8/8/8/8/8 w - - 0 1"), "c7c8q") == "c8=Q#");
  CHECK(print(at(kEnPassant), "e5d6") == "exd6");
  CHECK(print(at("rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2"), "d8h4") == "Qh4#");
  CHECK(print(at("4k3/8/8/8/8/8/2p5/4K3 b - - 0 1"), "c2c1q") == "c1=Q+");
}

TEST_CASE("UCI moves", "[chess][notation]") {
  const Position start;
  CHECK(uci(start, "e2e4") == "e2e4");
  CHECK(uci(start, "g1f3") == "g1f3");
  CHECK(to_uci(Move::none()) == "0000");
  SECTION("castling as the king's move or king-takes-rook") {
    const Position pos = at(kCastles);
    CHECK(uci(pos, "e1g1") == "e1g1");
    CHECK(uci(pos, "e1h1") == "e1g1");
    CHECK(uci(pos, "e1a1") == "e1c1");
    CHECK(parse_uci(pos, "e1h1")->is_castling());
  }
  SECTION("a king next to its own rook does not castle") {
    // Ke1, Rf1, Ra1 with the long right: e1f1 is not a castling move, nor is f1h1 a king move.
    CHECK_THAT(uci(at("4k3/8/8/8/8/8/8/R3KR2 w Q - 0 1"), "e1f1"), Catch::Contains("not a legal move"));
    CHECK_THAT(uci(at("4k3/8/8/8/8/8/8/5K1R w - - 0 1"), "f1h1"), Catch::Contains("not a legal move"));
  }
  SECTION("promotions") {
    const Position pos = at(kPromote);
    CHECK(uci(pos, "b7b8q") == "b7b8q");
    CHECK(uci(pos, "b7c8n") == "b7c8n");
    CHECK(uci(pos, "b7b8Q") == "b7b8q");
    CHECK_THAT(uci(pos, "b7b8"), Catch::Contains("not a legal move"));
    CHECK_THAT(uci(pos, "b7b8k"), Catch::Contains("bad promotion piece 'k'"));
  }
  SECTION("rejections") {
    CHECK_THAT(uci(start, "e2e5"), Catch::Contains("not a legal move"));
    CHECK(parse_uci(start, "e2e5").error().code == ErrorCode::kIllegal);
    CHECK_THAT(uci(start, "e2"), Catch::Contains("4 or 5 characters"));
    CHECK_THAT(uci(start, "e2e4qq"), Catch::Contains("4 or 5 characters"));
    CHECK_THAT(uci(start, "i2e4"), Catch::Contains("expected two squares"));
    CHECK(parse_uci(start, "z9z9").error().code == ErrorCode::kInvalidArgument);
    CHECK_THAT(uci(start, "e2e4q"), Catch::Contains("not a legal move"));
  }
}
