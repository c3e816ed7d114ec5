// Tablebase: answers positions from DTM table files (DIR/MATERIAL.dtm written by `tbkit gen`).
// Files are found when the tablebase is opened, but each is mapped and validated lazily, exactly
// once, on the first probe that needs it. Decompressed blocks live in one bounded cache shared by
// all tables and threads (docs/probe.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "chess/position.h"
#include "chess/result.h"
#include "chess/types.h"
#include "formats/dtm_value.h"

namespace tbkit::model {
struct Board;
}

namespace tbkit::probe {

// The automatic cache's ceiling: 1 GiB, and at most an eighth of the machine's memory.
inline constexpr std::size_t kAutoCacheMaxBytes = std::size_t{1} << 30;

struct TablebaseOptions {
  // Bytes of decompressed values kept (shared by every table). 0 disables the cache: every probe
  // then decompresses its block. Unset (the default): the decoded size of every table found (both
  // sides, two bytes a position), so random probes over a set that fits never decode a block
  // twice, up to kAutoCacheMaxBytes and an eighth of physical memory. The cache's memory is
  // reserved at open() but touched only as blocks are decoded.
  std::optional<std::size_t> cache_bytes;
};

struct RankedMove {
  chess::Move move;
  // For the side to move in the ROOT position if it plays `move`: a win in k plies means it mates
  // k plies from the root, counting the move itself.
  formats::DtmValue value;
};

// Counters for tests and benchmarks (monotonic, relaxed: exact once probing threads have stopped).
struct CacheStats {
  std::uint64_t misses = 0;          // value reads the cache could not answer
  std::uint64_t blocks_decoded = 0;  // blocks read and decompressed
  std::uint64_t files_opened = 0;    // table files mapped and validated
  std::size_t capacity_bytes = 0;    // bytes of cached values the cache can hold
};

// Movable, not copyable. All const methods are thread-safe: any number of threads may probe one
// Tablebase concurrently.
class Tablebase {
 public:
  // Scans each directory (not recursively) for MATERIAL.dtm files, e.g. KQvKR.dtm; when two
  // directories hold the same material the first wins. Files are not opened here. Errors: kIo (a
  // directory is missing or unreadable). Finding no table at all is not an error (max_men() == 0).
  [[nodiscard]] static Result<Tablebase> open(const std::vector<std::filesystem::path>& dirs,
                                              const TablebaseOptions& options = {});

  Tablebase(Tablebase&&) noexcept;
  Tablebase& operator=(Tablebase&&) noexcept;
  Tablebase(const Tablebase&) = delete;
  Tablebase& operator=(const Tablebase&) = delete;
  ~Tablebase();

  // Most men (kings included) of any table found; 0 if none.
  [[nodiscard]] int max_men() const;
  // Names of the tables found ("KQvKR"), sorted.
  [[nodiscard]] std::vector<std::string> materials() const;

  // The value for the side to move (formats/dtm_value.h: win/loss in plies, draw), with the
  // en-passant right included. Checkmate, stalemate and bare kings are answered without a table.
  // Errors: kUnavailable (no table for this material, naming it; or more than 7 men, which no
  // table holds, said before anything else), kInvalidArgument (castling rights present), kCorrupt / kVersion / kIo (the table file is damaged or unreadable; the same
  // error is returned on every later probe of that table, the file is not retried).
  [[nodiscard]] Result<formats::DtmValue> probe(const chess::Position& pos) const;

  // The same for a generator board (no castling) with an optional en-passant square: the square a
  // pawn of b.side could capture on. Preconditions: b is legal (side not to move not in check) and
  // the en-passant square, if any, lies behind a pawn that just made a double push.
  [[nodiscard]] Result<formats::DtmValue> probe(const model::Board& b, chess::Square en_passant) const;

  // Every legal move with its value, best first for the side to move: wins (fastest mate first),
  // then draws, then losses (longest resistance first); ties keep move generation order. Empty for
  // checkmate and stalemate. Errors as probe(), for the root or any successor.
  [[nodiscard]] Result<std::vector<RankedMove>> rank_moves(const chess::Position& pos) const;

  // Drops every cached block (files stay open). Thread-safe.
  void clear_cache() const;
  [[nodiscard]] CacheStats cache_stats() const;

  struct Impl;

 private:
  explicit Tablebase(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Directories joined by ':' ("tables:syzygy"), as the command line and UCI options give them; empty
// parts are skipped.
[[nodiscard]] std::vector<std::filesystem::path> split_dirs(const std::string& joined);

// Ordering of values for the side to move: higher is better (fast wins, slow wins, draws, slow
// losses, fast losses).
[[nodiscard]] int preference(formats::DtmValue v);
// The value for the side that moved into a position worth `child` to its side to move.
[[nodiscard]] formats::DtmValue back_up(formats::DtmValue child);

}  // namespace tbkit::probe
