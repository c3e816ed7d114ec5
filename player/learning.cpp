#include "player/learning.h"

#include <algorithm>
#include <cmath>

#include "formats/polyglot_book.h"

namespace tbkit::player {

double MoveExperience::score() const {
  const std::uint32_t n = decided();
  return n ? (double(wins) + 0.5 * double(draws)) / double(n) : 0.5;
}

ScoreBounds wilson_bounds(double score, std::uint32_t decided, double z) {
  if (decided == 0) return {};
  const double n = decided, z2 = z * z;
  const double denom = 1.0 + z2 / n;
  const double centre = (score + z2 / (2 * n)) / denom;
  const double half = z * std::sqrt(std::max(0.0, score * (1 - score) / n + z2 / (4 * n * n))) / denom;
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

LearnedChoice choose_with_experience(std::span<const BookCandidate> book, std::span<const MoveExperience> learned,
                                     const LearnPolicy& policy, std::mt19937_64& rng) {
  struct Candidate {
    chess::Move move;
    double weight = 0;
    bool tried = false;
    ScoreBounds bounds;
  };
  const auto experience_of = [&](chess::Move m) -> const MoveExperience* {
    const auto it = std::find_if(learned.begin(), learned.end(), [&](const MoveExperience& e) { return e.move == m; });
    return it == learned.end() ? nullptr : &*it;
  };
  std::vector<Candidate> cands;
  for (const BookCandidate& b : book) cands.push_back({b.move, double(std::max<std::uint32_t>(1, b.games)), false, {}});
  for (const MoveExperience& e : learned) {
    const bool in_book = std::any_of(book.begin(), book.end(), [&](const BookCandidate& b) { return b.move == e.move; });
    if (!in_book && e.decided() >= policy.min_games && e.score() >= 0.5) cands.push_back({e.move, double(e.decided()), false, {}});
  }
  LearnedChoice choice;
  for (const MoveExperience& e : learned)
    if (e.decided() >= policy.min_games && wilson_bounds(e.score(), e.decided(), policy.z).upper < 0.5)
      choice.left.push_back(e.move);
  std::vector<Candidate> kept;
  for (Candidate& c : cands) {
    if (std::find(choice.left.begin(), choice.left.end(), c.move) != choice.left.end()) continue;
    if (const MoveExperience* e = experience_of(c.move); e && e->decided() >= policy.min_games) {
      c.tried = true;
      c.bounds = wilson_bounds(e->score(), e->decided(), policy.z);
    }
    kept.push_back(c);
  }
  if (kept.empty()) return choice;
  const Candidate* best = nullptr;
  for (const Candidate& c : kept)
    if (c.tried && (!best || c.bounds.lower > best->bounds.lower)) best = &c;
  if (best && best->bounds.lower >= 0.5) {
    if (std::uniform_real_distribution<double>(0.0, 1.0)(rng) >= policy.explore) {
      choice.move = best->move;
      choice.proven = true;
      return choice;
    }
  }
  double total = 0;
  for (const Candidate& c : kept) total += c.weight;
  double pick = std::uniform_real_distribution<double>(0.0, total)(rng);
  for (const Candidate& c : kept) {
    if (pick < c.weight) {
      choice.move = c.move;
      return choice;
    }
    pick -= c.weight;
  }
  choice.move = kept.back().move;
  return choice;
}

Result<Experience> Experience::load(const std::filesystem::path& base) {
  auto stats = formats::read_experience_stats(base);
  if (!stats) return stats.error();
  Experience e;
  e.stats_ = std::move(*stats);
  return e;
}

std::vector<MoveExperience> Experience::moves(const chess::Position& pos) const {
  std::vector<MoveExperience> out;
  const bool black = pos.side_to_move() == chess::Color::kBlack;
  for (const formats::LearnedEntry& e : stats_.lookup(pos.key())) {
    if (((e.flags & 1) != 0) != black) continue;
    auto m = formats::from_polyglot_move(pos, e.move);
    if (!m) continue;  // a key collision
    out.push_back({*m, e.games, e.wins, e.draws, e.losses});
  }
  std::stable_sort(out.begin(), out.end(), [](const MoveExperience& a, const MoveExperience& b) { return a.games > b.games; });
  return out;
}

formats::ExperienceResult experience_result(std::string_view pgn_result) {
  if (pgn_result == "1-0") return formats::ExperienceResult::kWhiteWins;
  if (pgn_result == "0-1") return formats::ExperienceResult::kBlackWins;
  if (pgn_result == "1/2-1/2") return formats::ExperienceResult::kDraw;
  return formats::ExperienceResult::kUnknown;
}

formats::ExperienceGame experience_of_game(const chess::Position& start, std::span<const chess::Move> moves,
                                           formats::ExperienceResult fallback) {
  formats::ExperienceGame g;
  chess::Position pos = start;
  const std::size_t n = std::min<std::size_t>(moves.size(), formats::kJournalMaxPlies);
  for (std::size_t i = 0; i < n; ++i) {
    g.plies.push_back({pos.key(), formats::to_polyglot_move(moves[i]), pos.side_to_move() == chess::Color::kBlack});
    pos.do_move(moves[i]);
  }
  g.result = fallback;
  switch (pos.status()) {
    case chess::GameStatus::kOngoing: break;
    case chess::GameStatus::kCheckmate:
      g.result = pos.side_to_move() == chess::Color::kWhite ? formats::ExperienceResult::kBlackWins
                                                            : formats::ExperienceResult::kWhiteWins;
      break;
    default: g.result = formats::ExperienceResult::kDraw; break;
  }
  return g;
}

Status record_experience(const std::filesystem::path& base, const formats::ExperienceGame& game, std::uint64_t fold_bytes) {
  if (Status s = formats::append_experience(base, std::span(&game, 1)); !s) return s;
  std::error_code ec;
  const auto size = std::filesystem::file_size(formats::journal_path(base), ec);
  if (!ec && size > fold_bytes)
    if (auto f = formats::fold_experience(base); !f) return f.error();
  return {};
}

}  // namespace tbkit::player
