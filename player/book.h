// Opening-book move choice for the player: reads a .tbb (tbkit's book) or a Polyglot .bin and picks
// a move for a position, either at random weighted by how often it was played or the best-scoring
// one, among moves played in at least a minimum number of games.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "chess/position.h"
#include "chess/result.h"
#include "formats/book_file.h"
#include "formats/polyglot_book.h"

namespace tbkit::player {

enum class BookSelection : std::uint8_t { kWeighted, kBest };

struct BookPolicy {
  std::uint32_t min_games = 1;  // moves played fewer times are ignored (Polyglot: weight)
  BookSelection selection = BookSelection::kWeighted;
};

struct BookCandidate {
  chess::Move move;
  std::uint32_t games = 0;  // games (.tbb) or weight (Polyglot)
  double score = 0.5;       // mover's score (wins + draws/2) / games; Polyglot: weight share
};

class OpeningBook {
 public:
  // Opens a .tbb (recognised by its magic) or else a Polyglot .bin.
  // Errors: kIo, kCorrupt, kVersion as formats::BookFile::open / read_polyglot_book.
  [[nodiscard]] static Result<OpeningBook> open(const std::filesystem::path& path);

  // The book's legal moves for pos that pass min_games, most played first. Entries whose move is
  // not legal (a key collision) are dropped. Thread-safe.
  [[nodiscard]] std::vector<BookCandidate> candidates(const chess::Position& pos, std::uint32_t min_games) const;
  // A move chosen by the policy, or nullopt when the position is out of book.
  [[nodiscard]] std::optional<chess::Move> choose(const chess::Position& pos, const BookPolicy& policy,
                                                  std::mt19937_64& rng) const;

 private:
  std::shared_ptr<const formats::BookFile> tbb_;
  std::shared_ptr<const formats::PolyglotBook> polyglot_;
};

}  // namespace tbkit::player
