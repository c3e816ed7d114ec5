// The game-level PGN parser shared by the sequential and the parallel reader (internal).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "pgn/lexer.h"
#include "pgn/visitor.h"

namespace tbkit::pgn {

// A game's error, or a warning about a part of it that was dropped (a bad followed variation).
// error.token is printable (printable_token): one line, at most 40 characters.
struct Diagnostic {
  GameLocation location;
  GameError error;
  bool warning = false;
};

// Counts of one parse; diagnostics keep at most `max_diagnostics` entries.
struct ParseCounts {
  std::uint64_t games_read = 0;
  std::uint64_t games_used = 0;
  std::map<std::string, std::uint64_t> skipped_by_reason;
  std::map<std::string, std::uint64_t> cut_by_reason;
  std::map<std::string, std::uint64_t> dropped_by_reason;  // followed variations dropped
  std::vector<Diagnostic> diagnostics;
};

// Parses every game the lexer yields into the visitor, adding to `counts`. Game numbers count from
// counts.games_read + 1. Never fails: per-game errors are reported to the visitor and counted.
void parse_games(Lexer& lexer, const std::string& source, Visitor& visitor, const ReaderOptions& options,
                 ParseCounts& counts);

// "source:line: game N: message [reason] (token 'x')", with "warning: " before a warning's message.
[[nodiscard]] std::string format_diagnostic(const Diagnostic& d);

// Adds one parse's counts (and, while there is room, diagnostics) to a summary.
void add_counts(ReadSummary& summary, const ParseCounts& counts, std::size_t max_diagnostics);

}  // namespace tbkit::pgn
