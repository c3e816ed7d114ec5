// WDL50 and DTZ50 (Syzygy's values under the 50-move rule) computed from a solved DTM table and
// the DTZ50 tables of the materials it converts into.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string_view>
#include <vector>

#include <tbb/task_arena.h>

#include "chess/result.h"
#include "formats/large_allocator.h"
#include "gen/model.h"
#include "gen/table_set.h"
#include "model/board.h"
#include "model/index_scheme.h"

namespace tbkit::gen {

// A position's DTZ50 in plies, for the side to move, with the 50-move counter at zero (Stockfish's
// probe_dtz convention): 0 draw; +d a win whose next capture, pawn move or mate comes d plies on
// with best play (the winner hastens it, the loser delays it), -d such a loss, -1 also for a
// checkmated side. |d| <= 100: a win or loss under the 50-move rule, |d| > 100: a cursed win or
// blessed loss (a draw under the rule). A zeroing move into a blessed loss counts 101 plies.
using Dtz = std::int16_t;
// The value of an unused or illegal slot.
inline constexpr Dtz kDtzIllegal = std::numeric_limits<Dtz>::min();

// The WDL50 of a legal position's DTZ50: 2 win, 1 cursed win, 0 draw, -1 blessed loss, -2 loss.
[[nodiscard]] constexpr int wdl50(int dtz) {
  if (dtz > 0) return dtz <= 100 ? 2 : 1;
  if (dtz < 0) return dtz >= -100 ? -2 : -1;
  return 0;
}

// One material's DTZ50 for both sides to move, in the IndexScheme order of its DTM table
// (normalized material as White). 2 bytes per slot and side.
struct DtzTable {
  explicit DtzTable(const Material& m) : scheme(m) {}
  IndexScheme scheme;
  // [side to move][index]; kDtzIllegal in unused slots. Fresh pages, first written by the solver.
  std::array<formats::ZeroedArray<Dtz>, 2> values;

  [[nodiscard]] const Material& material() const { return scheme.material(); }
  // The DTZ50 of a legal board of this exact material (White = stored White).
  [[nodiscard]] Dtz dtz(const Board& b) const { return values[index_of(b.side)][scheme.encode(b)]; }
  // The WDL50 of the same (see wdl50).
  [[nodiscard]] int wdl(const Board& b) const { return wdl50(dtz(b)); }
};

// One material's WDL50 alone, for both sides to move, in the same index order as its DtzTable:
// what a table that converts into it reads. Three slots a byte (the five values in base 5), a sixth
// of the DtzTable's memory: `gen --all 5 --syzygy` holds up to 90 such tables at once (the 5-man
// tables without pawns stay needed until the last pawn table that promotes into them), 41 GB as
// DtzTables, 6.9 GB so. An unused slot reads as a draw; no legal board reaches one.
struct WdlTable {
  explicit WdlTable(const Material& m) : scheme(m) {}
  // The WDL50 of every slot of `table`, packed in parallel in `arena`.
  [[nodiscard]] static std::shared_ptr<const WdlTable> of(const DtzTable& table, tbb::task_arena& arena);
  // The same read off the table's DTM when every position of it is won or lost in at most
  // kShortDtmPlies plies (a mate comes before the 50-move rule could draw: a DTM win is a WDL50 win,
  // a loss a loss, a draw a draw), without solving its DTZ50; null when some position takes longer.
  [[nodiscard]] static std::shared_ptr<const WdlTable> of_short_dtm(const SolvedTable& dtm, tbb::task_arena& arena);
  static constexpr int kShortDtmPlies = 99;
  IndexScheme scheme;
  std::array<formats::ZeroedArray<std::uint8_t>, 2> packed;  // [side to move][index / 3]

