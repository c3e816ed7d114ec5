#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>

#include "formats/table_file.h"
#include "tests/formats/golden_data.h"

using namespace tbkit;
using namespace tbkit::formats;

namespace {

std::vector<std::byte> read_golden(const std::string& file) {
  std::ifstream in(std::filesystem::path(TBKIT_SOURCE_DIR) / "tests/golden" / file, std::ios::binary);
  std::vector<char> c((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> b(c.size());
  for (std::size_t i = 0; i < c.size(); ++i) b[i] = std::byte(c[i]);
  return b;
}

// Every call either fails or returns the true value; and some call must fail.
void check_damaged(std::span<const std::byte> bytes, const golden::GoldenTable& t, std::size_t at) {
  auto table = TableFile::open_memory(bytes, "flipped");
  if (!table.ok()) {
    REQUIRE((table.error().code == ErrorCode::kCorrupt || table.error().code == ErrorCode::kVersion));
    return;
  }
  INFO("byte " << at << " damaged but the file opened");
  auto st = table->verify();
  REQUIRE(!st.ok());
  CHECK(st.error().code == ErrorCode::kCorrupt);
  // The block checksums alone catch it too (gen's present-and-valid test reads nothing else).
  bool checksum_caught = false;
  for (std::uint64_t b = 0; b < table->block_count() && !checksum_caught; ++b)
    if (auto c = table->check_block_checksum(b); !c) {
      CHECK(c.error().code == ErrorCode::kCorrupt);
      checksum_caught = true;
    }
  CHECK(checksum_caught);
  CHECK(table->check_block_checksum(table->block_count()).error().code == ErrorCode::kInvalidArgument);
  // Block by block, so an undamaged block's values are checked even when another block is bad.
  // Mismatches are counted and asserted once (a REQUIRE per value would dominate the run time).
  std::uint64_t wrong = 0;
  for (int side = 0; side < 2; ++side) {
    if (t.stored_side >= 0 && side != t.stored_side) continue;
    const auto n = t.info.positions_per_side;
    for (std::uint64_t first = 0; first < n; first += table->values_per_block()) {
      const auto count = std::min<std::uint64_t>(table->values_per_block(), n - first);
      auto got = table->values(chess::Color(side), first, count);
      if (got.ok()) {
        for (std::uint64_t i = 0; i < count; ++i)
          wrong += !golden::golden_accepts(t, side, first + i, got->at(i));
      } else {
        REQUIRE(got.error().code == ErrorCode::kCorrupt);
      }
      // And the single-value path, on the block's last slot.
      const std::uint64_t last = first + count - 1;
      auto v = table->value(chess::Color(side), last);
      wrong += v.ok() && !golden::golden_accepts(t, side, last, *v);
      REQUIRE(v.ok() == got.ok());
    }
  }
  REQUIRE(wrong == 0);
}

}  // namespace

TEST_CASE("Every single damaged byte is detected, no wrong value is returned", "[formats][fuzz]") {
  for (const auto& t : golden::golden_tables()) {
    if (t.file.ends_with("dict.tbk")) continue;  // covered by the truncation case; larger
    INFO(t.file);
    const auto good = read_golden(t.file);
    REQUIRE(good.size() > 128);
    // Every byte inverted; header bytes also with single bits flipped (its fields are bit-packed).
    for (std::size_t at = 0; at < good.size(); ++at) {
      for (std::byte mask : {std::byte{0xFF}, std::byte{0x01}, std::byte{0x80}}) {
        if (mask != std::byte{0xFF} && at >= 128) continue;
        auto bytes = good;
        bytes[at] ^= mask;
        check_damaged(bytes, t, at);
      }
    }
  }
}

TEST_CASE("Every truncation is rejected at open", "[formats][fuzz]") {
  for (const auto& t : golden::golden_tables()) {
    INFO(t.file);
    const auto good = read_golden(t.file);
    for (std::size_t size = 0; size < good.size(); ++size) {
      auto table = TableFile::open_memory(std::span(good).first(size), "cut");
      REQUIRE(!table.ok());
      REQUIRE(table.error().code == ErrorCode::kCorrupt);
    }
    auto longer = good;
    longer.push_back(std::byte{0});
    auto table = TableFile::open_memory(longer, "longer");
    REQUIRE(!table.ok());
    CHECK(table.error().message == "longer: offset 80 (file_size): trailing bytes: file has " +
                                       std::to_string(longer.size()) + " bytes, header says " +
                                       std::to_string(good.size()));
  }
}
