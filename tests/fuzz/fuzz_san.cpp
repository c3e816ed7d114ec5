// Fuzzes parse_san and parse_uci: the first byte picks a position from a fixed list, the rest is the
// move text. A move that parses must be legal, and its SAN and UCI must parse back to the same move.
#include <cstddef>
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>

#include "chess/fen.h"
#include "chess/movegen.h"
#include "chess/notation.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

// Positions rich in notation corner cases: castling both ways, promotions with and without capture,
// en passant, ambiguous knights/rooks/queens, checks and mates.
constexpr const char* kFens[] = {
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "2r1r3/1P3k2/8/8/8/8/5K2/8 w - - 0 1",
    "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2",
    "8/8/8/K2pP2r/8/8/8/7k w - d6 0 2",
    "1k6/8/8/8/4Q2Q/8/8/K6Q w - - 0 1",
    "7k/8/8/8/8/8/8/R3K3 w Q - 0 1",
    "1k6/8/8/8/3N1N2/8/3N1N2/4K3 w - - 0 1",
    "6k1/5ppp/8/8/8/8/8/R3K2R w KQ - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
    "4k3/8/8/8/8/8/1p6/R3K3 b Q - 0 1",
    "8/P7/8/8/8/8/8/k1K5 w - - 0 1",
    "4k3/8/8/8/8/8/8/R3KR2 w Q - 0 1",
    "4k3/8/8/8/8/8/8/5K1R w - - 0 1",
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tbkit::chess;
  if (size < 1) return 0;
  const std::size_t count = sizeof kFens / sizeof kFens[0];
  const auto start = parse_fen(kFens[data[0] % count]);
  TBKIT_FUZZ_CHECK(start.ok());
  const Position& pos = *start;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  const MoveList legal = legal_moves(pos);

  if (auto san = parse_san(pos, text)) {
    TBKIT_FUZZ_CHECK(legal.contains(*san));
    const std::string printed = to_san(pos, *san);
    auto back = parse_san(pos, printed);
    TBKIT_FUZZ_CHECK(back.ok() && *back == *san);
    auto uci_back = parse_uci(pos, to_uci(*san));
    TBKIT_FUZZ_CHECK(uci_back.ok() && *uci_back == *san);
  } else {
    TBKIT_FUZZ_CHECK(!san.error().message.empty());
  }
  if (auto uci = parse_uci(pos, text)) {
    TBKIT_FUZZ_CHECK(legal.contains(*uci));
    // The text names the move's own squares, except king-takes-rook castling, which names the rook.
    std::string lower(text);
    for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
    const bool rook_square = uci->is_castling() && lower.size() == 4 && (lower[2] == 'a' || lower[2] == 'h') &&
                             lower[3] == lower[1] &&
                             pos.piece_on(Square(lower[2] - 'a', lower[3] - '1')) == Piece(pos.side_to_move(), PieceType::kRook);
    TBKIT_FUZZ_CHECK(lower == to_uci(*uci) || rook_square);
    auto back = parse_uci(pos, to_uci(*uci));
    TBKIT_FUZZ_CHECK(back.ok() && *back == *uci);
    auto san_back = parse_san(pos, to_san(pos, *uci));
    TBKIT_FUZZ_CHECK(san_back.ok() && *san_back == *uci);
  } else {
    TBKIT_FUZZ_CHECK(!uci.error().message.empty());
  }
  return 0;
}
