// Block marks (formats/pair_decoder.h): look-ups that resume decoding at a mark noted by an earlier
// look-up give the same values as decoding each block whole, in any order of look-ups and from two
// threads at once, on the official Syzygy fixtures (64-byte WDL blocks, larger DTZ blocks).
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "formats/pair_decoder.h"
#include "formats/syzygy_file.h"

namespace {

namespace sz = tbkit::formats::syzygy;

std::filesystem::path marks_fixture(const char* name) {
  return std::filesystem::path(TBKIT_DATA_DIR) / "tablebases" / "syzygy" / name;
}

// Every value of one subtable, block by block through expand_pair_block (which uses no marks).
std::vector<int> block_expansion(const sz::SyzygyFile& file, const sz::SubtableLayout& s, std::uint64_t size,
                          const std::byte* base) {
  std::vector<int> out;
  std::vector<std::uint16_t> block(65536);
  for (std::uint32_t b = 0; b < s.block_count && out.size() < size; ++b) {
    auto n = sz::expand_pair_block(s, base, b, block, file.name());
    REQUIRE(n.ok());
    out.insert(out.end(), block.begin(), block.begin() + *n);
  }
  out.resize(std::size_t(size));
  return out;
}

// The marks of a subtable noted so far.
std::size_t marks_noted(const sz::SubtableLayout& s) {
  std::size_t n = 0;
  for (std::uint32_t b = 0; b < s.block_count; ++b)
    for (int j = 0; j < s.marks.per_block(); ++j) n += std::atomic_ref(s.marks.of(b)[j]).load() != 0;
  return n;
}

// Calls body(file, layout, side, file index, size, whole-block values) for every subtable with
// values to decode in the four fixtures, each file freshly opened (no mark noted yet); gives the
// number of subtables.
template <class F>
std::size_t for_each_fixture_subtable(F&& body) {
  std::size_t subtables = 0;
  for (const char* name : {"KRvKP.rtbw", "KQvKR.rtbw", "KPvKP.rtbz", "KPPvK.rtbz"}) {
    INFO(name);
    auto opened = sz::SyzygyFile::open(marks_fixture(name));
    REQUIRE(opened.ok());
    const sz::SyzygyFile& file = *opened;
    const std::string bytes = [&] {
      std::ifstream in(marks_fixture(name), std::ios::binary);
      return std::string(std::istreambuf_iterator<char>(in), {});
    }();
    const auto* base = reinterpret_cast<const std::byte*>(bytes.data());
    for (int f = 0; f < file.index().files; ++f)
      for (int side = 0; side < file.index().sides; ++side) {
        const sz::SubtableLayout& s = file.layout(side, f);
        if (s.flags & sz::kFlagSingleValue) continue;  // nothing to decode
        ++subtables;
        REQUIRE(s.marks.per_block() > 0);
        const std::uint64_t size = file.index().at(side, f).size();
        INFO("subtable side " << side << ", file " << f);
        body(file, s, side, f, size, block_expansion(file, s, size, base));
      }
  }
  return subtables;
}

}  // namespace

TEST_CASE("Look-ups resuming at block marks read what whole blocks decode to", "[formats][syzygy]") {
  std::size_t lookups = 0, noted = 0;
  const std::size_t subtables = for_each_fixture_subtable([&](const sz::SyzygyFile& file, const sz::SubtableLayout& s,
                                                              int side, int f, std::uint64_t size,
                                                              const std::vector<int>& want) {
    // Descending, so every look-up but a block's first may start from a mark an earlier one noted
    // past it.
    std::uint64_t first_wrong = size;
    for (std::uint64_t i = size; i-- > 0;) {
      auto v = file.stored_value(side, f, i);
      if (!v.ok() || *v != want[std::size_t(i)]) first_wrong = i;
    }
    INFO("first wrong index " << first_wrong);
    CHECK(first_wrong == size);
    lookups += std::size_t(size);
    noted += marks_noted(s);
  });
  CHECK(subtables >= 4);
  CHECK(lookups > 40000);
  // The descending pass noted marks (so later look-ups could start from them).
  CHECK(noted > 0);
}

// The threaded part alone, which scripts/test also runs under ThreadSanitizer: marks noted and read
// by two threads at once.
TEST_CASE("Look-ups from two threads at once, noting and resuming at block marks, read what whole blocks decode to",
          "[formats][syzygy][threads]") {
  std::size_t lookups = 0, noted = 0;
  const std::size_t subtables = for_each_fixture_subtable([&](const sz::SyzygyFile& file, const sz::SubtableLayout& s,
                                                              int side, int f, std::uint64_t size,
                                                              const std::vector<int>& want) {
    std::vector<std::uint64_t> order(std::size_t(std::min<std::uint64_t>(size, 20000)));
    std::mt19937_64 rng{size};
    for (auto& i : order) i = rng() % size;
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t)
      threads.emplace_back([&] {
        for (const std::uint64_t i : order) {
          auto v = file.stored_value(side, f, i);
          if (!v.ok() || *v != want[std::size_t(i)]) ++wrong;
        }
      });
    for (auto& t : threads) t.join();
    CHECK(wrong == 0);
    lookups += 2 * order.size();
    noted += marks_noted(s);
  });
  CHECK(subtables >= 4);
  CHECK(lookups > 40000);
  CHECK(noted > 0);
}

TEST_CASE("Block marks are placed inside the block, none for blocks too large", "[formats][syzygy]") {
  sz::BlockMarks marks;
  marks.reset(10, 64);
  REQUIRE(marks.per_block() == 64 / sz::BlockMarks::kBytesPerMark);
  for (int j = 0; j < marks.per_block(); ++j) {
    CHECK(marks.target(j) > 0);
    CHECK(marks.target(j) < 64 * 8);
    if (j > 0) CHECK(marks.target(j) > marks.target(j - 1));
  }
  REQUIRE(marks.of(9) != nullptr);
  CHECK(marks.of(9)[marks.per_block() - 1] == 0);
  const sz::BlockMarks copy = marks;  // an empty set of the same shape
  CHECK(copy.per_block() == marks.per_block());
  marks.reset(10, 1024);
  CHECK(marks.per_block() == sz::BlockMarks::kMaxMarks);
  marks.reset(10, 16384);  // 131072 bits: past 16-bit positions
  CHECK(marks.per_block() == 0);
  CHECK(marks.of(0) == nullptr);
}
