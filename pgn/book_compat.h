// PolyglotCompatBook: reproduces `polyglot make-book` (Debian polyglot 2.0.4) exactly, for
// --polyglot-compat. Its rules, observed and checked byte for byte (docs/formats/polyglot.md):
// per (key, move) a 16-bit game count n and score sum (2 win, 1 draw, 0 loss for the mover, from the
// Result tag only: anything but 1-0/0-1 is a draw); when a move's n reaches 16384, n and sum of every
// move of that position are halved, rounding up; at save time moves with n < min_game, sum == 0,
// sum/n/2 < min_score or of the excluded colour are dropped; weight = sum (1 with uniform); entries
// sorted by key, weight descending, then first appearance; key 0 is never written.
//
// The halving makes the result order-dependent, but only on the order of each position's own plies.
// So games are not counted while they are read: each ply is appended, 12 bytes, to a PlyStore
// (book_aggregator.h) bucketed by the key's top bits, which keeps every bucket's plies in the order
// they were added. entries() then replays each bucket through a small table that stays in the cache,
// applying the rules above, and concatenates the buckets in key order. "First appearance" is the
// order in which a (key, move) pair first occurs in the input; restricted to one key, that is the
// order of first occurrence in the key's bucket, which is what the replay sees.
// Games must be added in input order.
#pragma once

#include <cstdint>
#include <vector>

#include <oneapi/tbb/task_arena.h>

#include "formats/polyglot_book.h"
#include "pgn/book_aggregator.h"
#include "pgn/book_game.h"

namespace tbkit::pgn {

struct CompatOptions {
  std::uint32_t max_ply = 1024;
  int min_game = 3;
  double min_score = 0.0;  // percent, as make-book's -min-score
  bool only_white = false;
  bool only_black = false;
  bool uniform = false;
};

class PolyglotCompatBook {
 public:
  PolyglotCompatBook();
  // Adds one game's plies (the ply limit is applied here, the collector's filters should be off).
  void add_game(const BookGame& game, std::uint32_t max_ply);
  // The entries make-book would write, in file order. Buckets are replayed in parallel in arena
  // (serially without one); the result does not depend on the thread count.
  [[nodiscard]] std::vector<formats::PolyglotEntry> entries(const CompatOptions& options, tbb::task_arena* arena = nullptr) const;
  // Plies recorded.
  [[nodiscard]] std::size_t plies() const { return store_.records(); }

 private:
  PlyStore store_;
};

}  // namespace tbkit::pgn
