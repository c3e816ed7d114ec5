// The run manager: generates a list of tables and everything they convert into, in dependency
// order, writing each finished table atomically and skipping tables already present and valid.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tbb/task_arena.h>

#include "formats/table_file.h"
#include "gen/solver.h"

namespace tbkit::gen {

inline constexpr const char* kTableExtension = ".dtm";
// The directory, inside a version-3 run's table directory, of its expanded copies (expanded_source).
inline constexpr const char* kExpandedCacheDir = ".tbkit-expanded";
// The directory, inside a run's table directory, of the values of the tables it read back from
// disk, decoded and mapped (TableSet::keep_probe_values_in); removed when the run ends.
inline constexpr const char* kProbeValuesDir = ".tbkit-values";

// The file holding a normalized material's table in `dir`: dir/KQvKR.dtm.
[[nodiscard]] std::filesystem::path table_path(const std::filesystem::path& dir, const Material& m);

struct GenOptions {
  std::filesystem::path dir = ".";
  std::uint64_t memory_limit = 0;  // bytes; 0 = no limit
  // Solved tables that later tables of the run convert into stay in memory, up to this many bytes
  // beyond what the current table needs (and within memory_limit), so they are not read back from
  // disk (a version-3 table from its expanded copy, kExpandedCacheDir). Soonest needed first.
  std::uint64_t keep_bytes = std::uint64_t{1} << 30;
  std::string generator;           // written into each file's header
  std::int64_t created = 0;        // header timestamp (SOURCE_DATE_EPOCH or 0, chosen by the caller)
  formats::TableWriteOptions write;  // default: LZMA2, both sides (v2); write_options_named("small", "one") for v3
  // Under MPI (split.cluster set): every rank calls generate_tables with the same arguments. Whole
  // tables go to the ranks as their dependencies are done (a table farm, generate_farm); a table
  // that needs more than split_above bytes (0: none), or every table with split_all, is solved by
  // all the ranks together (solve_table's SplitSolve, slices mapped by split.seed), and rank 0
  // writes it. Format version 2 only, and the ranks share opts.dir.
  SplitSolve split;
  bool split_all = false;
  std::uint64_t split_above = 0;
  // Set by the farm for the one table it hands a rank (gen/farm.cpp): the run then leaves the
  // directory's leftovers to the farm, which cleans them once before any rank starts.
  bool farm_job = false;
};

struct TableSummary {
  Material material;
  bool skipped = false;          // already present and valid
  std::uint64_t positions = 0;   // legal positions stored (both sides, symmetry-reduced)
  std::uint64_t wins = 0, draws = 0, losses = 0;
  int longest_plies = 0;         // longest win in plies (0 if none)
  // With 2+ threads a table of up to 64 MiB is written while the next one is solved: its write
  // figures then overlap the next table's solve figures, wall and CPU alike.
  double seconds = 0;            // wall time for this table: loading dependencies, solving, writing
  double solve_seconds = 0;      // of which solving
  double write_seconds = 0;      // of which coding and writing the file
  double solve_cpu_seconds = 0;  // process CPU time (user + system, all threads) while solving
  double write_cpu_seconds = 0;  // and while writing
  std::uint64_t peak_rss = 0;    // bytes, of the whole process so far
  std::uint64_t file_bytes = 0;  // size of the table's file (written, or present and valid)
  std::size_t tables_read = 0;   // tables read from disk for it (the others were kept in memory)
  bool split = false;                 // solved by all the ranks of an MPI run together
  std::uint64_t exchanged_bytes = 0;  // split solve: bytes all ranks sent each other for it
  std::uint64_t others_peak_rss = 0;  // split solve: the largest peak RSS of the ranks but 0, so far
  int plies = 0;                      // the solve's last ply
};

// Peak resident set size of this process in bytes (getrusage).
[[nodiscard]] std::uint64_t peak_rss_bytes();
// CPU time used so far by this process (user + system, all threads), in seconds (getrusage).
[[nodiscard]] double cpu_seconds();

// Bytes needed to generate `m`: the solver plus the tables it converts into, held in memory; for
// `format_version` 3 at least what the one-side writer holds (both sides' values, their slot
// freedom, the stored side in its storage order). Each table held is read alone (a version-3 one
// from its expanded copy, expanded_source), so only the direct conversions count.
[[nodiscard]] std::uint64_t generation_bytes(const Material& m, std::uint32_t format_version = 2);
// The part of it that is the tables m converts into, 2 bytes a slot and side: in memory when held
// from earlier in the run, else decoded into files under kProbeValuesDir and mapped.
[[nodiscard]] std::uint64_t conversion_bytes(const Material& m);

// This machine's memory in bytes (0 when unknown).
[[nodiscard]] std::uint64_t physical_memory_bytes();

// Without a memory limit (opts.memory_limit 0), a warning naming the table of the run (`wanted`
// and their dependencies, less those in opts.dir with a matching header) that needs the most
// memory, when it needs more than `physical` bytes: such a run would be killed at that table,
// possibly hours in. Nothing otherwise.
[[nodiscard]] std::optional<std::string> memory_warning(const std::vector<Material>& wanted, const GenOptions& opts,
                                                        std::uint64_t physical);

// Generates `wanted` (normalized) and their dependencies into opts.dir, writing a small table's
// file while the next table is solved (at most one write in flight; see TableSummary). Refuses up front
// (kUnavailable, naming the table and the bytes it needs) when a table would exceed
// opts.memory_limit. Calls `progress` during solving and `summary` after each table, from the
// calling thread. Errors: kIo (naming the file), kCorrupt/kVersion (an existing dependency that
// fails to load), kUnavailable (memory limit).
[[nodiscard]] Status generate_tables(const std::vector<Material>& wanted, const GenOptions& opts, tbb::task_arena& arena,
                                     const std::function<void(const Material&, const SolveProgress&)>& progress,
                                     const std::function<void(const TableSummary&)>& summary);

// The table farm of a run under MPI (opts.split.cluster set, opts.split_all not): rank 0 hands out
// the tables of dependency_closure(wanted) in order to the ranks free, itself included, each
// generated alone; a table over opts.split_above waits for every rank and is split. Each rank
// reports the tables it made (`summary`; rank 0 also those present and valid). Collective.
[[nodiscard]] Status generate_farm(const std::vector<Material>& wanted, const GenOptions& opts, tbb::task_arena& arena,
                                   const std::function<void(const Material&, const SolveProgress&)>& progress,
                                   const std::function<void(const TableSummary&)>& summary);

// Writes a solved table to `path` (tmp + rename), compressing its blocks in parallel in `arena`
// (gen/table_io.cpp). With write.format_version 3 the file stores one side,
// capture-resolved (gen/one_side.h), so `subtables` must hold every table `table` converts into;
// versions 1 and 2 store both sides and ignore it. The file is the same whatever the arena's size.
[[nodiscard]] Status write_solved_table(const std::filesystem::path& path, const SolvedTable& table,
                                        const TableSet& subtables, const std::string& generator, std::int64_t created,
                                        tbb::task_arena& arena,
                                        const formats::TableWriteOptions& write = {});

// True when `path` holds a valid table of `m`: the header matches and every block's checksum
// matches its stored bytes (blocks checked in parallel in `arena`, not decompressed).
[[nodiscard]] bool is_valid_table(const std::filesystem::path& path, const Material& m, tbb::task_arena& arena);

// Reading a table stored one side (format version 3) or capture-resolved needs the tables it
// converts into, and when those are stored that way too, theirs in turn: for KPPvKP most of the
// 5-man pawn tables at once. Expanded copies break the chain: a copy is a version-2 file of the
// same table (both sides exact, zstd level 1) in a cache directory, read alone.
//
// The file to read `m` from alone: dir/M.dtm when it stores both sides exactly or `m` converts
// into nothing; else cache/M.dtm, made first when missing or invalid (after the copies of the
// tables `m` converts into, recursively; only `m` and those tables are held while it is made).
// `rebuilding` reports the expansion of each copy made. Errors: those of reading the tables (naming
// the file), kIo when a copy cannot be written.
[[nodiscard]] Result<std::filesystem::path> expanded_source(const std::filesystem::path& dir, const Material& m,
                                                            const std::filesystem::path& cache, tbb::task_arena& arena,
                                                            const RebuildProgressFn& rebuilding = {});
// Writes cache/M.dtm, the expanded copy of a solved table (tmp + rename).
[[nodiscard]] Status write_expanded_copy(const std::filesystem::path& cache, const SolvedTable& table,
                                         const std::string& generator, std::int64_t created, tbb::task_arena& arena);
// True when expanded_source(dir, m, ...) reads one of `tables` through an expanded copy rather than
// from its own file (one storing one side or capture-resolved values, of a table converting into
// others). A file that cannot be opened counts as none (its reader reports it). Needs no cache
// directory.
[[nodiscard]] bool needs_expanded_copies(const std::filesystem::path& dir, const std::vector<Material>& tables);
// True when expanded_source(dir, m, cache) has nothing to make.
[[nodiscard]] bool expanded_source_ready(const std::filesystem::path& dir, const Material& m,
                                         const std::filesystem::path& cache, tbb::task_arena& arena);

// Writer settings by intent. `name`: "small" (the default: LZMA2 preset 9, 1 MiB blocks, the
// smallest files), "balanced" (LZMA2 with a shallower match search, shallower still for tables
// of more than 8 Mi positions a side: a quarter to a half of the coding time, 2-8% larger; see
// write_options_named's body for the settings) or
// "fast" (zstd level 9, 1 MiB blocks: ~10x faster to write, ~35% larger). `sides`: "both" (the
// default: format version 2, both sides to move stored, so a cold probe decodes one block) or
// "one" (format version 3: one side stored, capture-resolved, about 2.6x smaller; a probe of the
// other side searches one ply, docs/formats/table.md). Errors: kInvalidArgument for another name.
[[nodiscard]] Result<formats::TableWriteOptions> write_options_named(std::string_view name, std::string_view sides = "both");

}  // namespace tbkit::gen
