// Fuzzes parse_fen: any input must either fail cleanly or give a position whose FEN re-parses to an
// equal position with the same key and prints identically.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "chess/fen.h"
#include "chess/movegen.h"
#include "chess/transform.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tbkit::chess;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto pos = parse_fen(text);
  if (!pos) {
    TBKIT_FUZZ_CHECK(!pos.error().message.empty());
    return 0;
  }
  TBKIT_FUZZ_CHECK(pos->key() == pos->compute_key());
  const std::string fen = to_fen(*pos);
  auto again = parse_fen(fen);
  TBKIT_FUZZ_CHECK(again.ok());
  TBKIT_FUZZ_CHECK(*again == *pos);
  TBKIT_FUZZ_CHECK(again->key() == pos->key());
  TBKIT_FUZZ_CHECK(to_fen(*again) == fen);
  // Every legal move must apply and undo cleanly on the parsed position.
  Position& p = *pos;
  for (Move m : legal_moves(p)) {
    p.do_move(m);
    TBKIT_FUZZ_CHECK(p.key() == p.compute_key());
    TBKIT_FUZZ_CHECK(!p.is_attacked(p.king_square(~p.side_to_move()), p.side_to_move()));
    p.undo_move(m);
  }
  TBKIT_FUZZ_CHECK(p == *again);
  // The colour flip is always possible and is its own inverse.
  auto flipped = transform(p, Transform::kColorFlip);
  TBKIT_FUZZ_CHECK(flipped.ok());
  auto back = transform(*flipped, Transform::kColorFlip);
  TBKIT_FUZZ_CHECK(back.ok() && to_fen(*back) == fen);
  TBKIT_FUZZ_CHECK(legal_moves(*flipped).size() == legal_moves(p).size());
  (void)p.status();
  return 0;
}
