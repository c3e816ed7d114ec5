#include "chess/perft.h"

#include "chess/movegen.h"

namespace tbkit::chess {

std::uint64_t perft(Position& pos, int depth) {
  if (depth == 0) return 1;
  MoveList moves;
  generate_legal(pos, moves);
  if (depth == 1) return moves.size();
  std::uint64_t nodes = 0;
  for (Move m : moves) {
    pos.do_move(m);
    nodes += perft(pos, depth - 1);
    pos.undo_move(m);
  }
  return nodes;
}

std::vector<std::pair<Move, std::uint64_t>> perft_divide(Position& pos, int depth) {
  std::vector<std::pair<Move, std::uint64_t>> out;
  if (depth < 1) return out;
  for (Move m : legal_moves(pos)) {
    pos.do_move(m);
    out.emplace_back(m, perft(pos, depth - 1));
    pos.undo_move(m);
  }
  return out;
}

}  // namespace tbkit::chess
