#include "formats/lzma_block.h"

#include <lzma.h>

#include <algorithm>

namespace tbkit::formats {
namespace {

constexpr std::uint32_t kMinDictionary = 4096;  // liblzma's minimum (LZMA_DICT_SIZE_MIN)

// The filter chain of a block: LZMA2 with a dictionary just large enough for one block, so the
// decoder allocates no more than the block needs.
bool block_filters(std::size_t bytes, const LzmaEncodeOptions& o, lzma_options_lzma& opt, lzma_filter (&filters)[2]) {
  if (lzma_lzma_preset(&opt, std::uint32_t(o.preset) | (o.extreme ? LZMA_PRESET_EXTREME : 0))) return false;
  if (o.nice_len != 0) opt.nice_len = o.nice_len;
  if (o.lc >= 0) opt.lc = std::uint32_t(o.lc);
  if (o.lp >= 0) opt.lp = std::uint32_t(o.lp);
  if (o.pb >= 0) opt.pb = std::uint32_t(o.pb);
  if (o.depth != 0) opt.depth = o.depth;
  opt.dict_size = std::max<std::uint32_t>(kMinDictionary, std::uint32_t(bytes));
  filters[0] = {LZMA_FILTER_LZMA2, &opt};
  filters[1] = {LZMA_VLI_UNKNOWN, nullptr};
  return true;
}

}  // namespace

std::size_t lzma_block_bound(std::size_t input_bytes) {
  // LZMA2 falls back to uncompressed chunks: at most 3 header bytes per 64 KiB chunk, plus the end marker.
  return input_bytes + 3 * (input_bytes / 65536 + 1) + 1;
}

bool lzma_encode_block(std::span<const std::byte> input, const LzmaEncodeOptions& options,
                       std::vector<std::byte>& output) {
  lzma_options_lzma opt{};
  lzma_filter filters[2];
  if (!block_filters(input.size(), options, opt, filters)) return false;
  output.resize(lzma_block_bound(input.size()));
  std::size_t out_pos = 0;
  const lzma_ret r = lzma_raw_buffer_encode(filters, nullptr, reinterpret_cast<const std::uint8_t*>(input.data()),
                                            input.size(), reinterpret_cast<std::uint8_t*>(output.data()), &out_pos,
                                            output.size());
  if (r != LZMA_OK) return false;
  output.resize(out_pos);
  return true;
}

bool lzma_decode_block(std::span<const std::byte> input, std::span<std::byte> output) {
  // Any dictionary up to the block's size decodes a block of that size; presets fill lc/lp/pb,
  // which LZMA2 streams carry themselves.
  lzma_options_lzma opt{};
  lzma_filter filters[2];
  if (!block_filters(output.size(), LzmaEncodeOptions{.preset = 0}, opt, filters)) return false;
  std::size_t in_pos = 0, out_pos = 0;
  const lzma_ret r = lzma_raw_buffer_decode(filters, nullptr, reinterpret_cast<const std::uint8_t*>(input.data()),
                                            &in_pos, input.size(), reinterpret_cast<std::uint8_t*>(output.data()),
                                            &out_pos, output.size());
  // LZMA_OK with all output written but the end marker unread, LZMA_BUF_ERROR when the output is too small.
  return r == LZMA_OK && in_pos == input.size() && out_pos == output.size();
}

}  // namespace tbkit::formats
