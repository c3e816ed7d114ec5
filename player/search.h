// Alpha-beta search: iterative deepening PVS with a transposition table, quiescence search, move
// ordering (hash move, MVV-LVA, killers, history), check extension, null-move pruning guarded
// against zugzwang, late-move reductions, and endgame-table scores inside the tree: WDL50 where
// Syzygy files cover the position (cursed wins and blessed losses score as draws), with the DTM
// distance when a DTM table has it too; DTM alone otherwise.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "chess/position.h"
#include "formats/dtm_value.h"
#include "probe/syzygy_tablebase.h"

namespace tbkit::player {

inline constexpr int kMateScore = 32000;
inline constexpr int kMaxPly = 120;
// Scores at or beyond this magnitude are mates (or table wins) at a known distance.
inline constexpr int kMateBound = kMateScore - 2 * kMaxPly - 1200;
// A table win known only as WDL50 (no distance): above every evaluation, below every mate; minus
// the ply it is found at, so a nearer one is preferred.
inline constexpr int kTableWinScore = kMateBound - 1 - kMaxPly;

// A mate score as UCI "mate N" moves (positive: the side to move mates), or nullopt for a cp score.
[[nodiscard]] std::optional<int> mate_in_moves(int score);

// Endgame table access the search uses. Implementations must be thread-safe for const calls.
class TableOracle {
 public:
  virtual ~TableOracle() = default;
  [[nodiscard]] virtual int max_men() const = 0;
  // The position's DTM value for the side to move, or nullopt when no DTM table covers it.
  [[nodiscard]] virtual std::optional<formats::DtmValue> probe(const chess::Position& pos) const = 0;
  // The position's WDL50 for the side to move (Syzygy), or nullopt when no Syzygy file covers it.
  [[nodiscard]] virtual std::optional<probe::Wdl50> probe_wdl(const chess::Position& /*pos*/) const { return std::nullopt; }
};

// What limits one search. Zero or negative values mean "no such limit".
struct SearchLimits {
  int depth = 0;
  std::uint64_t nodes = 0;
  std::int64_t movetime_ms = 0;
  std::int64_t time_ms[2] = {-1, -1};  // remaining clock per colour (white, black), -1 = none
  std::int64_t inc_ms[2] = {0, 0};
  int movestogo = 0;
  bool infinite = false;
  std::int64_t move_overhead_ms = 30;
};

// One completed (or the final partial) iteration.
struct SearchInfo {
  int depth = 0;
  int seldepth = 0;
  int score = 0;  // centipawns or a mate score, side to move's view
  std::uint64_t nodes = 0;
  std::int64_t time_ms = 0;
  std::vector<chess::Move> pv;
};

struct SearchResult {
  chess::Move best;
  chess::Move ponder;
  int score = 0;
  int depth = 0;
  std::uint64_t nodes = 0;
};

// How the search treats table hits. kExact returns every table value; kDecisiveOnly treats drawn
// table positions as ordinary positions (used when the root is a table draw, to pick, among drawing
// moves, the one that keeps the most winning chances).
enum class TableUse : std::uint8_t { kExact, kDecisiveOnly };

struct SearchOptions {
  std::vector<chess::Move> root_moves;  // search only these (empty: all legal moves)
  TableUse table_use = TableUse::kExact;
};

// A single-threaded searcher owning its transposition table. Not thread-safe; one search at a time.
class Searcher {
 public:
  explicit Searcher(std::size_t hash_mb = 16);
  // Resizes (and clears) the transposition table; hash_mb is clamped to [1, 4096]. The table's
  // memory is taken by the next search, not here.
  void set_hash_size(std::size_t hash_mb);
  // Forgets everything learnt (new game).
  void clear();
  // The oracle must outlive the searcher's use of it; nullptr disables table probing.
  void set_tables(const TableOracle* tables) { tables_ = tables; }

  // Searches pos (its history is used for repetition detection) until a limit or `stop` is hit.
  // on_info is called after each completed iteration. The position must have a legal move.
  [[nodiscard]] SearchResult search(const chess::Position& pos, const SearchLimits& limits, const std::atomic<bool>& stop,
                                    const std::function<void(const SearchInfo&)>& on_info,
                                    const SearchOptions& options = {});

 private:
  struct TtEntry {
    std::uint64_t key = 0;
    std::uint16_t move = 0;
    std::int16_t score = 0;
    std::int8_t depth = 0;
    std::uint8_t bound = 0;
    std::uint8_t generation = 0;
  };
  enum Bound : std::uint8_t { kNone = 0, kUpper = 1, kLower = 2, kExactBound = 3 };

  int negamax(int alpha, int beta, int depth, int ply, bool pv_node, bool allow_null);
  int quiesce(int alpha, int beta, int ply);
  [[nodiscard]] bool should_stop();
  [[nodiscard]] TtEntry* tt_slot(std::uint64_t key) { return &tt_[key & (tt_.size() - 1)]; }
  void tt_store(std::uint64_t key, chess::Move m, int score, int depth, Bound bound, int ply);
  [[nodiscard]] std::optional<int> probe_table(int ply);
  void order_moves(chess::Move* moves, int* scores, int count, chess::Move hash_move, int ply) const;
  [[nodiscard]] std::int64_t elapsed_ms() const;

  std::vector<TtEntry> tt_;  // empty until a search needs it
  std::size_t tt_entries_ = 0;  // its size from set_hash_size, a power of two
  std::uint8_t generation_ = 0;
  const TableOracle* tables_ = nullptr;

  // Per-search state.
  chess::Position pos_;
  const std::atomic<bool>* stop_ = nullptr;
  bool stopped_ = false;
  std::uint64_t nodes_ = 0;
  std::uint64_t node_limit_ = 0;
  std::int64_t hard_limit_ms_ = 0;
  std::chrono::steady_clock::time_point start_;
  int seldepth_ = 0;
  TableUse table_use_ = TableUse::kExact;
  std::vector<chess::Move> root_moves_;
  chess::Move root_best_;
  chess::Move killers_[kMaxPly + 2][2]{};
  int history_[2][64][64]{};
  chess::Move pv_[kMaxPly + 2][kMaxPly + 2]{};
  int pv_len_[kMaxPly + 2]{};
};

}  // namespace tbkit::player
