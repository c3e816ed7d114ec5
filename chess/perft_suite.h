// Perft suites as data: EPD lines "FEN ;D1 20 ;D2 400" and python-chess style .perft files
// ("id NAME", "epd FEN", "perft DEPTH COUNT" lines).
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "chess/result.h"

namespace tbkit::chess {

struct PerftCase {
  std::string name;  // id, or "line N"
  std::string fen;
  std::vector<std::pair<int, std::uint64_t>> expected;  // (depth, nodes)
  int line = 0;
};

// Parses either format (detected per line). Errors name the source and line.
[[nodiscard]] Result<std::vector<PerftCase>> parse_perft_suite(std::istream& in, const std::string& source_name);

}  // namespace tbkit::chess
