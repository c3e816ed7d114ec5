#include "formats/lzma_block.h"

#include <lzma.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace tbkit::formats {
namespace {

// liblzma allocates its match finder (about 14 MiB for a 1 MiB dictionary) anew for every block.
// Each thread keeps the large pieces it freed and hands them back for the same size, so a
// table's blocks reuse pages already mapped instead of faulting fresh ones in (page faults are
// costly on a virtual machine). liblzma initialises what it reads, so the bytes do not change.
class PieceCache {
 public:
  PieceCache() = default;
  PieceCache(const PieceCache&) = delete;
  PieceCache& operator=(const PieceCache&) = delete;
  ~PieceCache() {
    for (const Piece& p : pieces_) std::free(p.ptr);
  }
  void* allocate(std::size_t size) {
    if (size < kSmallest) return std::malloc(size);
    for (Piece& p : pieces_)
      if (!p.used && p.size == size) {
        p.used = true;
        return p.ptr;
      }
    void* ptr = std::malloc(size);
    if (ptr != nullptr && held_ + size <= kMaxHeld) {
      pieces_.push_back({ptr, size, true});
      held_ += size;
    }
    return ptr;
  }
  void release(void* ptr) {
    for (Piece& p : pieces_)
      if (p.ptr == ptr) {
        p.used = false;
        return;
      }
    std::free(ptr);
  }

 private:
  static constexpr std::size_t kSmallest = std::size_t{64} << 10;
  static constexpr std::size_t kMaxHeld = std::size_t{64} << 20;  // per thread
  struct Piece {
    void* ptr;
    std::size_t size;
    bool used;
  };
  std::vector<Piece> pieces_;
  std::size_t held_ = 0;
};

PieceCache& piece_cache() {
  thread_local PieceCache cache;
  return cache;
}

void* cached_alloc(void* /*opaque*/, std::size_t nmemb, std::size_t size) {
  return piece_cache().allocate(nmemb * size);  // liblzma passes nmemb 1
}
void cached_free(void* /*opaque*/, void* ptr) {
  if (ptr != nullptr) piece_cache().release(ptr);
}
const lzma_allocator kCachedAllocator{cached_alloc, cached_free, nullptr};

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
  // Coded into a buffer the thread keeps, then copied at its final size.
  thread_local std::vector<std::uint8_t> scratch;
  scratch.resize(std::max(scratch.size(), lzma_block_bound(input.size())));
  std::size_t out_pos = 0;
  const lzma_ret r = lzma_raw_buffer_encode(filters, &kCachedAllocator, reinterpret_cast<const std::uint8_t*>(input.data()),
                                            input.size(), scratch.data(), &out_pos, lzma_block_bound(input.size()));
  if (r != LZMA_OK) return false;
  output.resize(out_pos);
  std::copy_n(reinterpret_cast<const std::byte*>(scratch.data()), out_pos, output.begin());
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
