// Sequential input streams: a file, stdin, or a zstd-compressed file or stdin, decompressed on the fly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "chess/result.h"

namespace tbkit::formats {

// Reads bytes in order. Not thread-safe; one stream per reader.
class InputStream {
 public:
  virtual ~InputStream() = default;
  // Fills up to `capacity` bytes of dst; returns how many, 0 only at the end of the stream.
  // Errors: kIo (read failure), kCorrupt (bad or truncated compressed data; the message names the
  // source and the compressed byte offset).
  [[nodiscard]] virtual Result<std::size_t> read(char* dst, std::size_t capacity) = 0;
  // Bytes consumed from the underlying file so far (compressed bytes for zstd input).
  [[nodiscard]] virtual std::uint64_t raw_bytes_read() const = 0;
  // Size of the underlying file on disk, or 0 when unknown (stdin, pipes).
  [[nodiscard]] virtual std::uint64_t raw_size() const = 0;
};

// Opens `path` for reading ("-" = stdin). Input starting with the zstd frame magic (28 B5 2F FD) is
// decompressed as a stream of one or more frames, whatever its name. Errors: kIo (cannot open).
[[nodiscard]] Result<std::unique_ptr<InputStream>> open_input(const std::string& path);

// True when `data` starts with the zstd frame magic number.
[[nodiscard]] bool has_zstd_magic(const void* data, std::size_t size);

}  // namespace tbkit::formats
