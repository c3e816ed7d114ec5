// Engine: the player's decision maker. For a position it plays, in order of preference, a book move
// (until the game leaves the book), the tables' move by the root rule (player/root_rule.h: a win
// under the 50-move rule, the clock included, by the DTM-fastest safe move when Syzygy files are
// at hand, else the DTM-optimal move; longest resistance when losing; when drawn, a search among
// the drawing moves only), or a searched move.
// Search can run on a background thread so a UCI loop can keep reading commands (stop, isready).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "chess/position.h"
#include "chess/result.h"
#include "player/book.h"
#include "player/learning.h"
#include "player/search.h"

namespace tbkit::player {

// Table access at the root: every legal move with its value for the side to move, best first.
class RootTableOracle : public TableOracle {
 public:
  struct RankedMove {
    chess::Move move;
    formats::DtmValue value;  // for the mover: win/loss in plies from the root, counting the move
  };
  // DTM values of every legal move, best first; nullopt when no DTM table covers pos or a successor.
  [[nodiscard]] virtual std::optional<std::vector<RankedMove>> rank_moves(const chess::Position& pos) const = 0;
  // Syzygy WDL50/DTZ50 of every legal move (probe::SyzygyTablebase::rank_moves); nullopt when no
  // Syzygy WDL and DTZ files cover pos and its successors.
  [[nodiscard]] virtual std::optional<std::vector<probe::Dtz50Move>> rank_moves_50(const chess::Position& /*pos*/) const {
    return std::nullopt;
  }
  // A damaged or unreadable table met since the last call (a missing table is no error), each
  // reported once: the player says so instead of silently playing without it.
  [[nodiscard]] virtual std::vector<std::string> take_errors() const { return {}; }
};

struct EngineOptions {
  std::size_t hash_mb = 16;
  std::string book_file;  // empty: no book
  BookPolicy book;
  std::string tablebase_path;  // directories separated by ':' (*.dtm and *.rtbw/*.rtbz); empty: no tables
  std::int64_t move_overhead_ms = 30;
  bool learning = false;        // use and record the experience store (docs/player.md)
  std::string experience_file;  // the store's journal (*.exp); empty: BOOK_FILE.exp beside the book
  LearnPolicy learn;
};

// Where a decision came from.
enum class MoveSource : std::uint8_t { kBook, kTable, kSearch };

struct Decision {
  chess::Move best;
  chess::Move ponder;
  MoveSource source = MoveSource::kSearch;
  bool learned = false;  // a book move chosen by a proven learned score (source kBook)
  std::vector<chess::Move> left;  // moves the experience store left out of the choice
  SearchInfo last_info;  // the final iteration (tables: depth 1, the table's line)
  std::vector<std::string> table_errors;  // damaged or unreadable tables met while deciding
};

class Engine {
 public:
  using InfoCallback = std::function<void(const SearchInfo&)>;
  using DoneCallback = std::function<void(const Decision&)>;

  Engine();
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Option setters validate and load. Errors: kInvalidArgument, and the book's or tables' open errors
  // (the previous book or tables are then dropped).
  [[nodiscard]] Status set_hash_mb(std::size_t mb);
  [[nodiscard]] Status set_book(const std::string& path);
  void set_book_policy(const BookPolicy& policy) { options_.book = policy; }
  [[nodiscard]] Status set_tablebase_path(const std::string& dirs);
  void set_move_overhead(std::int64_t ms) { options_.move_overhead_ms = ms; }
  // Book learning on or off; on loads the store. Errors: the store's load errors (learning is then
  // off).
  [[nodiscard]] Status set_learning(bool on);
  // The store's journal, a path ending in ".exp" (its learned statistics go beside it, ".learn");
  // empty: BOOK_FILE.exp. Reloads the store when learning is on. Errors: kInvalidArgument, and the
  // store's load errors.
  [[nodiscard]] Status set_experience_file(const std::string& path);
  void set_learn_policy(const LearnPolicy& policy) { options_.learn = policy; }
  // Reads the store again (games recorded since, by this or other processes). A no-op with learning
  // off. Errors: as Experience::load.
  [[nodiscard]] Status reload_experience();
  // The store's base path (journal = base + ".exp"); nullopt with no ExperienceFile and no book.
  [[nodiscard]] std::optional<std::filesystem::path> experience_base() const;
  // Records a finished game (every ply from start, both sides; the result the final position shows,
  // else `fallback`) when learning is on. Returns false when nothing was recorded (learning off, no
  // store, or no moves). Errors: the store's write errors.
  [[nodiscard]] Result<bool> record_game(const chess::Position& start, const std::vector<chess::Move>& moves,
                                         formats::ExperienceResult fallback = formats::ExperienceResult::kUnknown);
  // Seeds the book's random choice (for reproducible games).
  void set_seed(std::uint64_t seed) { rng_.seed(seed); }
  // Installs a table oracle directly (tests; set_tablebase_path builds one from files).
  void set_tables(std::shared_ptr<const RootTableOracle> tables);
  [[nodiscard]] const EngineOptions& options() const { return options_; }
  [[nodiscard]] bool has_tables() const { return tables_ != nullptr; }

  // New game: clears the hash table and history and re-enters the book.
  void new_game();

  // Decides a move for pos synchronously. pos must have a legal move. Not to be called while a
  // background search runs.
  [[nodiscard]] Decision think(const chess::Position& pos, const SearchLimits& limits, const std::atomic<bool>& stop,
                               const InfoCallback& on_info, const std::vector<chess::Move>& search_moves = {});

  // Starts think() on a background thread; on_done is called from that thread. With
  // limits.infinite the result is held back until stop().
  void start(const chess::Position& pos, const SearchLimits& limits, InfoCallback on_info, DoneCallback on_done,
             std::vector<chess::Move> search_moves = {});
  // Asks a background search to finish and waits for it (on_done has run when this returns).
  void stop();
  // Waits for a background search to finish by itself.
  void wait();
  [[nodiscard]] bool searching() const { return thread_.joinable(); }

 private:
  Decision decide(const chess::Position& pos, const SearchLimits& limits, const std::atomic<bool>& stop, const InfoCallback& on_info,
                  const std::vector<chess::Move>& search_moves);
  // Whether the tables answer for pos: no castling rights and no more men than the largest table.
  [[nodiscard]] bool tables_cover(const chess::Position& pos) const;
  std::optional<Decision> try_book(const chess::Position& pos, std::vector<chess::Move>& left);
  std::optional<Decision> try_tables(const chess::Position& pos, const SearchLimits& limits, const std::atomic<bool>& stop,
                                     const InfoCallback& on_info);

  EngineOptions options_;
  Searcher searcher_;
  std::shared_ptr<const OpeningBook> book_;
  std::shared_ptr<const RootTableOracle> tables_;
  std::shared_ptr<const Experience> experience_;  // loaded while learning is on
  bool out_of_book_ = false;
  std::mt19937_64 rng_{std::random_device{}()};
  std::thread thread_;
  std::atomic<bool> stop_{false};
};

}  // namespace tbkit::player
