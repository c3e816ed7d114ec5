#include "player/search.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "chess/movegen.h"
#include "player/eval.h"

namespace tbkit::player {
namespace {

using chess::Move;
using chess::PieceType;

constexpr int kInfinity = kMateScore + 1;

// Scores stored in the table are relative to the node; mate scores are converted to and from
// "distance from this node" so a transposition at another ply keeps the right mate distance.
int to_tt(int score, int ply) { return score >= kMateBound ? score + ply : score <= -kMateBound ? score - ply : score; }
int from_tt(int score, int ply) { return score >= kMateBound ? score - ply : score <= -kMateBound ? score + ply : score; }

int victim_value(const chess::Position& pos, Move m) {
  if (m.is_en_passant()) return kPieceValue[0];
  const auto p = pos.piece_on(m.to());
  return p.is_none() ? 0 : kPieceValue[chess::index_of(p.type())];
}

bool has_non_pawn_material(const chess::Position& pos, chess::Color c) {
  return (pos.pieces(c) & ~pos.pieces(c, PieceType::kPawn) & ~pos.pieces(c, PieceType::kKing)) != 0;
}

}  // namespace

std::optional<int> mate_in_moves(int score) {
  if (score >= kMateBound) return (kMateScore - score + 1) / 2;
  if (score <= -kMateBound) return -((kMateScore + score) / 2);
  return std::nullopt;
}

Searcher::Searcher(std::size_t hash_mb) { set_hash_size(hash_mb); }

void Searcher::set_hash_size(std::size_t hash_mb) {
  hash_mb = std::clamp<std::size_t>(hash_mb, 1, 4096);
  std::size_t entries = hash_mb * 1024 * 1024 / sizeof(TtEntry);
  std::size_t pow2 = 1;
  while (pow2 * 2 <= entries) pow2 *= 2;
  // Allocated by the next search: a GUI sets Hash before its first "go", and the default table
  // is then never made.
  tt_entries_ = pow2;
  tt_ = std::vector<TtEntry>();
}

void Searcher::clear() {
  std::fill(tt_.begin(), tt_.end(), TtEntry{});
  std::memset(history_, 0, sizeof history_);
  std::memset(killers_, 0, sizeof killers_);
}

std::int64_t Searcher::elapsed_ms() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start_).count();
}

bool Searcher::should_stop() {
  if (stopped_) return true;
  if ((nodes_ & 1023) == 0) {
    if (stop_->load(std::memory_order_relaxed) || (hard_limit_ms_ > 0 && elapsed_ms() >= hard_limit_ms_)) stopped_ = true;
  }
  if (node_limit_ && nodes_ >= node_limit_) stopped_ = true;
  return stopped_;
}

void Searcher::tt_store(std::uint64_t key, Move m, int score, int depth, Bound bound, int ply) {
  TtEntry* e = tt_slot(key);
  // Keep a deeper entry for the same position unless it is from an older search.
  if (e->key == key && e->depth > depth && e->generation == generation_ && bound != kExactBound) return;
  if (!m.is_none() || e->key != key) e->move = m.raw();
  e->key = key;
  e->score = std::int16_t(to_tt(score, ply));
  e->depth = std::int8_t(std::clamp(depth, -1, 127));
  e->bound = bound;
  e->generation = generation_;
}

std::optional<int> Searcher::probe_table(int ply) {
  if (!tables_ || pos_.castling_rights() != 0 || chess::popcount(pos_.pieces()) > tables_->max_men()) return std::nullopt;
  // WDL50 first: it knows the 50-move rule (exact right after a capture or pawn move, where most
  // probes happen; with a running clock a win may still be spoilt, which the root rule checks).
  const auto wdl = tables_->probe_wdl(pos_);
  if (wdl && (*wdl == probe::Wdl50::kWin || *wdl == probe::Wdl50::kLoss)) {
    const auto v = tables_->probe(pos_);
    if (v && !v->is_illegal() && !v->is_draw()) {
      const int dist = ply + v->plies();
      return v->is_win() ? kMateScore - dist : -(kMateScore - dist);
    }
    return *wdl == probe::Wdl50::kWin ? kTableWinScore - ply : -(kTableWinScore - ply);
  }
  if (wdl) {
    // A draw, or a result the 50-move rule turns into one.
    if (table_use_ == TableUse::kDecisiveOnly) return std::nullopt;
    return 0;
  }
  const auto v = tables_->probe(pos_);
  if (!v || v->is_illegal()) return std::nullopt;
  if (v->is_draw()) {
    if (table_use_ == TableUse::kDecisiveOnly) return std::nullopt;
    return 0;
  }
  const int dist = ply + v->plies();
  return v->is_win() ? kMateScore - dist : -(kMateScore - dist);
}

