#include "pgn/reader.h"

#include "formats/zstd_stream.h"
#include "pgn/lexer.h"
#include "pgn/reader_game.h"

namespace tbkit::pgn {

const char* to_string(GameResult r) {
  switch (r) {
    case GameResult::kWhiteWins: return "1-0";
    case GameResult::kBlackWins: return "0-1";
    case GameResult::kDraw: return "1/2-1/2";
    case GameResult::kUnknown: return "*";
  }
  return "*";
}

Result<ReadSummary> read_pgn(const std::string& path, Visitor& visitor, const ReaderOptions& options) {
  auto input = formats::open_input(path);
  if (!input) return input.error();
  Lexer lexer(**input, options.buffer_size);
  ParseCounts counts;
  parse_games(lexer, path, visitor, options, counts);
  if (!lexer.status().ok()) return lexer.status().error();
  ReadSummary summary;
  add_counts(summary, counts, options.max_diagnostics);
  summary.bytes = lexer.bytes();
  return summary;
}

ReadSummary read_pgn_text(std::string_view text, const std::string& source, Visitor& visitor, const ReaderOptions& options) {
  Lexer lexer(text, 0, 1);
  ParseCounts counts;
  parse_games(lexer, source, visitor, options, counts);
  ReadSummary summary;
  add_counts(summary, counts, options.max_diagnostics);
  summary.bytes = lexer.bytes();
  return summary;
}

}  // namespace tbkit::pgn
