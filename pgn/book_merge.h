// Merging native books: the counts of equal (position, move) records are added exactly.
#pragma once

#include <filesystem>
#include <vector>

#include "chess/result.h"
#include "formats/book_file.h"

namespace tbkit::pgn {

// Writes the sum of the input books to output (.tmp then rename). The header's games are summed;
// its parameters are the first input's, marked merged. Errors: those of BookFile::open, kIo, and
// kCorrupt if a sum passes 2^32 (naming the key and move).
[[nodiscard]] Result<formats::BookInfo> merge_book_files(const std::vector<std::filesystem::path>& inputs,
                                                         const std::filesystem::path& output);

}  // namespace tbkit::pgn
