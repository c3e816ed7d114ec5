#include "explore/table_report.h"

#include <cstdlib>
#include <sstream>

#include "chess/fen.h"
#include "chess/notation.h"
#include "explore/json_text.h"

namespace tbkit::explore {

using formats::DtmValue;

const probe::Dtz50Move* TableReport::fifty_of(chess::Move m) const {
  if (!fifty) return nullptr;
  for (const auto& f : fifty->moves)
    if (f.move == m) return &f;
  return nullptr;
}

Result<TableReport> probe_tables(const probe::Tablebase& tb, const probe::SyzygyTablebase& sz, const chess::Position& pos) {
  auto value = tb.probe(pos);
  if (!value) return value.error();
  auto ranked = tb.rank_moves(pos);
  if (!ranked) return ranked.error();
  TableReport r{pos, *value, std::move(*ranked), std::nullopt};
  if (sz.max_men() > 0 && sz.has_dtz(pos)) {
    auto v = sz.probe_dtz(pos);
    if (!v) return v.error();
    auto moves = sz.rank_moves(pos);
    if (!moves) return moves.error();
    r.fifty = FiftyValues{*v, std::move(*moves)};
  }
  return r;
}

const char* result_word(DtmValue v) { return v.is_win() ? "win" : v.is_loss() ? "loss" : "draw"; }

std::string verdict_words(const chess::Position& pos, DtmValue v) {
  const std::string side = pos.side_to_move() == chess::Color::kWhite ? "White" : "Black";
  if (v.is_win()) return side + " mates in " + std::to_string(v.moves());
  if (v.is_loss() && v.plies() == 0) return side + " is checkmated";
  if (v.is_loss()) return side + " to move is mated in " + std::to_string(v.moves());
  return pos.status() == chess::GameStatus::kStalemate ? "Draw (stalemate)" : "Draw";
}

std::string dtz_words(probe::Wdl50 w, int dtz) {
  if (w == probe::Wdl50::kDraw) return "draw";
  return std::string(probe::to_string(w)) + ", DTZ " + std::to_string(std::abs(dtz));
}

std::string fifty_suffix(const TableReport& r) {
  if (!r.fifty) return {};
  const probe::Dtz50& v = r.fifty->value;
  std::string words;
  switch (v.wdl) {
    case probe::Wdl50::kWin: words = "a win: DTZ " + std::to_string(v.dtz); break;
    case probe::Wdl50::kLoss: words = "a loss: DTZ " + std::to_string(v.dtz); break;
    case probe::Wdl50::kDraw: words = "a draw"; break;
    default: words = "a draw: " + dtz_words(v.wdl, v.dtz);
  }
  return "; under the 50-move rule " + words;
}

std::string table_json(const TableReport& r, std::string_view extra) {
  const chess::Position& p = r.position;
  std::ostringstream out;
  out << "{\"fen\": " << json_string(chess::to_fen(p)) << ", \"side_to_move\": \""
      << (p.side_to_move() == chess::Color::kWhite ? "white" : "black") << "\", \"result\": \"" << result_word(r.value)
      << "\", \"dtm_plies\": " << r.value.plies() << ", \"mate_in_moves\": " << r.value.moves()
      << ", \"verdict\": " << json_string(verdict_words(p, r.value) + fifty_suffix(r));
  if (r.fifty)
    out << ", \"wdl50\": \"" << probe::to_string(r.fifty->value.wdl) << "\", \"dtz50\": " << r.fifty->value.dtz;
  else
    out << ", \"wdl50\": null, \"dtz50\": null";
  out << ", \"moves\": [";
  for (std::size_t i = 0; i < r.moves.size(); ++i) {
    const auto& m = r.moves[i];
    out << (i ? ", " : "") << "{\"san\": " << json_string(chess::to_san(p, m.move)) << ", \"uci\": \"" << chess::to_uci(m.move)
        << "\", \"result\": \"" << result_word(m.value) << "\", \"dtm_plies\": " << m.value.plies();
    if (const auto* f = r.fifty_of(m.move)) out << ", \"wdl50\": \"" << probe::to_string(f->wdl) << "\", \"dtz50\": " << f->dtz;
    out << "}";
  }
  out << "]" << extra << "}";
  return out.str();
}

}  // namespace tbkit::explore
