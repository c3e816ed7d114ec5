// The retrograde solver: computes one material's DTM values for both sides to move.
#pragma once

#include <cstdint>
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

// Bytes the solver needs for `material` on top of the tables it converts into.
[[nodiscard]] std::uint64_t solve_bytes(const Material& material);

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
[[nodiscard]] Result<std::shared_ptr<SolvedTable>> solve_table(const Material& material, const TableSet& subtables,
                                                               tbb::task_arena& arena, const ProgressFn& progress = {},
                                                               const SplitSolve* split = nullptr,
                                                               bool no_better_marks = true);

}  // namespace tbkit::gen
