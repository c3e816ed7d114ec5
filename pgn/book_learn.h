// Learning from games: every game of some PGN files becomes one experience record (both sides'
// positions and moves, the result), appended to a book's journal and folded into its learned
// statistics (formats/experience.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "chess/result.h"
#include "formats/experience.h"
#include "pgn/book_game.h"

namespace tbkit::pgn {

// The experience record of one game the book collector delivered.
[[nodiscard]] formats::ExperienceGame to_experience(const BookGame& game);

// Reads every game of the files (main lines only, up to formats::kJournalMaxPlies plies).
// Errors: kIo (a file cannot be read), kCorrupt (a game cannot be read: the message names the
// file, the game's line and the reason). Nothing is returned in part. Thread-compatible.
[[nodiscard]] Result<std::vector<formats::ExperienceGame>> read_experience(const std::vector<std::string>& inputs);

struct LearnSummary {
  std::uint64_t games = 0;          // games learned from these files
  std::uint64_t unknown_results = 0;  // of which with no result ("*")
  std::uint64_t plies = 0;
  formats::FoldSummary fold;
};

// read_experience, then one append to BOOK.exp, then a fold into BOOK.learn. On a read error
// nothing is written. Errors: as read_experience and formats::append_experience / fold_experience.
[[nodiscard]] Result<LearnSummary> learn_from_pgn(const std::vector<std::string>& inputs, const std::filesystem::path& book);

}  // namespace tbkit::pgn
