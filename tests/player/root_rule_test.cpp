// The root rule on made-up move lists (player/root_rule.h): which move wins under the 50-move rule
// given the clock, cursed wins, losses the rule saves, true draws, and DTM alone. The same rule on
// real tables: tests/player/table_rule_test.cpp.
#include <vector>

#include <catch2/catch.hpp>

#include "player/root_rule.h"

using namespace tbkit;
using formats::DtmValue;
using player::RootMove;
using player::RuleOutcome;
using probe::Wdl50;

namespace {

// Distinct moves a1-a2, a1-b1, ... (only their identity matters here).
chess::Move move_n(int n) { return chess::Move(chess::Square(0), chess::Square(n + 1)); }

RootMove both(int n, DtmValue dtm, Wdl50 wdl, int dtz, bool zeroing = false) {
  RootMove m;
  m.move = move_n(n);
  m.dtm = dtm;
  m.wdl = wdl;
  m.dtz = dtz;
  m.zeroing = zeroing;
  return m;
}

RootMove dtm_only(int n, DtmValue dtm) {
  RootMove m;
  m.move = move_n(n);
  m.dtm = dtm;
  return m;
}

RootMove syzygy_only(int n, Wdl50 wdl, int dtz, bool zeroing = false) {
  RootMove m;
  m.move = move_n(n);
  m.wdl = wdl;
  m.dtz = dtz;
  m.zeroing = zeroing;
  return m;
}

}  // namespace

TEST_CASE("rule_outcome counts the clock, the move and the child's DTZ", "[player][root_rule]") {
  const RootMove win = both(0, DtmValue::win_in_plies(21), Wdl50::kWin, 21);
  CHECK(player::rule_outcome(win, 0) == RuleOutcome::kWin);
  CHECK(player::rule_outcome(win, 78) == RuleOutcome::kWin);   // 78 + 21 + the ply DTZ may lack = 100: in time
  CHECK(player::rule_outcome(win, 79) == RuleOutcome::kDraw);  // 101 if DTZ is a ply short: not safe
  CHECK(player::rule_outcome(both(6, DtmValue::win_in_plies(1), Wdl50::kWin, 1), 99) == RuleOutcome::kWin);  // mate
  const RootMove capture = both(1, DtmValue::win_in_plies(41), Wdl50::kWin, 1, true);
  CHECK(player::rule_outcome(capture, 99) == RuleOutcome::kWin);  // zeroing: the count restarts
  const RootMove loss = both(2, DtmValue::loss_in_plies(30), Wdl50::kLoss, -30);
  CHECK(player::rule_outcome(loss, 70) == RuleOutcome::kLoss);
  CHECK(player::rule_outcome(loss, 71) == RuleOutcome::kDraw);
  CHECK(player::rule_outcome(both(3, DtmValue::win_in_plies(151), Wdl50::kCursedWin, 120), 0) == RuleOutcome::kDraw);
  CHECK(player::rule_outcome(both(4, DtmValue::loss_in_plies(150), Wdl50::kBlessedLoss, -120), 0) == RuleOutcome::kDraw);
  // DTM alone knows nothing of the clock.
  CHECK(player::rule_outcome(dtm_only(5, DtmValue::win_in_plies(99)), 99) == RuleOutcome::kWin);
}

TEST_CASE("the root rule wins in time: the DTM-fastest of the moves the clock allows", "[player][root_rule]") {
  // Move 0 mates fastest (21 plies) but zeroes only after 41; move 1 mates in 25, zeroing in 9;
  // move 2 is a slower win that zeroes at once.
  const std::vector<RootMove> moves = {both(0, DtmValue::win_in_plies(21), Wdl50::kWin, 41),
                                       both(1, DtmValue::win_in_plies(25), Wdl50::kWin, 9),
                                       both(2, DtmValue::win_in_plies(33), Wdl50::kWin, 1, true),
                                       both(3, DtmValue::draw(), Wdl50::kDraw, 0)};
  const auto fresh = player::choose_root_move(moves, 0);
  CHECK(fresh.outcome == RuleOutcome::kWin);
  CHECK(fresh.move == move_n(0));
  CHECK_FALSE(fresh.cursed);
  const auto late = player::choose_root_move(moves, 60);  // 60 + 41 > 100
  CHECK(late.outcome == RuleOutcome::kWin);
  CHECK(late.move == move_n(1));
  const auto last = player::choose_root_move(moves, 95);  // only the zeroing move is in time
  CHECK(last.move == move_n(2));
  // A move back into a position already played is avoided while another wins in time.
  auto repeating = moves;
  repeating[0].repeats = true;
  CHECK(player::choose_root_move(repeating, 0).move == move_n(1));
  // Without DTM values: Syzygy's order (smallest DTZ) among the wins in time.
  const std::vector<RootMove> syzygy = {syzygy_only(0, Wdl50::kWin, 41), syzygy_only(1, Wdl50::kWin, 9),
                                        syzygy_only(2, Wdl50::kDraw, 0)};
  CHECK(player::choose_root_move(syzygy, 0).move == move_n(1));
}

