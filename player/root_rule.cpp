#include "player/root_rule.h"

#include <algorithm>
#include <cassert>
#include <cstdlib>

#include "chess/movegen.h"
#include "player/engine.h"

namespace tbkit::player {

using probe::Wdl50;

RuleOutcome rule_outcome(const RootMove& m, int halfmove_clock) {
  assert(m.wdl || m.dtm);
  if (!m.wdl) return m.dtm->is_win() ? RuleOutcome::kWin : m.dtm->is_loss() ? RuleOutcome::kLoss : RuleOutcome::kDraw;
  // A zeroing move restarts the count, and a WDL50 result then holds from a clock of zero. A
  // non-zeroing move of DTZ 1 is a mate, which counts whatever the clock (at most 99 in a game
  // still going). Otherwise Syzygy's DTZ may be one ply short of the truth (a file storing moves,
  // not plies): the winner counts on one ply more (clock + dtz <= 99, Stockfish's margin too),
  // the loser on none (a loss is saved only when even the stored distance overruns).
  const int distance = std::abs(m.dtz);
  const bool exact = m.zeroing || distance == 1;
  switch (*m.wdl) {
    case Wdl50::kWin: return exact || halfmove_clock + distance <= 99 ? RuleOutcome::kWin : RuleOutcome::kDraw;
    case Wdl50::kLoss: return exact || halfmove_clock + distance <= 100 ? RuleOutcome::kLoss : RuleOutcome::kDraw;
    case Wdl50::kCursedWin:
    case Wdl50::kBlessedLoss:
    case Wdl50::kDraw: break;
  }
  return RuleOutcome::kDraw;
}

namespace {

// Higher is better for the mover. DTM when every candidate has it, else DTZ (Syzygy's order).
int dtm_key(const RootMove& m) { return formats::preference_of(*m.dtm); }
int dtz_key(const RootMove& m) { return probe::preference(probe::Dtz50{m.wdl.value_or(Wdl50::kDraw), m.dtz}); }

// The first best of `candidates` by `primary`, ties broken by `tie` (both: higher is better).
template <typename Primary, typename Tie>
const RootMove* best_of(const std::vector<const RootMove*>& candidates, Primary primary, Tie tie) {
  const RootMove* best = nullptr;
  for (const RootMove* m : candidates) {
    if (!best) {
      best = m;
      continue;
    }
    const int a = primary(*m), b = primary(*best);
    if (a > b || (a == b && tie(*m) > tie(*best))) best = m;
  }
  return best;
}

bool all_have_dtm(const std::vector<const RootMove*>& v) {
  return std::all_of(v.begin(), v.end(), [](const RootMove* m) { return m->dtm.has_value(); });
}

// For wins: a smaller DTZ first. For resistance: a larger |DTZ| first. 0 without Syzygy values.
int shorter_dtz(const RootMove& m) { return m.wdl ? -std::abs(m.dtz) : 0; }
int longer_dtz(const RootMove& m) { return m.wdl ? std::abs(m.dtz) : 0; }

// The move chosen among `candidates`: DTM first when all have it, else DTZ; `resist` for the
// defending cases (longest resistance), otherwise the fastest win.
const RootMove* pick(const std::vector<const RootMove*>& candidates, bool resist) {
  if (all_have_dtm(candidates)) return best_of(candidates, dtm_key, resist ? longer_dtz : shorter_dtz);
  return best_of(candidates, dtz_key, [](const RootMove&) { return 0; });
}

}  // namespace

RootChoice choose_root_move(const std::vector<RootMove>& moves, int halfmove_clock) {
  assert(!moves.empty());
  RootChoice choice;
  std::vector<RuleOutcome> outcome;
  outcome.reserve(moves.size());
  for (const RootMove& m : moves) outcome.push_back(rule_outcome(m, halfmove_clock));
  choice.outcome = *std::max_element(outcome.begin(), outcome.end());
  auto with = [&](RuleOutcome o) {
    std::vector<const RootMove*> out;
    for (std::size_t i = 0; i < moves.size(); ++i)
      if (outcome[i] == o) out.push_back(&moves[i]);
    return out;
  };

  if (choice.outcome == RuleOutcome::kWin) {
    auto wins = with(RuleOutcome::kWin);
    // A repeated position spends clock without progress and risks threefold repetition.
    std::vector<const RootMove*> fresh;
    for (const RootMove* m : wins)
      if (!m->repeats) fresh.push_back(m);
    choice.move = pick(fresh.empty() ? wins : fresh, false)->move;
    return choice;
  }
  if (choice.outcome == RuleOutcome::kLoss) {
    choice.move = pick(with(RuleOutcome::kLoss), true)->move;
    return choice;
  }

  // The rule gives a draw at best. A move that wins without the rule keeps the chances.
  const auto draws = with(RuleOutcome::kDraw);
  std::vector<const RootMove*> unruled_wins, true_draws;
  for (const RootMove* m : draws) {
    const bool wins = m->dtm ? m->dtm->is_win() : (*m->wdl == Wdl50::kWin || *m->wdl == Wdl50::kCursedWin);
    const bool drawn = m->wdl ? *m->wdl == Wdl50::kDraw : m->dtm->is_draw();
    if (wins) unruled_wins.push_back(m);
    if (drawn) true_draws.push_back(m);
  }
  if (!unruled_wins.empty()) {
    choice.cursed = true;
    std::vector<const RootMove*> all;
    for (const RootMove& m : moves) all.push_back(&m);
    // DTM-optimal over every move (a DTM win is never a loss under the rule); by DTZ otherwise.
    choice.move = all_have_dtm(all) ? pick(all, false)->move : pick(unruled_wins, false)->move;
    return choice;
  }
  if (!true_draws.empty()) {
    for (const RootMove* m : true_draws) choice.drawing_moves.push_back(m->move);
    return choice;
  }
  // Every drawing move is a loss the rule saves: resist longest among them.
  choice.move = pick(draws, true)->move;
  return choice;
}

std::optional<std::vector<RootMove>> gather_root_moves(const RootTableOracle& tables, const chess::Position& pos,
                                                       TableRule rule) {
  if (pos.castling_rights() != 0) return std::nullopt;
  const auto dtm = tables.rank_moves(pos);
  std::optional<std::vector<probe::Dtz50Move>> syzygy;
  if (rule == TableRule::kFiftyMove) syzygy = tables.rank_moves_50(pos);
  if (!dtm && !syzygy) return std::nullopt;
  std::vector<RootMove> out;
  for (const chess::Move m : chess::legal_moves(pos)) {
    RootMove r;
    r.move = m;
    out.push_back(r);
  }
  auto find = [&](chess::Move m) -> RootMove& {
    auto it = std::find_if(out.begin(), out.end(), [&](const RootMove& r) { return r.move == m; });
    assert(it != out.end());
    return *it;
  };
  if (dtm)
    for (const auto& d : *dtm) find(d.move).dtm = d.value;
  if (syzygy) {
    for (const auto& s : *syzygy) {
      RootMove& r = find(s.move);
      r.wdl = s.wdl;
      r.dtz = s.dtz;
      r.zeroing = s.zeroing;
    }
  }
  chess::Position p = pos;
  for (RootMove& r : out) {
    p.do_move(r.move);
    r.repeats = p.repetition_count() > 0;
    p.undo_move(r.move);
  }
  return out;
}

}  // namespace tbkit::player
