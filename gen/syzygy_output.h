// Syzygy files from a solved table: MATERIAL.rtbw (WDL50, both sides to move) and MATERIAL.rtbz
// (DTZ50, one side to move), in Syzygy's own format (docs/formats/syzygy.md), so that Stockfish and
// every other Syzygy reader probes them. The values are a DtzTable's (gen/wdl_dtz.h); the slots a
// Syzygy reader never consults (illegal placements, values a capture already reaches, DTZ of
// draws and of positions whose best move zeroes) are left to the encoder to fill.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string_view>

#include <tbb/task_arena.h>

#include "chess/result.h"
#include "gen/run.h"
#include "gen/wdl_dtz.h"

namespace tbkit::gen {

inline constexpr const char* kWdlExtension = ".rtbw";
inline constexpr const char* kDtzExtension = ".rtbz";

// dir/KQvKR.rtbw or .rtbz (`extension` one of the two above).
[[nodiscard]] std::filesystem::path syzygy_path(const std::filesystem::path& dir, const Material& m,
                                                std::string_view extension);

struct SyzygyFiles {
  std::uint64_t wdl_bytes = 0;
  std::uint64_t dtz_bytes = 0;
};

// How the Syzygy writer picks each subtable's piece order (docs/formats/syzygy.md, "Writing").
struct SyzygyWriteOptions {
  // Per subtable (WDL: each side and lead file; DTZ: each side to move it may store, per lead file),
  // the piece order whose sample compresses smallest; false: the default order everywhere.
  bool choose_orders = true;
  // The sample a candidate order is judged on: 1 / 2^sample_fraction_log2 of the subtable, at least
  // sample_min values (the whole subtable when smaller), in sample_segments evenly spread ranges.
  // Many short ranges judge better than a few long ones (docs/results.md, "the piece-order sample"):
  // with 64 ranges the search chose worse orders on some 5-man subtables (KQvKNN's WDL file 13%
  // larger); a larger minimum does the same for the small subtables of 3 and 4 men.
  int sample_fraction_log2 = 5;
  std::uint64_t sample_min = std::uint64_t{1} << 18;
  int sample_segments = 512;
  // A round of the search with more than prune_keep candidates judges them all first on a sample
  // 2^prune_shift times smaller (its minimum too; same segments), and only the prune_keep best of
  // them on the full sample; the rest do not compete. Only where that sample is the smaller (by
  // default subtables of more than 2^15 values). 0: every candidate on the full sample.
  int prune_keep = 4;
  int prune_shift = 3;
  // DTZ files store one side to move per lead file. When one side's best sample is smaller than the
  // other's by more than this percentage, only that side is compressed in full; otherwise both are,
  // and the smaller is kept (-1: always both). Needs choose_orders.
  int side_margin_percent = 10;
};

// Writes dir/M.rtbw and dir/M.rtbz of `table` (each tmp + rename). `subtables` must hold every
// table `table` converts into (their WDL50 decides which slots are don't-cares). The slots' codes
// are computed in parallel in `arena`, once per subtable in the default piece order; other orders
// read them through an index map. The files are the same for any arena size. Errors: kIo naming
// the file; kInvalidArgument from the encoder (a bug: values it cannot store).
[[nodiscard]] Result<SyzygyFiles> write_syzygy_files(const std::filesystem::path& dir, const DtzTable& table,
                                                     const DtzSet& subtables, tbb::task_arena& arena,
                                                     const SyzygyWriteOptions& options = {});

// True when dir/M.rtbw and dir/M.rtbz both open as tables of `m` and their embedded checksums match.
[[nodiscard]] bool has_valid_syzygy_files(const std::filesystem::path& dir, const Material& m);

struct SyzygySummary {
  Material material;
  bool skipped = false;        // both files already present and valid
  double seconds = 0;          // wall time: the WDL/DTZ pass and writing
  double solve_seconds = 0;    // of which the WDL/DTZ pass
  std::uint64_t wdl_bytes = 0, dtz_bytes = 0;
  // Both sides to move, every legal placement once (as `tbkit stats`).
  std::uint64_t wins = 0, cursed_wins = 0, draws = 0, blessed_losses = 0, losses = 0;
};

// The WDL/DTZ table of `m` computed from the DTM files in `dir` (MATERIAL.dtm of `m` and of every
// table it depends on). One-side tables are read through expanded copies written in `cache`, each
// removed once nothing later needs it (a caller that only reads `dir` passes a private directory).
// Errors: those of reading the DTM files, naming the file.
[[nodiscard]] Result<std::shared_ptr<DtzTable>> dtz_table_from_dtm_files(const std::filesystem::path& dir,
                                                                         const Material& m, tbb::task_arena& arena,
                                                                         const std::filesystem::path& cache);

// Calls `visit` with the WDL/DTZ table of each material of `wanted`, in dependency order, computed
// from the DTM files in `dir` (of the material and of every table it depends on), with the
// material's DTM table, the WDL/DTZ tables it converts into and the pass's wall seconds. The tables
// they depend on are solved once for the whole list. Expanded copies go to `cache`, as
// dtz_table_from_dtm_files's. Errors: those of reading the DTM files (naming the file), and the
// first error `visit` returns (which stops the walk).
using DtzVisit = std::function<Status(const DtzTable& table, const SolvedTable& dtm, const DtzSet& subtables,
                                      double seconds)>;
[[nodiscard]] Status visit_dtz_tables(const std::filesystem::path& dir, const std::vector<Material>& wanted,
                                      tbb::task_arena& arena, const std::filesystem::path& cache,
                                      const DtzVisit& visit);

// What the Syzygy step is doing, for a progress line.
struct SyzygyProgress {
  Material material;
  // "read" (its DTM table and those it converts into), "solve" (the WDL/DTZ pass: `dtz` says
  // where), "write" (its two files)
  std::string_view phase;
  bool dependency = false;  // files present, but a later table needs its WDL/DTZ: solved, not written
  DtzProgress dtz;          // during "solve"
};
using SyzygyProgressFn = std::function<void(const SyzygyProgress&)>;

// Writes dir/M.rtbw and dir/M.rtbz for `wanted` (normalized) and every table they convert into,
// from the DTM tables in opts.dir (generate_tables must have made them). Files present and valid
// are kept; the WDL/DTZ tables later tables need are recomputed from the DTM files (a resumed
// run), and held only while a later table of the run needs them. `summary` is called after each
// table and `progress` (may be empty) between steps, both from the calling thread. Errors: those of
// reading the DTM tables (naming the file), kIo naming a file that cannot be written.
[[nodiscard]] Status generate_syzygy_tables(const std::vector<Material>& wanted, const GenOptions& opts,
                                            tbb::task_arena& arena,
                                            const std::function<void(const SyzygySummary&)>& summary,
                                            const SyzygyWriteOptions& options = {},
                                            const SyzygyProgressFn& progress = {});

}  // namespace tbkit::gen
