// Tables stored with one side to move (table format version 3): what the writer may leave free,
// and how a reader rebuilds both sides exactly (docs/formats/table.md, "Format version 3").
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <vector>

#include <tbb/task_arena.h>

#include "formats/large_allocator.h"
#include "formats/table_file.h"
#include "gen/model.h"
#include "gen/table_set.h"
#include "model/one_ply.h"
#include "model/storage_order.h"
#include "model/value_ops.h"

namespace tbkit::gen {

// What a position's captures and promotions (the moves into other tables) are worth.
struct Conversions {
  bool any_move = false;          // b has a legal move (else checkmate or stalemate)
  std::optional<DtmValue> best;   // best backed-up value over conversions; none without one
};

// b's conversions, looked up in `subtables` (which must hold every table b converts into).
// Thread-safe.
[[nodiscard]] Conversions conversions_of(const TableSet& subtables, const Board& b);

// The writer's freedom for each slot of `side` in `table` (exact values, both sides, as the
// solver gives them): kAny for illegal slots; kNoBetter for checkmate, stalemate and where the
// value equals the best conversion; else kExact. So a legal slot's stored value is never better
// than its exact value.
//
// NoBetterMarks holds the kNoBetter slots as bits (bit i % 64 of word i / 64 for slot i, like
// SolvedTable::no_better); with the values it gives every slot's freedom (freedom_at).
using NoBetterMarks = std::vector<std::uint64_t>;
[[nodiscard]] inline formats::SlotFreedom freedom_at(DtmValue value, const NoBetterMarks& marks, std::uint64_t i) {
  if (value.is_illegal()) return formats::SlotFreedom::kAny;
  return (marks[i / 64] >> (i % 64)) & 1 ? formats::SlotFreedom::kNoBetter : formats::SlotFreedom::kExact;
}
// The marks of `side`: the solver's (table.no_better) when it left them, else found as
// search_slot_freedom does. Parallel in `arena`; same result for any arena size.
[[nodiscard]] NoBetterMarks no_better_marks(const SolvedTable& table, chess::Color side, const TableSet& subtables,
                                            tbb::task_arena& arena);
// Every slot's freedom, from no_better_marks.
[[nodiscard]] std::vector<formats::SlotFreedom> slot_freedom(const SolvedTable& table, chess::Color side,
                                                             const TableSet& subtables, tbb::task_arena& arena);
// The same, always found by generating each position's moves and looking its conversions up in
// `subtables` (which must hold every table `table` converts into).
[[nodiscard]] std::vector<formats::SlotFreedom> search_slot_freedom(const SolvedTable& table, chess::Color side,
                                                                    const TableSet& subtables, tbb::task_arena& arena);

// The storage orders choose_stored_side tries, in its tie-break order: every permutation of the
// scheme's digits (the identity first, then std::next_permutation's order), or the identity alone
// beyond 4 digits.
[[nodiscard]] std::vector<StorageOrder> candidate_orders(const IndexScheme& scheme);

// A side's symbol keys by index (TableEncoder::symbol_key), one byte each where every code fits in
// 7 bits (`narrow`: the code, 0x80 added for kNoBetter, 0xFF for a free slot), else two (`wide`,
// the keys themselves): the stand-in reads them once per candidate order, and half the bytes is
// half the cache lines.
struct SlotKeys {
  std::vector<std::uint8_t> narrow;
  std::vector<std::uint16_t> wide;
  [[nodiscard]] bool empty() const { return narrow.empty() && wide.empty(); }
  [[nodiscard]] std::size_t size() const { return narrow.empty() ? wide.size() : narrow.size(); }
};

struct StoredSide {
  chess::Color side = chess::Color::kWhite;
  NoBetterMarks no_better;  // that side's, by index
  StorageOrder order;
  // Left by choose_stored_side when it sized the whole table (up to 8 Mi slots), else empty: the
  // side's value counts (TableEncoder::create_from_counts) and its symbol keys for them
  // (TableEncoder::symbol_key, by index; empty if the stand-in took none), which
  // encode_stored_side then uses instead of finding them again.
  std::vector<std::uint64_t> counts;
  SlotKeys keys;
};
// The file `encoder` makes, its blocks encoded in parallel in `arena` (one task per block: the
// bytes are encode_table's whatever the thread count). The first error, by block
// number, is returned.
[[nodiscard]] Result<std::vector<std::byte>> encode_in_parallel(const formats::TableEncoder& encoder, tbb::task_arena& arena);
// The same file written to `path` (tmp + rename) as its blocks are made, a window of them at a
// time, so that only that window is held besides the values. Errors: the encoder's, and kIo
// naming the file.
[[nodiscard]] Status write_in_parallel(const std::filesystem::path& path, const formats::TableEncoder& encoder,
                                       tbb::task_arena& arena);
// Block k's bytes, for the writers above.
using BlockCoder = std::function<Result<std::vector<std::byte>>(std::uint64_t)>;

// Which side a version-3 file of `table` stores, with that side's no_better_marks, and in which
// storage order (docs/index.md): White for a symmetric material (Black's values are White's,
// colour-flipped); otherwise, like the order, by the size of the capture-resolved symbols coded
// with zstd level -1, a fast stand-in for the writer's codec (docs/formats/table.md), each side
// with each candidate order (every permutation of the index digits, up to 4 digits):
// - up to 8 Mi slots, over the whole table. From kStagedFrom slots on, in two stages: first each
//   candidate over a sample of each stand-in block (its first kSamplePiece slots of every
//   kSampleStride, joined and coded as one block); then, in full, only the candidates whose
//   sample is at most 1/kSampleMargin larger than the smallest sample. The smallest in full wins
//   (ties: White, then the earlier candidate).
// - larger tables, each side's orders over 32 windows of the table, then the two sides in their
//   best orders over the whole table.
// Deterministic; parallel in `arena`.
inline constexpr std::uint64_t kStagedFrom = std::uint64_t{1} << 20;
inline constexpr std::uint64_t kSamplePiece = std::uint64_t{1} << 11, kSampleStride = 8 * kSamplePiece;
inline constexpr std::uint64_t kSampleMargin = 10;
[[nodiscard]] StoredSide choose_stored_side(const SolvedTable& table, const TableSet& subtables, tbb::task_arena& arena);

// The stored side's values and freedom in its storage order (slot s holds index
// stored.order.to_index(s)'s), as the file stores them. Parallel in `arena`.
// Zero-filled by the kernel on huge pages, not by memset: a 5-piece pawn table's are 1.1 GB, and
// 4 KiB page faults were a tenth of its write time on this virtual machine.
struct StoredValues {
  formats::ZeroedArray<DtmValue> values;
  formats::ZeroedArray<formats::SlotFreedom> freedom;
};
[[nodiscard]] StoredValues stored_values(const SolvedTable& table, const StoredSide& stored, tbb::task_arena& arena);

// The version-3 file of `table` storing `stored` (capture-resolved): the bytes encode_table gives
// for stored_values' values and freedoms with `options` (info.index_scheme must name the order).
// Where the options allow (TableEncoder::keyed: the default fill, no dictionary) each block is
// coded straight from its slots' symbol keys, without those arrays. Blocks in parallel in
// `arena`, the same bytes for any thread count.
[[nodiscard]] Result<std::vector<std::byte>> encode_stored_side(const SolvedTable& table, const StoredSide& stored,
                                                                const formats::TableInfo& info,
                                                                const formats::TableWriteOptions& options,
                                                                tbb::task_arena& arena);
// The same file written to `path` as write_in_parallel does.
[[nodiscard]] Status write_stored_side(const std::filesystem::path& path, const SolvedTable& table,
                                       const StoredSide& stored, const formats::TableInfo& info,
                                       const formats::TableWriteOptions& options, tbb::task_arena& arena);

// Rebuilds `table` in place from a version-3 file's values: table.values[stored] holds the stored
// side's values (illegal slots marked illegal), table.values[other] is overwritten. Resolves the
// stored side (better_of(stored, best conversion) when `capture_resolved`; mate and stalemate from
// the board), then derives the other side by a one-ply search (children in this table are
// stored-side positions; captures and promotions are looked up in `subtables`, which must hold
// every table `table` converts into; en passant as with_en_passant). A symmetric material's other
// side is the stored side colour-flipped. Parallel in `arena`; the result is the same for any size.
// `progress` counts the slots of both passes.
void expand_table(SolvedTable& table, chess::Color stored, bool capture_resolved, const TableSet& subtables,
                  tbb::task_arena& arena, const SlotProgressFn& progress = {});

}  // namespace tbkit::gen