void Searcher::order_moves(Move* moves, int* scores, int count, Move hash_move, int ply) const {
  const int side = chess::index_of(pos_.side_to_move());
  for (int i = 0; i < count; ++i) {
    const Move m = moves[i];
    int s;
    if (m == hash_move) {
      s = 1 << 30;
    } else if (pos_.is_capture(m) || m.promotion() == PieceType::kQueen) {
      const int attacker = kPieceValue[chess::index_of(pos_.moved_piece(m).type())];
      s = (1 << 24) + victim_value(pos_, m) * 16 - attacker / 16 + (m.is_promotion() ? kPieceValue[4] * 16 : 0);
    } else if (m == killers_[ply][0]) {
      s = (1 << 22) + 2;
    } else if (m == killers_[ply][1]) {
      s = (1 << 22) + 1;
    } else {
      s = history_[side][m.from().index()][m.to().index()];
      if (m.is_promotion()) s -= 1 << 20;  // under-promotions last
    }
    scores[i] = s;
  }
}

namespace {
// Moves the best remaining move to position i (selection sort, lazily).
void pick(Move* moves, int* scores, int count, int i) {
  int best = i;
  for (int j = i + 1; j < count; ++j)
    if (scores[j] > scores[best]) best = j;
  std::swap(moves[i], moves[best]);
  std::swap(scores[i], scores[best]);
}
}  // namespace

int Searcher::quiesce(int alpha, int beta, int ply) {
  ++nodes_;
  pv_len_[ply] = ply;
  if (should_stop()) return 0;
  seldepth_ = std::max(seldepth_, ply);
  if (ply > 0 && (pos_.halfmove_clock() >= 100 || pos_.repetition_count() > 0 || pos_.has_insufficient_material())) return 0;
  const bool in_check = pos_.in_check();
  if (ply >= kMaxPly) return in_check ? 0 : evaluate(pos_);

  int best = -kInfinity;
  chess::MoveList list;
  if (in_check) {
    chess::generate_legal(pos_, list);
    if (list.empty()) return -(kMateScore - ply);
  } else {
    const int stand_pat = evaluate(pos_);
    if (stand_pat >= beta) return stand_pat;
    best = stand_pat;
    alpha = std::max(alpha, stand_pat);
    chess::generate_legal_noisy(pos_, list);
  }
  const int count = int(list.size());
  Move moves[256];
  int scores[256];
  std::copy(list.begin(), list.end(), moves);
  order_moves(moves, scores, count, Move::none(), ply);
  for (int i = 0; i < count; ++i) {
    pick(moves, scores, count, i);
    const Move m = moves[i];
    if (!in_check) {
      const int gain = victim_value(pos_, m) + (m.is_promotion() ? kPieceValue[4] - kPieceValue[0] : 0);
      // Delta pruning: even winning the piece cannot lift the score to alpha.
      if (best + gain + 200 <= alpha && !m.is_promotion()) continue;
      if (m.is_promotion() && m.promotion() != PieceType::kQueen) continue;
      // Skip a capture by a more valuable piece onto a square a pawn defends.
      const int attacker = kPieceValue[chess::index_of(pos_.moved_piece(m).type())];
      if (attacker > victim_value(pos_, m) + 50 &&
          (chess::pawn_attacks(pos_.side_to_move(), m.to()) & pos_.pieces(~pos_.side_to_move(), PieceType::kPawn)))
        continue;
    }
    pos_.do_move(m);
    const int score = -quiesce(-beta, -alpha, ply + 1);
    pos_.undo_move(m);
    if (stopped_) return 0;
    if (score > best) {
      best = score;
      if (score > alpha) {
        alpha = score;
        if (score >= beta) break;
      }
    }
  }
  return best;
}

