#include "player/table_play.h"

#include "chess/fen.h"
#include "chess/movegen.h"
#include "model/material.h"

namespace tbkit::player {

Result<std::vector<SampledPosition>> sample_positions(const probe::Tablebase& tb, const std::string& material,
                                                      WantedOutcome want, int count, std::mt19937_64& rng, int to_move) {
  auto m = model::Material::parse(material);
  if (!m) return m.error();
  std::vector<SampledPosition> out;
  std::uniform_int_distribution<int> square(0, 63), coin(0, 1);
  const std::int64_t max_tries = std::int64_t(count) * 200000 + 100000;
  for (std::int64_t tries = 0; int(out.size()) < count && tries < max_tries; ++tries) {
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
        for (int n = 0; n < m->count(colour, chess::PieceType(t)); ++n) place(chess::Piece(colour, chess::PieceType(t)));
    }
    setup.side = (to_move < 0 ? coin(rng) : to_move) ? chess::Color::kBlack : chess::Color::kWhite;
    if (!ok) continue;
    auto pos = chess::Position::from_setup(setup);
    if (!pos || !chess::has_legal_move(*pos)) continue;
    auto v = tb.probe(*pos);
    if (!v) {
      if (v.error().code == ErrorCode::kUnavailable && tries == 0) return v.error();
      if (v.error().code != ErrorCode::kUnavailable) return v.error();
      continue;
    }
    if ((want == WantedOutcome::kWon && v->is_win()) || (want == WantedOutcome::kDrawn && v->is_draw()))
      out.push_back({std::move(*pos), *v});
  }
  if (int(out.size()) < count)
    return make_error(ErrorCode::kUnavailable, material + ": found only " + std::to_string(out.size()) + " of " +
                                                   std::to_string(count) + " wanted positions");
  return out;
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
