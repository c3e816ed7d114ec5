#include <catch2/catch.hpp>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <random>
#include <vector>

#include "gen/solver.h"
#include "gen/state_store.h"
#include "gen/stats.h"
#include "tests/model/material_util.h"

using namespace tbkit::gen;
using namespace tbkit::chess;
using tbkit::model::testing::mat;
namespace ss = tbkit::gen::solver_state;

namespace {

// Every 16-bit state a 12-bit cell holds: resolved plies 0..kMaxPly, marked or not; open counts
// with and without the floor bit; the three specials.
std::vector<std::uint16_t> packable_states() {
  std::vector<std::uint16_t> out;
  for (int ply = 0; ply <= PackedStates::kMaxPly; ++ply) {
    out.push_back(ss::resolved(ply));
    out.push_back(std::uint16_t(ss::resolved(ply) | ss::kConvBit));
  }
  for (int c = 0; c <= ss::kCountMask; ++c) {
    out.push_back(std::uint16_t(ss::kOpen | c));
    out.push_back(std::uint16_t(ss::kOpen | ss::kFloorBit | c));
  }
  for (std::uint16_t s : {ss::kNoLossOther, ss::kNoLoss, ss::kIllegal}) out.push_back(s);
  return out;
}

}  // namespace

TEST_CASE("Packed 12-bit states hold every state the solver writes and scan like 16-bit ones", "[gen][solver]") {
  const std::vector<std::uint16_t> states = packable_states();
  REQUIRE(states.size() == 2 * 1023 + 2 * 256 + 3);
  std::vector<std::uint32_t> cells;
  for (const std::uint16_t s : states) {
    const std::uint32_t c = PackedStates::narrow(s);
    CHECK(c <= 0xFFF);
    CHECK(PackedStates::widen(c) == s);
    cells.push_back(c);
  }
  std::sort(cells.begin(), cells.end());
  CHECK(std::adjacent_find(cells.begin(), cells.end()) == cells.end());  // no two states share a cell

  // The same random contents in both stores: every read, swap and scan agrees.
  constexpr std::uint64_t n = 100003;  // not a multiple of 5
  WideStates wide;
  PackedStates packed;
  wide.allocate(n);
  packed.allocate(n);
  std::mt19937_64 rng(7);
  // Mostly open slots, a few resolved at the plies scanned for, as in a solve.
  std::vector<std::uint16_t> pick;
  for (int ply : {0, 1, 2, 3, 500, PackedStates::kMaxPly}) {
    pick.push_back(ss::resolved(ply));
    pick.push_back(std::uint16_t(ss::resolved(ply) | ss::kConvBit));
  }
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint16_t s = rng() % 8 == 0 ? pick[rng() % pick.size()] : states[rng() % states.size()];
    wide.init(i, s, 0, n);
    packed.init(i, s, i - i % 17, i - i % 17 + 17);  // words alone and shared
  }
  for (std::uint64_t i = 0; i < n; ++i) REQUIRE(packed.get(i) == wide.get(i));
  std::uint64_t scans = 0, hits = 0;
  for (const int ply : {0, 3, 500, PackedStates::kMaxPly, 77}) {
    const std::uint16_t target = ss::resolved(ply);
    for (int trial = 0; trial < 200; ++trial) {
      const std::uint64_t first = rng() % n, last = first + rng() % (n - first + 1);
      std::uint64_t a = wide.next_at(first, last, target), b = packed.next_at(first, last, target);
      for (; a < last; a = wide.next_at(a + 1, last, target), b = packed.next_at(b + 1, last, target)) {
        REQUIRE(a == b);
        ++hits;
      }
      REQUIRE(b == last);
      ++scans;
    }
  }
  CHECK(scans == 1000);
  CHECK(hits > 1000);
  // A swap replaces one cell and leaves its word's other cells alone; a stale expectation fails
  // and reports the state found.
  for (std::uint64_t i = 0; i < 20; ++i) {
    std::uint16_t expected = packed.get(i);
    const std::uint16_t next = states[(i * 37) % states.size()];
    REQUIRE(PackedStates::cas(packed.slot(i), expected, next));
    std::uint16_t stale = std::uint16_t(next == ss::kIllegal ? ss::kNoLoss : ss::kIllegal);
    CHECK_FALSE(PackedStates::cas(packed.slot(i), stale, ss::resolved(9)));
    CHECK(stale == next);
    PackedStates::store(packed.slot(i + 20), ss::resolved(int(i)));
    WideStates::store(wide.slot(i + 20), ss::resolved(int(i)));
    WideStates::store(wide.slot(i), next);
  }
  for (std::uint64_t i = 0; i < 45; ++i) CHECK(packed.get(i) == wide.get(i));
}

