// Sequential streaming PGN reader: files, .pgn.zst files and stdin, any size, constant memory.
#pragma once

#include <string>
#include <string_view>

#include "chess/result.h"
#include "pgn/visitor.h"

namespace tbkit::pgn {

// Reads one PGN file ("-" = stdin; a name ending in .zst is decompressed as a zstd stream) and calls
// the visitor for each game in order. Per-game problems never fail the call: they are reported to
// the visitor and counted in the summary. Errors: kIo (cannot open or read), kCorrupt (bad zstd data).
// Thread safety: independent calls may run concurrently.
[[nodiscard]] Result<ReadSummary> read_pgn(const std::string& path, Visitor& visitor, const ReaderOptions& options);

// The same over bytes in memory; `source` names them in locations and diagnostics.
[[nodiscard]] ReadSummary read_pgn_text(std::string_view text, const std::string& source, Visitor& visitor,
                                        const ReaderOptions& options);

}  // namespace tbkit::pgn
