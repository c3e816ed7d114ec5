#include <catch2/catch.hpp>

#include "chess/fen.h"
#include "chess/movegen.h"
#include "chess/notation.h"
#include "chess/zobrist.h"

using namespace tbkit::chess;

// The nine test keys of the Polyglot book format spec, reached both from FEN and by playing the moves.
TEST_CASE("Polyglot key vectors", "[chess][zobrist]") {
  struct Vector { const char* fen; const char* moves; std::uint64_t key; };
  const Vector vectors[] = {
      {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "", 0x463b96181691fc9cULL},
      {"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", "e2e4", 0x823c9b50fd114196ULL},
      {"rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2", "e2e4 d7d5", 0x0756b94461c50fb0ULL},
      {"rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2", "e2e4 d7d5 e4e5", 0x662fafb965db29d4ULL},
      {"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", "e2e4 d7d5 e4e5 f7f5", 0x22a48b5a8e47ff78ULL},
      {"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR b kq - 0 3", "e2e4 d7d5 e4e5 f7f5 e1e2", 0x652a607ca3f242c1ULL},
      {"rnbq1bnr/ppp1pkpp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR w - - 0 4", "e2e4 d7d5 e4e5 f7f5 e1e2 e8f7", 0x00fdd303c946bdd9ULL},
      {"rnbqkbnr/p1pppppp/8/8/PpP4P/8/1P1PPPP1/RNBQKBNR b KQkq c3 0 3", "a2a4 b7b5 h2h4 b5b4 c2c4", 0x3c8123ea7b067637ULL},
      {"rnbqkbnr/p1pppppp/8/8/P6P/R1p5/1P1PPPP1/1NBQKBNR b Kkq - 0 4", "a2a4 b7b5 h2h4 b5b4 c2c4 b4c3 a1a3", 0x5c3f9b829b279560ULL},
  };
  for (const auto& v : vectors) {
    INFO(v.fen);
    auto from_fen = parse_fen(v.fen);
    REQUIRE(from_fen.ok());
    CHECK(from_fen->key() == v.key);
    CHECK(from_fen->compute_key() == v.key);

    Position played;
    std::string moves = v.moves;
    std::size_t start = 0;
    while (start < moves.size()) {
      std::size_t end = moves.find(' ', start);
      if (end == std::string::npos) end = moves.size();
      auto m = parse_uci(played, moves.substr(start, end - start));
      REQUIRE(m.ok());
      played.do_move(*m);
      start = end + 1;
    }
    CHECK(played.key() == v.key);
    // The spec's FENs leave the halfmove clock at 0, so compare the first four fields only.
    auto placement = [](const std::string& fen) { return fen.substr(0, fen.rfind(' ', fen.rfind(' ') - 1)); };
    CHECK(placement(to_fen(played)) == placement(to_fen(*from_fen)));
  }
}

namespace {

// The key of the same placement with the en-passant field replaced by '-'.
std::uint64_t key_without_en_passant(const std::string& fen) {
  std::string copy = fen;
  const std::size_t ep_start = copy.find(' ', copy.find(' ', copy.find(' ') + 1) + 1) + 1;
  const std::size_t ep_end = copy.find(' ', ep_start);
  copy.replace(ep_start, ep_end - ep_start, "-");
  auto pos = parse_fen(copy);
  REQUIRE(pos.ok());
  return pos->key();
}

}  // namespace

// Polyglot's rule: the en-passant file enters the key only when a pawn of the side to move stands
// beside the pawn that just made the double step - whether or not the capture is legal.
TEST_CASE("en-passant key rule", "[chess][zobrist]") {
  SECTION("a capturing pawn beside the pushed pawn: the file is in the key") {
    const std::string fen = "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1";
    auto pos = parse_fen(fen);
    REQUIRE(pos.ok());
    CHECK(pos->en_passant() == Square(4, 2));
    CHECK(pos->key() == (key_without_en_passant(fen) ^ zobrist::en_passant_key(4)));
    CHECK(pos->key() == pos->compute_key());
  }
  SECTION("reached by a double push, the incremental key agrees") {
    auto pos = parse_fen("4k3/8/8/8/5p2/8/4P3/4K3 w - - 0 1");
    REQUIRE(pos.ok());
    auto m = parse_uci(*pos, "e2e4");
    REQUIRE(m.ok());
    pos->do_move(*m);
    CHECK(pos->en_passant() == Square(4, 2));
    CHECK(pos->key() == pos->compute_key());
    CHECK(pos->key() == (key_without_en_passant(to_fen(*pos)) ^ zobrist::en_passant_key(4)));
  }
  SECTION("no capturing pawn beside it: the square is dropped from key and FEN") {
    const std::string fen = "4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1";
    auto pos = parse_fen(fen);
    REQUIRE(pos.ok());
    CHECK(pos->en_passant().is_none());
    CHECK(pos->key() == key_without_en_passant(fen));
    CHECK(to_fen(*pos) == "4k3/8/8/8/4P3/8/8/4K3 b - - 0 1");
  }
  SECTION("a pawn of the wrong colour beside it does not count") {
    auto pos = parse_fen("4k3/8/8/8/3PP3/8/8/4K3 b - e3 0 1");
    REQUIRE(pos.ok());
    CHECK(pos->en_passant().is_none());
  }
  SECTION("the capture is illegal (rank pin) but the file is still in the key") {
    // After e2e4 the black pawn on d4 may not take: d4 and e4 would leave the rank open to Qh4.
    auto pos = parse_fen("8/8/8/8/k2p3Q/8/4P3/3K4 w - - 0 1");
    REQUIRE(pos.ok());
    auto m = parse_uci(*pos, "e2e4");
    REQUIRE(m.ok());
    pos->do_move(*m);
    CHECK(pos->en_passant() == Square(4, 2));
    const MoveList moves = legal_moves(*pos);
    CHECK(moves.size() > 0);
    for (Move legal : moves) CHECK_FALSE(legal.is_en_passant());
    CHECK(pos->key() == pos->compute_key());
    CHECK(pos->key() == (key_without_en_passant(to_fen(*pos)) ^ zobrist::en_passant_key(4)));
    // The same position from FEN hashes the same.
    auto from_fen = parse_fen("8/8/8/8/k2pP2Q/8/8/3K4 b - e3 0 1");
    REQUIRE(from_fen.ok());
    CHECK(from_fen->key() == pos->key());
    CHECK(*from_fen == *pos);
  }
  SECTION("the en-passant file leaves the key after the next move") {
    auto pos = parse_fen("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1");
    REQUIRE(pos.ok());
    auto m = parse_uci(*pos, "e8d8");
    REQUIRE(m.ok());
    pos->do_move(*m);
    CHECK(pos->en_passant().is_none());
    CHECK(pos->key() == pos->compute_key());
    pos->undo_move(*m);
    CHECK(pos->en_passant() == Square(4, 2));
    CHECK(pos->key() == pos->compute_key());
  }
}
