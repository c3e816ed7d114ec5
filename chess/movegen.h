// Legal move generation.
#pragma once

#include <array>
#include <cstddef>

#include "chess/position.h"

namespace tbkit::chess {

// A fixed-capacity list of moves (no position has more than 218 legal moves).
class MoveList {
 public:
  void push(Move m) { moves_[size_++] = m; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] Move operator[](std::size_t i) const { return moves_[i]; }
  [[nodiscard]] const Move* begin() const { return moves_.data(); }
  [[nodiscard]] const Move* end() const { return moves_.data() + size_; }
  Move* begin() { return moves_.data(); }
  Move* end() { return moves_.data() + size_; }
  [[nodiscard]] bool contains(Move m) const;

 private:
  std::array<Move, 256> moves_;
  std::size_t size_ = 0;
};

// All legal moves of the side to move, in a fixed order that depends only on the position.
[[nodiscard]] MoveList legal_moves(const Position& pos);
void generate_legal(const Position& pos, MoveList& out);

// Legal captures and promotions only (for quiescence search).
void generate_legal_noisy(const Position& pos, MoveList& out);

[[nodiscard]] bool has_legal_move(const Position& pos);
[[nodiscard]] bool is_legal(const Position& pos, Move m);

}  // namespace tbkit::chess
