// The reader's SAN resolver against the chess core: for every legal move of positions along
// pseudo-random games, SAN (as printed by to_san, and in looser forms) and UCI resolve back to it.
#include <catch2/catch.hpp>

#include "chess/fen.h"
#include "chess/movegen.h"
#include "chess/notation.h"
#include "pgn/reader_san.h"

using namespace tbkit;
using namespace tbkit::chess;
using tbkit::pgn::resolve_san;
using tbkit::pgn::SanFailure;

namespace {

void check_all_moves(const Position& pos) {
  for (Move m : legal_moves(pos)) {
    const std::string san = to_san(pos, m);
    INFO(to_fen(pos) << " " << san);
    SanFailure f;
    CHECK(resolve_san(pos, san, f) == m);
    CHECK(resolve_san(pos, to_uci(m), f) == m);
    // Long algebraic with the piece letter and a dash, as some old files write it.
    std::string lan;
    if (pos.moved_piece(m).type() != PieceType::kPawn && !m.is_castling()) lan += "NBRQK"[index_of(pos.moved_piece(m).type()) - 1];
    lan += m.from().name() + (pos.is_capture(m) ? "x" : "-") + m.to().name();
    if (m.is_promotion()) lan += std::string("=") + "NBRQ"[index_of(m.promotion()) - 1];
    if (!m.is_castling()) CHECK(resolve_san(pos, lan, f) == m);
    // Agreement with the chess core on the same text.
    auto core = parse_san(pos, san);
    REQUIRE(core.ok());
    CHECK(*core == m);
  }
}

}  // namespace

TEST_CASE("resolve_san agrees with to_san on random games", "[pgn][san]") {
  std::uint64_t seed = 0x9E3779B97F4A7C15ULL;
  auto next = [&seed] {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
  };
  const char* starts[] = {
      "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
      "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
      "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
      "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
      "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
  };
  int positions = 0;
  for (const char* fen : starts) {
    for (int game = 0; game < 6; ++game) {
      auto pos = parse_fen(fen);
      REQUIRE(pos.ok());
      Position p = *pos;
      for (int ply = 0; ply < 80; ++ply) {
        check_all_moves(p);
        ++positions;
        const MoveList moves = legal_moves(p);
        if (moves.empty()) break;
        p.do_move(moves[next() % moves.size()]);
      }
    }
  }
  CHECK(positions > 1000);
}

TEST_CASE("resolve_san: loose forms and failures", "[pgn][san]") {
  auto pos = parse_fen("r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1");
  REQUIRE(pos.ok());
  SanFailure f;
  CHECK(resolve_san(*pos, "0-0", f) == Move(Square(4, 0), Square(6, 0), Move::Kind::kCastling));
  CHECK(resolve_san(*pos, "O-O-O+", f) == Move(Square(4, 0), Square(2, 0), Move::Kind::kCastling));
  CHECK(resolve_san(*pos, "e1h1", f) == Move(Square(4, 0), Square(6, 0), Move::Kind::kCastling));
  CHECK(resolve_san(*pos, "Kg1", f) == Move(Square(4, 0), Square(6, 0), Move::Kind::kCastling));
  const Move promo(Square(1, 6), Square(1, 7), Move::Kind::kPromotion, PieceType::kQueen);
  for (const char* text : {"b8=Q", "b8Q", "b8(Q)", "b7b8q", "Pb8=Q!?", "b8=Q+"}) {
    INFO(text);
    CHECK(resolve_san(*pos, text, f) == promo);
  }
  const Move capture_promo(Square(1, 6), Square(0, 7), Move::Kind::kPromotion, PieceType::kKnight);
  CHECK(resolve_san(*pos, "bxa8=N", f) == capture_promo);
  CHECK(resolve_san(*pos, "b:a8N", f) == capture_promo);

  CHECK(resolve_san(*pos, "b8", f).is_none());
  CHECK(std::string(f.reason_code) == "missing_promotion");
  CHECK(resolve_san(*pos, "Nf3", f).is_none());
  CHECK(std::string(f.reason_code) == "illegal_move");
  auto rooks = parse_fen("4k3/8/8/8/8/8/4K3/R6R w - - 0 1");
  REQUIRE(rooks.ok());
  CHECK(resolve_san(*rooks, "Rd1", f).is_none());
  CHECK(std::string(f.reason_code) == "ambiguous_move");
  CHECK(resolve_san(*rooks, "Rad1", f) == Move(Square(0, 0), Square(3, 0)));
  CHECK(resolve_san(*rooks, "R1d1", f).is_none());
  CHECK(resolve_san(*rooks, "Rhd1", f) == Move(Square(7, 0), Square(3, 0)));
  CHECK(resolve_san(*pos, "Zz", f).is_none());
  CHECK(std::string(f.reason_code) == "bad_san");
  CHECK(f.message.find("'Zz'") != std::string::npos);
  CHECK(resolve_san(*pos, "", f).is_none());
  CHECK(resolve_san(*pos, "Qa1a2a3a4", f).is_none());
  CHECK(resolve_san(*pos, "Kb8=Q", f).is_none());
  // The move is quoted printable in the message: control bytes and bad UTF-8 escaped, 40 characters at most.
  CHECK(resolve_san(*pos, "N\x1B\xFF", f).is_none());
  CHECK(f.message == "move 'N\\x1B\\xFF': bad destination square");
  CHECK(resolve_san(*pos, std::string(60, 'N'), f).is_none());
  CHECK(f.message == "move '" + std::string(40, 'N') + "...': too long");
}

TEST_CASE("resolve_san: en passant, pins, checks", "[pgn][san]") {
  auto ep = parse_fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2");
  REQUIRE(ep.ok());
  SanFailure f;
  CHECK(resolve_san(*ep, "exd6", f) == Move(Square(4, 4), Square(3, 5), Move::Kind::kEnPassant));
  CHECK(resolve_san(*ep, "exd6e.p.", f) == Move(Square(4, 4), Square(3, 5), Move::Kind::kEnPassant));
  // The knight on d2 is pinned, so Nf3 can only mean the g1 knight.
  auto pinned = parse_fen("6k1/8/8/8/1b6/8/3N4/4K1N1 w - - 0 1");
  REQUIRE(pinned.ok());
  CHECK(resolve_san(*pinned, "Nf3", f) == Move(Square(6, 0), Square(5, 2)));
  // In check: only moves that answer it.
  auto check = parse_fen("4k3/8/8/8/8/8/4q3/R3K2R w KQ - 0 1");
  REQUIRE(check.ok());
  CHECK(resolve_san(*check, "Kxe2", f) == Move(Square(4, 0), Square(4, 1)));
  CHECK(resolve_san(*check, "O-O", f).is_none());
  CHECK(resolve_san(*check, "Ra2", f).is_none());
}
