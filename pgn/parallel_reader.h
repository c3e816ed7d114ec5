// Parallel PGN reader: splits the input at game boundaries into fixed-size chunks, parses chunks
// concurrently with oneTBB and hands each chunk's visitor back in input order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <oneapi/tbb/task_arena.h>

#include "chess/result.h"
#include "pgn/visitor.h"


namespace tbkit::pgn {

// One parsed chunk, handed to the consumer in input order.
struct ChunkInfo {
  std::uint64_t index = 0;              // 0-based over the whole run (all files)
  std::string source;                   // file it came from
  std::uint64_t first_game_number = 0;  // 1-based number in its file of the chunk's first game
  std::uint64_t games = 0;              // games in the chunk
  std::uint64_t byte_offset = 0;        // of the chunk in its (decompressed) file
  std::uint64_t bytes = 0;
};

// Progress after each chunk, in input order: bytes and games done so far, over all files.
struct ReadProgress {
  std::uint64_t bytes = 0;
  std::uint64_t games = 0;
  std::uint64_t compressed_bytes = 0;  // of the current file, for ETA against its size on disk
  std::uint64_t file_size = 0;         // size on disk of the current file (0 for stdin)
  std::string source;
};

struct ParallelOptions {
  std::size_t chunk_size = std::size_t{8} << 20;  // bytes; chunks end at the first game start after this
  std::size_t max_chunks_in_flight = 0;          // 0 = 2 * arena concurrency (bounds memory)
};

using MakeVisitor = std::function<std::unique_ptr<Visitor>(const ChunkInfo&)>;
using ConsumeChunk = std::function<void(const ChunkInfo&, std::unique_ptr<Visitor>)>;
using ProgressCallback = std::function<void(const ReadProgress&)>;

// Reads the files in order. For each chunk, make_visitor is called (from any thread; ChunkInfo then
// has index, source and byte_offset set) and the chunk is parsed into that visitor; consume is then
// called serially, in input order, with the full ChunkInfo. GameLocation::game_number inside a chunk
// counts from 1; add ChunkInfo::first_game_number - 1 for the number in the file. Chunking does not
// depend on the arena's concurrency, so results are identical for any thread count. Memory is bounded
// by max_chunks_in_flight * chunk_size (plus any single game longer than a chunk).
// Errors: kIo, kCorrupt as read_pgn; the run stops at the first file that fails.
[[nodiscard]] Result<ReadSummary> read_pgn_parallel(const std::vector<std::string>& paths, tbb::task_arena& arena,
                                                    const ReaderOptions& options, const ParallelOptions& parallel,
                                                    const MakeVisitor& make_visitor, const ConsumeChunk& consume,
                                                    const ProgressCallback& progress);

}  // namespace tbkit::pgn
