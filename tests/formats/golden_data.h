// The synthetic tables behind tests/golden/*.tbk: values are a fixed function of the index, so a
// reader of any later version can check every value of the golden files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/dtm_value.h"
#include "formats/table_file.h"

namespace tbkit::golden {

struct GoldenTable {
  std::string file;  // name under tests/golden/
  formats::TableInfo info;
  formats::TableWriteOptions options;
  int value_range = 0;  // distinct win/loss depths: > 128 gives 16-bit symbols
  int stored_side = -1; // versions 3, 4: the one side stored (0 White, 1 Black); -1: both
  bool resolved = false;  // version 3: with golden_freedom (capture-resolved)
};

inline std::vector<GoldenTable> golden_tables() {
  // Version 1: zstd level 19 was the only codec.
  formats::TableWriteOptions small;
  small.block_bytes = 256;
  small.codec = formats::BlockCodec::kZstd;
  small.compression_level = 19;
  small.format_version = 1;
  formats::TableWriteOptions dict = small;
  dict.block_bytes = 512;
  dict.dictionary_bytes = 1024;
  // Version 2: LZMA2 blocks (the default), and zstd blocks with a dictionary.
  formats::TableWriteOptions lzma;
  lzma.block_bytes = 1024;
  formats::TableWriteOptions zstd2 = dict;
  zstd2.format_version = 2;
  // Version 3: one side stored (OneSide; format_version is ignored there).
  formats::TableWriteOptions zstd3;
  zstd3.block_bytes = 512;
  zstd3.codec = formats::BlockCodec::kZstd;
  zstd3.compression_level = 19;
  // Version 4: one side, one static pair + Huffman model, tiny blocks.
  formats::TableWriteOptions static64;
  static64.format_version = 4;
  formats::TableWriteOptions static32 = static64;
  static32.static_block_bytes = 32;
  return {
      {"v1-8bit.tbk", {"KQvK", 1, 3000, "tbkit golden", 1763769600}, small, 20},
      {"v1-16bit.tbk", {"KRPvKR", 2, 1500, "tbkit golden", 0}, small, 300},
      {"v1-dict.tbk", {"KBNvK", 3, 20000, "tbkit golden", 1763769600}, dict, 40},
      {"v2-lzma-8bit.tbk", {"KQvKR", 1, 3000, "tbkit golden v2", 1763769600}, lzma, 20},
      {"v2-lzma-16bit.tbk", {"KRPvKR", 2, 1500, "tbkit golden v2", 0}, lzma, 300},
      {"v2-zstd-dict.tbk", {"KBNvK", 3, 20000, "tbkit golden v2", 1763769600}, zstd2, 40},
      {"v3-lzma-resolved.tbk", {"KQvKR", 1, 3000, "tbkit golden v3", 1763769600}, lzma, 20, 1, true},
      {"v3-lzma-16bit.tbk", {"KRPvKR", 2, 4000, "tbkit golden v3", 0}, lzma, 600, 0, true},
      {"v3-zstd-exact.tbk", {"KBNvK", 3, 3000, "tbkit golden v3", 0}, zstd3, 40, 0, false},
      {"v4-static-resolved.tbk", {"KQvKR", 1, 3000, "tbkit golden v4", 1763769600}, static64, 20, 1, true},
      {"v4-static-16bit.tbk", {"KRPvKR", 2, 2000, "tbkit golden v4", 0}, static32, 600, 0, true},
  };
}

// Value of slot `index` for side 0 (White) or 1 (Black).
inline formats::DtmValue golden_value(int side, std::uint64_t index, int value_range) {
  std::uint64_t h = (index + 1) * 0x9E3779B97F4A7C15ULL + std::uint64_t(side) * 0xD1B54A32D192ED03ULL;
  h ^= h >> 29;
  const auto depth = int((index / 8 + h % 2) % std::uint64_t(value_range));
  switch ((index / 4 + h % 3) % 13) {
    case 0: return formats::DtmValue::illegal();
    case 1: case 2: case 3: return formats::DtmValue::draw();
    case 4: case 5: case 6: return formats::DtmValue::loss_in_plies(2 * depth);
    default: return formats::DtmValue::win_in_plies(2 * depth + 1);
  }
}

// The writer's freedom at slot `index` of a resolved version-3 golden table.
inline formats::SlotFreedom golden_freedom(std::uint64_t index) {
  if (index % 17 == 3) return formats::SlotFreedom::kAny;
  return index % 3 == 1 ? formats::SlotFreedom::kNoBetter : formats::SlotFreedom::kExact;
}

inline std::vector<formats::SlotFreedom> golden_freedoms(const GoldenTable& t) {
  std::vector<formats::SlotFreedom> f;
  if (t.resolved)
    for (std::uint64_t i = 0; i < t.info.positions_per_side; ++i) f.push_back(golden_freedom(i));
  return f;
}

// Whether `got`, read from slot `index` of side `side`, is what the file may hold there: the
// golden value, or (resolved version 3) anything no better (kNoBetter) or anything (kAny).
inline bool golden_accepts(const GoldenTable& t, int side, std::uint64_t index, formats::DtmValue got) {
  const formats::DtmValue want = golden_value(side, index, t.value_range);
  if (want.is_illegal()) return true;
  if (t.resolved && golden_freedom(index) == formats::SlotFreedom::kAny) return true;
  if (t.resolved && golden_freedom(index) == formats::SlotFreedom::kNoBetter)
    return !got.is_illegal() && formats::preference_of(got) <= formats::preference_of(want);
  return got == want;
}

inline std::vector<formats::DtmValue> golden_values(const GoldenTable& t, int side) {
  std::vector<formats::DtmValue> v(t.info.positions_per_side);
  for (std::uint64_t i = 0; i < v.size(); ++i) v[i] = golden_value(side, i, t.value_range);
  return v;
}

}  // namespace tbkit::golden
