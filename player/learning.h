// Book learning for the player: what the experience store (formats/experience.h) says about a
// position's moves, how it changes the book's choice (docs/player.md, "Book learning"), and the
// record of a finished game.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <random>
#include <span>
#include <string_view>
#include <vector>

#include "chess/position.h"
#include "chess/result.h"
#include "formats/experience.h"
#include "player/book.h"

namespace tbkit::player {

// The learned results of one move from one position, from the mover's view.
struct MoveExperience {
  chess::Move move;
  std::uint32_t games = 0;  // all recorded games, including those with no result
  std::uint32_t wins = 0, draws = 0, losses = 0;
  [[nodiscard]] std::uint32_t decided() const { return wins + draws + losses; }
  // (wins + draws / 2) / decided; 0.5 when nothing is decided.
  [[nodiscard]] double score() const;
};

// A score's confidence interval: Wilson's score interval for `decided` games whose points (a draw
// counts half) average `score`, at z standard deviations. decided = 0 gives [0, 1].
struct ScoreBounds {
  double lower = 0, upper = 1;
};
[[nodiscard]] ScoreBounds wilson_bounds(double score, std::uint32_t decided, double z);

struct LearnPolicy {
  std::uint32_t min_games = 3;  // decided games before a move's learned score counts
  double z = 1.0;               // width of the confidence interval, in standard deviations
  double explore = 0.1;         // chance of a weighted book choice even when a proven move exists
};

// What learning decided for a position.
struct LearnedChoice {
  std::optional<chess::Move> move;   // the move to play; nullopt: leave the book (search)
  bool proven = false;               // move is the best proven move (lower bound >= 1/2)
  std::vector<chess::Move> left;     // learned moves left for their results (tried, upper bound < 1/2)
};

// The rule (docs/player.md): candidates are the book's moves plus learned moves with at least
// min_games decided games and a score of at least 1/2. A move with min_games decided games is
// "tried"; a tried move whose upper bound is below 1/2 is left. If the tried move with the highest
// lower bound has a lower bound of at least 1/2, it is played, except with probability `explore`.
// Otherwise (and when exploring) the move is drawn among the candidates not left, weighted by book
// games (a learned-only move by its decided games). No candidate left over: nullopt.
[[nodiscard]] LearnedChoice choose_with_experience(std::span<const BookCandidate> book,
                                                   std::span<const MoveExperience> learned, const LearnPolicy& policy,
                                                   std::mt19937_64& rng);

// The learned statistics of a store, read once (a snapshot).
class Experience {
 public:
  // Reads the store whose journal is journal_path(base) and learned file learned_path(base): the
  // folded statistics plus the journal's games not yet folded. Absent files are an empty store.
  // Errors: kIo, kCorrupt, kVersion (the learned file).
  [[nodiscard]] static Result<Experience> load(const std::filesystem::path& base);

  // The legal moves with learned results in pos, most games first. Thread-safe.
  [[nodiscard]] std::vector<MoveExperience> moves(const chess::Position& pos) const;
  [[nodiscard]] std::uint64_t games() const { return stats_.games; }

 private:
  formats::LearnedStats stats_;
};

// A PGN result ("1-0", "0-1", "1/2-1/2") as the journal stores it; anything else ("*") is unknown.
[[nodiscard]] formats::ExperienceResult experience_result(std::string_view pgn_result);

// The experience record of a game: every ply from start, both sides, and the result the final
// position shows (mate or a draw by rule), else `fallback`.
[[nodiscard]] formats::ExperienceGame experience_of_game(const chess::Position& start, std::span<const chess::Move> moves,
                                                         formats::ExperienceResult fallback = formats::ExperienceResult::kUnknown);

// Appends one game to the store at `base`, and folds the journal into the learned file once it
// holds more than fold_bytes. Errors: as formats::append_experience / fold_experience.
[[nodiscard]] Status record_experience(const std::filesystem::path& base, const formats::ExperienceGame& game,
                                       std::uint64_t fold_bytes = std::uint64_t{1} << 20);

}  // namespace tbkit::player
