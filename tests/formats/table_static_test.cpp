// Format version 4 (one static pair + Huffman model, tiny blocks decoded in place): round trips
// through the writer and TableFile at several block sizes, freedoms, wide symbol sets, edge sizes,
// refused options.
#include <catch2/catch.hpp>

#include <random>

#include "formats/table_file.h"
#include "formats/table_static_codec.h"

using namespace tbkit;
using namespace tbkit::formats;

namespace {

// Runs of values, as in a real table (runs are what pairs and fills pay for), with illegal slots.
std::vector<DtmValue> run_values(std::uint64_t n, std::uint32_t seed, int distinct) {
  std::mt19937 rng(seed);
  std::vector<DtmValue> v(n);
  DtmValue current = DtmValue::draw();
  for (auto& x : v) {
    if (rng() % 8 == 0) {
      const int depth = int(rng() % std::uint32_t(distinct));
      const auto r = rng() % 3;
      current = r == 0 ? DtmValue::draw() : r == 1 ? DtmValue::win_in_plies(2 * depth + 1) : DtmValue::loss_in_plies(2 * depth);
    }
    x = rng() % 11 == 0 ? DtmValue::illegal() : current;
  }
  return v;
}

std::vector<SlotFreedom> run_freedom(std::uint64_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<SlotFreedom> f(n);
  for (auto& x : f) {
    const auto r = rng() % 10;
    x = r == 0 ? SlotFreedom::kAny : r < 4 ? SlotFreedom::kNoBetter : SlotFreedom::kExact;
  }
  return f;
}

bool accepts(DtmValue want, SlotFreedom freedom, DtmValue got) {
  if (want.is_illegal() || freedom == SlotFreedom::kAny) return true;
  if (freedom == SlotFreedom::kNoBetter) return !got.is_illegal() && preference_of(got) <= preference_of(want);
  return got == want;
}

TableWriteOptions v4(std::uint32_t block_bytes) {
  TableWriteOptions o;
  o.format_version = 4;
  o.static_block_bytes = block_bytes;
  return o;
}

// Writes `values` (with `freedom`, or exact) as version 4 and checks every slot through values()
// and value(), and verify(). Returns the file.
TableFile round_trip(const std::vector<DtmValue>& values, const std::vector<SlotFreedom>& freedom,
                     std::uint32_t block_bytes, chess::Color side = chess::Color::kBlack) {
  const TableInfo info{"KRvKP", 5, values.size(), "tbkit test", 0};
  auto bytes = encode_table(info, OneSide{side, values, freedom}, v4(block_bytes));
  REQUIRE(bytes.ok());
  auto file = TableFile::open_memory(*bytes, "v4");
  INFO((file.ok() ? "" : file.error().message));
  REQUIRE(file.ok());
  CHECK(file->format_version() == 4);
  CHECK(file->codec() == BlockCodec::kStatic);
  CHECK(file->stored_side() == side);
  CHECK(file->capture_resolved() == !freedom.empty());
  CHECK(file->stores(side));
  CHECK(!file->stores(~side));
  CHECK(file->value(~side, 0).error().code == ErrorCode::kInvalidArgument);
  CHECK(file->value(side, values.size()).error().code == ErrorCode::kInvalidArgument);
  REQUIRE(file->verify().ok());
  auto all = file->values(side, 0, values.size());
  REQUIRE(all.ok());
  REQUIRE(all->size() == values.size());
  std::uint64_t wrong = 0, single_wrong = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const SlotFreedom f = freedom.empty() ? SlotFreedom::kExact : freedom[i];
    wrong += !accepts(values[i], f, all->at(i));
    auto one = file->value(side, i);
    REQUIRE(one.ok());
    single_wrong += *one != all->at(i);
  }
  CHECK(wrong == 0);
  CHECK(single_wrong == 0);
  // A range starting and ending inside blocks.
  if (values.size() > 1000) {
    auto middle = file->values(side, 333, 500);
    REQUIRE(middle.ok());
    CHECK(std::equal(middle->begin(), middle->end(), all->begin() + 333));
  }
  return std::move(*file);
}

}  // namespace

TEST_CASE("Version 4 reads back every value at every block size, exact and capture-resolved", "[formats][format4]") {
  const auto values = run_values(50000, 3, 40);
  const auto freedom = run_freedom(values.size(), 4);
  for (std::uint32_t block : {32U, 64U, 256U, 1024U, 4096U}) {
    INFO("block " << block);
    const TableFile exact = round_trip(values, {}, block, chess::Color::kWhite);
    const TableFile resolved = round_trip(values, freedom, block);
    // The freedoms are used: the resolved file is smaller.
    CHECK(resolved.file_size() < exact.file_size());
    CHECK(exact.block_count() > 1);
  }
}