namespace {

// Solves `wanted` and its dependencies twice, 16-bit states in memory on 1 thread and 12-bit states
// with scratch-file values on 2, and checks every value and mark equal; returns the slots compared.
std::uint64_t compare_layouts(const std::vector<Material>& wanted, TableSet& wide, TableSet& packed,
                              const std::filesystem::path& dir) {
  tbb::task_arena arena1(1), arena2(2);
  std::uint64_t compared = 0;
  for (const Material& m : dependency_closure(wanted)) {
    auto a = solve_table(m, wide, arena1, {}, nullptr, true, SolveStorage{StateLayout::kWide, {}});
    auto b = solve_table(m, packed, arena2, {}, nullptr, true, SolveStorage{StateLayout::kPacked, dir});
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    INFO(m.name());
    for (int s = 0; s < 2; ++s) {
      CHECK_FALSE((*a)->values[s].in_file());
      CHECK((*b)->values[s].in_file());
      CHECK((*a)->values[s] == (*b)->values[s]);
      CHECK((*a)->no_better[s] == (*b)->no_better[s]);
      compared += (*a)->values[s].size();
    }
    wide.add(std::move(*a));
    packed.add(std::move(*b));
  }
  return compared;
}

std::filesystem::path scratch_dir(const std::string& name) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tbkit-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace

TEST_CASE("Packed states and values in scratch files give the tables of 16-bit states in memory", "[gen][solver][threads]") {
  // KRvKR symmetric; KBNvK long mates and a capture-resolved floor; KPvK promotions.
  TableSet wide, packed;
  const std::filesystem::path dir = scratch_dir("states");
  CHECK(compare_layouts({mat("KRvKR"), mat("KBNvK"), mat("KPvK")}, wide, packed, dir) > 4000000);
  CHECK(compute_stats(*packed.find(mat("KBNvK"))).side[0].longest_win_plies == 65);
  // The scratch files have no names: nothing is left in the directory.
  CHECK(std::filesystem::is_empty(dir));
  std::filesystem::remove(dir);
  // A directory that cannot hold one is an error naming it.
  tbb::task_arena arena1(1);
  auto bad = solve_table(mat("KQvK"), packed, arena1, {}, nullptr, true,
                         SolveStorage{StateLayout::kPacked, dir / "missing"});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == tbkit::ErrorCode::kIo);
  CHECK(bad.error().message.find("missing") != std::string::npos);
}

TEST_CASE("Packed states give the tables of 16-bit states with en passant: KPvKP and KQvKR", "[gen][solver][threads]") {
  // KPvKP: double pushes the opponent may answer en passant (deferred count-downs read the pushed
  // position's packed state), promotions into pawn tables; KQvKR many counted moves.
  TableSet wide, packed;
  const std::filesystem::path dir = scratch_dir("states-ep");
  CHECK(compare_layouts({mat("KPvKP"), mat("KQvKR")}, wide, packed, dir) > 20000000);
  CHECK(std::filesystem::is_empty(dir));
  std::filesystem::remove(dir);
}
