// Polyglot opening books (.bin, docs/formats/polyglot.md): 16-byte big-endian entries sorted by key.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "chess/position.h"
#include "chess/result.h"
#include "chess/types.h"
#include "formats/book_output.h"

namespace tbkit::formats {

struct PolyglotEntry {
  std::uint64_t key = 0;
  std::uint16_t move = 0;
  std::uint16_t weight = 0;
  std::uint32_t learn = 0;
  friend bool operator==(const PolyglotEntry&, const PolyglotEntry&) = default;
};

inline constexpr std::size_t kPolyglotEntrySize = 16;

// Polyglot move encoding: to file (bits 0-2), to rank (3-5), from file (6-8), from rank (9-11),
// promotion (12-14: 1 knight .. 4 queen). Castling is written as the king taking its own rook (e1h1).
[[nodiscard]] std::uint16_t to_polyglot_move(chess::Move m);
// The legal move of pos that a Polyglot move names. Accepts castling written as e1g1 too.
// Errors: kIllegal (no such legal move), naming the move.
[[nodiscard]] Result<chess::Move> from_polyglot_move(const chess::Position& pos, std::uint16_t move);
// "e2e4", "e7e8q", castling as written in the file ("e1h1").
[[nodiscard]] std::string polyglot_move_text(std::uint16_t move);

struct PolyglotBook {
  std::vector<PolyglotEntry> entries;  // sorted by key (stable: the file's order within a key)
  std::vector<std::string> warnings;   // e.g. a trailing partial entry, entries out of order
  bool partial_entry = false;          // the size is not a whole number of entries
  bool unsorted = false;               // the file's keys were out of order

  // The entries of one position, in file order.
  [[nodiscard]] std::span<const PolyglotEntry> lookup(std::uint64_t key) const;
};

// Decodes a .bin image. A trailing partial entry is ignored with a warning naming its offset;
// entries out of key order are re-sorted with a warning. Never fails on content (any 16 bytes are an entry).
[[nodiscard]] PolyglotBook parse_polyglot_book(std::span<const std::byte> bytes, const std::string& name);
// Reads a .bin file. Errors: kIo naming the file.
[[nodiscard]] Result<PolyglotBook> read_polyglot_book(const std::filesystem::path& path);

// Writes entries (in the given order) as PATH.tmp then renames. Errors: kIo.
[[nodiscard]] Status write_polyglot_book(const std::filesystem::path& path, std::span<const PolyglotEntry> entries);
// The same into an output created beforehand (so a bad path fails before the work that makes the entries).
[[nodiscard]] Status write_polyglot_book(OutputFile out, std::span<const PolyglotEntry> entries);

// Encodes one entry big-endian into out[0..16).
void encode_polyglot_entry(const PolyglotEntry& e, std::byte* out);

}  // namespace tbkit::formats
