// One table block as a raw LZMA2 stream (no .xz container: the table file's block index carries
// the size and checksum). Used by table files of format version 2 with codec LZMA2.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tbkit::formats {

// The largest raw LZMA2 stream lzma_encode_block can produce for `input_bytes` bytes.
[[nodiscard]] std::size_t lzma_block_bound(std::size_t input_bytes);

// Encoder settings: a liblzma preset (0..9, optionally extreme), then overrides (0 or -1: the
// preset's). lc/lp/pb are carried in the stream, so the decoder needs none of them.
struct LzmaEncodeOptions {
  int preset = 9;
  bool extreme = false;
  std::uint32_t nice_len = 0;  // 2..273
  int lc = -1, lp = -1, pb = -1;
  std::uint32_t depth = 0;  // match-finder search depth; 0: the preset's (automatic)
};

// Compresses `input` with `options` and a dictionary of max(4 KiB, input size), appending nothing
// else. Returns false when liblzma fails (out of memory, invalid options). Deterministic: the same
// input and options give the same bytes. Thread-safe (no shared state).
[[nodiscard]] bool lzma_encode_block(std::span<const std::byte> input, const LzmaEncodeOptions& options,
                                     std::vector<std::byte>& output);

// Decompresses a raw LZMA2 stream that must decode to exactly output.size() bytes and use a
// dictionary no larger than `dictionary_limit` bytes. Returns false on any damage: bad data,
// wrong decoded size, trailing bytes. Thread-safe.
[[nodiscard]] bool lzma_decode_block(std::span<const std::byte> input, std::span<std::byte> output);

}  // namespace tbkit::formats
