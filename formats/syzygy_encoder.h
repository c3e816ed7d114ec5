// The Syzygy writer: compresses WDL50/DTZ50 values the way Syzygy stores them (pair symbols, canonical
// Huffman codes, fixed-size blocks with a sparse index) and lays out whole .rtbw/.rtbz files that
// Syzygy's readers (Stockfish, formats/syzygy_file.h) accept. See docs/formats/syzygy.md for the
// fields; formats/syzygy_index.h for tables, subtables and piece orders.
//
// Values come from the caller in index order, a chunk at a time (ValueFill callbacks), so a subtable
// of ~10^9 indices costs the writer one byte per index (two for DTZ subtables of more than 240
// distinct values) plus the compressed output. Everything here is a pure function of its inputs:
// thread-safe, no shared state.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <vector>

#include "chess/result.h"
#include "formats/syzygy_file.h"
#include "formats/syzygy_index.h"

namespace tbkit::formats::syzygy {

// WDL slot codes for the writer: 0..4 an exact value (= wdl + 2: loss, blessed loss, draw, cursed win,
// win), 5..8 a partial don't-care "any value up to code - 4" (a capture already reaches it; readers
// take the better of the stored value and the captures), 8 meaning any value (illegal slots).
inline constexpr std::uint8_t kWdlLoss = 0;
inline constexpr std::uint8_t kWdlBlessedLoss = 1;
inline constexpr std::uint8_t kWdlDraw = 2;
inline constexpr std::uint8_t kWdlCursedWin = 3;
inline constexpr std::uint8_t kWdlWin = 4;
inline constexpr std::uint8_t kWdlDontCare = 8;
// The code for "any stored value <= max_value" (max_value 1..4; 4 gives kWdlDontCare).
[[nodiscard]] constexpr std::uint8_t wdl_at_most(int max_value) { return std::uint8_t(4 + max_value); }
// Whether a stored value (0..4) satisfies a slot code.
[[nodiscard]] constexpr bool wdl_matches(std::uint8_t code, int stored) {
  return code <= 4 ? stored == code : stored <= code - 4;
}

// One DTZ slot for the writer. wdl 0 marks a don't-care (draws, illegal slots, positions whose best
// move zeroes); otherwise wdl is -2..2 for the side to move and plies is Syzygy's |DTZ| as Stockfish's
// probe_dtz reports it: >= 1, including the +100 of cursed wins and blessed losses (so >= 101 there).
struct DtzSlot {
  std::uint16_t plies = 0;
  std::int8_t wdl = 0;
};

// What a reader gives back for a slot written with `plies` in a class stored in moves (or a cursed
// win / blessed loss, always in moves): odd values unchanged, even ones one less (Syzygy's rounding).
[[nodiscard]] constexpr int dtz_plies_in_moves(int plies) { return plies - ((plies & 1) ^ 1); }

// Fills `out` with the values of indices begin .. begin + out.size() - 1 of the subtable (side to move
// in table orientation 0/1, lead file 0..3; 0 for pawnless tables). Called with increasing `begin`
// within one pass; a subtable may be read more than once (DTZ: statistics, then values; both sides
// when the writer picks the stored side). Must be deterministic.
using WdlFill = std::function<void(int side, int file, std::uint64_t begin, std::span<std::uint8_t> out)>;
using DtzFill = std::function<void(int side, int file, std::uint64_t begin, std::span<DtzSlot> out)>;

// Runs body(task) for every task in [0, tasks), perhaps several at once, and returns when all are
// done. The encoder's output never depends on how tasks are spread over threads.
using ParallelFor = std::function<void(std::size_t tasks, const std::function<void(std::size_t task)>& body)>;

struct EncodeOptions {
  // A pair becomes a symbol only if it occurs at least this often (Syzygy's default is 8).
  int min_pair_frequency = 8;
  // Largest block, log2 bytes: Syzygy uses 64-byte WDL blocks at most, 1 KiB DTZ blocks. The writer
  // tries smaller sizes down to 32 bytes and keeps the smallest result.
  int max_wdl_block_log2 = 6;
  int max_dtz_block_log2 = 10;
  // DTZ files: per lead file (pawnless tables use the first), the side to move to store (0 white,
  // 1 black, table orientation), or -1 to compress both and keep the smaller (symmetric materials
  // always store white).
  std::array<int, kMaxFiles> dtz_sides{-1, -1, -1, -1};
  // DTZ files: store wins / losses in plies even where moves would do. Syzygy switches a class to
  // plies itself when a win or loss of exactly 100 plies occurs (rounding would change a 50-move
  // verdict); these only force it.
  bool force_win_plies = false;
  bool force_loss_plies = false;
  // Where the pair rounds of a large subtable may run their parts side by side; empty: in the calling
  // thread. The files are the same either way.
  ParallelFor parallel;
  // The pair rounds move the symbols into an array of their own, and keep their pair counts from
  // round to round, once at most 1 in pack_ratio values starts a symbol (1: from the first round;
  // 0: never, every round walks and counts the whole stream). The files are the same either way.
  int pack_ratio = 4;
};

// One compressed subtable: the compression record (flags through the pair tree, padded to an even
// length) and its parts that go elsewhere in the file.
struct CompressedSubtable {
  std::uint8_t flags = 0;
  std::vector<std::byte> record;        // as in the file, from the flags byte; even length
  std::vector<std::byte> sparse_index;  // 6 bytes per entry
  std::vector<std::byte> block_lengths; // u16 per block, padding entries included
  std::vector<std::byte> data;          // blocks, not padded to 64
  // DTZ value map bytes for this subtable (empty unless flags has kFlagMapped): the four class lists
  // (win, loss, cursed win, blessed loss), each a count then the values; u16 when kFlagWideMap.
  std::vector<std::byte> value_map;
  std::uint64_t value_count = 0;        // indices covered
  int symbol_count = 0;                 // symbols of the pair tree
  int block_size_log2 = 0;
};

// Compresses one WDL subtable of `size` indices whose values `fill` gives (codes as above; side/file
// are passed through to fill). `flags` are the WDL record's flag bits (Syzygy sets the DTZ
// ply-accuracy bits there; readers ignore them). Errors: kInvalidArgument for a code > 8.
[[nodiscard]] Result<CompressedSubtable> compress_wdl_subtable(std::uint64_t size, int side, int file,
                                                               const WdlFill& fill, std::uint8_t flags,
                                                               const EncodeOptions& options);

// Compresses one DTZ subtable (the stored side `side`) of `size` indices. win_plies / loss_plies
// choose plies over moves for the win and loss classes. Errors: kInvalidArgument for a wdl outside
// -2..2, plies 0 in a stored class, plies below 101 for a cursed win or blessed loss, or more than
// 4095 distinct stored values.
[[nodiscard]] Result<CompressedSubtable> compress_dtz_subtable(std::uint64_t size, int side, int file,
                                                               const DtzFill& fill, bool win_plies,
                                                               bool loss_plies, const EncodeOptions& options);

// The bytes `codes` (WDL slot codes) or `slots` (DTZ slots, stored as a side to move with wins and
// losses in moves) would take compressed as one subtable: record, value map, indexes and data. For
// judging piece orders on a sample of a subtable. Errors as compress_wdl_subtable /
// compress_dtz_subtable (kInvalidArgument for an empty span).
[[nodiscard]] Result<std::uint64_t> estimate_wdl_bytes(std::span<const std::uint8_t> codes,
                                                       const EncodeOptions& options = {});
[[nodiscard]] Result<std::uint64_t> estimate_dtz_bytes(std::span<const DtzSlot> slots,
                                                       const EncodeOptions& options = {});

// A whole .rtbw file for a table index (index.sides must be 2 for unsymmetric material, 1 for
// symmetric; the piece orders of index.subtables are written to the header and define the indices
// fill is asked for), checksum included. Errors: kInvalidArgument for an inconsistent index or bad
// values (as compress_wdl_subtable, naming the subtable).
[[nodiscard]] Result<std::vector<std::byte>> encode_wdl_file(const TableIndex& index, const WdlFill& fill,
                                                             const EncodeOptions& options = {});

// A whole .rtbz file: one side to move stored per lead file (see EncodeOptions::dtz_sides). With
// index.sides 1 both sides are compressed in the one order of each lead file; with index.sides 2 (an
// order per side, unsymmetric material) side s in index.at(s, file)'s order, and the header gets the
// order of the side stored. fill is asked for the side(s) it needs, in those orders. Errors as
// compress_dtz_subtable, and kInvalidArgument for an inconsistent index.
[[nodiscard]] Result<std::vector<std::byte>> encode_dtz_file(const TableIndex& index, const DtzFill& fill,
                                                             const EncodeOptions& options = {});

// encode_*_file, then the bytes written to path.tmp, synced and renamed to path (the .tmp is removed on
// failure). Errors: those of encoding, kIo naming the file.
[[nodiscard]] Status write_wdl_file(const std::filesystem::path& path, const TableIndex& index,
                                    const WdlFill& fill, const EncodeOptions& options = {});
[[nodiscard]] Status write_dtz_file(const std::filesystem::path& path, const TableIndex& index,
                                    const DtzFill& fill, const EncodeOptions& options = {});

// A table index with default_piece_order and order nibbles {0, 1 or 0xF} for every subtable: two sides
// for an unsymmetric WDL file, else one. Errors: those of make_table_index.
[[nodiscard]] Result<TableIndex> default_table_index(const TableMaterial& material, TableKind kind);

}  // namespace tbkit::formats::syzygy
