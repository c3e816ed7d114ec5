// The root rule and rule-driven play on real tables: KPvK and what it converts into, DTM and
// Syzygy, generated here (3-piece: about a second). Positions found by scanning sampled KPvK wins
// at every clock for one where the rule and the DTM-fastest move differ in value.
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

#include <catch2/catch.hpp>
#include <tbb/task_arena.h>

#include "chess/fen.h"
#include "chess/notation.h"
#include "gen/run.h"
#include "gen/syzygy_output.h"
#include "player/engine.h"
#include "player/root_rule.h"
#include "player/search.h"
#include "player/table_oracle.h"
#include "player/table_play.h"

using namespace tbkit;
using player::RuleOutcome;

namespace {

struct RuleTables {
  std::filesystem::path dir;
  std::shared_ptr<const player::RootTableOracle> both, dtm, syzygy;
  ~RuleTables() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

// KPvK (with KQvK, KRvK, KBvK, KNvK) as .dtm and .rtbw/.rtbz in a temporary directory, made once
// per test process and removed at its end. Aborts the run if generation fails.
const RuleTables& rule_tables() {
  static const RuleTables tables = [] {
    RuleTables t;
    t.dir = std::filesystem::temp_directory_path() / ("tbkit-player-rule-" + std::to_string(::getpid()));
    std::filesystem::remove_all(t.dir);
    std::filesystem::create_directories(t.dir);
    gen::GenOptions opts;
    opts.dir = t.dir;
    opts.generator = "tbkit tests";
    const std::vector<model::Material> wanted = {model::Material::parse("KPvK")->normalized()};
    tbb::task_arena arena(1);
    Status st = gen::generate_tables(wanted, opts, arena, {}, {});
    if (st) st = gen::generate_syzygy_tables(wanted, opts, arena, {});
    if (!st) {
      std::fprintf(stderr, "cannot generate test tables: %s\n", st.error().message.c_str());
      std::abort();
    }
    t.both = *player::open_table_oracle(t.dir.string());
    t.dtm = *player::open_table_oracle(t.dir.string(), {true, false});
    t.syzygy = *player::open_table_oracle(t.dir.string(), {false, true});
    return t;
  }();
  return tables;
}

chess::Position fen(const std::string& f) {
  auto p = chess::parse_fen(f);
  REQUIRE(p.ok());
  return std::move(*p);
}

// The DTM value of `m` among pos's ranked moves.
formats::DtmValue dtm_of(const player::RootTableOracle& tables, const chess::Position& pos, chess::Move m) {
  const auto ranked = tables.rank_moves(pos);
  REQUIRE(ranked.has_value());
  for (const auto& r : *ranked)
    if (r.move == m) return r.value;
  FAIL("move not ranked");
  return formats::DtmValue::illegal();
}

player::Decision think(const std::shared_ptr<const player::RootTableOracle>& tables, const chess::Position& pos) {
  player::Engine engine;
  engine.set_tables(tables);
  std::atomic<bool> stop{false};
  player::SearchLimits limits;
  limits.depth = 4;
  return engine.think(pos, limits, stop, nullptr);
}

}  // namespace

TEST_CASE("with 98 plies on the clock the rule pushes the pawn where the DTM-fastest king move draws", "[player][root_rule][tables]") {
  const auto& t = rule_tables();
  // DTM: Kf7-e6 mates in 17 plies, h6-h7 in 19. After Ke6 the clock reaches 99, and 100 at
  // Black's reply: a 50-move draw. The push zeroes the clock and still wins.
  const auto late = fen("8/5K2/k6P/8/8/8/8/8 w - - 98 1");
  const auto moves = player::gather_root_moves(*t.both, late);
  REQUIRE(moves.has_value());
  const auto choice = player::choose_root_move(*moves, late.halfmove_clock());
  CHECK(choice.outcome == RuleOutcome::kWin);
  CHECK(chess::to_uci(choice.move) == "h6h7");
  const auto ranked = t.both->rank_moves(late);
  REQUIRE(ranked.has_value());
  CHECK(ranked->front().value == formats::DtmValue::win_in_plies(17));
  CHECK(dtm_of(*t.both, late, choice.move) == formats::DtmValue::win_in_plies(19));

  // The engine plays it and announces the longer mate; with a fresh clock it mates fastest.
  const auto d = think(t.both, late);
  CHECK(d.source == player::MoveSource::kTable);
  CHECK(chess::to_uci(d.best) == "h6h7");
  CHECK(player::mate_in_moves(d.last_info.score) == std::optional<int>(10));
  const auto fresh = fen("8/5K2/k6P/8/8/8/8/8 w - - 0 1");
  const auto df = think(t.both, fresh);
  CHECK(dtm_of(*t.both, fresh, df.best) == formats::DtmValue::win_in_plies(17));

  // Played out: the rule mates in 19 plies, DTM alone draws by the 50-move rule.
  const auto game = player::play_by_rule(*t.both, late, player::TableRule::kFiftyMove);
  REQUIRE(game.ok());
  CHECK(game->end == chess::GameStatus::kCheckmate);
  CHECK(game->plies == 19);
  const auto dtm_game = player::play_by_rule(*t.dtm, late, player::TableRule::kDtmOnly);
  REQUIRE(dtm_game.ok());
  CHECK(dtm_game->end == chess::GameStatus::kFiftyMoves);
  CHECK(dtm_game->plies == 2);
  // Syzygy files alone (no DTM) win in time too, by DTZ.
  const auto syzygy_game = player::play_by_rule(*t.syzygy, late, player::TableRule::kFiftyMove);
  REQUIRE(syzygy_game.ok());
  CHECK(syzygy_game->end == chess::GameStatus::kCheckmate);
  CHECK(syzygy_game->plies % 2 == 1);
}

TEST_CASE("a win the clock has spoilt is played like a cursed win: DTM-optimally", "[player][root_rule][tables]") {
  const auto& t = rule_tables();
  // f3-f4 lets the black king catch the pawn; every win needs king moves first, more than the six
  // plies the clock leaves.
  const auto pos = fen("8/2K4k/8/8/8/5P2/8/8 w - - 94 1");
  const auto moves = player::gather_root_moves(*t.both, pos);
  REQUIRE(moves.has_value());
  const auto choice = player::choose_root_move(*moves, pos.halfmove_clock());
  CHECK(choice.outcome == RuleOutcome::kDraw);
  CHECK(choice.cursed);
  const auto ranked = t.both->rank_moves(pos);
  REQUIRE(ranked.has_value());
  REQUIRE(ranked->front().value.is_win());
  CHECK(dtm_of(*t.both, pos, choice.move) == ranked->front().value);
  // The same position with a fresh clock is an ordinary win.
  const auto fresh = fen("8/2K4k/8/8/8/5P2/8/8 w - - 0 1");
  const auto fresh_choice = player::choose_root_move(*player::gather_root_moves(*t.both, fresh), 0);
  CHECK(fresh_choice.outcome == RuleOutcome::kWin);
  CHECK_FALSE(fresh_choice.cursed);
  // The engine reports the spoilt win as a draw score.
  const auto d = think(t.both, pos);
  CHECK(d.best == choice.move);
  CHECK(d.last_info.score == 0);
}

TEST_CASE("the losing side resists longest, and knows when the clock saves it", "[player][root_rule][tables]") {
  const auto& t = rule_tables();
  // Black to move after h6-h7 (clock zeroed): lost.
  const auto pos = fen("8/7P/k3K3/8/8/8/8/8 b - - 0 1");
  const auto ranked = t.both->rank_moves(pos);
  REQUIRE(ranked.has_value());
  REQUIRE(ranked->front().value.is_loss());
  const auto moves = player::gather_root_moves(*t.both, pos);
  REQUIRE(moves.has_value());
  const auto lost = player::choose_root_move(*moves, 0);
  CHECK(lost.outcome == RuleOutcome::kLoss);
  CHECK(dtm_of(*t.both, pos, lost.move) == ranked->front().value);
  const auto d = think(t.both, pos);
  CHECK(d.best == lost.move);
  REQUIRE(player::mate_in_moves(d.last_info.score).has_value());
  CHECK(*player::mate_in_moves(d.last_info.score) < 0);
  // With 99 plies on the clock any king move reaches the 50-move draw before White can promote:
  // the rule sees the loss saved.
  const auto late = fen("8/7P/k3K3/8/8/8/8/8 b - - 99 1");
  const auto late_choice = player::choose_root_move(*player::gather_root_moves(*t.both, late), 99);
  CHECK(late_choice.outcome == RuleOutcome::kDraw);
}

TEST_CASE("search scores a capture into a table win by WDL50, with the DTM distance when it has one", "[player][search][tables]") {
  const auto& t = rule_tables();
  // Four men: outside the tables. Kxg3 leaves KPvK with the black king far away.
  const auto pos = fen("k7/8/8/8/4P3/6n1/5K2/8 w - - 0 1");
  std::atomic<bool> stop{false};
  player::SearchLimits limits;
  limits.depth = 3;
  player::Searcher wdl_only(4);
  wdl_only.set_tables(t.syzygy.get());
  const auto r = wdl_only.search(pos, limits, stop, nullptr);
  CHECK(chess::to_uci(r.best) == "f2g3");
  CHECK(r.score >= player::kTableWinScore - player::kMaxPly);
  CHECK(r.score < player::kMateBound);
  player::Searcher with_dtm(4);
  with_dtm.set_tables(t.both.get());
  const auto m = with_dtm.search(pos, limits, stop, nullptr);
  CHECK(chess::to_uci(m.best) == "f2g3");
  CHECK(m.score >= player::kMateBound);
  // The oracle's WDL50 itself.
  CHECK(t.syzygy->probe_wdl(fen("k7/8/8/8/4P3/6K1/8/8 b - - 0 1")) == std::optional<probe::Wdl50>(probe::Wdl50::kLoss));
  CHECK(t.syzygy->probe_wdl(fen("k7/8/8/8/4P3/6n1/5K2/8 w - - 0 1")) == std::nullopt);  // no KPvKN file
}
