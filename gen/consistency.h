// One-ply consistency: a position's value recomputed from its successors' stored values.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <tbb/task_arena.h>

#include "gen/table_set.h"
#include "gen/wdl_dtz.h"

namespace tbkit::gen {

// The value `b` must have given its successors: checkmate, stalemate, else the best backed-up
// value over legal moves (a double push answerable en passant: model/one_ply.h, with_en_passant).
// Successors are looked up in `tables`, which must hold b's table and its conversions. `own`, if
// given, is b's table with b as its index orients it (as decoded from it): the successors of quiet
// moves are read from it directly, the same values without finding the table by material each time.
[[nodiscard]] DtmValue value_from_successors(const TableSet& tables, const Board& b, const SolvedTable* own = nullptr);

struct ConsistencyReport {
  std::uint64_t checked = 0;
  std::uint64_t failed = 0;
  std::string first_failure;  // "FEN: stored X, successors give Y"
};

// Checks every stored position of `table` (which must be in `tables`) against its successors, in
// parallel in `arena`; the report does not depend on the arena's size. `progress` counts the slots
// of both sides.
[[nodiscard]] ConsistencyReport check_consistency(const SolvedTable& table, const TableSet& tables, tbb::task_arena& arena,
                                                  const SlotProgressFn& progress = {});

// The DTZ50 `b` must have given its successors (docs/wdl50.md): a win takes its fastest way to a
// zeroing move into a loss or to mate, a loss its slowest; 0 when no move wins and not every move
// loses. `table` is b's table with b as its index orients it; `subtables` its conversions.
[[nodiscard]] int dtz_from_successors(const DtzTable& table, const DtzSet& subtables, const Board& b);

// Checks every legal position of a WDL50/DTZ50 table against its successors, and its verdict
// against the DTM table of the same material (`dtm`): a WDL50 win or cursed win exactly where DTM
// wins, a loss or blessed loss exactly where DTM loses. In parallel in `arena`; the report does
// not depend on the arena's size.
[[nodiscard]] ConsistencyReport check_dtz_consistency(const DtzTable& table, const SolvedTable& dtm,
                                                      const DtzSet& subtables, tbb::task_arena& arena);

// "win in 7 plies", "loss in 0 plies", "draw", "illegal".
[[nodiscard]] std::string describe(DtmValue v);

}  // namespace tbkit::gen