int Searcher::negamax(int alpha, int beta, int depth, int ply, bool pv_node, bool allow_null) {
  pv_len_[ply] = ply;
  const bool in_check = pos_.in_check();
  if (in_check) ++depth;  // check extension
  if (depth <= 0) return quiesce(alpha, beta, ply);
  ++nodes_;
  if (should_stop()) return 0;
  seldepth_ = std::max(seldepth_, ply);
  if (ply >= kMaxPly) return in_check ? 0 : evaluate(pos_);

  if (ply > 0) {
    if (pos_.halfmove_clock() >= 100 || pos_.repetition_count() > 0 || pos_.has_insufficient_material()) return 0;
    // Mate distance pruning: no line from here beats a mate already found closer to the root.
    alpha = std::max(alpha, -(kMateScore - ply));
    beta = std::min(beta, kMateScore - ply - 1);
    if (alpha >= beta) return alpha;
  }

  const std::uint64_t key = pos_.key();
  TtEntry* e = tt_slot(key);
  Move hash_move;
  if (e->key == key) {
    hash_move = std::bit_cast<Move>(e->move);  // Move is its 16-bit encoding
    const int score = from_tt(e->score, ply);
    if (!pv_node && e->depth >= depth &&
        (e->bound == kExactBound || (e->bound == kLower && score >= beta) || (e->bound == kUpper && score <= alpha)))
      return score;
  }

  if (ply > 0) {
    if (const auto t = probe_table(ply)) {
      tt_store(key, Move::none(), *t, kMaxPly, kExactBound, ply);
      return *t;
    }
  }

  const auto side = pos_.side_to_move();
  const int static_eval = in_check ? -kInfinity : evaluate(pos_);
  if (!pv_node && !in_check && std::abs(beta) < kMateBound) {
    // Reverse futility: far above beta at low depth.
    if (depth <= 3 && static_eval - 110 * depth >= beta) return static_eval;
    // Null move, not where zugzwang is likely (only king and pawns left for the side to move).
    if (allow_null && depth >= 3 && static_eval >= beta && has_non_pawn_material(pos_, side)) {
      const int r = 2 + depth / 4;
      pos_.do_null_move();
      const int score = -negamax(-beta, -beta + 1, depth - 1 - r, ply + 1, false, false);
      pos_.undo_null_move();
      if (stopped_) return 0;
      if (score >= beta) return score >= kMateBound ? beta : score;
    }
  }

  chess::MoveList list;
  chess::generate_legal(pos_, list);
  if (ply == 0 && !root_moves_.empty()) {
    list = chess::MoveList();
    for (Move m : root_moves_) list.push(m);
  }
  if (list.empty()) return in_check ? -(kMateScore - ply) : 0;
  const int count = int(list.size());
  Move moves[256];
  int scores[256];
  std::copy(list.begin(), list.end(), moves);
  order_moves(moves, scores, count, hash_move, ply);
  if (ply == 0) {
    for (int i = 0; i < count; ++i)
      if (moves[i] == root_best_) scores[i] = 1 << 30;
  }

  const int old_alpha = alpha;
  int best = -kInfinity;
  Move best_move;
  int searched = 0;
  Move quiets[256];
  int quiet_count = 0;
  const bool futile = !pv_node && !in_check && depth <= 2 && static_eval + 150 * depth <= alpha;

  for (int i = 0; i < count; ++i) {
    pick(moves, scores, count, i);
    const Move m = moves[i];
    const bool quiet = !pos_.is_capture(m) && !m.is_promotion();
    pos_.do_move(m);
    const bool gives_check = pos_.in_check();
    if (futile && quiet && searched > 0 && !gives_check && std::abs(alpha) < kMateBound) {
      pos_.undo_move(m);
      continue;
    }
    int score;
    if (searched == 0) {
      score = -negamax(-beta, -alpha, depth - 1, ply + 1, pv_node, true);
    } else {
      int reduction = 0;
      if (depth >= 3 && quiet && !in_check && !gives_check && searched >= (pv_node ? 4 : 2) && m != killers_[ply][0] &&
          m != killers_[ply][1]) {
        reduction = 1 + (searched >= 8) + (depth >= 8);
        reduction = std::min(reduction, depth - 2);
      }
      score = -negamax(-alpha - 1, -alpha, depth - 1 - reduction, ply + 1, false, true);
      if (score > alpha && reduction > 0) score = -negamax(-alpha - 1, -alpha, depth - 1, ply + 1, false, true);
      if (score > alpha && score < beta) score = -negamax(-beta, -alpha, depth - 1, ply + 1, true, true);
    }
    pos_.undo_move(m);
    if (stopped_) return 0;
    ++searched;
    if (score > best) {
      best = score;
      best_move = m;
      if (score > alpha) {
        alpha = score;
        pv_[ply][ply] = m;
        for (int j = ply + 1; j < pv_len_[ply + 1]; ++j) pv_[ply][j] = pv_[ply + 1][j];
        pv_len_[ply] = std::max(pv_len_[ply + 1], ply + 1);
        if (score >= beta) {
          if (quiet) {
            if (killers_[ply][0] != m) {
              killers_[ply][1] = killers_[ply][0];
              killers_[ply][0] = m;
            }
            const int si = chess::index_of(side);
            int& h = history_[si][m.from().index()][m.to().index()];
            h += depth * depth;
            for (int q = 0; q < quiet_count; ++q) history_[si][quiets[q].from().index()][quiets[q].to().index()] -= depth;
            if (h > (1 << 20)) {
              for (auto& a : history_[si])
                for (int& x : a) x /= 2;
            }
          }
          break;
        }
      }
    }
    if (quiet) quiets[quiet_count++] = m;
  }
  if (searched == 0) return alpha;  // every move pruned (cannot happen: the first move is always searched)
  const Bound bound = best >= beta ? kLower : best > old_alpha ? kExactBound : kUpper;
  tt_store(key, best_move, best, depth, bound, ply);
  return best;
}

