// Driver for scripts/verify-stockfish-syzygy: Stockfish searching with our Syzygy files (written by
// `tbkit gen --syzygy`) must behave as it does with the official ones.
//
// Two Stockfish processes are started (Threads 1, Hash 16), one with SyzygyPath = OUR_DIR, one with
// SyzygyPath = OFFICIAL_DIR. Each must report its tables ("info string Found N tablebases"): ours
// all 35 of the 3- and 4-piece set, the official directory as many. Then COUNT random legal
// positions, drawn over those 35 materials (either colour the stronger, either side to move, an
// en-passant right in about half of those where one can exist, no castling; checkmates and
// stalemates are drawn again), are searched by both: `ucinewgame`, `position fen`, `go depth 10`.
// A position passes when the last score of depth 10 is the same text ("cp 152", "mate 7") and
// the best move is the same, or differs but the official DTZ (probe::SyzygyTablebase over
// OFFICIAL_DIR, rank_moves) gives both moves the same WDL50 and DTZ50.
//
// Prints each mismatch with its FEN, then
//   "N positions: N same score and move, N same score and an equal move, N mismatches, tables
//    found: ours N, official N".
// Exit codes: 0 no mismatch and every table found; 1 a mismatch, or tables missing; 2 bad
// arguments; 3 an engine that cannot be started or stops answering, or an unreadable OFFICIAL_DIR.
// Deterministic for a seed (the engines' searches are single-threaded from a cleared hash).
//
// Usage: tbkit_verify_stockfish_syzygy OUR_DIR OFFICIAL_DIR STOCKFISH COUNT SEED
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "chess/fen.h"
#include "chess/notation.h"
#include "chess/position.h"
#include "chess/result.h"
#include "model/material.h"
#include "player/uci_process.h"
#include "probe/syzygy_tablebase.h"

using namespace tbkit;

