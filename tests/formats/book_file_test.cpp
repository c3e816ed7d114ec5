#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <random>

#include "formats/book_file.h"
#include "tests/formats/book_test_util.h"

using namespace tbkit;
using namespace tbkit::formats;

namespace {

std::vector<BookRecord> random_records(std::size_t positions, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<BookRecord> out;
  for (std::size_t i = 0; i < positions; ++i) {
    const std::uint64_t key = rng();
    const int moves = 1 + int(rng() % 4);
    for (int m = 0; m < moves; ++m) {
      BookRecord r{};
      r.key = key;
      r.move = std::uint16_t(1 + m * 97 + (rng() % 50));
      r.flags = key & 1 ? kBookBlackToMove : 0;
      r.white_wins = std::uint32_t(rng() % 100);
      r.draws = std::uint32_t(rng() % 100);
      r.black_wins = std::uint32_t(rng() % 100);
      r.games = r.white_wins + r.draws + r.black_wins + std::uint32_t(rng() % 5);
      r.rated_games = r.games / 2;
      r.elo_sum = std::uint64_t(r.rated_games) * 2400;
      out.push_back(r);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end(), [](auto& a, auto& b) { return a.key == b.key && a.move == b.move; }), out.end());
  return out;
}

void write_book(const std::filesystem::path& path, const std::vector<BookRecord>& records, const BookParams& params = {}) {
  auto w = BookWriter::create(path, params);
  REQUIRE(w.ok());
  for (const auto& r : records) REQUIRE(w->add(r).ok());
  w->set_games(1234);
  REQUIRE(w->finish().ok());
}

std::string open_error(const std::filesystem::path& path) {
  auto b = BookFile::open(path);
  REQUIRE_FALSE(b.ok());
  return b.error().message;
}

}  // namespace

TEST_CASE("Native book: round trip, header and lookups", "[formats][book]") {
  test::ScratchDir dir;
  const auto records = random_records(3000, 7);
  BookParams params;
  params.max_ply = 30;
  params.min_games = 2;
  params.min_elo = 2200;
  params.elo_of = EloOf::kAverage;
  params.colour = ColourFilter::kBlackOnly;
  params.since = 20200101;
  params.until = 20221231;
  params.variations = true;
  write_book(dir / "b.tbb", records, params);
  CHECK_FALSE(std::filesystem::exists(dir / "b.tbb.tmp"));
  CHECK(std::filesystem::file_size(dir / "b.tbb") == kBookHeaderSize + records.size() * sizeof(BookRecord));

  auto book = BookFile::open(dir / "b.tbb");
  REQUIRE(book.ok());
  CHECK(book->info().entry_count == records.size());
  CHECK(book->info().position_count == 3000);
  CHECK(book->info().games == 1234);
  CHECK(book->info().params == params);
  REQUIRE(book->records().size() == records.size());
  CHECK(std::equal(records.begin(), records.end(), book->records().begin(),
                   [](auto& a, auto& b) { return std::memcmp(&a, &b, sizeof a) == 0; }));

  // Every present key finds exactly its records; absent keys find nothing.
  std::mt19937_64 rng(99);
  for (std::size_t i = 0; i < records.size(); i += 7) {
    const auto found = book->lookup(records[i].key);
    const auto expect = std::equal_range(records.begin(), records.end(), records[i],
                                         [](auto& a, auto& b) { return a.key < b.key; });
    REQUIRE(found.size() == std::size_t(expect.second - expect.first));
    CHECK(found.front().move == expect.first->move);
  }
  for (int i = 0; i < 2000; ++i) {
    const std::uint64_t k = rng();
    const bool present = std::binary_search(records.begin(), records.end(), BookRecord{k, 0, 0, 0, 0, 0, 0, 0, 0},
                                            [](auto& a, auto& b) { return a.key < b.key; });
    CHECK(book->lookup(k).empty() == !present);
  }
  CHECK(book->lookup(0).empty());
  CHECK(book->lookup(~0ULL).empty());
  CHECK(book->lookup(records.front().key).size() >= 1);
  CHECK(book->lookup(records.back().key).size() >= 1);
}

TEST_CASE("Native book: lower_bound_key on skewed keys", "[formats][book]") {
  // Keys clustered at the low end defeat the interpolation guess; the gallop must still be exact.
  std::vector<BookRecord> recs;
  for (std::uint64_t i = 0; i < 5000; ++i) recs.push_back(BookRecord{i * 3 + 1, 1, 0, 1, 0, 0, 0, 0, 0});
  recs.push_back(BookRecord{~0ULL - 5, 1, 0, 1, 0, 0, 0, 0, 0});
  for (std::uint64_t k : {0ULL, 1ULL, 2ULL, 3ULL, 4ULL, 14998ULL, 15000ULL, 1ULL << 40, ~0ULL - 6, ~0ULL - 5, ~0ULL}) {
    const auto expect = std::lower_bound(recs.begin(), recs.end(), k, [](auto& r, std::uint64_t key) { return r.key < key; });
    CHECK(lower_bound_key(recs, k) == std::size_t(expect - recs.begin()));
  }
  CHECK(lower_bound_key({}, 5) == 0);

  // Through a file: the bucket index sees almost all keys in bucket 0 and must still find each.
  test::ScratchDir dir;
  write_book(dir / "skew.tbb", recs);
  auto book = BookFile::open(dir / "skew.tbb");
  REQUIRE(book.ok());
  for (std::size_t i = 0; i < recs.size(); i += 13) REQUIRE(book->lookup(recs[i].key).size() == 1);
  CHECK(book->lookup(recs.back().key).size() == 1);
  CHECK(book->lookup(2).empty());
  CHECK(book->lookup(~0ULL).empty());
}

