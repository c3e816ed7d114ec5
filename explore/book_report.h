// A position's book moves (tbkit .tbb or Polyglot .bin) with the learned statistics beside the book
// (BOOK.learn and the journal not folded yet, docs/formats/experience.md), and the JSON object that `tbkit book probe --json`
// prints and the explorer's /api/book returns (docs/cli-json.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "chess/position.h"
#include "chess/result.h"
#include "formats/book_file.h"
#include "formats/experience.h"
#include "formats/polyglot_book.h"

namespace tbkit::explore {

// One book move. games/wins/draws/losses/rated/elo_sum are from a tbkit book only (Polyglot books
// hold a weight alone); wins and losses are the mover's.
struct BookMove {
  std::string san, uci;
  std::uint64_t games = 0, wins = 0, draws = 0, losses = 0, rated = 0, elo_sum = 0, weight = 0;
};

struct LearnedMove {
  std::string san, uci;
  formats::LearnedEntry entry;
};

struct LearnedMoves {
  std::string file_name;            // "games.tbb.learn"
  std::uint64_t games = 0;          // games in the store (folded and in the journal), all positions
  std::vector<LearnedMove> moves;   // this position's, most games first
};

struct BookReport {
  chess::Position position;
  std::string format;                  // "tbkit" or "polyglot"
  bool has_stats = false;              // games and results per move (tbkit books)
  std::vector<BookMove> moves;         // highest weight first (weight: 2 wins + draws, or Polyglot's)
  std::optional<LearnedMoves> learned; // when BOOK.learn or the journal exists
};

// A book opened once and probed many times: a mapped .tbb or a read .bin, and the learned store read
// when opened. Movable. probe() is const and thread-safe.
class OpenBook {
 public:
  // Opens `path`: a file with tbkit's magic or a .tbb name as a tbkit book (a damaged one is
  // refused), any other as Polyglot; a path that does not exist beside an existing experience store
  // (BOOK.learn or its journal, read as formats::read_experience_stats does) as that store alone. Errors: kIo (missing, a directory, unreadable), kCorrupt (damaged, or neither
  // kind of book), kVersion. Polyglot oddities that still read are warnings().
  [[nodiscard]] static Result<OpenBook> open(const std::filesystem::path& path);

  // The moves of `pos`. Errors: kCorrupt (a stored move is not legal in the position, naming the
  // file and key).
  [[nodiscard]] Result<BookReport> probe(const chess::Position& pos) const;

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  [[nodiscard]] const char* format() const { return tbkit_ || learned_only_ ? "tbkit" : "polyglot"; }
  [[nodiscard]] const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  std::filesystem::path path_;
  bool learned_only_ = false;
  std::optional<formats::BookFile> tbkit_;
  std::optional<formats::PolyglotBook> polyglot_;
  std::optional<formats::LearnedStats> learned_;
  std::vector<std::string> warnings_;
};

// The learned moves of `pos` in `stats`, most games first. Errors: kCorrupt (a move not legal in
// the position, naming `file` and the key).
[[nodiscard]] Result<LearnedMoves> learned_moves(const formats::LearnedStats& stats, const chess::Position& pos,
                                                 const std::filesystem::path& file);

// `, "learned": {...}` to go inside a book object.
[[nodiscard]] std::string learned_json(const LearnedMoves& learned);

// Score percent over the games with a known result, or `none` when there are none.
[[nodiscard]] std::string learned_score(const formats::LearnedEntry& e, const char* none);

// The report as one JSON object on one line, without a newline: fen, key, format, moves[] (and
// learned when the store exists).
[[nodiscard]] std::string book_json(const BookReport& r);

}  // namespace tbkit::explore