namespace {

constexpr int kExpectedTables = 35;  // every 3- and 4-piece material
constexpr int kDepth = 10;
constexpr std::int64_t kLineTimeoutMs = 120'000;

// A uniform draw from [0, n), the same on every platform (std::uniform_int_distribution is not).
std::uint64_t draw_below(std::mt19937_64& rng, std::uint64_t n) {
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  for (;;)
    if (const std::uint64_t r = rng(); r < limit) return r % n;
}

// A random legal position with exactly the men of `m` (White is White), no castling rights. When
// `want_ep` and both sides have pawns, a pawn of the side not to move stands on its fourth rank as
// if it had just pushed two squares past a pawn of the side to move, with the en-passant right.
// Draws again until the position is legal.
chess::Position random_position(const model::Material& m, std::mt19937_64& rng, bool want_ep) {
  using namespace chess;
  constexpr Bitboard kPawnSquares = 0x00FFFFFFFFFFFF00ULL;
  for (;;) {
    PositionSetup s;
    s.board.fill(Piece::none());
    s.side = Color(rng() & 1);
    Bitboard used = 0;
    int pawns[2] = {m.count(Color::kWhite, PieceType::kPawn), m.count(Color::kBlack, PieceType::kPawn)};
    const Color us = s.side, them = ~s.side;
    if (want_ep && pawns[index_of(us)] > 0 && pawns[index_of(them)] > 0) {
      // Their pawn on its fourth rank, ours beside it, and the two squares it crossed left empty.
      const int file = int(draw_below(rng, 8));
      const int rank = them == Color::kWhite ? 3 : 4, back = them == Color::kWhite ? -1 : 1;
      const int beside = file == 0 ? 1 : file == 7 ? 6 : file + ((rng() & 1) ? 1 : -1);
      const Square pushed(file, rank), ours(beside, rank), crossed(file, rank + back), origin(file, rank + 2 * back);
      s.board[pushed.index()] = Piece(them, PieceType::kPawn);
      s.board[ours.index()] = Piece(us, PieceType::kPawn);
      used |= pushed.bb() | ours.bb() | crossed.bb() | origin.bb();
      --pawns[index_of(them)];
      --pawns[index_of(us)];
      s.en_passant = crossed;
    }
    auto place = [&](Piece p, Bitboard allowed) {
      for (;;) {
        const Square sq(int(draw_below(rng, 64)));
        if ((used & sq.bb()) || !(allowed & sq.bb())) continue;
        used |= sq.bb();
        s.board[sq.index()] = p;
        return;
      }
    };
    place(Piece(Color::kWhite, PieceType::kKing), ~Bitboard{0});
    place(Piece(Color::kBlack, PieceType::kKing), ~Bitboard{0});
    for (Color c : {Color::kWhite, Color::kBlack}) {
      for (PieceType t : {PieceType::kQueen, PieceType::kRook, PieceType::kBishop, PieceType::kKnight})
        for (int i = 0; i < m.count(c, t); ++i) place(Piece(c, t), ~Bitboard{0});
      for (int i = 0; i < pawns[index_of(c)]; ++i) place(Piece(c, PieceType::kPawn), kPawnSquares);
    }
    if (auto pos = Position::from_setup(s)) return std::move(*pos);
  }
}

// What one search ended with: the last score of the final depth ("cp 152", "mate -3", with
// " lowerbound" / " upperbound" if so marked) and the best move in UCI.
struct SearchOutcome {
  std::string score;
  std::string bestmove;
};

// One Stockfish process with its SyzygyPath set.
class Engine {
 public:
  // Starts `command`, sets Threads 1, Hash 16 and SyzygyPath `dir`, and reads the tables it reports.
  // Errors: kIo (the engine cannot be started, does not speak UCI, or stops answering).
  static Result<Engine> start(const std::string& command, const std::string& dir) {
    auto p = player::UciProcess::start(command);
    if (!p) return p.error();
    Engine e(std::move(*p));
    if (!e.p_.send("uci") || !e.p_.wait_for("uciok", 10000))
      return make_error(ErrorCode::kIo, "'" + command + "' does not answer 'uci'");
    for (const std::string& option : {std::string("Threads value 1"), std::string("Hash value 16"),
                                      "SyzygyPath value " + dir})
      if (!e.p_.send("setoption name " + option)) return make_error(ErrorCode::kIo, "'" + command + "' has gone");
    if (!e.p_.send("isready")) return make_error(ErrorCode::kIo, "'" + command + "' has gone");
    for (;;) {
      auto line = e.p_.read_line(60000);
      if (!line) return make_error(ErrorCode::kIo, "'" + command + "' does not answer 'isready'");
      if (*line == "readyok") break;
      if (auto n = found_tables(*line)) e.tables_found_ = *n;
    }
    return e;
  }

  // Tables the engine reported at start-up ("info string Found N tablebases"); -1 if it did not say.
  [[nodiscard]] int tables_found() const { return tables_found_; }
  // True when a later report (the engine reloads its tables on every `ucinewgame`) gave another count.
  [[nodiscard]] bool tables_changed() const { return tables_changed_; }

  // `ucinewgame`, `position fen FEN`, `go depth DEPTH`, and what the search ended with. The score is
  // empty when no score line of that depth came. Errors: kIo (the engine stopped answering).
  Result<SearchOutcome> search(const std::string& fen, int depth) {
    if (!p_.send("ucinewgame") || !p_.send("position fen " + fen) || !p_.send("go depth " + std::to_string(depth)))
      return make_error(ErrorCode::kIo, "the engine '" + p_.command() + "' has gone");
    SearchOutcome out;
    for (;;) {
      auto line = p_.read_line(kLineTimeoutMs);
      if (!line) return make_error(ErrorCode::kIo, "the engine '" + p_.command() + "' stopped answering on " + fen);
      std::vector<std::string> words;
      std::istringstream in(*line);
      for (std::string w; in >> w;) words.push_back(w);
      if (words.empty()) continue;
      if (words[0] == "bestmove") {
        if (words.size() > 1) out.bestmove = words[1];
        return out;
      }
      if (words[0] != "info") continue;
      if (auto n = found_tables(*line)) {
        tables_changed_ |= *n != tables_found_;
        continue;
      }
      int line_depth = -1;
      std::string score;
      for (std::size_t k = 1; k + 1 < words.size(); ++k) {
        if (words[k] == "depth") {
          line_depth = std::atoi(words[k + 1].c_str());
        } else if (words[k] == "score" && k + 2 < words.size()) {
          score = words[k + 1] + " " + words[k + 2];
          if (k + 3 < words.size() && (words[k + 3] == "lowerbound" || words[k + 3] == "upperbound"))
            score += " " + words[k + 3];
        }
      }
      if (line_depth == depth && !score.empty()) out.score = score;
    }
  }

