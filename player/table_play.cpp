#include "player/table_play.h"

#include "chess/fen.h"
#include "chess/movegen.h"
#include "model/material.h"
#include "player/engine.h"

namespace tbkit::player {

namespace {

// One random placement of `m` (kings first, then each side's men from pawns to queens; pawns off
// the first and last ranks), or nullopt when the placement is illegal. Draws from rng in a fixed
// order, so a seed gives the same positions on every run.
std::optional<chess::Position> random_position(const model::Material& m, std::mt19937_64& rng, int to_move,
                                               int halfmove_clock = 0) {
  std::uniform_int_distribution<int> square(0, 63), coin(0, 1);
  chess::PositionSetup setup;
  bool ok = true;
  auto place = [&](chess::Piece p) {
    for (int attempt = 0; attempt < 64; ++attempt) {
      const int s = square(rng);
      if (!setup.board[std::size_t(s)].is_none()) continue;
      if (p.type() == chess::PieceType::kPawn && (s < 8 || s >= 56)) continue;
      setup.board[std::size_t(s)] = p;
      return;
    }
    ok = false;
  };
  for (int c = 0; c < 2; ++c) {
    const chess::Color colour = chess::Color(c);
    place(chess::Piece(colour, chess::PieceType::kKing));
    for (int t = 0; t < 5; ++t)
      for (int n = 0; n < m.count(colour, chess::PieceType(t)); ++n) place(chess::Piece(colour, chess::PieceType(t)));
  }
  setup.side = (to_move < 0 ? coin(rng) : to_move) ? chess::Color::kBlack : chess::Color::kWhite;
  setup.halfmove = halfmove_clock;
  if (!ok) return std::nullopt;
  auto pos = chess::Position::from_setup(setup);
  if (!pos || !chess::has_legal_move(*pos)) return std::nullopt;
  return std::move(*pos);
}

std::int64_t max_tries_for(int count) { return std::int64_t(count) * 200000 + 100000; }

Error too_few(const std::string& material, std::size_t found, int count) {
  return make_error(ErrorCode::kUnavailable, material + ": found only " + std::to_string(found) + " of " +
                                                 std::to_string(count) + " wanted positions");
}

}  // namespace

Result<std::vector<SampledPosition>> sample_positions(const probe::Tablebase& tb, const std::string& material,
                                                      WantedOutcome want, int count, std::mt19937_64& rng, int to_move) {
  auto m = model::Material::parse(material);
  if (!m) return m.error();
  std::vector<SampledPosition> out;
  const std::int64_t max_tries = max_tries_for(count);
  for (std::int64_t tries = 0; int(out.size()) < count && tries < max_tries; ++tries) {
    auto pos = random_position(*m, rng, to_move);
    if (!pos) continue;
    auto v = tb.probe(*pos);
    if (!v) {
      if (v.error().code == ErrorCode::kUnavailable && tries == 0) return v.error();
      if (v.error().code != ErrorCode::kUnavailable) return v.error();
      continue;
    }
    if ((want == WantedOutcome::kWon && v->is_win()) || (want == WantedOutcome::kDrawn && v->is_draw()))
      out.push_back({std::move(*pos), *v});
  }
  if (int(out.size()) < count) return too_few(material, out.size(), count);
  return out;
}

Result<std::vector<SampledWin50>> sample_wins_50(const probe::SyzygyTablebase& tb, const std::string& material,
                                                 int count, std::mt19937_64& rng, int to_move, int halfmove_clock) {
  auto m = model::Material::parse(material);
  if (!m) return m.error();
  if (halfmove_clock < 0 || halfmove_clock > 99)
    return make_error(ErrorCode::kInvalidArgument, "halfmove clock must be 0..99, got " + std::to_string(halfmove_clock));
  std::vector<SampledWin50> out;
  const std::int64_t max_tries = max_tries_for(count);
  bool probed = false;
  for (std::int64_t tries = 0; int(out.size()) < count && tries < max_tries; ++tries) {
    auto pos = random_position(*m, rng, to_move, halfmove_clock);
    if (!pos) continue;
    // WDL first (one file read); DTZ only for the wins.
    auto w = tb.probe_wdl(*pos);
    if (!w) {
      // A missing table is said at once; later kUnavailable can only be a capture's table.
      if (w.error().code != ErrorCode::kUnavailable || !probed) return w.error();
      continue;
    }
    probed = true;
    if (*w != probe::Wdl50::kWin) continue;
    auto d = tb.probe_dtz(*pos);
    if (!d) return d.error();
    // DTZ may be one ply short (root_rule.h): a spare ply unless the next move zeroes or mates.
    if (d->wdl == probe::Wdl50::kWin && d->dtz > 0 && (d->dtz == 1 || halfmove_clock + d->dtz <= 99))
      out.push_back({std::move(*pos), *d});
  }
  if (int(out.size()) < count) return too_few(material, out.size(), count);
  return out;
}

Result<RuleGame> play_by_rule(const RootTableOracle& tables, const chess::Position& start, TableRule rule, int max_plies) {
  RuleGame g;
  chess::Position pos = start;
  while (true) {
    g.end = pos.status();
    if (g.end != chess::GameStatus::kOngoing) break;
    if (g.plies >= max_plies) {
      g.ply_limit = true;
      break;
    }
    const auto moves = gather_root_moves(tables, pos, rule);
    if (!moves) return make_error(ErrorCode::kUnavailable, "no table answers " + chess::to_fen(pos));
    const RootChoice choice = choose_root_move(*moves, pos.halfmove_clock());
    if (choice.move.is_none()) {
      g.table_draw = true;
      break;
    }
    pos.do_move(choice.move);
    ++g.plies;
  }
  g.end_fen = chess::to_fen(pos);
  return g;
}

Result<PlayOut> play_out(const probe::Tablebase& tb, const chess::Position& start) {
  PlayOut r;
  auto v0 = tb.probe(start);
  if (!v0) return v0.error();
  if (!v0->is_win()) {
    r.failure = "start is not a win for the side to move: " + chess::to_fen(start);
    return r;
  }
  r.announced_plies = v0->plies();
  chess::Position pos = start;
  formats::DtmValue expected = *v0;
  while (true) {
    auto ranked = tb.rank_moves(pos);
    if (!ranked) return ranked.error();
    if (ranked->empty()) {
      r.mated = pos.in_check();
      if (!r.mated) r.failure = "stalemate after " + std::to_string(r.plies) + " plies";
      break;
    }
    const auto& best = ranked->front();
    // The chosen move must keep the announced distance: the value after it is one ply shorter.
    if (best.value != expected) {
      r.failure = "ply " + std::to_string(r.plies + 1) + ": best move value differs from the position's in " + chess::to_fen(pos);
      break;
    }
    pos.do_move(best.move);
    ++r.plies;
    if (r.plies > r.announced_plies) {
      r.failure = "no mate after the announced " + std::to_string(r.announced_plies) + " plies";
      break;
    }
    const int left = r.announced_plies - r.plies;
    if (left == 0) {
      expected = formats::DtmValue::loss_in_plies(0);
    } else {
      expected = left % 2 == 1 ? formats::DtmValue::win_in_plies(left) : formats::DtmValue::loss_in_plies(left);
    }
    // The successor's value for its mover, from the table, must match the count-down.
    auto v = tb.probe(pos);
    if (!v) return v.error();
    if (*v != expected) {
      r.failure = "ply " + std::to_string(r.plies) + ": table says " + std::to_string(v->plies()) + " plies, expected " +
                  std::to_string(left) + " in " + chess::to_fen(pos);
      break;
    }
    if (left == 0) {
      // Expected mate now.
      if (chess::has_legal_move(pos) || !pos.in_check()) r.failure = "not checkmate after the announced plies";
      r.mated = !chess::has_legal_move(pos) && pos.in_check();
      break;
    }
    // Next mover's best move has value `expected` in ranked terms as seen from it.
  }
  if (r.failure.empty() && (!r.mated || r.plies != r.announced_plies))
    r.failure = "ended after " + std::to_string(r.plies) + " plies, announced " + std::to_string(r.announced_plies);
  return r;
}

}  // namespace tbkit::player
