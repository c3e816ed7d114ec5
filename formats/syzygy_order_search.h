// Choosing a Syzygy subtable's piece order. The order decides which placements are neighbours in
// index order, so it decides how well the values compress (Syzygy's own files use a different order
// per subtable). Candidates are the arrangements of the material's piece kinds as index digits that
// Syzygy's index allows; each is judged by a caller's cost, in practice the compressed size of a
// fixed sample of the subtable (sample_ranges). Pure functions: thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "chess/result.h"
#include "formats/syzygy_index.h"

namespace tbkit::formats::syzygy {

// A subtable's piece order and order nibbles, as SubtableIndex::create takes them.
struct PieceOrder {
  PieceList pieces{};
  int order0 = 0;
  int order1 = 0xF;
  friend bool operator==(const PieceOrder&, const PieceOrder&) = default;
};

// The order default_table_index uses: default_piece_order with nibbles {0, 1 or 0xF}.
[[nodiscard]] PieceOrder default_order(const TableMaterial& m);

// The order of a subtable index.
[[nodiscard]] PieceOrder order_of(const SubtableIndex& sub);

// The piece order whose index digits, least significant first, are the material's piece kinds
// (white king down to white pawn, then black's) permuted by `digits` (each of 0 .. kinds-1 once), or
// nullopt when Syzygy's index has no such order: pawnless tables need their leading kinds (three of
// which the side has one man, or the two kings) adjacent; the most significant such run leads, its
// most significant kind as man 0. In pawn tables the lead pawns' position is order0, the other pawns'
// order1.
[[nodiscard]] std::optional<PieceOrder> order_of_digits(const TableMaterial& m, std::span<const int> digits);

// The cost of each candidate subtable index (smaller is better), one per entry, in any order of
// evaluation (a caller may judge them in parallel); deterministic.
using OrderCosts = std::function<std::vector<std::uint64_t>(std::span<const SubtableIndex> candidates)>;

// The cheapest order for lead file `file` (0 for pawnless tables): every candidate when the material
// has at most four piece kinds, else a greedy search from the least significant digit that tries
// every pair of kinds for the next two digits. The default order is always a candidate; ties keep
// the earlier candidate, the default order first. Errors: those of SubtableIndex::create (a bug).
[[nodiscard]] Result<SubtableIndex> search_piece_order(const TableMaterial& m, int file, const OrderCosts& costs);

// How many values sample_ranges takes of a subtable of `size` indices: all when size <= min_values,
// else size / 2^fraction_log2, at least min_values.
[[nodiscard]] std::uint64_t sample_values(std::uint64_t size, int fraction_log2, std::uint64_t min_values);

// Index ranges [first, second) of a subtable of `size` indices that a candidate order is judged on:
// the whole subtable when size <= min_values, else `segments` contiguous ranges evenly spread over it
// (the first at 0) of size / 2^fraction_log2 values in all, at least min_values. Deterministic.
[[nodiscard]] std::vector<std::pair<std::uint64_t, std::uint64_t>> sample_ranges(std::uint64_t size,
                                                                                  int fraction_log2,
                                                                                  std::uint64_t min_values,
                                                                                  int segments);

}  // namespace tbkit::formats::syzygy
