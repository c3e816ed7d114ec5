// BookGameCollector: a PGN visitor that turns each game into the plies a book records, after the
// build's filters (ply limit, colour, rating, date). Complete games go to a caller-supplied sink.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "formats/book_file.h"
#include "pgn/visitor.h"

namespace tbkit::pgn {

struct BookFilter {
  std::uint32_t max_ply = 1024;  // record plies 0 .. max_ply-1 of each game
  std::uint32_t min_elo = 0;     // 0 = no rating filter
  formats::EloOf elo_of = formats::EloOf::kMover;
  formats::ColourFilter colour = formats::ColourFilter::kBoth;
  std::uint32_t since = 0;  // YYYYMMDD; 0 = no bound. Games without a known year fail any bound;
                           // partial dates pass if any day they stand for is inside.
  std::uint32_t until = 0;
  bool variations = false;  // record moves inside variations too
};

// One recorded ply: the position's Polyglot key, the move in Polyglot encoding, the mover.
struct BookPly {
  std::uint64_t key = 0;
  std::uint16_t move = 0;
  bool white_to_move = true;
};

struct BookGame {
  GameResult result = GameResult::kUnknown;  // from the movetext (or the Result tag)
  int tag_result = 0;                        // Result tag only: +1 "1-0", -1 "0-1", 0 anything else
  std::uint32_t white_elo = 0;               // 0 = unknown
  std::uint32_t black_elo = 0;
  std::vector<BookPly> plies;
};

// Parses a PGN Date tag ("2021.03.??") to YYYYMMDD with unknown month/day as 00; 0 if the year is unknown.
[[nodiscard]] std::uint32_t parse_pgn_date(std::string_view text);

class BookGameCollector : public Visitor {
 public:
  using Sink = std::function<void(const BookGame&)>;
  BookGameCollector(const BookFilter& filter, Sink sink) : filter_(filter), sink_(std::move(sink)) {}

  void begin_game(const GameLocation& location) override;
  void tag(std::string_view name, std::string_view value) override;
  bool begin_moves(const chess::Position& start) override;
  void move(const chess::Position& before, chess::Move move, int variation_depth) override;
  void end_game(GameResult result, const GameError* error) override;

  [[nodiscard]] std::uint64_t games_recorded() const { return games_recorded_; }
  [[nodiscard]] std::uint64_t games_filtered() const { return games_filtered_; }

 private:
  [[nodiscard]] bool game_passes() const;

  BookFilter filter_;
  Sink sink_;
  BookGame game_;
  std::uint32_t date_ = 0;
  int start_fullmove_ = 1;
  bool start_black_ = false;
  bool skip_ = false;
  std::uint64_t games_recorded_ = 0;
  std::uint64_t games_filtered_ = 0;
};

}  // namespace tbkit::pgn
