#include <catch2/catch.hpp>

#include "chess/fen.h"
#include "chess/notation.h"

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
