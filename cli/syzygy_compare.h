// Comparison of our WDL50/DTZ50 tables with Syzygy files read through the probe library: every
// legal position of both sides to move (no en-passant right), probed as an engine probes (captures
// searched; the unstored DTZ side by one ply, or left out). For `tbkit verify` and
// scripts/verify-syzygy.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <tbb/task_arena.h>

#include "chess/result.h"
#include "formats/table_file.h"
#include "gen/wdl_dtz.h"
#include "probe/syzygy_tablebase.h"

namespace tbkit::cli {

struct SyzygyComparison {
  std::uint64_t positions = 0;      // legal positions compared (both sides)
  std::uint64_t wdl_mismatches = 0;
  // Positions whose every legal move captures, where the file stores a WDL50 better than the
  // captures' (probe_wdl_check): Stockfish and our probe answer right, Fathom does not.
  std::uint64_t wdl_stored_above_captures = 0;
  std::uint64_t dtz_compared = 0;   // positions whose DTZ was compared (a DTZ file was present)
  std::uint64_t dtz_unstored = 0;   // left out by DtzScope::kStored: the file holds the other side
  std::uint64_t dtz_exact = 0;
  std::uint64_t dtz_rounded = 0;    // one ply off ours (the file stores the class in moves)
  std::uint64_t dtz_mismatches = 0;
  std::uint64_t errors = 0;         // probes that failed
  std::vector<std::string> examples;  // the first few disagreements, with FENs (lowest index first)

  [[nodiscard]] bool passed() const {
    return positions > 0 && wdl_mismatches == 0 && wdl_stored_above_captures == 0 && dtz_mismatches == 0 && errors == 0;
  }
};

// Which positions' DTZ50 is compared: every position (the side the file leaves out through the
// probe's one-ply search), or only where the file stores it (a draw, or a zeroing move best,
// counts as stored: the probe answers it without the file). kStored is the check of the files
// themselves, and tens of times faster on 5-man tables.
enum class DtzScope { kEveryPosition, kStored };

// Compares `table` with the files of its material in `tb`. DTZ is compared when `tb` holds the
// material's DTZ file. `rounding`: accept a DTZ one ply off ours, same sign (Syzygy's files store
// some classes in moves); without it only exact DTZ values pass. `every` > 1 compares only the index
// slots that are a multiple of it (a systematic sample, the same for both sides to move).
[[nodiscard]] SyzygyComparison compare_with_syzygy(const gen::DtzTable& table, const probe::SyzygyTablebase& tb,
                                                   tbb::task_arena& arena, bool rounding = true,
                                                   std::uint64_t every = 1,
                                                   DtzScope scope = DtzScope::kEveryPosition);

// A DTM table file against Syzygy WDL50 files of its material: the result must be the same class
// on every legal position compared, of both sides to move: a DTM win is a WDL50 win or cursed win,
// a DTM loss a loss or blessed loss, a draw a draw. Needs no solving and little memory (blocks are
// decoded one at a time), so it serves tables too large to recompute WDL50 from, e.g. 6-man ones.
struct DtmWdlComparison {
  std::uint64_t positions = 0;   // legal positions compared (both sides)
  std::uint64_t mismatches = 0;
  std::uint64_t errors = 0;      // probes that failed
  std::array<std::uint64_t, 5> by_wdl{};  // positions compared, by the files' WDL50: loss .. win
  std::vector<std::string> examples;      // the first few disagreements, with FENs (lowest index first)

  [[nodiscard]] bool passed() const { return positions > 0 && mismatches == 0 && errors == 0; }
};

// Compares `file` (both sides stored: versions 1 and 2) with the WDL50 files in `tb`, probed as an
// engine probes them (captures searched; the WDL files of the tables captures reach must be there
// too). `every` > 1 compares only the index slots that are a multiple of it (a systematic sample,
// the same for both sides to move). `progress(done, total)` is called from the worker threads as
// blocks finish. Errors: kUnavailable (a one-side file: its other side is not stored), kCorrupt /
// kIo (a block of `file` cannot be read); probe errors are counted, not returned.
[[nodiscard]] Result<DtmWdlComparison> compare_dtm_with_wdl(
    const formats::TableFile& file, const probe::SyzygyTablebase& tb, tbb::task_arena& arena,
    std::uint64_t every = 1, const std::function<void(std::uint64_t, std::uint64_t)>& progress = {});

}  // namespace tbkit::cli
