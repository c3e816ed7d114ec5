#include <catch2/catch.hpp>

#include "cli/run_progress.h"

using namespace tbkit;
using tbkit::cli::RunProgress;

namespace {

model::Material material(const char* name) {
  auto m = model::Material::parse(name);
  REQUIRE(m.ok());
  return *m;
}

gen::TableSummary made(const char* name, double seconds) {
  gen::TableSummary s;
  s.material = material(name);
  s.seconds = seconds;
  return s;
}

}  // namespace

TEST_CASE("Run progress: each table's place in the run", "[cli][progress]") {
  RunProgress run({material("KQvK"), material("KRvK"), material("KQvKR")}, {10, 20, 30});
  CHECK(run.size() == 3);
  CHECK(run.place(material("KQvK")) == "[1/3] ");
  CHECK(run.place(material("KQvKR")) == "[3/3] ");
}

TEST_CASE("Run progress: before any table is made, slots alone weigh the tables", "[cli][progress]") {
  RunProgress run({material("KQvKR"), material("KRvKB")}, {100, 300});
  // Under 5% of the first table: no estimate yet.
  CHECK_FALSE(run.seconds_left(material("KQvKR"), 0.04, 1.0));
  // Half of 100 slots in 10 s: 50 + 300 slots left at 5 slots/s.
  const auto left = run.seconds_left(material("KQvKR"), 0.5, 10.0);
  REQUIRE(left);
  CHECK(*left == Approx(70.0));
}

TEST_CASE("Run progress: tables left are weighed by the seconds per slot of their kind", "[cli][progress]") {
  // 4 men pawnless, 4 men with pawns, then 5 men pawnless and 5 men with pawns.
  const char* names[] = {"KQvKR", "KRvKP", "KQRvKR", "KRPvKR"};
  std::vector<model::Material> plan;
  for (const char* n : names) plan.push_back(material(n));
  RunProgress run(plan, {100, 100, 1000, 3000});
  run.finished(made("KQvKR", 1.0));  // 0.01 s a slot
  run.finished(made("KRvKP", 2.0));  // 0.02 s a slot: pawn tables twice as dear
  // Unmeasured 5-man kinds borrow the 4-man rate of their pawn kind: 1000 * 0.01 + 3000 * 0.02 =
  // 70 s of table time left against 3 s made, and 3 s have passed. Slots alone would say 60 s.
  auto left = run.seconds_left(material("KQRvKR"), 0.0, 3.0);
  REQUIRE(left);
  CHECK(*left == Approx(70.0));
  // Twice the time passed (say, loading) for the same work: twice the estimate.
  left = run.seconds_left(material("KQRvKR"), 0.0, 6.0);
  REQUIRE(left);
  CHECK(*left == Approx(140.0));

  run.finished(made("KQRvKR", 30.0));  // 0.03 s a slot for 5-man pawnless
  // 5 men with pawns: the 5-man pawnless rate times the 4-man pawn/pawnless ratio (2), 0.06 s a
  // slot: 180 s of table time left against 33 s made, 33 s passed. Slots alone: 82.5 s.
  left = run.seconds_left(material("KRPvKR"), 0.0, 33.0);
  REQUIRE(left);
  CHECK(*left == Approx(180.0));
  // A third of the way through it, 93 s passed: 120 s of its 180 left.
  left = run.seconds_left(material("KRPvKR"), 1.0 / 3, 93.0);
  REQUIRE(left);
  CHECK(*left == Approx(120.0));
  // The last table done: nothing left, no estimate.
  CHECK_FALSE(run.seconds_left(material("KRPvKR"), 1.0, 200.0));
}

TEST_CASE("Run progress: a table's expected time follows the rate of its kind", "[cli][progress]") {
  RunProgress run({material("KQvKR"), material("KRvKP"), material("KQRvKR")}, {100, 100, 1000});
  CHECK_FALSE(run.expected_seconds_at(1));  // nothing measured yet
  run.finished(made("KQvKR", 1.0));          // 0.01 s a slot
  const auto pawns = run.expected_seconds_at(1), five = run.expected_seconds_at(2);
  REQUIRE(pawns);
  REQUIRE(five);
  CHECK(*pawns == Approx(1.0));  // no pawn table measured: the nearest kind's rate
  CHECK(*five == Approx(10.0));
  run.finished(made("KRvKP", 3.0));
  CHECK(*run.expected_seconds_at(1) == Approx(3.0));
  CHECK_FALSE(run.expected_seconds_at(3));  // no such place
}

TEST_CASE("Run progress: a kind with no relative measured borrows the run's average", "[cli][progress]") {
  RunProgress run({material("KQvKR"), material("KRvKP")}, {100, 100});
  run.finished(made("KQvKR", 2.0));
  // No pawn table made and no men measured with both kinds: the average of all, 0.02 s a slot.
  const auto left = run.seconds_left(material("KRvKP"), 0.0, 4.0);
  REQUIRE(left);
  CHECK(*left == Approx(4.0));
}

TEST_CASE("Run progress: tables already present count as no work and in the totals", "[cli][progress]") {
  RunProgress run({material("KQvK"), material("KRvK"), material("KQvKR")}, {0, 50, 100});
  gen::TableSummary skipped;
  skipped.material = material("KQvK");
  skipped.skipped = true;
  skipped.file_bytes = 1000;
  run.finished(skipped);
  // A skipped table is no measurement: still under 5% of the first real table, no estimate.
  CHECK_FALSE(run.seconds_left(material("KRvK"), 0.0, 1.0));
  gen::TableSummary krvk = made("KRvK", 1.0);
  krvk.file_bytes = 234;
  run.finished(krvk);
  const auto left = run.seconds_left(material("KQvKR"), 0.0, 1.0);
  REQUIRE(left);
  CHECK(*left == Approx(2.0));
  // The bytes are those of the files finished so far, skipped ones included.
  CHECK(run.totals().rfind("3 tables: 1 generated, 1 present and valid, 1234 bytes, ", 0) == 0);
}

TEST_CASE("Run progress: a run of one table gives no run estimate", "[cli][progress]") {
  RunProgress run({material("KQvKR")}, {100});
  CHECK_FALSE(run.seconds_left(material("KQvKR"), 0.5, 10.0));
  CHECK(run.eta(material("KQvKR"), 0.5).empty());
}

TEST_CASE("Durations print in seconds, minutes or hours", "[cli][progress]") {
  CHECK(cli::format_duration(42.4) == "42 s");
  CHECK(cli::format_duration(425) == "7m 05s");
  CHECK(cli::format_duration(2 * 3600 + 13 * 60 + 20) == "2h 13m");
  CHECK(cli::format_duration(-5) == "0 s");
}
