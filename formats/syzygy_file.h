// SyzygyFile: one Syzygy WDL (.rtbw) or DTZ (.rtbz) file, memory-mapped, validated when opened, then
// probed lock-free. See formats/syzygy_index.h for the vocabulary.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "chess/position.h"
#include "chess/result.h"
#include "formats/mapped_file.h"
#include "formats/pair_decoder.h"
#include "formats/syzygy_index.h"

namespace tbkit::formats::syzygy {

enum class TableKind : std::uint8_t { kWdl, kDtz };

inline constexpr std::uint32_t kWdlMagic = 0x5d23e871;  // bytes 71 E8 23 5D
inline constexpr std::uint32_t kDtzMagic = 0xa50c66d7;  // bytes D7 66 0C A5

// Flags of a subtable's compression record (DTZ meanings except kSingleValue).
inline constexpr std::uint8_t kFlagBlackToMove = 1;  // DTZ: the stored side is black to move
inline constexpr std::uint8_t kFlagMapped = 2;       // DTZ: values go through the value map
inline constexpr std::uint8_t kFlagWinPlies = 4;     // DTZ: wins stored in plies (else moves)
inline constexpr std::uint8_t kFlagLossPlies = 8;    // DTZ: losses stored in plies (else moves)
inline constexpr std::uint8_t kFlagWideMap = 16;     // DTZ: the value map has 16-bit entries
inline constexpr std::uint8_t kFlagSingleValue = 128;  // every index holds the same value

// A DTZ lookup's answer.
struct DtzEntry {
  bool stored = false;  // false: the file holds the other side to move; plies is then 0
  // Distance to zeroing in plies as Syzygy's readers convert it (value map, then moves doubled unless
  // the WDL class is stored in plies, plus one): >= 1, may be one less than the truth where the file
  // stores moves. Not signed, no +100 for cursed wins / blessed losses (see signed_dtz).
  int plies = 0;
};

// Syzygy's signed DTZ for a WDL and a stored entry's plies: plies, +100 for a cursed win or blessed loss
// (wdl = +-1), with the sign of wdl (what a DTZ probe reports when the best move is not zeroing).
[[nodiscard]] constexpr int signed_dtz(int wdl, int plies) {
  const int magnitude = plies + ((wdl == 1 || wdl == -1) ? 100 : 0);
  return wdl > 0 ? magnitude : wdl < 0 ? -magnitude : 0;
}

// The 16-byte checksum Syzygy files end with, of the file's bytes before it (CityHash-CRC 128 over
// the CityHash-CRC 256 of each 16 MiB chunk, as syzygy1/tb computes it).
[[nodiscard]] std::array<std::byte, 16> syzygy_checksum(std::span<const std::byte> bytes);

class SyzygyFile {
 public:
  // Maps and validates a file. The kind comes from the extension (.rtbw / .rtbz) and the material from
  // the stem ("KQvKR"). Errors: kIo when the file cannot be opened; kInvalidArgument for a name that is
  // no table name; kCorrupt naming the file, the byte offset and the field when validation fails
  // (magic, flags, piece header, compression records, value maps, offsets and sizes past the end,
  // a malformed Huffman code or pair tree, trailing bytes other than the 16-byte checksum).
  [[nodiscard]] static Result<SyzygyFile> open(const std::filesystem::path& path);
  // The same for a given kind and material (the file name need not follow Syzygy's naming).
  [[nodiscard]] static Result<SyzygyFile> open(const std::filesystem::path& path, TableKind kind,
                                               const TableMaterial& material);
  // Validates an in-memory copy of file bytes; `name` is used in messages (for fuzzing and tests).
  [[nodiscard]] static Result<SyzygyFile> from_bytes(std::span<const std::byte> bytes, std::string name,
                                                     TableKind kind, const TableMaterial& material);

  SyzygyFile(SyzygyFile&&) noexcept = default;
  SyzygyFile& operator=(SyzygyFile&&) noexcept = default;

