// Native opening book (.tbb, docs/formats/book.md): a 128-byte header and 40-byte records sorted by
// (Polyglot key, move), each holding game counts and rating sums for one move from one position.
// Readers map the file and find a position by interpolation search (the keys are uniform).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "chess/result.h"
#include "formats/book_output.h"
#include "formats/large_allocator.h"
#include "formats/mapped_file.h"

namespace tbkit::formats {

static_assert(std::endian::native == std::endian::little, "the .tbb records are mapped in place: little-endian hosts only");

// One move from one position. Field order and sizes are the on-disk layout.
inline constexpr std::uint16_t kBookBlackToMove = 1;

struct BookRecord {
  std::uint64_t key = 0;        // Polyglot key of the position before the move
  std::uint16_t move = 0;       // Polyglot move encoding, castling as king-takes-rook
  std::uint16_t flags = 0;      // bit 0: Black to move; other bits zero
  std::uint32_t games = 0;      // games that played the move (all results, including unknown)
  std::uint32_t white_wins = 0;
  std::uint32_t draws = 0;
  std::uint32_t black_wins = 0;
  std::uint32_t rated_games = 0;  // games in which the mover's Elo was known
  std::uint64_t elo_sum = 0;      // sum of the mover's Elo over rated_games

  // Adds another record's counts. Returns false (leaving *this unchanged) if a count would overflow.
  [[nodiscard]] bool add(const BookRecord& other);
  [[nodiscard]] bool black_to_move() const { return flags & kBookBlackToMove; }
  // Wins of the side that played the move.
  [[nodiscard]] std::uint32_t mover_wins() const { return black_to_move() ? black_wins : white_wins; }
  [[nodiscard]] std::uint32_t mover_losses() const { return black_to_move() ? white_wins : black_wins; }
  [[nodiscard]] friend bool operator<(const BookRecord& a, const BookRecord& b) {
    return a.key != b.key ? a.key < b.key : a.move < b.move;
  }
};
static_assert(sizeof(BookRecord) == 40);

enum class EloOf : std::uint8_t { kMover = 0, kBoth = 1, kAverage = 2 };
enum class ColourFilter : std::uint8_t { kBoth = 0, kWhiteOnly = 1, kBlackOnly = 2 };

// Build parameters recorded in the header (informational; lookups do not depend on them).
struct BookParams {
  std::uint32_t max_ply = 0;
  std::uint32_t min_games = 1;
  std::uint32_t min_elo = 0;
  EloOf elo_of = EloOf::kMover;
  ColourFilter colour = ColourFilter::kBoth;
  std::uint32_t since = 0;  // YYYYMMDD, 0 = no bound
  std::uint32_t until = 0;
  bool variations = false;
  bool merged = false;  // the file came from `book merge`; the parameters are those of the first input
  friend bool operator==(const BookParams&, const BookParams&) = default;
};

struct BookInfo {
  std::uint32_t version = 0;
  std::uint64_t entry_count = 0;
  std::uint64_t position_count = 0;
  std::uint64_t games = 0;  // games that contributed at least one record
  BookParams params;
  std::uint64_t checksum = 0;
};

inline constexpr std::uint32_t kBookVersion = 1;
inline constexpr std::size_t kBookHeaderSize = 128;
inline constexpr char kBookMagic[8] = {'T', 'B', 'K', 'B', 'O', 'O', 'K', '\x1a'};

// 64-bit checksum used by the format (docs/formats/book.md, "Checksum"); streamable in 8-byte words.
class BookChecksum {
 public:
  explicit BookChecksum(std::uint64_t seed = 0) : h_(seed ^ 0x9e3779b97f4a7c15ULL) {}
  // size must be a multiple of 8.
  void add(const void* data, std::size_t size);
  [[nodiscard]] std::uint64_t value() const;

 private:
  std::uint64_t h_;
  std::uint64_t words_ = 0;
};

// Writes a .tbb: records must come in strictly increasing (key, move) order. Not thread-safe.
class BookWriter {
 public:
  // Creates PATH.tmp. Errors: kIo.
  [[nodiscard]] static Result<BookWriter> create(const std::filesystem::path& path, const BookParams& params);
  // Errors: kInvalidArgument if out of order (a bug in the caller), kIo.
  [[nodiscard]] Status add(const BookRecord& record);
  // Games counted in the header.
  void set_games(std::uint64_t games) { games_ = games; }
  // Writes the header and renames into place. Returns the header written.
  [[nodiscard]] Result<BookInfo> finish();
  // finish() in two steps: complete and close NAME.tmp, then rename it into place.
  [[nodiscard]] Result<BookInfo> close();
  [[nodiscard]] Status commit() { return out_.commit(); }

 private:
  BookWriter(OutputFile out, const BookParams& params) : out_(std::move(out)), params_(params) {}
  OutputFile out_;
  BookParams params_;
  BookChecksum checksum_;
  std::uint64_t entries_ = 0;
  std::uint64_t positions_ = 0;
  std::uint64_t games_ = 0;
  BookRecord last_{};
};

// A read-only, memory-mapped .tbb. Move-only; lookups are thread-safe. Opening builds a bucket
// index over the keys' top bits (about one byte per record) for constant-time lookups.
class BookFile {
 public:
  // Maps and validates the whole file: size, magic, version, sizes, counts, order, checksum.
  // Errors: kIo (cannot open), kCorrupt (message names file, byte offset and field), kVersion.
  [[nodiscard]] static Result<BookFile> open(const std::filesystem::path& path);
  // Validates an in-memory image (no copy is made; bytes must outlive the BookFile). For fuzzing and tests.
  [[nodiscard]] static Result<BookFile> from_bytes(std::span<const std::byte> bytes, const std::string& name);

  [[nodiscard]] const BookInfo& info() const { return info_; }
  [[nodiscard]] std::span<const BookRecord> records() const { return records_; }
  // The records of one position (empty if absent), in move order.
  [[nodiscard]] std::span<const BookRecord> lookup(std::uint64_t key) const;

 private:
  BookFile() = default;
  void build_index();
  std::optional<MappedFile> file_;  // empty for from_bytes images
  BookInfo info_;
  std::span<const BookRecord> records_;
  // index_[b] = first record whose key's top index_bits_ bits are >= b (b = 0 .. 2^bits); built on
  // open so a lookup costs one index read and one short scan instead of a search. In huge pages:
  // a 4 KiB-paged index would cost a TLB miss of its own on every lookup.
  std::vector<std::uint32_t, LargeAllocator<std::uint32_t>> index_;
  int index_bits_ = 0;
};

// Returns true if the bytes start with the .tbb magic.
[[nodiscard]] bool has_book_magic(std::span<const std::byte> head);

// High 64 bits of a * b: maps a uniform 64-bit value onto [0, b).
[[nodiscard]] inline std::uint64_t mul_hi(std::uint64_t a, std::uint64_t b) {
  __extension__ typedef unsigned __int128 U128;
  return std::uint64_t((U128(a) * b) >> 64);
}

// First index i in sorted records with records[i].key >= key, by interpolation search.
[[nodiscard]] std::size_t lower_bound_key(std::span<const BookRecord> records, std::uint64_t key);

}  // namespace tbkit::formats