TEST_CASE("Native book: damaged files are rejected with the place named", "[formats][book]") {
  test::ScratchDir dir;
  write_book(dir / "good.tbb", random_records(50, 3));
  const auto good = test::read_bytes(dir / "good.tbb");
  auto damaged = [&](const std::string& name, auto edit) {
    auto bytes = good;
    edit(bytes);
    test::write_bytes(dir / name, bytes);
    return dir / name;
  };

  CHECK_THAT(open_error(damaged("short.tbb", [](auto& b) { b.resize(100); })),
             Catch::Contains("short.tbb") && Catch::Contains("header: truncated"));
  CHECK_THAT(open_error(damaged("cut.tbb", [](auto& b) { b.resize(b.size() - 40); })),
             Catch::Contains("entries: truncated") && Catch::Contains("offset"));
  CHECK_THAT(open_error(damaged("partial.tbb", [](auto& b) { b.resize(b.size() - 3); })), Catch::Contains("entries: truncated"));
  CHECK_THAT(open_error(damaged("extra.tbb", [](auto& b) { b.push_back(0); })), Catch::Contains("trailing bytes"));
  CHECK_THAT(open_error(damaged("magic.tbb", [](auto& b) { b[0] = 'X'; })), Catch::Contains("offset 0: magic"));
  {
    auto path = damaged("version.tbb", [](auto& b) { b[8] = 2; });
    auto r = BookFile::open(path);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kVersion);
    CHECK_THAT(r.error().message, Catch::Contains("offset 8: version: 2"));
  }
  CHECK_THAT(open_error(damaged("sum.tbb", [](auto& b) { b[kBookHeaderSize + 40 * 10 + 20] ^= 1; })),
             Catch::Contains("offset 120: checksum: mismatch"));
  CHECK_THAT(open_error(damaged("hdr.tbb", [](auto& b) { b[40] ^= 1; })), Catch::Contains("checksum: mismatch"));
  CHECK_THAT(open_error(damaged("order.tbb",
                                [](auto& b) {
                                  std::swap_ranges(b.begin() + kBookHeaderSize, b.begin() + kBookHeaderSize + 40,
                                                   b.begin() + kBookHeaderSize + 40);
                                })),
             Catch::Contains("offset 168: entry 1: key/move out of order"));
  CHECK_THAT(open_error(damaged("games.tbb", [](auto& b) { std::memset(b.data() + kBookHeaderSize + 12, 0, 4); })),
             Catch::Contains("entry 0: games"));
  CHECK_THAT(open_error(damaged("elo.tbb", [](auto& b) { b[60] = 9; })), Catch::Contains("offset 60: elo_of"));
  CHECK(BookFile::open(dir / "absent.tbb").error().code == ErrorCode::kIo);
  CHECK(BookFile::open(dir / "good.tbb").ok());
}

TEST_CASE("Native book: writer refuses out-of-order records and leaves no file", "[formats][book]") {
  test::ScratchDir dir;
  {
    auto w = BookWriter::create(dir / "bad.tbb", {});
    REQUIRE(w.ok());
    REQUIRE(w->add(BookRecord{10, 1, 0, 1, 0, 0, 0, 0, 0}).ok());
    CHECK_FALSE(w->add(BookRecord{10, 1, 0, 1, 0, 0, 0, 0, 0}).ok());
    CHECK_FALSE(w->add(BookRecord{5, 1, 0, 1, 0, 0, 0, 0, 0}).ok());
  }
  CHECK_FALSE(std::filesystem::exists(dir / "bad.tbb"));
  CHECK_FALSE(std::filesystem::exists(dir / "bad.tbb.tmp"));
  // Closed but never committed: the .tmp goes too, and an older file stays.
  test::write_text(dir / "old.tbb", "old");
  {
    auto w = BookWriter::create(dir / "old.tbb", {});
    REQUIRE(w.ok());
    REQUIRE(w->add(BookRecord{10, 1, 0, 1, 0, 0, 0, 0, 0}).ok());
    REQUIRE(w->close().ok());
    CHECK(std::filesystem::exists(dir / "old.tbb.tmp"));
  }
  CHECK_FALSE(std::filesystem::exists(dir / "old.tbb.tmp"));
  CHECK(std::filesystem::file_size(dir / "old.tbb") == 3);
}

TEST_CASE("BookRecord::add refuses to overflow", "[formats][book]") {
  BookRecord a{1, 1, 0, 4000000000U, 0, 0, 0, 0, 0};
  BookRecord b{1, 1, 0, 300000000U, 0, 0, 0, 0, 0};
  CHECK_FALSE(a.add(b));
  CHECK(a.games == 4000000000U);
  BookRecord c{1, 1, 0, 5, 1, 2, 1, 3, 7000};
  CHECK(b.add(c));
  CHECK(b.games == 300000005U);
  CHECK(b.elo_sum == 7000);
}
