#include <catch2/catch.hpp>

#include "gen/solver.h"
#include "gen/stats.h"
#include "tests/model/material_util.h"

using namespace tbkit::gen;
using namespace tbkit::chess;
using tbkit::model::testing::mat;

namespace {

// Solves `wanted` and everything it depends on into `set`, with `threads` threads.
void solve_into(TableSet& set, const std::vector<Material>& wanted, int threads) {
  tbb::task_arena arena(threads);
  for (const Material& m : dependency_closure(wanted)) {
    if (set.contains(m)) continue;
    auto t = solve_table(m, set, arena);
    REQUIRE(t.ok());
    set.add(std::move(*t));
  }
}

}  // namespace

TEST_CASE("KQvK statistics match the published figures", "[gen][solver]") {
  TableSet set;
  solve_into(set, {mat("KQvK")}, 1);
  const TableStats s = compute_stats(*set.find(mat("KQvK")));
  CHECK(s.side[0].legal == 144508);
  CHECK(s.side[0].win == 144508);
  CHECK(s.side[0].longest_win_plies == 19);
  CHECK(s.side[1].legal == 223944);
  CHECK(s.side[1].draw == 23048);
  CHECK(s.side[1].win == 0);
}

TEST_CASE("Longest mates of 3-piece tables", "[gen][solver]") {
  TableSet set;
  solve_into(set, all_materials(3), 2);
  CHECK(compute_stats(*set.find(mat("KRvK"))).side[0].longest_win_plies == 31);
  CHECK(compute_stats(*set.find(mat("KPvK"))).side[0].longest_win_plies == 55);
  CHECK(compute_stats(*set.find(mat("KBvK"))).side[0].win == 0);
  CHECK(compute_stats(*set.find(mat("KNvK"))).side[1].loss == 0);
}
