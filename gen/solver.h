// The retrograde solver: computes one material's DTM values for both sides to move.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string_view>

#include <tbb/task_arena.h>

#include "chess/result.h"
#include "gen/cluster.h"
#include "gen/table_set.h"

namespace tbkit::gen {

struct SolveProgress {
  std::string_view phase;   // "init", "retro", "finish", then "write" (from the run manager)
  int ply = 0;              // retro: the ply being propagated
  std::uint64_t done = 0;   // index slots processed (init) or positions resolved so far (retro)
  std::uint64_t total = 0;  // index slots over both sides
};
using ProgressFn = std::function<void(const SolveProgress&)>;

// A large table: one whose values (2 bytes a slot and side) take at least kLargeTableBytes. Its
// solver state takes 12 bits a slot and side instead of 16, and its values may go to scratch files
// (SolveStorage). Every 5- and 6-man table is large; no 3- or 4-man one is.
inline constexpr std::uint64_t kLargeTableBytes = std::uint64_t{64} << 20;
[[nodiscard]] bool is_large_table(const Material& material);

// What the solver needs for `material` on top of the tables it converts into: memory, and scratch
// disk when its values go to scratch files (a large table, `scratch` given: SolveStorage).
struct SolveBytes {
  std::uint64_t memory = 0;
  std::uint64_t scratch = 0;
};
[[nodiscard]] SolveBytes solve_bytes(const Material& material, bool scratch);

// How the solver keeps its state: 12 bits a slot (5 to a 64-bit word) or 16. kAuto: 12 for a large
// table, else 16 (a few percent faster: KQRvKR's solve measured 2-6% slower in 12 bits, and a small
// table's memory does not matter). Both give the same values; a table whose plies outgrow 12 bits
// (none of 3-6 men) is solved again in 16.
enum class StateLayout { kAuto, kWide, kPacked };
struct SolveStorage {
  StateLayout layout = StateLayout::kAuto;
  // Not empty: the values go to files without a name in this directory (ValueArray::scratch_file),
  // mapped, so their pages are the page cache's and the kernel may write them out rather than hold
  // them: the solver's own memory is then its state. (generate_tables gives it for large tables.)
  std::filesystem::path scratch;
};

// A solve split over the ranks of a cluster: each rank computes the slots of the king-pair slices
// `SliceMap{cluster->ranks(), seed}` gives it, and the ranks exchange the updates that cross slices
// once per ply (docs/mpi.md).
struct SplitSolve {
  Cluster* cluster = nullptr;
  std::uint64_t seed = 0;
};

// Solves a normalized material. Every table it converts into (Material::conversions) must be in
// `subtables`, else kUnavailable naming the missing one. Runs its parallel loops in `arena`; the
// result is identical for any arena size. `progress` (may be empty) is called from the calling
// thread between steps. With `split`, a collective call: every rank of split->cluster calls it for
// the same material; rank 0 gets the whole table, identical to a solve alone, and the others a
// table with no values (progress counts are the cluster's). `no_better_marks`: fill
// SolvedTable::no_better, which only a capture-resolved (one-side) writer reads; without them it
// finds the same slots by search (gen/one_side.h), so they save its time for 1 bit a slot and side.
// Errors also: kIo (a scratch file, naming its directory).
[[nodiscard]] Result<std::shared_ptr<SolvedTable>> solve_table(const Material& material, const TableSet& subtables,
                                                               tbb::task_arena& arena, const ProgressFn& progress = {},
                                                               const SplitSolve* split = nullptr,
                                                               bool no_better_marks = true,
                                                               const SolveStorage& storage = {});

}  // namespace tbkit::gen