SearchResult Searcher::search(const chess::Position& pos, const SearchLimits& limits, const std::atomic<bool>& stop,
                              const std::function<void(const SearchInfo&)>& on_info, const SearchOptions& options) {
  start_ = std::chrono::steady_clock::now();
  if (tt_.size() != tt_entries_) tt_.assign(tt_entries_, TtEntry{});
  pos_ = pos;
  stop_ = &stop;
  stopped_ = false;
  nodes_ = 0;
  seldepth_ = 0;
  table_use_ = options.table_use;
  root_moves_ = options.root_moves;
  root_best_ = Move::none();
  node_limit_ = limits.nodes;
  ++generation_;
  for (auto& k : killers_) k[0] = k[1] = Move::none();
  for (auto& side : history_)
    for (auto& a : side)
      for (int& x : a) x /= 8;

  // Time: a soft target checked between iterations and a hard limit checked during the search.
  std::int64_t soft = 0;
  hard_limit_ms_ = 0;
  const int us = chess::index_of(pos.side_to_move());
  // Clocks beyond 2^40 ms (35 years) count as that much, so the sums and products below cannot
  // overflow whatever the caller passes.
  constexpr std::int64_t kMaxMs = std::int64_t{1} << 40;
  const std::int64_t overhead = std::clamp<std::int64_t>(limits.move_overhead_ms, 0, kMaxMs);
  if (limits.movetime_ms > 0) {
    hard_limit_ms_ = std::max<std::int64_t>(1, limits.movetime_ms - overhead);
    soft = hard_limit_ms_;
  } else if (!limits.infinite && limits.time_ms[us] >= 0) {
    const std::int64_t left = std::max<std::int64_t>(1, std::min(limits.time_ms[us], kMaxMs) - overhead);
    const std::int64_t inc = std::clamp<std::int64_t>(limits.inc_ms[us], 0, kMaxMs);
    const int moves_left = limits.movestogo > 0 ? std::min(limits.movestogo, 40) : 30;
    soft = left / moves_left + inc * 3 / 4;
    soft = std::min(soft, left / 2);
    hard_limit_ms_ = std::max<std::int64_t>(1, std::min(left * 3 / 4, soft * 4));
    soft = std::max<std::int64_t>(1, soft);
  }
  const int max_depth = limits.depth > 0 ? std::min(limits.depth, kMaxPly - 1) : kMaxPly - 1;

  SearchResult result;
  {
    chess::MoveList all = chess::legal_moves(pos);
    if (!root_moves_.empty()) {
      all = chess::MoveList();
      for (Move m : root_moves_) all.push(m);
    }
    if (!all.empty()) result.best = all[0];
  }
  int previous = 0;
  for (int depth = 1; depth <= max_depth; ++depth) {
    seldepth_ = 0;
    int score;
    // Aspiration window around the previous score, widened on failure.
    int delta = 35;
    int alpha = -kInfinity, beta = kInfinity;
    if (depth >= 5 && std::abs(previous) < kMateBound) {
      alpha = previous - delta;
      beta = previous + delta;
    }
    while (true) {
      score = negamax(alpha, beta, depth, 0, true, false);
      if (stopped_) break;
      if (score <= alpha) {
        alpha = std::max(-kInfinity, score - delta);
        delta *= 2;
      } else if (score >= beta) {
        beta = std::min(kInfinity, score + delta);
        delta *= 2;
      } else {
        break;
      }
      if (delta > 1000) alpha = -kInfinity, beta = kInfinity;
    }
    if (stopped_ && depth > 1) break;
    if (pv_len_[0] > 0) {
      result.best = pv_[0][0];
      result.ponder = pv_len_[0] > 1 ? pv_[0][1] : Move::none();
      root_best_ = result.best;
    }
    result.score = score;
    result.depth = depth;
    previous = score;
    SearchInfo info;
    info.depth = depth;
    info.seldepth = seldepth_;
    info.score = score;
    info.nodes = nodes_;
    info.time_ms = elapsed_ms();
    info.pv.assign(pv_[0], pv_[0] + pv_len_[0]);
    if (on_info) on_info(info);
    if (stopped_) break;
    if (!limits.infinite) {
      if (soft > 0 && elapsed_ms() >= soft * 6 / 10) break;
      // A mate found with a full-width search at a depth beyond its length cannot improve.
      if (std::abs(score) >= kMateBound && depth >= 2 * (kMateScore - std::abs(score)) + 4 && limits.depth == 0) break;
    }
  }
  result.nodes = nodes_;
  return result;
}

}  // namespace tbkit::player
