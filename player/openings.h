// Start positions for matches: from an EPD/FEN file, or random walks through an opening book.
#pragma once

#include <cstdint>
#include <filesystem>
#include <random>
#include <vector>

#include "chess/result.h"
#include "player/book.h"
#include "player/match.h"

namespace tbkit::player {

// One position a line: a FEN (4 to 6 fields), optionally followed by EPD operations or "; comment".
// Blank lines and lines starting with '#' are skipped. Errors: kIo, kInvalidArgument/kIllegal naming
// the file and line.
[[nodiscard]] Result<std::vector<Opening>> read_openings(const std::filesystem::path& path);

// `count` lines of up to `plies` book moves from the start, each move chosen at random weighted by
// games among moves with at least min_games. A line stops early where the book ends.
[[nodiscard]] std::vector<Opening> book_openings(const OpeningBook& book, int count, int plies, std::uint32_t min_games,
                                                 std::mt19937_64& rng);

}  // namespace tbkit::player
