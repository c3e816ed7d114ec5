// Learning from games: PGN -> experience records -> journal -> fold.
#include "pgn/book_learn.h"

#include <optional>

#include "pgn/reader.h"

namespace tbkit::pgn {
namespace {

// The book collector, plus the first game the reader could not read, with its place.
class LearnVisitor : public BookGameCollector {
 public:
  LearnVisitor(const BookFilter& filter, Sink sink) : BookGameCollector(filter, std::move(sink)) {}
  void begin_game(const GameLocation& location) override {
    location_ = location;
    BookGameCollector::begin_game(location);
  }
  void end_game(GameResult result, const GameError* error) override {
    if (error && !first_error_) {
      first_error_ = location_.source + ":" + std::to_string(error->line ? error->line : location_.line) + ": game " +
                     std::to_string(location_.game_number) + ": " + error->message;
    }
    BookGameCollector::end_game(result, error);
  }
  [[nodiscard]] const std::optional<std::string>& first_error() const { return first_error_; }

 private:
  GameLocation location_;
  std::optional<std::string> first_error_;
};

}  // namespace

formats::ExperienceGame to_experience(const BookGame& game) {
  formats::ExperienceGame g;
  switch (game.result) {
    case GameResult::kWhiteWins: g.result = formats::ExperienceResult::kWhiteWins; break;
    case GameResult::kBlackWins: g.result = formats::ExperienceResult::kBlackWins; break;
    case GameResult::kDraw: g.result = formats::ExperienceResult::kDraw; break;
    case GameResult::kUnknown: g.result = formats::ExperienceResult::kUnknown; break;
  }
  g.plies.reserve(game.plies.size());
  for (const auto& p : game.plies) g.plies.push_back(formats::ExperiencePly{p.key, p.move, !p.white_to_move});
  return g;
}

Result<std::vector<formats::ExperienceGame>> read_experience(const std::vector<std::string>& inputs) {
  std::vector<formats::ExperienceGame> games;
  BookFilter filter;
  filter.max_ply = formats::kJournalMaxPlies;
  for (const auto& path : inputs) {
    LearnVisitor visitor(filter, [&](const BookGame& g) { games.push_back(to_experience(g)); });
    ReaderOptions options;
    options.max_ply = filter.max_ply;
    auto read = read_pgn(path, visitor, options);
    if (!read) return read.error();
    if (visitor.first_error()) return make_error(ErrorCode::kCorrupt, *visitor.first_error());
    if (read->games_read == 0) return make_error(ErrorCode::kCorrupt, path + ": no games");
  }
  return games;
}

Result<LearnSummary> learn_from_pgn(const std::vector<std::string>& inputs, const std::filesystem::path& book) {
  auto games = read_experience(inputs);
  if (!games) return games.error();
  LearnSummary summary;
  summary.games = games->size();
  for (const auto& g : *games) {
    summary.plies += g.plies.size();
    if (g.result == formats::ExperienceResult::kUnknown) ++summary.unknown_results;
  }
  if (auto s = formats::append_experience(book, *games); !s) return s.error();
  auto fold = formats::fold_experience(book);
  if (!fold) return fold.error();
  summary.fold = std::move(*fold);
  return summary;
}

}  // namespace tbkit::pgn
