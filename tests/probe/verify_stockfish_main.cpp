// Driver for scripts/verify-stockfish: an outside check of tables that Gaviota does not cover (the
// 5-piece ones). Random legal positions of each material (random side to move, en-passant rights
// where one is possible) are probed through the Tablebase and sorted into three kinds; Stockfish,
// asked for a forced mate, must agree with each:
//   win   the side to move mates in m <= K moves: `go mate m` must find a mate in exactly m (a
//         shorter one means the table is wrong; none, or a longer one, in the time limit and then
//         in ten times as long is "unconfirmed");
//   loss  the side to move is mated in m <= K moves: after the table's best defence, the same
//         check on the reply position (a win in m for the other side);
//   other a draw, or a mate more than K moves away: `go mate K` must find no mate of K moves or
//         fewer for the side to move (nor one shorter than the table's).
// Every mate Stockfish reports is replayed: its line must end in checkmate after 2j - 1 plies (a
// line cut short by the engine's hash is only counted).
// Exits 1 on a mismatch or an error, and also when the run checked too little to tell: a kind with
// fewer than PER_KIND positions, or a material none of whose wins and losses Stockfish confirmed.
// Usage: tbkit_verify_stockfish TABLES_DIR STOCKFISH PER_KIND MAX_MOVES MOVETIME_MS SEED MATERIAL...
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "chess/fen.h"
#include "chess/notation.h"
#include "model/material.h"
#include "player/uci_process.h"
#include "probe/tablebase.h"
#include "tests/probe/random_position.h"

using namespace tbkit;

namespace {

// What Stockfish said about one position: the mate it found (moves; negative: the side to move is
// mated), if any, and that mate's line.
struct EngineMate {
  std::optional<int> mate;
  std::vector<std::string> pv;
};

class Stockfish {
 public:
  static std::optional<Stockfish> start(const std::string& command) {
    auto p = player::UciProcess::start(command);
    if (!p) return std::nullopt;
    Stockfish s(std::move(*p));
    if (!s.p_.send("uci") || !s.p_.wait_for("uciok", 10000)) return std::nullopt;
    if (!s.p_.send("setoption name Threads value 1") || !s.p_.send("setoption name Hash value 64")) return std::nullopt;
    if (!s.p_.send("isready") || !s.p_.wait_for("readyok", 10000)) return std::nullopt;
    return s;
  }

  // `go mate moves movetime ms` on fen; nullopt if the engine stopped answering.
  std::optional<EngineMate> mate_search(const std::string& fen, int moves, int movetime_ms) {
    if (!p_.send("ucinewgame") || !p_.send("position fen " + fen) ||
        !p_.send("go mate " + std::to_string(moves) + " movetime " + std::to_string(movetime_ms)))
      return std::nullopt;
    EngineMate out;
    for (;;) {
      auto line = p_.read_line(std::int64_t(movetime_ms) + 30000);
      if (!line) return std::nullopt;
      if (line->rfind("bestmove", 0) == 0) return out;
      if (line->rfind("info", 0) != 0 || line->find(" score ") == std::string::npos) continue;
      if (line->find("lowerbound") != std::string::npos || line->find("upperbound") != std::string::npos) continue;
      std::istringstream words(*line);
      std::string w;
      out = {};
      while (words >> w) {
        if (w == "score") {
          std::string kind;
          int n = 0;
          words >> kind >> n;
          if (kind == "mate") out.mate = n;
        } else if (w == "pv") {
          while (words >> w) out.pv.push_back(w);
        }
      }
    }
  }

 private:
  explicit Stockfish(player::UciProcess p) : p_(std::move(p)) {}
  player::UciProcess p_;
};

enum Kind { kWin, kLoss, kOther, kKinds };
const char* kKindNames[kKinds] = {"win", "loss", "other"};

struct Tally {
  int sampled[kKinds] = {};
  int confirmed = 0, unconfirmed = 0, mismatches = 0, errors = 0, lines_replayed = 0, lines_short = 0, with_ep = 0;
  int mates_confirmed = 0;  // wins and losses whose mate Stockfish found at the table's distance

