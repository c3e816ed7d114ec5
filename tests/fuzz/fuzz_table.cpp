// libFuzzer target: any input is treated as a table file image (version 1, or 2 with zstd or LZMA2
// blocks). Opening, verifying and reading
// values must never crash, hang or read out of bounds; errors are fine. Each input is tried as
// given and with its checksums repaired, so mutations also reach the decoder behind the checks.
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <span>
#include <vector>

#include "formats/byte_order.h"
#include "formats/crc32c.h"
#include "formats/table_file.h"
#include "formats/table_layout.h"

namespace {

using namespace tbkit;
using namespace tbkit::formats;

// Properties hold in every build type: a broken one aborts, which libFuzzer reports.
void check(bool property, const char* what) {
  if (property) return;
  std::fprintf(stderr, "fuzz_table: property failed: %s\n", what);
  std::abort();
}

void exercise(std::span<const std::byte> bytes) {
  auto table = TableFile::open_memory(bytes, "fuzz");
  if (!table.ok()) return;
  const bool verified = table->verify().ok();
  const std::uint64_t n = table->info().positions_per_side;
  for (auto side : {chess::Color::kWhite, chess::Color::kBlack}) {
    if (!table->stores(side)) {  // format version 3 stores one side
      auto v = table->value(side, 0);
      check(!v.ok() && v.error().code == ErrorCode::kInvalidArgument, "unstored side rejected");
      continue;
    }
    for (std::uint64_t i : {std::uint64_t{0}, n / 2, n - 1}) check(table->value(side, i).ok() || !verified, "value after verify");
    for (std::uint64_t i : {n, n + 1}) {
      auto v = table->value(side, i);
      check(!v.ok() && v.error().code == ErrorCode::kInvalidArgument, "index out of range rejected");
    }
    auto some = table->values(side, 0, std::min<std::uint64_t>(n, 4096));
    check(some.ok() || !verified, "values after verify");
    check(!table->values(side, n - 1, 2).ok(), "range past the end rejected");
  }
}

// Rewrites the block, metadata and header checksums (where the layout fields allow) to match.
void repair_checksums(std::vector<std::byte>& b) {
  namespace L = layout;
  if (b.size() < L::kHeaderSize) return;
  const std::uint64_t symbols = load_le<std::uint32_t>(&b[L::kOffSymbolCount]);
  const std::uint64_t dict = load_le<std::uint32_t>(&b[L::kOffDictionarySize]);
  const std::uint64_t blocks = load_le<std::uint64_t>(&b[L::kOffBlockCount]);
  if (blocks > b.size()) return;
  const std::uint64_t index = L::kHeaderSize + 2 * symbols + dict;
  const std::uint64_t data = index + L::kIndexEntrySize * blocks;
  if (data > b.size()) return;
  for (std::uint64_t k = 0; k < blocks; ++k) {
    std::byte* e = &b[index + L::kIndexEntrySize * k];
    const std::uint64_t off = load_le<std::uint64_t>(e);
    const std::uint64_t len = load_le<std::uint32_t>(e + 8);
    if (off <= b.size() && len <= b.size() - off) store_le<std::uint32_t>(e + 12, crc32c(std::span(b).subspan(off, len)));
  }
  store_le<std::uint32_t>(&b[L::kOffMetadataChecksum],
                          crc32c(std::span(b).subspan(L::kHeaderSize, data - L::kHeaderSize)));
  store_le<std::uint32_t>(&b[L::kOffHeaderChecksum], crc32c(std::span(b).first(L::kOffHeaderChecksum)));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = std::as_bytes(std::span(data, size));
  exercise(input);
  std::vector<std::byte> repaired(input.begin(), input.end());
  repair_checksums(repaired);
  exercise(repaired);
  return 0;
}
