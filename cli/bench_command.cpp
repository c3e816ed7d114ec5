// tbkit bench: a single-threaded signature run. Each part prints its figure; the final
// `Bench: N` line folds them together so any functional change shows up as a new number.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>

#include "chess/fen.h"
#include "chess/movegen.h"
#include "chess/notation.h"
#include "probe/player/search.h"
#include <atomic>
#include "chess/perft.h"
#include "cli/common.h"

namespace tbkit::cli {
namespace {

struct BenchCase {
  const char* fen;
  int depth;
};

constexpr BenchCase kPerftCases[] = {
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 6},
    {"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5},
    {"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 7},
    {"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 5},
    {"rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 5},
    {"r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 5},
};

struct Fnv {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  void add(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xFF;
      h *= 0x100000001b3ULL;
    }
  }
  void add(const std::string& s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 0x100000001b3ULL;
    }
  }
};

// Walks a tree to depth 3 hashing keys, FENs and SAN of every node: covers notation and hashing.
void hash_tree(chess::Position& pos, int depth, Fnv& fnv) {
  fnv.add(pos.key());
  if (depth == 0) return;
  for (chess::Move m : chess::legal_moves(pos)) {
    fnv.add(chess::to_san(pos, m));
    pos.do_move(m);
    hash_tree(pos, depth - 1, fnv);
    pos.undo_move(m);
  }
}

int run_bench() {
  const auto t0 = std::chrono::steady_clock::now();
  Fnv signature;
  std::uint64_t perft_sum = 0;
  for (const auto& c : kPerftCases) {
    auto pos = chess::parse_fen(c.fen);
    perft_sum += chess::perft(*pos, c.depth);
  }
  signature.add(perft_sum);
  const double perft_secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("perft:     %llu nodes, %.0f nodes/s\n", static_cast<unsigned long long>(perft_sum), double(perft_sum) / perft_secs);

  Fnv notation;
  for (const auto& c : kPerftCases) {
    auto pos = chess::parse_fen(c.fen);
    hash_tree(*pos, 2, notation);
    notation.add(chess::to_fen(*pos));
  }
  signature.add(notation.h);
  std::printf("notation:  %016llx\n", static_cast<unsigned long long>(notation.h));

  // Fixed-depth searches with a fresh table: the node count changes with any search or eval change.
  std::uint64_t search_nodes = 0;
  const auto t_search = std::chrono::steady_clock::now();
  for (const auto& c : kPerftCases) {
    auto pos = chess::parse_fen(c.fen);
    player::Searcher searcher(16);
    std::atomic<bool> stop{false};
    player::SearchLimits limits;
    limits.depth = 7;
    const auto r = searcher.search(*pos, limits, stop, nullptr);
    search_nodes += r.nodes;
    signature.add(std::uint64_t(r.best.raw()));
  }
  signature.add(search_nodes);
  const double search_secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_search).count();
  std::printf("search:    %llu nodes, %.0f nodes/s\n", static_cast<unsigned long long>(search_nodes),
              double(search_nodes) / search_secs);

  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fflush(stdout);
  std::fprintf(stderr, "Total time: %.2f s\n", secs);
  std::printf("Bench: %llu\n", static_cast<unsigned long long>(signature.h % 1000000007ULL));
  return kExitOk;
}

}  // namespace

void add_bench_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("bench", "Single-threaded signature run: prints 'Bench: N'");
  cmd->footer(
      "Runs perft on fixed positions, hashes keys, FENs and SAN over small trees, and searches each to depth 7. A change that\n"
      "alters any output changes N; commits that change N say 'Bench: N'.\n"
      "Example:\n"
      "  tbkit bench");
  cmd->callback([&exit_code] { exit_code = run_bench(); });
}

}  // namespace tbkit::cli