  Tally& operator+=(const Tally& o) {
    for (int k = 0; k < kKinds; ++k) sampled[k] += o.sampled[k];
    confirmed += o.confirmed, unconfirmed += o.unconfirmed, mismatches += o.mismatches, errors += o.errors;
    mates_confirmed += o.mates_confirmed;
    lines_replayed += o.lines_replayed, lines_short += o.lines_short, with_ep += o.with_ep;
    return *this;
  }
};

// Replays an engine mate line of `moves` moves from pos: true if it is legal and ends in checkmate
// on its last ply; `complete` is false when the engine gave fewer plies than the mate needs.
bool replay(chess::Position pos, const std::vector<std::string>& pv, int moves, bool& complete) {
  const std::size_t plies = std::size_t(2 * moves - 1);
  complete = pv.size() >= plies;
  for (std::size_t k = 0; k < std::min(pv.size(), plies); ++k) {
    auto m = chess::parse_uci(pos, pv[k]);
    if (!m) return false;
    pos.do_move(*m);
  }
  return !complete || pos.status() == chess::GameStatus::kCheckmate;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 8) {
    std::fprintf(stderr, "usage: %s TABLES_DIR STOCKFISH PER_KIND MAX_MOVES MOVETIME_MS SEED MATERIAL...\n", argv[0]);
    return 2;
  }
  const int per_kind = std::atoi(argv[3]), max_moves = std::atoi(argv[4]), movetime = std::atoi(argv[5]);
  std::mt19937_64 rng(std::strtoull(argv[6], nullptr, 10));
  if (per_kind < 1 || max_moves < 1 || movetime < 1) {
    std::fprintf(stderr, "PER_KIND, MAX_MOVES and MOVETIME_MS must be positive\n");
    return 2;
  }
  auto tb = probe::Tablebase::open({argv[1]}, {.cache_bytes = std::size_t{1} << 30});
  if (!tb) {
    std::fprintf(stderr, "%s\n", tb.error().message.c_str());
    return 3;
  }
  auto engine = Stockfish::start(argv[2]);
  if (!engine) {
    std::fprintf(stderr, "cannot start the engine '%s' (or it does not speak UCI)\n", argv[2]);
    return 3;
  }
  Tally total;
  int too_little = 0;  // materials that left a kind short or confirmed no mate
  for (int a = 7; a < argc; ++a) {
    auto parsed = model::Material::parse(argv[a]);
    if (!parsed) {
      std::fprintf(stderr, "%s\n", parsed.error().message.c_str());
      return 2;
    }
    const model::Material m = parsed->normalized();
    Tally t;
    auto report = [&](const char* what, const chess::Position& pos, formats::DtmValue v, const EngineMate& e) {
      std::printf("%s %s %s: table %s %d plies, Stockfish %s\n", what, m.name().c_str(), chess::to_fen(pos).c_str(),
                  v.is_win() ? "win" : v.is_loss() ? "loss" : "draw", v.plies(),
                  e.mate ? ("mate " + std::to_string(*e.mate)).c_str() : "no mate");
      std::fflush(stdout);
    };
    // Asks Stockfish for a mate in `asked` moves on `pos`, worth `v` (by the table) to its side to
    // move. Any mate it finds must be no shorter than the table's (none at all when the table has
    // no win); `must_find`: it must find the table's mate (within the time limit).
    auto check = [&](const chess::Position& pos, formats::DtmValue v, int asked, bool must_find) {
      const int table_mate = v.is_win() ? v.moves() : 0;
      auto search = [&](int ms) {
        auto e = engine->mate_search(chess::to_fen(pos), asked, ms);
        if (!e) {
          std::fprintf(stderr, "the engine stopped answering\n");
          std::exit(3);
        }
        return *e;
      };
      auto e = search(movetime);
      // A mate to find and not found (or a longer one) in the time: once more, ten times longer.
      if (must_find && (!e.mate || *e.mate != table_mate)) e = search(10 * movetime);
      const int found = e.mate && *e.mate > 0 ? *e.mate : 0;
      if (found > 0) {
        bool complete = false;
        if (!replay(pos, e.pv, found, complete)) {
          ++t.errors;
          report("BAD LINE", pos, v, e);
          return;
        }
        complete ? ++t.lines_replayed : ++t.lines_short;
      }
      if (found > 0 && (table_mate == 0 || found < table_mate)) {
        ++t.mismatches;
        report("MISMATCH", pos, v, e);
      } else if (!must_find || found == table_mate) {
        ++t.confirmed;
        t.mates_confirmed += must_find;
      } else {
        ++t.unconfirmed;
        report("UNCONFIRMED", pos, v, e);
      }
    };
    for (int tries = 0; tries < 2000000; ++tries) {
      int need = 0;
      for (int k = 0; k < kKinds; ++k) need += std::max(0, per_kind - t.sampled[k]);
      if (need == 0) break;
      const model::Material oriented = (rng() & 1) ? m.flipped() : m;
      const chess::Position pos = testing::random_position(oriented, rng, (rng() & 1) != 0);
      if (pos.status() == chess::GameStatus::kCheckmate || pos.status() == chess::GameStatus::kStalemate) continue;
      auto v = tb->probe(pos);
      if (!v) {
        std::fprintf(stderr, "%s: %s\n", chess::to_fen(pos).c_str(), v.error().message.c_str());
        return 3;
      }
      const Kind kind = v->is_win() && v->moves() <= max_moves    ? kWin
                        : v->is_loss() && v->moves() <= max_moves ? kLoss
                                                                  : kOther;
      if (t.sampled[kind] >= per_kind) continue;
      ++t.sampled[kind];
      t.with_ep += !pos.en_passant().is_none();
      if (kind == kWin) {
        check(pos, *v, v->moves(), true);
      } else if (kind == kLoss) {
        auto ranked = tb->rank_moves(pos);
        if (!ranked || ranked->empty()) {
          ++t.errors;
          std::printf("ERROR %s: cannot rank its moves\n", chess::to_fen(pos).c_str());
          continue;
        }
        chess::Position child = pos;
        child.do_move(ranked->front().move);
        auto cv = tb->probe(child);
        if (!cv || !cv->is_win() || cv->moves() != v->moves()) {
          ++t.errors;
          std::printf("ERROR %s: the best defence does not lead to a win in %d for the other side\n",
                      chess::to_fen(pos).c_str(), v->moves());
          continue;
        }
        check(child, *cv, cv->moves(), true);
      } else {
        check(pos, *v, max_moves, false);
      }
    }
    std::printf("%-7s win %d, loss %d, other %d (%d with en passant): %d confirmed, %d unconfirmed, %d mismatches, "
                "%d errors; %d mate lines replayed (%d cut short)\n",
                m.name().c_str(), t.sampled[kWin], t.sampled[kLoss], t.sampled[kOther], t.with_ep, t.confirmed,
                t.unconfirmed, t.mismatches, t.errors, t.lines_replayed, t.lines_short);
    std::fflush(stdout);
    bool short_of = false;
    for (int k = 0; k < kKinds; ++k)
      if (t.sampled[k] < per_kind) {
        std::printf("%s: only %d %s positions found\n", m.name().c_str(), t.sampled[k], kKindNames[k]);
        short_of = true;
      }
    if (t.mates_confirmed == 0) {
      std::printf("%s: Stockfish confirmed none of the table's mates\n", m.name().c_str());
      short_of = true;
    }
    too_little += short_of;
    total += t;
  }
  std::printf("%d positions checked (%d with en passant) in %d materials: %d confirmed, %d unconfirmed, "
              "%d mismatches, %d errors\n",
              total.sampled[kWin] + total.sampled[kLoss] + total.sampled[kOther], total.with_ep, argc - 7, total.confirmed,
              total.unconfirmed, total.mismatches, total.errors);
  if (too_little > 0) std::printf("%d materials checked too little to tell\n", too_little);
  return total.mismatches + total.errors == 0 && too_little == 0 ? 0 : 1;
}
