// Eight threads probing one Tablebase at once, through a cache small enough to evict constantly,
// starting before any file is open; and eight probing one SyzygyTablebase the same way. Also built
// under ThreadSanitizer by scripts/test.
#include <catch2/catch.hpp>

#include <array>
#include <atomic>
#include <barrier>
#include <filesystem>
#include <thread>

#include "probe/syzygy_tablebase.h"
#include "probe/tablebase.h"
#include "tests/probe/random_position.h"
#include "tests/probe/small_tables.h"
#include "tests/support/checked_threads.h"

using namespace tbkit;
using formats::DtmValue;
using probe::Tablebase;

namespace {

constexpr int kThreads = 8;

// What the threads of race() saw.
struct Tally {
  std::uint64_t probes = 0, failed = 0, wrong = 0;
};

// kThreads threads released at once, each probing every position `rounds` times in an order of its
// own: probe(k) answers position k (a Result), expected[k] is the single-threaded answer.
template <class Value, class Probe>
Tally race(const std::vector<Value>& expected, int rounds, Probe&& probe) {
  const std::size_t n = expected.size();
  std::atomic<std::uint64_t> wrong{0}, failed{0}, probes{0};
  std::barrier start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      for (int round = 0; round < rounds; ++round)
        for (std::size_t i = 0; i < n; ++i) {
          const std::size_t k = (i * 7919 + std::size_t(t) * 104729 + std::size_t(round) * 31) % n;
          auto v = probe(k);
          probes.fetch_add(1, std::memory_order_relaxed);
          if (!v) failed.fetch_add(1, std::memory_order_relaxed);
          else if (*v != expected[k]) wrong.fetch_add(1, std::memory_order_relaxed);
        }
    });
  }
  for (auto& th : threads) th.join();
  return {probes.load(), failed.load(), wrong.load()};
}

}  // namespace

TEST_CASE("8 threads probe concurrently and get the single-threaded answers", "[probe][threads]") {
  const auto dir = testing::generate_small_tables({"KQvK", "KRvK", "KPvK", "KBvK", "KNvK"}, "threads");
  // Under ThreadSanitizer (scripts/test) one round of 100 positions a table: 4,000 probes, each
  // racing for evicted pages, in ~25 s instead of ~100 s; the release and dev builds make two
  // rounds of 200.
  constexpr int kPerTable = test::kCheckedThreads ? 100 : 200;
  constexpr int kRounds = test::kCheckedThreads ? 1 : 2;
  std::mt19937_64 rng(7);
  std::vector<chess::Position> positions;
  for (const char* name : {"KQvK", "KRvK", "KPvK", "KBvK", "KNvK"}) {
    const auto m = *model::Material::parse(name);
    for (int i = 0; i < kPerTable; ++i) positions.push_back(testing::random_position(i % 2 ? m : m.flipped(), rng));
  }
  std::vector<DtmValue> expected;
  {
    auto reference = Tablebase::open({dir});
    REQUIRE(reference.ok());
    for (const auto& p : positions) {
      auto v = reference->probe(p);
      REQUIRE(v.ok());
      expected.push_back(*v);
    }
  }
  // Three pages: nearly every probe evicts another thread's page.
  auto tb = Tablebase::open({dir}, {.cache_bytes = 3 * 16384});
  REQUIRE(tb.ok());
  const Tally r = race(expected, kRounds, [&](std::size_t k) { return tb->probe(positions[k]); });
  CHECK(r.probes == kThreads * kRounds * positions.size());
  CHECK(r.failed == 0);
  CHECK(r.wrong == 0);
  const auto stats = tb->cache_stats();
  CHECK(stats.files_opened == 5);  // each file exactly once, although 8 threads raced for it
  CHECK(stats.blocks_decoded > 100);  // the small cache really was evicting
  std::filesystem::remove_all(dir);
}

TEST_CASE("8 threads probe one SyzygyTablebase from before any file is open and get the single-threaded answers",
          "[probe][threads][syzygy]") {
  // The fixtures in data/tablebases/syzygy: each material's captures (and capture-promotions) reach
  // tables that are there too. Each file opens on its first probe, and the thread that opens it
  // publishes it in the material's slot, which the other threads then read without a lock.
  const std::filesystem::path dir = std::filesystem::path(TBKIT_DATA_DIR) / "tablebases" / "syzygy";
  constexpr int kPerMaterial = test::kCheckedThreads ? 60 : 300;
  std::mt19937_64 rng(11);
  std::vector<chess::Position> positions;
  for (const char* name : {"KQvKR", "KRvKP", "KPvKP", "KBNvK", "KPPvK", "KQvK"}) {
    const auto m = *model::Material::parse(name);
    for (int i = 0; i < kPerMaterial; ++i) positions.push_back(testing::random_position(i % 2 ? m : m.flipped(), rng, i % 3 == 0));
  }
  std::vector<probe::Wdl50> expected;
  std::array<int, 5> classes{};
  {
    auto reference = probe::SyzygyTablebase::open({dir});
    REQUIRE(reference.ok());
    for (const auto& p : positions) {
      auto v = reference->probe_wdl(p);
      REQUIRE(v.ok());
      expected.push_back(*v);
      ++classes[std::size_t(int(*v) + 2)];
    }
  }
  // Wins, draws and losses all among the answers: a comparison that a constant would pass is no test.
  CHECK(classes[0] > 0);
  CHECK(classes[2] > 0);
  CHECK(classes[4] > 0);
  auto tb = probe::SyzygyTablebase::open({dir});
  REQUIRE(tb.ok());
  const Tally r = race(expected, 1, [&](std::size_t k) { return tb->probe_wdl(positions[k]); });
  CHECK(r.probes == kThreads * positions.size());
  CHECK(r.failed == 0);
  CHECK(r.wrong == 0);
}