 private:
  explicit Engine(player::UciProcess p) : p_(std::move(p)) {}

  // N of "info string Found N tablebases", if the line is that.
  static std::optional<int> found_tables(const std::string& line) {
    int n = 0;
    char tail[16] = {};
    if (std::sscanf(line.c_str(), "info string Found %d %15s", &n, tail) == 2 && std::string(tail) == "tablebases")
      return n;
    return std::nullopt;
  }

  player::UciProcess p_;
  int tables_found_ = -1;
  bool tables_changed_ = false;
};

// "e2e4: win, DTZ 3" from the official ranking of the root's moves, or why not.
std::string describe(const std::vector<probe::Dtz50Move>& ranked, const chess::Position& pos, const std::string& uci,
                     const probe::Dtz50Move** found) {
  *found = nullptr;
  auto move = chess::parse_uci(pos, uci);
  if (!move) return uci + ": not a legal move";
  for (const auto& r : ranked)
    if (r.move == *move) {
      *found = &r;
      return uci + ": " + probe::to_string(r.wdl) + ", DTZ " + std::to_string(r.dtz);
    }
  return uci + ": not ranked";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s OUR_DIR OFFICIAL_DIR STOCKFISH COUNT SEED\n", argv[0]);
    return 2;
  }
  const std::string our_dir = argv[1], official_dir = argv[2], stockfish = argv[3];
  char* end = nullptr;
  const long count = std::strtol(argv[4], &end, 10);
  if (*end != '\0' || count < 1) {
    std::fprintf(stderr, "COUNT must be a positive number, not '%s'\n", argv[4]);
    return 2;
  }
  const unsigned long long seed = std::strtoull(argv[5], &end, 10);
  if (*end != '\0' || argv[5][0] == '\0') {
    std::fprintf(stderr, "SEED must be a number, not '%s'\n", argv[5]);
    return 2;
  }
  for (const std::string& dir : {our_dir, official_dir})
    if (dir.find(':') != std::string::npos) {
      // Stockfish splits SyzygyPath at colons.
      std::fprintf(stderr, "'%s': a directory with a ':' cannot be a SyzygyPath\n", dir.c_str());
      return 2;
    }

  std::vector<model::Material> materials;
  for (const auto& m : model::all_materials(4))
    if (m.men() >= 3) materials.push_back(m);
  if (int(materials.size()) != kExpectedTables) {
    std::fprintf(stderr, "expected %d materials of 3 and 4 men, the model lists %zu\n", kExpectedTables,
                 materials.size());
    return 3;
  }

  auto official_tb = probe::SyzygyTablebase::open({official_dir});
  if (!official_tb) {
    std::fprintf(stderr, "%s\n", official_tb.error().message.c_str());
    return 3;
  }
  auto ours = Engine::start(stockfish, our_dir);
  if (!ours) {
    std::fprintf(stderr, "%s\n", ours.error().message.c_str());
    return 3;
  }
  auto official = Engine::start(stockfish, official_dir);
  if (!official) {
    std::fprintf(stderr, "%s\n", official.error().message.c_str());
    return 3;
  }
  const int ours_found = ours->tables_found(), official_found = official->tables_found();
  if (ours_found != kExpectedTables)
    std::printf("TABLES Stockfish found %d tablebases in %s, not %d\n", ours_found, our_dir.c_str(), kExpectedTables);
  if (official_found != ours_found)
    std::printf("TABLES Stockfish found %d tablebases in %s and %d in %s\n", ours_found, our_dir.c_str(),
                official_found, official_dir.c_str());

