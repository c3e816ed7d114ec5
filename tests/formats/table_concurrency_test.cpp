#include <catch2/catch.hpp>

#include <atomic>
#include <string_view>
#include <thread>

#include "formats/crc32c.h"
#include "formats/table_file.h"
#include "tests/formats/golden_data.h"

using namespace tbkit;
using namespace tbkit::formats;

TEST_CASE("CRC-32C check value", "[formats][crc]") {
  constexpr std::string_view kCheck = "123456789";
  CHECK(crc32c(std::as_bytes(std::span(kCheck.data(), kCheck.size()))) == 0xE3069283U);
  // Continuing a CRC over a split input gives the CRC of the whole.
  const auto bytes = std::as_bytes(std::span(kCheck.data(), kCheck.size()));
  CHECK(crc32c(bytes.subspan(4), crc32c(bytes.first(4))) == 0xE3069283U);
  CHECK(crc32c({}) == 0U);
}

TEST_CASE("A TableFile and its copies answer concurrently", "[formats][table][threads]") {
  const auto t = golden::golden_tables().front();
  const std::vector<DtmValue> expected[2] = {golden::golden_values(t, 0), golden::golden_values(t, 1)};
  auto bytes = encode_table(t.info, expected[0], expected[1], t.options);
  REQUIRE(bytes.ok());
  auto file = TableFile::open_memory(*bytes, "memory");
  REQUIRE(file.ok());
  const TableFile copy = *file;  // shares the mapping and the decoder pool
  std::atomic<int> wrong{0};
  auto worker = [&](const TableFile& f, int seed) {
    for (std::uint64_t k = 0; k < 4000; ++k) {
      const int side = int((k + std::uint64_t(seed)) & 1);
      const std::uint64_t i = (k * 7919 + std::uint64_t(seed) * 104729) % t.info.positions_per_side;
      auto v = f.value(chess::Color(side), i);
      if (!v.ok() || (!expected[side][i].is_illegal() && *v != expected[side][i])) ++wrong;
    }
  };
  std::thread a(worker, std::cref(*file), 1), b(worker, std::cref(copy), 2), c(worker, std::cref(*file), 3);
  a.join();
  b.join();
  c.join();
  CHECK(wrong == 0);
}