  [[nodiscard]] TableKind kind() const { return kind_; }
  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] const TableMaterial& material() const { return index_.material; }
  [[nodiscard]] const TableIndex& index() const { return index_; }
  [[nodiscard]] const SubtableLayout& layout(int side, int file) const {
    return layouts_[index_.position(side, file)];
  }
  // DTZ files: the side to move stored in a lead file's subtable (0 white, 1 black, table orientation).
  [[nodiscard]] int dtz_stored_side(int file) const { return layout(0, file).flags & kFlagBlackToMove; }

  // The stored WDL of a position of this file's material (either colour orientation) for the side to
  // move: -2 loss, -1 blessed loss, 0 draw, 1 cursed win, 2 win. The en-passant right is ignored. As in
  // Syzygy, the value may be a "don't care" where a capture (or, for draws, a capture or pawn move) is
  // at least as good; the caller resolves those by searching captures.
  // Errors: kInvalidArgument for another material or a DTZ file; kCorrupt when the compressed data turns
  // out inconsistent (an out-of-range symbol or value). Thread-safe.
  [[nodiscard]] Result<int> wdl(const chess::Position& pos) const;
  // The same for a position already in this table's orientation (orient(), or a caller's equivalent
  // following its rules): the probe library's hot path. Errors as above; kInvalidArgument when the
  // pieces of op are not this material's.
  [[nodiscard]] Result<int> wdl(const OrientedPosition& op) const;
  // wdl(op) in two steps, for a caller with other work to do while memory answers, and without
  // building a Result: find_wdl computes where the value lies and asks for the first cache line its
  // read needs (false, with `error` set as wdl(op) sets it, when it cannot); wdl_at reads it
  // (kNoValue, with `error` set, when the data is corrupt).
  struct WdlPlace {
    const SubtableLayout* layout = nullptr;
    std::uint64_t index = 0;
  };
  static constexpr int kNoValue = -100;
  [[nodiscard]] bool find_wdl(const OrientedPosition& op, WdlPlace& place, Error& error) const;
  [[nodiscard]] int wdl_at(WdlPlace place, Error& error) const;

  // The DTZ entry of a position whose WDL (for the side to move, -2..2, not 0) the caller knows. When the
  // file stores the other side to move, stored is false. Errors as wdl(), plus kInvalidArgument for
  // wdl 0 or out of range or a WDL file. Thread-safe.
  [[nodiscard]] Result<DtzEntry> dtz(const chess::Position& pos, int wdl) const;
  // The same for a position already in this table's orientation (see wdl(op)).
  [[nodiscard]] Result<DtzEntry> dtz(const OrientedPosition& op, int wdl) const;

  // The raw stored value at (side, file, index): WDL files 0..4 (= wdl + 2), DTZ files the value before
  // the value map. Errors: kInvalidArgument for side/file/index out of range; kCorrupt for inconsistent
  // compressed data. Thread-safe.
  [[nodiscard]] Result<int> stored_value(int side, int file, std::uint64_t index) const;

  // The DTZ value map applied as readers do: a raw stored value of a lead file's subtable and a WDL
  // (-2, -1, 1, 2) to plies (see DtzEntry::plies). Errors: kInvalidArgument for a WDL file or bad wdl;
  // kCorrupt when the value is past the map.
  [[nodiscard]] Result<int> map_dtz(int file, int raw, int wdl) const;

  // True when the file ends with Syzygy's 16-byte checksum (file size = 16 mod 64): always, for a file that
  // opened (the size is validated).
  [[nodiscard]] bool has_checksum() const;
  // Recomputes the embedded checksum (CityHash-CRC 128 over 16 MiB chunk hashes of the file before the
  // checksum) and compares. Errors: kUnavailable when the file has none; kCorrupt naming the file on a
  // mismatch. Thread-safe; reads the whole file.
  [[nodiscard]] Status verify_checksum() const;

 private:
  SyzygyFile(MappedFile mapped, std::string name, TableKind kind);
  [[nodiscard]] Status validate(const TableMaterial& material);
  [[nodiscard]] Result<int> decompress(const SubtableLayout& s, std::uint64_t index) const;
  [[nodiscard]] Error corrupt(std::size_t offset, const std::string& what) const;

  MappedFile mapped_;
  std::string name_;
  TableKind kind_ = TableKind::kWdl;
  TableIndex index_;
  std::vector<SubtableLayout> layouts_;  // [file * sides + side]
};

}  // namespace tbkit::formats::syzygy