TEST_CASE("the root rule in a cursed win plays the DTM-optimal move", "[player][root_rule]") {
  const std::vector<RootMove> moves = {both(0, DtmValue::draw(), Wdl50::kDraw, 0),
                                       both(1, DtmValue::win_in_plies(181), Wdl50::kCursedWin, 115),
                                       both(2, DtmValue::win_in_plies(161), Wdl50::kCursedWin, 130),
                                       both(3, DtmValue::loss_in_plies(20), Wdl50::kLoss, -4, true)};
  const auto c = player::choose_root_move(moves, 0);
  CHECK(c.outcome == RuleOutcome::kDraw);
  CHECK(c.cursed);
  CHECK(c.move == move_n(2));
  CHECK(c.drawing_moves.empty());
  // A win the clock has spoilt counts the same way.
  const std::vector<RootMove> spoilt = {both(0, DtmValue::draw(), Wdl50::kDraw, 0),
                                        both(1, DtmValue::win_in_plies(15), Wdl50::kWin, 15),
                                        both(2, DtmValue::win_in_plies(11), Wdl50::kWin, 19)};
  const auto s = player::choose_root_move(spoilt, 90);
  CHECK(s.outcome == RuleOutcome::kDraw);
  CHECK(s.cursed);
  CHECK(s.move == move_n(2));
}

TEST_CASE("the root rule when losing: a loss the clock saves first, else the longest resistance", "[player][root_rule]") {
  const std::vector<RootMove> moves = {both(0, DtmValue::loss_in_plies(10), Wdl50::kLoss, -10),
                                       both(1, DtmValue::loss_in_plies(40), Wdl50::kLoss, -12),
                                       both(2, DtmValue::loss_in_plies(20), Wdl50::kLoss, -28)};
  const auto fresh = player::choose_root_move(moves, 0);
  CHECK(fresh.outcome == RuleOutcome::kLoss);
  CHECK(fresh.move == move_n(1));  // mated last
  const auto late = player::choose_root_move(moves, 80);  // 80 + 28 > 100: move 2 reaches the 50-move draw
  CHECK(late.outcome == RuleOutcome::kDraw);
  CHECK_FALSE(late.cursed);
  CHECK(late.move == move_n(2));
  // A blessed loss is a draw under the rule.
  const std::vector<RootMove> blessed = {both(0, DtmValue::loss_in_plies(60), Wdl50::kLoss, -30),
                                         both(1, DtmValue::loss_in_plies(50), Wdl50::kBlessedLoss, -110)};
  CHECK(player::choose_root_move(blessed, 0).move == move_n(1));
  // DTM alone: the longest resistance, as before Syzygy.
  const std::vector<RootMove> dtm = {dtm_only(0, DtmValue::loss_in_plies(8)), dtm_only(1, DtmValue::loss_in_plies(14)),
                                     dtm_only(2, DtmValue::loss_in_plies(2))};
  CHECK(player::choose_root_move(dtm, 99).move == move_n(1));
}

TEST_CASE("the root rule leaves a true draw to the search, listing the drawing moves", "[player][root_rule]") {
  const std::vector<RootMove> moves = {both(0, DtmValue::loss_in_plies(10), Wdl50::kLoss, -10),
                                       both(1, DtmValue::draw(), Wdl50::kDraw, 0),
                                       both(2, DtmValue::draw(), Wdl50::kDraw, 0, true),
                                       both(3, DtmValue::loss_in_plies(30), Wdl50::kBlessedLoss, -120)};
  const auto c = player::choose_root_move(moves, 0);
  CHECK(c.outcome == RuleOutcome::kDraw);
  CHECK(c.move.is_none());
  CHECK(c.drawing_moves == std::vector<chess::Move>{move_n(1), move_n(2)});
  const std::vector<RootMove> dtm = {dtm_only(0, DtmValue::win_in_plies(9)), dtm_only(1, DtmValue::draw())};
  const auto w = player::choose_root_move(dtm, 0);
  CHECK(w.move == move_n(0));
  CHECK(w.outcome == RuleOutcome::kWin);
}