  [[nodiscard]] const Material& material() const { return scheme.material(); }
  // The WDL50 of slot i of `side` (as wdl50 gives it).
  [[nodiscard]] int wdl(int side, std::uint64_t i) const { return digit(packed[side][i / 3], int(i % 3)) - 2; }
  // The WDL50 of a legal board of this exact material (White = stored White).
  [[nodiscard]] int wdl(const Board& b) const { return wdl(index_of(b.side), scheme.encode(b)); }
  // Digit k (0..2) of a byte holding three base-5 digits.
  [[nodiscard]] static int digit(std::uint8_t byte, int k) {
    constexpr int kPower[3] = {1, 5, 25};
    return byte / kPower[k] % 5;
  }
};

// DTZ50 tables held in memory, each whole (a DtzTable) or as its WDL50 alone (a WdlTable), looked
// up by material in either colour orientation. Filled by one thread, then read concurrently (the
// probes are const and thread-safe).
class DtzSet {
 public:
  // Precondition: `table` is not null.
  void add(std::shared_ptr<const DtzTable> table);
  void add(std::shared_ptr<const WdlTable> table);
  // Adds `other`'s table of `normalized`, in the form `other` holds it; false when it has none.
  bool add_from(const DtzSet& other, const Material& normalized);
  // The whole table of `normalized`, or null (also when only its WDL50 is held).
  [[nodiscard]] const DtzTable* find(const Material& normalized) const;
  // Whether a table of `normalized` is held, in either form.
  [[nodiscard]] bool contains(const Material& normalized) const;
  // The DTZ50 of any legal board whose whole table is in the set (bare kings: 0). Precondition:
  // present as a DtzTable.
  [[nodiscard]] Dtz probe(const Board& b) const;
  // The WDL50 of any legal board whose table is in the set, in either form (bare kings: 0).
  // Precondition: present.
  [[nodiscard]] int wdl(const Board& b) const;
  [[nodiscard]] std::size_t size() const { return whole_.size() + wdl_only_.size(); }

 private:
  struct Entry {
    std::uint32_t key;
    bool flip;
    const DtzTable* whole;     // one of the two is set
    const WdlTable* wdl_only;
  };
  [[nodiscard]] const Entry* entry(std::uint32_t key) const;
  void add_entries(const Material& m, const DtzTable* whole, const WdlTable* wdl_only);
  std::vector<std::shared_ptr<const DtzTable>> whole_;
  std::vector<std::shared_ptr<const WdlTable>> wdl_only_;
  std::vector<Entry> entries_;
};

struct DtzProgress {
  // "init" (exits of a level), "retro" (a level's plies), "pull" (from this ply on, one side's
  // open wins look for a loss among their children instead of being pushed by the losses: `done`
  // is how many they are)
  std::string_view phase;
  int level = 0;            // 0-based, most advanced pawns first; pawnless tables have one level
  int levels = 0;
  int ply = 0;              // retro: the ply propagated
  std::uint64_t done = 0;   // slots of this level initialised, or resolved so far
  std::uint64_t total = 0;  // slots of this level over both sides
};
using DtzProgressFn = std::function<void(const DtzProgress&)>;

// Computes the DTZ50 table of `dtm`'s material (both sides to move) from its exact DTM values
// and the DTZ50 tables of every material it converts into (Material::conversions), which must be
// in `subtables`, else kUnavailable naming the missing one. A position wins (or cursed-wins)
// exactly when its DTM wins; only the distance is computed, pawn levels (most advanced first) one
// after another, each by retrograde analysis of its non-zeroing moves. kCorrupt when `dtm` is not
// self-consistent (a position left unresolved). Runs its parallel loops in `arena`; the result is
// identical for any arena size. `progress` (may be empty) is called from the calling thread
// between steps.
[[nodiscard]] Result<std::shared_ptr<DtzTable>> solve_dtz(const SolvedTable& dtm, const DtzSet& subtables,
                                                          tbb::task_arena& arena, const DtzProgressFn& progress = {});

}  // namespace tbkit::gen
