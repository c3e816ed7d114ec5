// A position's tablebase values (DTM, and WDL50/DTZ50 where Syzygy files cover it), in words and as
// the JSON object that `tbkit probe --json` prints and the explorer's /api/tables returns
// (docs/probe.md, "JSON").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chess/position.h"
#include "chess/result.h"
#include "formats/dtm_value.h"
#include "probe/syzygy_tablebase.h"
#include "probe/tablebase.h"

namespace tbkit::explore {

// The 50-move rule's values of a position and of its moves.
struct FiftyValues {
  probe::Dtz50 value;
  std::vector<probe::Dtz50Move> moves;
};

struct TableReport {
  chess::Position position;
  formats::DtmValue value;
  std::vector<probe::RankedMove> moves;  // best first (probe::Tablebase::rank_moves)
  std::optional<FiftyValues> fifty;      // when the Syzygy files cover the position

  // The 50-move values of one of `moves`; nullptr without Syzygy values.
  [[nodiscard]] const probe::Dtz50Move* fifty_of(chess::Move m) const;
};

// Probes `pos` and every move in the DTM tables, then in the Syzygy files if they cover it.
// Errors: those of Tablebase::probe/rank_moves (kUnavailable: no table; kInvalidArgument: castling
// rights; kCorrupt, kVersion, kIo), then a damaged Syzygy file's. Thread-safe (both tablebases'
// const methods are).
[[nodiscard]] Result<TableReport> probe_tables(const probe::Tablebase& tb, const probe::SyzygyTablebase& sz,
                                               const chess::Position& pos);

// "win", "loss" or "draw" for the side the value belongs to.
[[nodiscard]] const char* result_word(formats::DtmValue v);
// "White mates in 33", "Black to move is mated in 12", "Black is checkmated", "Draw (stalemate)".
[[nodiscard]] std::string verdict_words(const chess::Position& pos, formats::DtmValue v);
// "win, DTZ 7", "cursed win, DTZ 123", "draw".
[[nodiscard]] std::string dtz_words(probe::Wdl50 w, int dtz);
// "; under the 50-move rule a win: DTZ 7" to follow the DTM verdict; empty without Syzygy values.
[[nodiscard]] std::string fifty_suffix(const TableReport& r);

// The report as one JSON object on one line, without a newline: fen, side_to_move, result,
// dtm_plies, mate_in_moves, verdict, wdl50, dtz50, moves[]. `extra` (", \"line\": ...") goes in
// before the closing brace.
[[nodiscard]] std::string table_json(const TableReport& r, std::string_view extra = {});

}  // namespace tbkit::explore