TEST_CASE("Version 4 codes more than 256 distinct values, and single-valued and one-slot tables", "[formats][format4]") {
  const auto wide = run_values(40000, 9, 700);
  const TableFile file = round_trip(wide, {}, 64);
  CHECK(file.symbol_count() > 1000);
  // Every slot illegal: one symbol.
  const TableFile empty = round_trip(std::vector<DtmValue>(5000, DtmValue::illegal()), {}, 64);
  CHECK(empty.symbol_count() == 1);
  const TableFile draws = round_trip(std::vector<DtmValue>(300000, DtmValue::draw()), {}, 256);
  CHECK(draws.symbol_count() == 1);
  CHECK(draws.file_size() < 8192);
  round_trip({DtmValue::win_in_plies(7)}, {}, 64);
  round_trip({DtmValue::win_in_plies(7), DtmValue::loss_in_plies(4)}, {SlotFreedom::kExact, SlotFreedom::kNoBetter}, 32);
}

TEST_CASE("Version 4: the fill repeats the previous value where the freedom allows", "[formats][format4]") {
  const std::vector<DtmValue> v = {DtmValue::illegal(), DtmValue::win_in_plies(5), DtmValue::illegal(),
                                   DtmValue::win_in_plies(3), DtmValue::win_in_plies(9), DtmValue::loss_in_plies(2)};
  const std::vector<SlotFreedom> f = {SlotFreedom::kExact, SlotFreedom::kExact, SlotFreedom::kExact,
                                      SlotFreedom::kNoBetter, SlotFreedom::kNoBetter, SlotFreedom::kAny};
  const static_codec::FilledValues filled = static_codec::fill_and_number(v, f);
  std::vector<DtmValue> stored;
  for (auto c : filled.codes) stored.push_back(filled.symbols.at(c));
  // Illegal and kAny slots repeat; a win in 3 plies (kNoBetter) may be stored as the slower win in 5,
  // a win in 9 may not be stored as the faster win in 5.
  CHECK(stored == std::vector<DtmValue>{DtmValue::win_in_plies(5), DtmValue::win_in_plies(5), DtmValue::win_in_plies(5),
                                        DtmValue::win_in_plies(5), DtmValue::win_in_plies(9), DtmValue::win_in_plies(9)});
  // Numbered by decreasing frequency.
  CHECK(filled.symbols == std::vector<DtmValue>{DtmValue::win_in_plies(5), DtmValue::win_in_plies(9)});
}

TEST_CASE("Version 4 options are checked, and it is written whole", "[formats][format4]") {
  const std::vector<DtmValue> v(100, DtmValue::draw());
  const TableInfo info{"KQvK", 1, v.size(), "t", 0};
  for (std::uint32_t bad : {0U, 16U, 48U, 131072U})
    CHECK(encode_table(info, OneSide{chess::Color::kWhite, v, {}}, v4(bad)).error().code == ErrorCode::kInvalidArgument);
  CHECK(TableEncoder::create(info, OneSide{chess::Color::kWhite, v, {}}, v4(64)).error().code == ErrorCode::kInvalidArgument);
  CHECK(encode_table(info, v, v, v4(64)).error().code == ErrorCode::kInvalidArgument);  // both sides: not version 4
  // More distinct values than the format codes.
  std::vector<DtmValue> many;
  for (int d = 0; d < 4000; ++d) many.push_back(DtmValue::win_in_plies(2 * d + 1));
  const TableInfo many_info{"KQvK", 1, many.size(), "t", 0};
  CHECK(encode_table(many_info, OneSide{chess::Color::kWhite, many, {}}, v4(64)).error().code == ErrorCode::kInvalidArgument);
}

TEST_CASE("Version 4: a damaged data byte is reported by the probe that reads its chunk, never a wrong value", "[formats][format4]") {
  const auto values = run_values(20000, 21, 30);
  const TableInfo info{"KRvKP", 5, values.size(), "tbkit test", 0};
  auto good = encode_table(info, OneSide{chess::Color::kWhite, values, {}}, v4(64));
  REQUIRE(good.ok());
  auto clean = TableFile::open_memory(*good, "clean");
  REQUIRE(clean.ok());
  const auto want = clean->values(chess::Color::kWhite, 0, values.size());
  REQUIRE(want.ok());
  // Flip bytes spread over the data (the last tenth of the file is all data): each opens (the
  // metadata is intact), and every value either comes back right or the call fails as corrupt.
  std::mt19937 rng(5);
  for (int k = 0; k < 40; ++k) {
    auto bytes = *good;
    const std::size_t at = bytes.size() - 1 - rng() % (bytes.size() / 10);
    bytes[at] ^= std::byte{std::uint8_t(1 + rng() % 255)};
    auto file = TableFile::open_memory(bytes, "flipped");
    REQUIRE(file.ok());
    CHECK(file->verify().error().code == ErrorCode::kCorrupt);
    std::uint64_t wrong = 0, failed = 0;
    for (std::uint64_t i = 0; i < values.size(); ++i) {
      auto v = file->value(chess::Color::kWhite, i);
      if (!v) {
        REQUIRE(v.error().code == ErrorCode::kCorrupt);
        ++failed;
      } else {
        wrong += *v != want->at(i);
      }
    }
    CHECK(wrong == 0);
    CHECK(failed > 0);
  }
}
