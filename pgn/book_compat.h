// PolyglotCompatBook: reproduces `polyglot make-book` (Debian polyglot 2.0.4) exactly, for
// --polyglot-compat. Its rules, observed and checked byte for byte (docs/formats/polyglot.md):
// per (key, move) a 16-bit game count n and score sum (2 win, 1 draw, 0 loss for the mover, from the
// Result tag only: anything but 1-0/0-1 is a draw); when a move's n reaches 16384, n and sum of every
// move of that position are halved, rounding up; at save time moves with n < min_game, sum == 0,
// sum/n/2 < min_score or of the excluded colour are dropped; weight = sum (1 with uniform); entries
// sorted by key, weight descending, then first appearance; key 0 is never written.
// Games must be added in input order: the halving makes the result order-dependent.
#pragma once

#include <cstdint>
#include <vector>

#include "formats/polyglot_book.h"
#include "pgn/book_game.h"
#include "formats/large_allocator.h"

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
  // The entries make-book would write, in file order.
  [[nodiscard]] std::vector<formats::PolyglotEntry> entries(const CompatOptions& options) const;
  [[nodiscard]] std::size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    std::uint64_t key;
    std::uint16_t move;
    std::uint16_t n;
    std::uint16_t sum;
    bool white;
    std::uint32_t next_same_key;  // index of the next entry of this position, or kNone
  };
  static constexpr std::uint32_t kNone = 0xFFFFFFFF;

  [[nodiscard]] std::uint32_t find_or_insert(std::uint64_t key, std::uint16_t move, bool white);
  void halve(std::uint32_t first_of_key);
  void grow();

  // Huge-page backed (large_allocator.h): growing these tables was mostly page faults.
  template <class T>
  using Vector = std::vector<T, formats::LargeAllocator<T>>;
  Vector<Entry> entries_;
  Vector<std::uint32_t> slots_;     // open addressing over (key, move) -> entry index
  Vector<std::uint32_t> key_head_;  // parallel table: first entry of each key, keyed by key alone
  Vector<std::uint64_t> key_keys_;
  std::size_t key_count_ = 0;
};

}  // namespace tbkit::pgn
