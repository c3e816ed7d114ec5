// tbkit bench: a single-threaded signature run. Each part prints its figure; the final
// `Bench: N` line folds them together so any functional change shows up as a new number.
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <tbb/task_arena.h>

#include "chess/fen.h"
#include "chess/movegen.h"
#include "chess/notation.h"
#include "chess/perft.h"
#include "cli/common.h"
#include "cli/interrupt.h"
#include "gen/run.h"
#include "pgn/book_builder.h"
#include "player/search.h"
#include "probe/tablebase.h"

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

// The sum of kPerftCases' node counts (119060324 + 193690690 + 178633661 + 15833292 + 89941194 +
// 164075551).
constexpr std::uint64_t kPerftSum = 761234712;

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


// A few short games (with a variation, a comment and every result) for the book part.
constexpr const char* kBenchPgn =
    "[Event \"bench 1\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n[WhiteElo \"2100\"]\n\n"
    "1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 $4 (3... g6 4. Qf3) 4. Qxf7# 1-0\n\n"
    "[Event \"bench 2\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n"
    "[Event \"bench 3\"]\n[Result \"1/2-1/2\"]\n[BlackElo \"1950\"]\n\n"
    "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 {a comment} 4. Ba4 Nf6 5. O-O Be7 1/2-1/2\n\n"
    "[Event \"bench 4\"]\n[Result \"*\"]\n\n1. d4 d5 2. c4 e6 3. Nc3 Nf6 *\n";

void hash_file(const std::filesystem::path& path, Fnv& fnv) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fnv.add(path.filename().string());
  fnv.add(std::uint64_t(bytes.size()));
  fnv.add(bytes);
}

// The FEN board field of `board` (64 characters, a8 first; '.' for an empty square).
std::string fen_board(const std::string& board) {
  std::string out;
  for (int r = 0; r < 8; ++r) {
    int empty = 0;
    for (int f = 0; f < 8; ++f) {
      const char c = board[std::size_t(r * 8 + f)];
      if (c == '.') {
        ++empty;
        continue;
      }
      if (empty > 0) out += char('0' + std::exchange(empty, 0));
      out += c;
    }
    if (empty > 0) out += char('0' + empty);
    if (r < 7) out += '/';
  }
  return out;
}

// The least work each section must do: a section that did less failed, whatever it hashed.
constexpr std::uint64_t kMinProbes = 4000;
constexpr std::size_t kThreePieceTables = 5;

// Generates the 3-piece tables on one thread and hashes the files; then probes positions of every
// 3-piece material and hashes the values. Counts the files and the positions probed (run_bench
// checks both). Errors: generation's, and a failed probe's, naming the position.
Status bench_tables(const std::filesystem::path& dir, Fnv& files, Fnv& probes, std::size_t& file_count,
                    std::uint64_t& probed) {
  gen::GenOptions opts;
  opts.dir = dir;
  opts.generator = "tbkit bench";
  tbb::task_arena arena(1);
  if (Status st = gen::generate_tables(model::all_materials(3), opts, arena, {}, {}); !st) return st;
  std::vector<std::filesystem::path> paths;
  for (const auto& e : std::filesystem::directory_iterator(dir)) paths.push_back(e.path());
  file_count = paths.size();
  std::sort(paths.begin(), paths.end());
  for (const auto& p : paths) hash_file(p, files);

  auto tb = probe::Tablebase::open({dir});
  if (!tb) return tb.error();
  // Kings and one man on squares stepping through the board. Placements that are not positions
  // (the side not to move in check, a pawn on the first or last rank) are rejected by the FEN
  // parser and left out; every position it accepts must probe.
  for (const char* man : {"Q", "R", "B", "N", "P"}) {
    for (int wk = 0; wk < 64; wk += 3) {
      for (int bk = 1; bk < 64; bk += 5) {
        for (int sq = 2; sq < 64; sq += 7) {
          if (wk == bk || wk == sq || bk == sq) continue;
          std::string board(64, '.');
          board[std::size_t(wk)] = 'K';
          board[std::size_t(bk)] = 'k';
          board[std::size_t(sq)] = man[0];
          const std::string fen = fen_board(board) + " w - - 0 1";
          auto pos = chess::parse_fen(fen);
          if (!pos) continue;
          auto v = tb->probe(*pos);
          if (!v) return make_error(v.error().code, "bench: probe " + fen + ": " + v.error().message);
          probes.add(std::uint64_t(v->raw()));
          ++probed;
        }
      }
    }
  }
  return {};
}

