// Measures the cost of applying a move three ways over the same perft trees, and prints JSON:
//   bulk:       perft counting the last ply from the move list (no move applied at the leaves)
//   make/unmake: every leaf move applied with do_move and taken back with undo_move
//   copy/make:  every leaf move applied to a fresh copy of the position
// (full - bulk) / leaves is the cost of one do_move + undo_move pair; (copy - bulk) / leaves the cost
// of one copy + do_move. Each variant runs `runs` times, alternating; medians are quoted.
// Usage: chess_make_unmake_bench [runs]   (built with the tests; not a ctest case)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "chess/fen.h"
#include "chess/movegen.h"
#include "chess/perft.h"

using namespace tbkit::chess;

namespace {

std::uint64_t perft_make_unmake(Position& pos, int depth) {
  if (depth == 0) return 1;
  MoveList moves;
  generate_legal(pos, moves);
  std::uint64_t nodes = 0;
  for (Move m : moves) {
    pos.do_move(m);
    nodes += perft_make_unmake(pos, depth - 1);
    pos.undo_move(m);
  }
  return nodes;
}

std::uint64_t perft_copy_make(const Position& pos, int depth) {
  if (depth == 0) return 1;
  MoveList moves;
  generate_legal(pos, moves);
  std::uint64_t nodes = 0;
  for (Move m : moves) {
    Position child = pos;
    child.do_move(m);
    nodes += perft_copy_make(child, depth - 1);
  }
  return nodes;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

template <class F>
double time_once(F&& f, std::uint64_t expected) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t n = f();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (n != expected) {
    std::fprintf(stderr, "node count mismatch: %llu != %llu\n", static_cast<unsigned long long>(n),
                 static_cast<unsigned long long>(expected));
    std::exit(1);
  }
  return secs;
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  struct Case { const char* name; const char* fen; int depth; };
  const Case cases[] = {
      {"startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 5},
      {"kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 4},
  };
  std::printf("{\n  \"runs\": %d,\n  \"cases\": [", runs);
  bool first = true;
  for (const auto& c : cases) {
    Position pos = parse_fen(c.fen).value();
    const std::uint64_t leaves = perft(pos, c.depth);
    std::vector<double> bulk, full, copy;
    for (int r = 0; r < runs; ++r) {
      bulk.push_back(time_once([&] { return perft(pos, c.depth); }, leaves));
      full.push_back(time_once([&] { return perft_make_unmake(pos, c.depth); }, leaves));
      copy.push_back(time_once([&] { return perft_copy_make(pos, c.depth); }, leaves));
    }
    const double b = median(bulk), f = median(full), k = median(copy);
    std::printf("%s\n    {\"name\": \"%s\", \"depth\": %d, \"leaves\": %llu, \"bulk_s\": %.4f, \"make_unmake_s\": %.4f, "
                "\"copy_make_s\": %.4f, \"ns_per_make_unmake\": %.2f, \"ns_per_copy_make\": %.2f}",
                first ? "" : ",", c.name, c.depth, static_cast<unsigned long long>(leaves), b, f, k,
                (f - b) / double(leaves) * 1e9, (k - b) / double(leaves) * 1e9);
    first = false;
  }
  std::printf("\n  ]\n}\n");
  return 0;
}