  std::mt19937_64 rng(seed);
  const auto started = std::chrono::steady_clock::now();
  long same_move = 0, equal_move = 0, mismatches = 0, with_ep = 0, black_to_move = 0;
  std::vector<int> per_material(materials.size(), 0);
  for (long i = 0; i < count; ++i) {
    chess::Position pos;
    std::size_t which = 0;
    do {
      which = std::size_t(draw_below(rng, materials.size()));
      const model::Material m = (rng() & 1) ? materials[which].flipped() : materials[which];
      pos = random_position(m, rng, (rng() & 1) != 0);
    } while (pos.status() == chess::GameStatus::kCheckmate || pos.status() == chess::GameStatus::kStalemate);
    ++per_material[which];
    with_ep += !pos.en_passant().is_none();
    black_to_move += pos.side_to_move() == chess::Color::kBlack;
    const std::string fen = chess::to_fen(pos);

    auto a = ours->search(fen, kDepth);
    auto b = official->search(fen, kDepth);
    if (!a || !b) {
      std::fprintf(stderr, "%s\n", (!a ? a.error() : b.error()).message.c_str());
      return 3;
    }
    auto mismatch = [&](const std::string& why) {
      ++mismatches;
      std::printf("MISMATCH %s: %s (ours: score %s, bestmove %s; official: score %s, bestmove %s)\n", fen.c_str(),
                  why.c_str(), a->score.c_str(), a->bestmove.c_str(), b->score.c_str(), b->bestmove.c_str());
      std::fflush(stdout);
    };
    if (a->score.empty() || b->score.empty()) {
      mismatch("no score line of depth " + std::to_string(kDepth));
    } else if (a->score != b->score) {
      mismatch("different scores");
    } else if (a->bestmove == b->bestmove) {
      ++same_move;
    } else {
      auto ranked = official_tb->rank_moves(pos);
      const probe::Dtz50Move *ra = nullptr, *rb = nullptr;
      if (!ranked) {
        mismatch("different moves, and the official DTZ cannot rank them: " + ranked.error().message);
      } else {
        const std::string da = describe(*ranked, pos, a->bestmove, &ra);
        const std::string db = describe(*ranked, pos, b->bestmove, &rb);
        if (ra && rb && ra->wdl == rb->wdl && ra->dtz == rb->dtz)
          ++equal_move;
        else
          mismatch("different moves, by the official DTZ " + da + " against " + db);
      }
    }
    if ((i + 1) % 100 == 0)
      std::fprintf(stderr, "%ld of %ld positions, %ld mismatches\n", i + 1, count, mismatches);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  bool tables_ok = ours_found == kExpectedTables && official_found == ours_found;
  for (const Engine* e : {&*ours, &*official})
    if (e->tables_changed()) {
      std::printf("TABLES a Stockfish reported another number of tablebases after a ucinewgame\n");
      tables_ok = false;
    }
  int materials_drawn = 0;
  for (int n : per_material) materials_drawn += n > 0;
  std::printf("%d of %d materials drawn, %ld positions with Black to move, %ld with an en-passant right; "
              "searches took %.1f s\n",
              materials_drawn, kExpectedTables, black_to_move, with_ep, seconds);
  std::printf("%ld positions: %ld same score and move, %ld same score and an equal move, %ld mismatches, "
              "tables found: ours %d, official %d\n",
              count, same_move, equal_move, mismatches, ours_found, official_found);
  return mismatches == 0 && tables_ok ? 0 : 1;
}