// Builds a book (native and Polyglot) from kBenchPgn on one thread and hashes both files.
Status bench_book(const std::filesystem::path& dir, Fnv& fnv) {
  const auto pgn = dir / "bench.pgn";
  {
    std::ofstream out(pgn, std::ios::binary);
    out << kBenchPgn;
  }
  pgn::BookBuildOptions b;
  b.output = dir / "bench.tbb";
  b.polyglot_output = dir / "bench.bin";
  b.threads = 1;
  auto summary = pgn::build_book({pgn.string()}, b, {});
  if (!summary) return summary.error();
  hash_file(b.output, fnv);
  hash_file(b.polyglot_output, fnv);
  return {};
}

// A section that did not do its work: the signature would hash nothing, so there is none.
int check_failed(const std::string& what) {
  std::fflush(stdout);
  std::fprintf(stderr, "tbkit: bench: %s\n", what.c_str());
  return kExitFailed;
}

int run_bench() {
  const auto t0 = std::chrono::steady_clock::now();
  Fnv signature;
  std::uint64_t perft_sum = 0;
  for (const auto& c : kPerftCases) {
    auto pos = chess::parse_fen(c.fen);
    perft_sum += chess::perft(*pos, c.depth);
  }
  // The six positions' counts at these depths are well known: any other sum is a broken move generator.
  if (perft_sum != kPerftSum)
    return check_failed("perft: " + std::to_string(perft_sum) + " nodes, expected " + std::to_string(kPerftSum));
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
  if (search_nodes == 0) return check_failed("search: no node searched");
  signature.add(search_nodes);
  const double search_secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_search).count();
  std::printf("search:    %llu nodes, %.0f nodes/s\n", static_cast<unsigned long long>(search_nodes),
              double(search_nodes) / search_secs);

  const ScratchDir scratch("tbkit-bench");
  if (scratch.path().empty()) return report(make_error(ErrorCode::kIo, "bench: " + scratch.error()));
  Fnv files, probes, book;
  std::uint64_t probed = 0;
  const auto t_tables = std::chrono::steady_clock::now();
  std::size_t file_count = 0;
  if (Status st = bench_tables(scratch.path(), files, probes, file_count, probed); !st) return report(st.error());
  if (file_count != kThreePieceTables)
    return check_failed("tables: " + std::to_string(file_count) + " files written, expected " + std::to_string(kThreePieceTables));
  if (probed < kMinProbes)
    return check_failed("probe: only " + std::to_string(probed) + " positions probed, expected at least " +
                        std::to_string(kMinProbes));
  signature.add(files.h);
  signature.add(probes.h);
  std::printf("tables:    %016llx (3-piece files, %.2f s)\n", static_cast<unsigned long long>(files.h),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t_tables).count());
  std::printf("probe:     %016llx (%llu positions)\n", static_cast<unsigned long long>(probes.h),
              static_cast<unsigned long long>(probed));
  if (Status st = bench_book(scratch.path(), book); !st) return report(st.error());
  for (const char* name : {"bench.tbb", "bench.bin"})
    if (std::error_code ec; std::filesystem::file_size(scratch.path() / name, ec) == 0 || ec)
      return check_failed(std::string("book: ") + name + " is empty or missing");
  signature.add(book.h);
  std::printf("book:      %016llx (.tbb and .bin)\n", static_cast<unsigned long long>(book.h));

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
      "Runs perft on fixed positions, hashes keys, FENs and SAN over small trees, searches each to depth 7, generates the\n"
      "3-piece tables into a temporary directory and hashes the files and a few thousand probes of them, and builds a book\n"
      "from four built-in games and hashes its .tbb and .bin. A change that alters any output changes N; commits that change\n"
      "N say 'Bench: N'. A part that did not do its work (a wrong perft sum, fewer than 4000 probes, ...) exits 1.\n"
      "Example:\n"
      "  tbkit bench");
  cmd->callback([&exit_code] { exit_code = run_bench(); });
}

}  // namespace tbkit::cli
