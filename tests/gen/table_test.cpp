#include <catch2/catch.hpp>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <set>

#include "chess/fen.h"
#include "gen/consistency.h"
#include "gen/one_side.h"
#include "gen/run.h"
#include "gen/solver.h"
#include "gen/stats.h"
#include "model/value_ops.h"
#include "tests/model/material_util.h"

using namespace tbkit::gen;
using namespace tbkit::chess;
using tbkit::model::testing::mat;

namespace {

void solve_into(TableSet& set, const std::vector<Material>& wanted, tbb::task_arena& arena) {
  for (const Material& m : dependency_closure(wanted)) {
    if (set.contains(m)) continue;
    auto t = solve_table(m, set, arena);
    REQUIRE(t.ok());
    set.add(std::move(*t));
  }
}

// A file's whole contents (empty when it cannot be read).
std::string file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// gen KPvK with `write`, into base/0 with nothing kept in memory (every dependency read back from
// its file) and into base/1 with the default: both write the same files and leave no decoded
// dependencies behind. Returns the tables each run read back, by table.
std::array<std::map<std::string, std::size_t>, 2> kpvk_read_back_and_kept(const std::filesystem::path& base,
                                                                          const tbkit::formats::TableWriteOptions& write,
                                                                          tbb::task_arena& arena) {
  std::array<std::map<std::string, std::size_t>, 2> reads;
  for (int kept = 0; kept < 2; ++kept) {
    GenOptions opts;
    opts.dir = base / std::to_string(kept);
    opts.generator = "tbkit tests";
    opts.write = write;
    if (kept == 0) opts.keep_bytes = 0;
    REQUIRE(generate_tables({mat("KPvK")}, opts, arena, {}, [&](const TableSummary& s) {
              reads[std::size_t(kept)][s.material.name()] = s.tables_read;
            }).ok());
    CHECK(!std::filesystem::exists(opts.dir / kProbeValuesDir));
  }
  for (const Material& m : dependency_closure({mat("KPvK")})) {
    INFO(m.name());
    const std::string bytes = file_bytes(table_path(base / "0", m));
    CHECK(!bytes.empty());
    CHECK(bytes == file_bytes(table_path(base / "1", m)));
  }
  return reads;
}

DtmValue probe_fen(const TableSet& set, const char* fen) {
  auto pos = parse_fen(fen);
  REQUIRE(pos.ok());
  return set.probe(board_from_position(*pos));
}

// Solves `m` and the tables it converts into with 1 thread into `one` and with 2 into `two`, and
// checks that both give the same values and conversion marks.
void solve_with_1_and_2_threads(const Material& m, TableSet& one, TableSet& two) {
  tbb::task_arena arena1(1), arena2(2);
  solve_into(one, {m}, arena1);
  solve_into(two, {m}, arena2);
  const SolvedTable& a = *one.find(m);
  const SolvedTable& b = *two.find(m);
  CHECK(a.values[0] == b.values[0]);
  CHECK(a.values[1] == b.values[1]);
  CHECK(a.no_better[0] == b.no_better[0]);
  CHECK(a.no_better[1] == b.no_better[1]);
}

}  // namespace

TEST_CASE("Generation is identical with 1 and 2 threads, and each side rebuilds the other", "[gen][solver][threads]") {
  TableSet one, two;
  solve_with_1_and_2_threads(mat("KRvKN"), one, two);
  const SolvedTable& a = *one.find(mat("KRvKN"));
  tbb::task_arena arena2(2);
  // KRvKN's longest mate: 40 moves.
  CHECK(compute_stats(a).side[0].longest_win_plies == 79);
  // A reader's rebuild of the side a one-side file leaves out (expand_table, one-ply searches from
  // the stored side), on 2 threads, gives the solver's values back.
  for (const Color stored : {Color::kWhite, Color::kBlack}) {
    SolvedTable rebuilt(a.material());
    rebuilt.values[index_of(stored)] = a.values[index_of(stored)].copy();
    expand_table(rebuilt, stored, false, one, arena2);
    CHECK(rebuilt.values[index_of(~stored)] == a.values[index_of(~stored)]);
  }
}

TEST_CASE("A symmetric material is solved through White's side alone, Black's side right and thread-independent", "[gen][solver][threads]") {
  // KRvKR: Black to move at a slot takes the value of White to move at the colour-flipped board's
  // slot. The one-ply check reads each Black position's successors from White's side and each White
  // position's from Black's, so a wrong mapping or a lost update fails it.
  TableSet one, two;
  solve_with_1_and_2_threads(mat("KRvKR"), one, two);
  const SolvedTable& b = *two.find(mat("KRvKR"));
  tbb::task_arena arena2(2);
  const TableStats stats = compute_stats(b);
  const ConsistencyReport report = check_consistency(b, two, arena2);
  INFO(report.first_failure);
  CHECK(report.failed == 0);
  CHECK(report.checked == stats.stored);
  CHECK(report.checked > 2000000);
  // Both sides to move hold the same outcomes, each board once per side.
  CHECK(stats.side[0].legal == stats.side[1].legal);
  CHECK(stats.side[0].win == stats.side[1].win);
  CHECK(stats.side[0].loss == stats.side[1].loss);
  CHECK(stats.side[0].longest_win_plies == stats.side[1].longest_win_plies);
  CHECK(stats.side[0].win > 100000);
  // Black to move mates at once (Ra1#), and the same board colour-flipped, White to move.
  CHECK(probe_fen(two, "r7/7R/8/8/8/6k1/8/7K b - - 0 1") == DtmValue::win_in_plies(1));
  CHECK(probe_fen(two, "7k/8/6K1/8/8/8/7r/R7 w - - 0 1") == DtmValue::win_in_plies(1));
  // White to move is checkmated, and Black to move on the colour-flipped board.
  CHECK(probe_fen(two, "8/8/8/8/8/6k1/7R/r6K w - - 0 1") == DtmValue::loss_in_plies(0));
  CHECK(probe_fen(two, "R6k/7r/6K1/8/8/8/8/8 b - - 0 1") == DtmValue::loss_in_plies(0));
}

TEST_CASE("The one-ply check finds a changed value and names its position", "[gen][verify][threads]") {
  TableSet set;
  tbb::task_arena arena(2);
  solve_into(set, {mat("KRvKN")}, arena);
  const SolvedTable& good = *set.find(mat("KRvKN"));
  const ConsistencyReport clean = check_consistency(good, set, arena);
  CHECK(clean.failed == 0);
  CHECK(clean.checked > 2000000);

  // A copy of KRvKN with one value changed, checked against the same dependencies.
  auto check_changed = [&](const char* fen, DtmValue changed) {
    auto pos = parse_fen(fen);
    REQUIRE(pos.ok());
    const Board b = board_from_position(*pos);
    auto bad = std::make_shared<SolvedTable>(good.material());
    for (int s = 0; s < 2; ++s) bad->values[s] = good.values[s].copy();
    DtmValue& slot = bad->values[index_of(b.side)][bad->scheme.encode(b)];
    INFO(fen << " was " << describe(slot));
    REQUIRE(slot != changed);
    slot = changed;
    TableSet bad_set;
    bad_set.add(bad);
    for (const Material& m : mat("KRvKN").conversions()) bad_set.add(set.shared(m));
    return check_consistency(*bad, bad_set, arena);
  };
  // Black to move, lost: made "checkmated". The slot itself fails, and so do White positions that
  // reach it by a quiet move (all of them come first in the report, White's slots before Black's).
  const char* lost = "3k4/8/3K4/8/8/8/6n1/R7 b - - 0 1";
  REQUIRE(probe_fen(set, lost).is_loss());
  REQUIRE(probe_fen(set, lost).plies() >= 4);
  const ConsistencyReport quiet = check_changed(lost, DtmValue::loss_in_plies(0));
  CHECK(quiet.failed >= 2);
  CHECK_THAT(quiet.first_failure, Catch::Contains(" w - - 0 1: stored win in ") &&
                                      Catch::EndsWith(", successors give win in 1 plies"));
  // White to move, winning: made a draw. Besides the slot, Black positions whose best reply it was
  // may fail; the first failure is this White position.
  const char* won = "8/8/8/3k4/8/8/3n4/R3K3 w - - 0 1";
  const DtmValue was = probe_fen(set, won);
  REQUIRE(was.is_win());
  const ConsistencyReport white = check_changed(won, DtmValue::draw());
  CHECK(white.failed >= 1);
  CHECK_THAT(white.first_failure, Catch::EndsWith(": stored draw, successors give " + describe(was)));
}

namespace {

// Writes every table of `plan` (solved in `set`) with `write` into a fresh directory, loads each
// back with its dependencies and checks both sides equal the solver's on every slot; `check` sees
// each file, the solved and the loaded table, and the loaded set. Counts the files that store
// Black to move and those in a storage order other than the index's.
struct OneSideReload {
  int black_stored = 0;
  int reordered = 0;
};
template <class Check>
OneSideReload write_and_reload(const TableSet& set, const std::vector<Material>& plan, tbb::task_arena& arena,
                               const tbkit::formats::TableWriteOptions& write, const std::string& tag, Check&& check) {
  const auto dir = std::filesystem::temp_directory_path() / ("tbkit-" + tag + "-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (const Material& m : plan)
    REQUIRE(write_solved_table(table_path(dir, m), *set.find(m), set, "tbkit tests", 0, arena, write).ok());
  TableSet loaded;
  OneSideReload counts;
  for (const Material& m : plan) {
    INFO(m.name());
    REQUIRE(loaded.load_with_dependencies(dir, m, arena).ok());
    auto file = tbkit::formats::TableFile::open(table_path(dir, m));
    REQUIRE(file.ok());
    counts.black_stored += file->stored_side() == Color::kBlack;
    counts.reordered += (file->info().index_scheme >> 8) != 0;
    const SolvedTable& want = *set.find(m);
    const SolvedTable& got = *loaded.find(m);
    CHECK(got.values[0] == want.values[0]);
    CHECK(got.values[1] == want.values[1]);
    check(*file, want, got, loaded);
  }
  std::filesystem::remove_all(dir);
  return counts;
}

}  // namespace

TEST_CASE("KPvKP: en passant, promotions, one-ply consistency, and format v3 rebuilds it exactly", "[gen][solver][slow]") {
  TableSet set;
  tbb::task_arena arena(2);
  solve_into(set, {mat("KPvKP")}, arena);
  const SolvedTable& table = *set.find(mat("KPvKP"));

  // Without the en-passant right White loses (Gaviota: mate in 15); with it, axb6 draws.
  const DtmValue without = probe_fen(set, "7K/k7/8/Pp6/8/8/8/8 w - - 0 1");
  CHECK(without == DtmValue::loss_in_plies(30));
  auto with_ep = parse_fen("7K/k7/8/Pp6/8/8/8/8 w - b6 0 1");
  REQUIRE(with_ep.ok());
  Board b = board_from_position(*with_ep);
  DtmValue best = without;
  for_each_en_passant(b, Square(1, 5), [&](const Board& after) { best = better_of(best, back_up(set.probe(after))); });
  CHECK(best == DtmValue::draw());
  // So Black's b7-b5 in the position before only draws: the table must know that.
  CHECK(probe_fen(set, "7K/kp6/8/P7/8/8/8/8 b - - 0 1") == value_from_successors(set, board_from_position(*parse_fen("7K/kp6/8/P7/8/8/8/8 b - - 0 1"))));
  CHECK(probe_fen(set, "8/8/8/8/pP6/8/K7/7k b - - 0 1") == DtmValue::loss_in_plies(30));
  CHECK(probe_fen(set, "8/7k/8/8/3p4/1K6/2P5/8 b - - 0 1") == DtmValue::loss_in_plies(38));

  const ConsistencyReport report = check_consistency(table, set, arena);
  INFO(report.first_failure);
  CHECK(report.failed == 0);
  CHECK(report.checked > 7000000);

  // The solver's no-better marks (which slots a capture-resolved file may store "no better") are
  // what a search of each position's moves finds, on every slot of KPvKP and its 19 dependencies.
  const std::vector<Material> plan = dependency_closure({mat("KPvKP")});
  for (const Material& m : plan) {
    INFO(m.name());
    const SolvedTable& t = *set.find(m);
    for (Color side : {Color::kWhite, Color::kBlack}) {
      INFO("side " << int(side));
      REQUIRE(t.no_better[index_of(side)].size() == (t.scheme.size() + 63) / 64);
      const auto marked = slot_freedom(t, side, set, arena);
      const auto searched = search_slot_freedom(t, side, set, arena);
      CHECK(marked == searched);
      if (m == mat("KPvKP")) {
        CHECK(std::count(searched.begin(), searched.end(), tbkit::formats::SlotFreedom::kNoBetter) > 100000);
        CHECK(std::count(searched.begin(), searched.end(), tbkit::formats::SlotFreedom::kExact) > 100000);
      }
    }
  }

  // KPvKP and its 19 dependencies (en passant, promotions, captures, symmetric and asymmetric
  // materials), written with the v3 writer (zstd: the codec does not matter here, and it is fast)
  // and loaded back: both sides must equal the solver's on every slot.
  auto write = write_options_named("fast", "one");
  REQUIRE(write.ok());
  REQUIRE(write->format_version == 3);
  const OneSideReload counts = write_and_reload(
      set, plan, arena, *write, "v3", [&](const tbkit::formats::TableFile& file, const SolvedTable& want,
                                          const SolvedTable& got, const TableSet& loaded) {
        CHECK(file.format_version() == 3);
        CHECK(file.capture_resolved());
        // A table read from a file has no solver marks: they are searched, and come out the same.
        CHECK(got.no_better[0].empty());
        CHECK(no_better_marks(got, Color::kWhite, loaded, arena) == want.no_better[0]);
        CHECK(no_better_marks(got, Color::kBlack, loaded, arena) == want.no_better[1]);
      });
  CHECK(counts.black_stored > 0);  // both stored-side paths are exercised
  CHECK(counts.reordered > 0);     // and storage orders other than the index's (docs/index.md)
}

TEST_CASE("A golden version-3 file stored in another order keeps reading", "[gen][golden]") {
  // tests/golden/order: written by `tbkit gen --all 4 --sides one` when storage orders came in
  // (docs/index.md, "Storage order"). KRvKB stores White to move, with the king pair, then the
  // bishop, then the rook (index order: king pair, rook, bishop).
  const std::filesystem::path dir = std::filesystem::path(TBKIT_SOURCE_DIR) / "tests/golden/order";
  tbb::task_arena arena(2);
  for (const char* name : {"KRvKB"}) {
    INFO(name);
    TableSet solved;
    solve_into(solved, {mat(name)}, arena);
    auto file = tbkit::formats::TableFile::open(table_path(dir, mat(name)));
    REQUIRE(file.ok());
    CHECK(file->format_version() == 3);
    CHECK((file->info().index_scheme >> 8) != 0);
    TableSet loaded;  // what the table converts into, solved again
    solve_into(loaded, mat(name).conversions(), arena);
    REQUIRE(loaded.load(table_path(dir, mat(name)), mat(name), arena).ok());
    CHECK(loaded.find(mat(name))->values[0] == solved.find(mat(name))->values[0]);
    CHECK(loaded.find(mat(name))->values[1] == solved.find(mat(name))->values[1]);
  }
}

TEST_CASE("Tables kept in memory for later tables spare the reads and change no file", "[gen][run]") {
  // KPvK converts into KQvK, KRvK, KBvK and KNvK, generated before it. Written in format version 3,
  // a table read back from disk costs a one-ply search; kept in memory, it costs nothing.
  tbb::task_arena arena(2);
  auto write = write_options_named("fast", "one");
  REQUIRE(write.ok());
  const auto base = std::filesystem::temp_directory_path() / ("tbkit-keep-" + std::to_string(::getpid()));
  auto reads = kpvk_read_back_and_kept(base, *write, arena);
  REQUIRE(reads[0].size() == 5);
  CHECK(reads[0]["KPvK"] == 3);  // KQvK, KRvK, KBvK; KNvK, the table before it, is still held
  CHECK(reads[1]["KPvK"] == 0);
  std::filesystem::remove_all(base);
}

TEST_CASE("Tables read back for probing are decoded into mapped files, shared, and removed with their set", "[gen][run]") {
  tbb::task_arena arena(2);
  const auto base = std::filesystem::temp_directory_path() / ("tbkit-mapped-" + std::to_string(::getpid()));
  // The default writer (format version 2): the same files, whether read back or held.
  auto reads = kpvk_read_back_and_kept(base, tbkit::formats::TableWriteOptions{}, arena);
  CHECK(reads[0]["KPvK"] == 3);
  CHECK(reads[1]["KPvK"] == 0);

  const std::filesystem::path values_dir = base / "values";
  const Material krvk = mat("KRvK");
  TableSet memory;
  REQUIRE(memory.load(table_path(base / "0", krvk), krvk, arena, LoadUse::kProbeOnly).ok());
  {
    TableSet mapped;
    mapped.keep_probe_values_in(values_dir, "maker");
    REQUIRE(mapped.load(table_path(base / "0", krvk), krvk, arena, LoadUse::kProbeOnly).ok());
    // Another process's set maps the same files.
    TableSet other;
    other.keep_probe_values_in(values_dir, "reader");
    REQUIRE(other.map_probe_values(krvk).ok());
    for (const Color c : {Color::kWhite, Color::kBlack}) {
      const std::filesystem::path file = TableSet::values_path(values_dir, krvk, c);
      CHECK(std::filesystem::file_size(file) == 2 * IndexScheme(krvk).size());
      CHECK(mapped.find(krvk)->values[index_of(c)].in_file());
      CHECK(mapped.find(krvk)->values[index_of(c)] == memory.find(krvk)->values[index_of(c)]);
      CHECK(other.find(krvk)->values[index_of(c)] == memory.find(krvk)->values[index_of(c)]);
    }
    // A file of the wrong size is refused, naming it.
    const auto wrong = ValueArray::open_file(TableSet::values_path(values_dir, krvk, Color::kWhite), 7);
    REQUIRE(!wrong.ok());
    CHECK(wrong.error().code == tbkit::ErrorCode::kCorrupt);
    CHECK(wrong.error().message.find("KRvK.w.values") != std::string::npos);
    // Dropped from the set that made them, the files go; the other set's mapping still reads.
    mapped.retain_only({});
    CHECK(!std::filesystem::exists(TableSet::values_path(values_dir, krvk, Color::kWhite)));
    CHECK(other.find(krvk)->values[0] == memory.find(krvk)->values[0]);
    TableSet late;
    late.keep_probe_values_in(values_dir, "late");
    const tbkit::Status missing = late.map_probe_values(krvk);
    REQUIRE(!missing.ok());
    CHECK(missing.error().message.find("KRvK.w.values") != std::string::npos);
  }
  std::filesystem::remove_all(base);
}

TEST_CASE("Without a memory limit, a run warns of a table needing more than the machine has", "[gen][run]") {
  const auto dir = std::filesystem::temp_directory_path() / ("tbkit-memwarn-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  GenOptions opts;
  opts.dir = dir;
  opts.generator = "tbkit tests";
  // KQvKR needs the most of its run (KQvK, KRvK and KQvKR).
  const std::uint64_t need = generation_bytes(mat("KQvKR"));
  CHECK(need > generation_bytes(mat("KQvK")));
  const auto warned = memory_warning({mat("KQvKR")}, opts, need - 1);
  REQUIRE(warned.has_value());
  CHECK(warned->find("KQvKR needs about " + std::to_string((need + (1 << 20) - 1) >> 20) + " MiB") != std::string::npos);
  CHECK(warned->find("this machine's " + std::to_string((need - 1) >> 20) + " MiB") != std::string::npos);
  // Its dependencies' part, which may be scratch disk instead of memory, is named apart.
  CHECK(conversion_bytes(mat("KQvKR")) > 0);
  CHECK(conversion_bytes(mat("KQvKR")) < need);
  CHECK(warned->find("(" + std::to_string((conversion_bytes(mat("KQvKR")) + (1 << 20) - 1) >> 20) +
                     " MiB of it the tables it converts into, mapped from as much scratch disk") != std::string::npos);
  CHECK_FALSE(memory_warning({mat("KQvKR")}, opts, need).has_value());  // fits exactly
  CHECK_FALSE(memory_warning({mat("KQvKR")}, opts, 0).has_value());     // memory unknown
  GenOptions capped = opts;
  capped.memory_limit = need;  // the cap decides instead (and refuses up front)
  CHECK_FALSE(memory_warning({mat("KQvKR")}, capped, 1).has_value());
  // Tables already made do not count: KQvK and KRvK need the same, and the first in the run's
  // order (KQvK) is named unless it is present.
  CHECK(generation_bytes(mat("KQvK")) == generation_bytes(mat("KRvK")));
  CHECK(memory_warning({mat("KRvK"), mat("KQvK")}, opts, 1)->find("warning: KQvK needs") == 0);
  tbb::task_arena arena(2);
  REQUIRE(generate_tables({mat("KQvK")}, opts, arena, {}, {}).ok());
  const auto rest = memory_warning({mat("KRvK"), mat("KQvK")}, opts, 1);
  REQUIRE(rest.has_value());
  INFO(*rest);
  CHECK(rest->find("warning: KRvK needs") == 0);
  CHECK(physical_memory_bytes() > (std::uint64_t{1} << 30));  // this machine has more than 1 GiB
  std::filesystem::remove_all(dir);
}

namespace {

// Runs a one-side generation of `name` and its dependencies with 1 and 2 threads and checks that
// the files are byte for byte the same.
void check_one_side_run_threads(const char* name) {
  // With 2 threads a small table is written while the next one is solved, its writer reading the
  // tables it converts into from a set of its own while the run loads and drops others (keep_bytes
  // 0: every table a later one needs is read back, so the run's set changes under the writer).
  const auto base = std::filesystem::temp_directory_path() / ("tbkit-v3-threads-" + std::to_string(::getpid()));
  std::filesystem::remove_all(base);
  auto write = write_options_named("fast", "one");
  REQUIRE(write.ok());
  const std::vector<Material> plan = dependency_closure({mat(name)});
  for (int threads : {1, 2}) {
    tbb::task_arena arena(threads);
    GenOptions opts;
    opts.dir = base / std::to_string(threads);
    opts.generator = "tbkit tests";
    opts.write = *write;
    opts.keep_bytes = 0;
    std::size_t summaries = 0;
    REQUIRE(generate_tables({mat(name)}, opts, arena, {}, [&](const TableSummary&) { ++summaries; }).ok());
    CHECK(summaries == plan.size());
    CHECK(!std::filesystem::exists(opts.dir / kExpandedCacheDir));
  }
  for (const Material& m : plan) {
    INFO(m.name());
    const std::string bytes = file_bytes(table_path(base / "1", m));
    CHECK(!bytes.empty());
    CHECK(bytes == file_bytes(table_path(base / "2", m)));
  }
  std::filesystem::remove_all(base);
}

}  // namespace

TEST_CASE("A one-side run writes the same files with 1 and 2 threads", "[gen][run]") {
  check_one_side_run_threads("KRvKP");
}

// The same on a shorter plan (KRvK, KNvK, KRvKN), small enough for ThreadSanitizer (scripts/test).
TEST_CASE("A one-side run of KRvKN writes the same files with 1 and 2 threads", "[gen][run][threads]") {
  check_one_side_run_threads("KRvKN");
}

TEST_CASE("A one-side run reads each table alone, from expanded copies kept while later tables need them", "[gen][run][threads]") {
  // KNvKP converts into KPvK and, by promotion, into KQvKN, KRvKN, KBvKN and KNvKN; those convert
  // into further tables. Stored one side, each needs what it converts into to be read, and an
  // expanded copy (both sides, read alone) stops that chain at one step. A copy is written when
  // its table leaves memory while a later table still needs it.
  tbb::task_arena arena(2);
  auto write = write_options_named("fast", "one");
  REQUIRE(write.ok());
  const Material knkp = mat("KNvKP");
  const std::vector<Material> plan = dependency_closure({knkp});
  const auto base = std::filesystem::temp_directory_path() / ("tbkit-expanded-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(base);
  GenOptions opts;
  opts.dir = base / "tables";
  opts.generator = "tbkit tests";
  opts.write = *write;
  opts.keep_bytes = 0;  // every table a later one needs is read back
  const std::filesystem::path run_cache = opts.dir / kExpandedCacheDir;
  std::map<std::string, std::size_t> reads;
  std::set<std::string> copied, required;
  REQUIRE(generate_tables({knkp}, opts, arena, [&](const Material& m, const SolveProgress& p) {
            if (p.phase != "init" || p.done != 0) return;
            const auto solving = std::size_t(std::find(plan.begin(), plan.end(), m) - plan.begin());  // plan[solving] is m
            REQUIRE(solving < plan.size());
            // With nothing kept beyond what this table converts into, every earlier table that a
            // table from this one on converts into, and that cannot be read alone (it converts
            // into something), has its copy; no other table has one.
            for (std::size_t j = 0; j < plan.size(); ++j) {
              const Material& x = plan[j];
              INFO(m.name() << " solving, copy of " << x.name());
              const bool later = std::any_of(plan.begin() + std::ptrdiff_t(solving), plan.end(), [&](const Material& y) {
                const auto c = y.conversions();
                return std::find(c.begin(), c.end(), x) != c.end();
              });
              const bool has_copy = std::filesystem::exists(table_path(run_cache, x));
              if (j >= solving || x.conversions().empty() || !later) CHECK(!has_copy);
              else if (const auto c = m.conversions(); std::find(c.begin(), c.end(), x) == c.end()) {
                CHECK(has_copy);
                required.insert(x.name());
              }
              if (has_copy) copied.insert(x.name());
            }
          },
          [&](const TableSummary& s) { reads[s.material.name()] = s.tables_read; })
              .ok());
  // A copy is only written for a table dropped from memory while needed later: then it was
  // required above at the next table's start.
  CHECK(required.size() >= 3);
  CHECK(copied == required);
  CHECK(!std::filesystem::exists(run_cache));  // removed once no table needs them

  TableSet reference;
  solve_into(reference, {knkp}, arena);
  {
    // A reader: the table and what it converts into, and nothing else, held.
    const std::filesystem::path cache = base / "cache";
    TableSet set;
    for (const Material& d : knkp.conversions()) REQUIRE(set.load_expanded(opts.dir, d, cache, arena).ok());
    REQUIRE(set.load(table_path(opts.dir, knkp), knkp, arena).ok());
    CHECK(set.size() == knkp.conversions().size() + 1);
    for (const Material& m : knkp.conversions()) {
      INFO(m.name());
      CHECK(set.find(m)->values == reference.find(m)->values);
    }
    CHECK(set.find(knkp)->values == reference.find(knkp)->values);
    // The copies made for it: both sides exact, read alone.
    std::size_t copies = 0;
    for (const auto& entry : std::filesystem::directory_iterator(cache)) {
      INFO(entry.path().string());
      auto file = tbkit::formats::TableFile::open(entry.path());
      REQUIRE(file.ok());
      CHECK(file->format_version() == 2);
      CHECK(file->stores(Color::kWhite));
      CHECK(file->stores(Color::kBlack));
      CHECK(!file->capture_resolved());
      CHECK(!Material::parse(entry.path().stem().string())->conversions().empty());
      ++copies;
    }
    CHECK(copies >= 5);
  }

  // A run resumed without its copies (here: KNvKP deleted after the run) makes them from the
  // files, and the same file.
  const std::string before = file_bytes(table_path(opts.dir, knkp));
  REQUIRE(std::filesystem::remove(table_path(opts.dir, knkp)));
  reads.clear();  // every other table is present: all nine KNvKP converts into are read
  REQUIRE(generate_tables({knkp}, opts, arena, {}, [&](const TableSummary& s) {
            reads[s.material.name()] = s.tables_read;
          }).ok());
  CHECK(reads["KNvKP"] == knkp.conversions().size());
  CHECK(!before.empty());
  CHECK(file_bytes(table_path(opts.dir, knkp)) == before);
  CHECK(!std::filesystem::exists(run_cache));
  std::filesystem::remove_all(base);
}

TEST_CASE("The stored side and order are the smallest of every candidate under the zstd stand-in", "[gen][one_side]") {
  // choose_stored_side first sizes every candidate over a sample of each block, then in full only
  // those whose sample is within 1/kSampleMargin of the smallest, giving up any early against a
  // shared bound. Here every candidate is coded in full and over its sample, from the values
  // gathered in storage order (not from slot keys), and the smallest in full of those whose sample
  // qualifies must be what it picked (ties: White, then the earlier of candidate_orders).
  TableSet set;
  tbb::task_arena arena(2);
  const std::vector<Material> tables = {mat("KQvKR"), mat("KRvKN"), mat("KBNvK"), mat("KBvKN")};
  solve_into(set, tables, arena);
  tbkit::formats::TableWriteOptions zstd1;  // the stand-in's codec: zstd level -1
  zstd1.codec = tbkit::formats::BlockCodec::kZstd;
  zstd1.compression_level = -1;
  int reordered = 0, black = 0, left_out = 0, not_smallest_sample = 0;
  for (const Material& m : tables) {
    INFO(m.name());
    const SolvedTable& t = *set.find(m);
    REQUIRE(t.scheme.size() >= kStagedFrom);
    const std::vector<StorageOrder> orders = candidate_orders(t.scheme);
    REQUIRE(orders.size() > 2);
    tbkit::formats::TableInfo info;
    info.material = m.name();
    info.positions_per_side = t.scheme.size();
    struct Candidate {
      Color side;
      std::uint32_t order;
      std::uint64_t sample, size;
    };
    std::vector<Candidate> all;
    for (Color side : {Color::kWhite, Color::kBlack}) {
      const NoBetterMarks marks = no_better_marks(t, side, set, arena);
      for (const StorageOrder& order : orders) {
        const StoredValues stored = stored_values(t, {side, marks, order, {}, {}}, arena);
        const tbkit::formats::OneSide one{side, {stored.values.data(), stored.values.size()},
                                          {stored.freedom.data(), stored.freedom.size()}};
        auto encoder = tbkit::formats::TableEncoder::create(info, one, zstd1);
        REQUIRE(encoder.ok());
        auto bytes = encode_in_parallel(*encoder, arena);
        REQUIRE(bytes.ok());
        // The sample: in each block, the first kSamplePiece slots of every kSampleStride, joined.
        std::uint64_t sample = 0;
        const std::uint64_t n = t.scheme.size(), per_block = encoder->block_values();
        for (std::uint64_t lo = 0; lo < n; lo += per_block) {
          std::vector<DtmValue> values;
          std::vector<tbkit::formats::SlotFreedom> freedom;
          for (std::uint64_t a = lo; a < std::min(n, lo + per_block); a += kSampleStride)
            for (std::uint64_t i = a; i < std::min({n, lo + per_block, a + kSamplePiece}); ++i) {
              values.push_back(stored.values[i]);
              freedom.push_back(stored.freedom[i]);
            }
          auto block = encoder->encode_block(values, freedom);
          REQUIRE(block.ok());
          sample += block->size();
        }
        all.push_back({side, order.file_id(), sample, bytes->size()});
      }
    }
    std::uint64_t low = ~std::uint64_t{0};
    for (const Candidate& c : all) low = std::min(low, c.sample);
    const Candidate* best = nullptr;
    const Candidate* smallest = nullptr;  // in full, of every candidate
    for (const Candidate& c : all) {
      if (!smallest || c.size < smallest->size) smallest = &c;
      if (c.sample - low > low / kSampleMargin) {
        ++left_out;
        continue;
      }
      if (!best || c.size < best->size) best = &c;
    }
    REQUIRE(best);
    const StoredSide pick = choose_stored_side(t, set, arena);
    CHECK(pick.side == best->side);
    CHECK(pick.order.file_id() == best->order);
    CHECK(pick.no_better == no_better_marks(t, pick.side, set, arena));
    reordered += (best->order >> 8) != 0;
    black += best->side == Color::kBlack;
    not_smallest_sample += best->sample != low;
    // What the sample costs here: the pick is within 1% of the smallest in full.
    CHECK(best->size <= smallest->size + smallest->size / 100);
  }
  CHECK(reordered > 0);            // not only the index order wins
  CHECK(black > 0);                // nor only White
  CHECK(left_out > 0);             // the first stage leaves candidates out
  CHECK(not_smallest_sample > 0);  // and the second decides
}

TEST_CASE("A stored side coded from slot keys is byte for byte the file of its gathered values", "[gen][one_side]") {
  // encode_stored_side codes each block straight from per-slot keys where the writer options
  // allow; the reference is the values and freedoms gathered in storage order, then encoded.
  TableSet set;
  tbb::task_arena arena(2);
  const std::vector<Material> tables = {mat("KQvKR"), mat("KBNvK")};
  solve_into(set, tables, arena);
  tbkit::formats::TableWriteOptions lzma;  // LZMA2 (a fast preset: the coding is not under test), many blocks
  lzma.compression_level = 1;
  lzma.block_bytes = 1 << 18;
  tbkit::formats::TableWriteOptions wide = lzma;  // two bytes a symbol
  wide.wide_symbols = true;
  tbkit::formats::TableWriteOptions zstd;
  zstd.codec = tbkit::formats::BlockCodec::kZstd;
  zstd.compression_level = 3;
  tbkit::formats::TableWriteOptions next = zstd;  // not keyed: the gathered path itself
  next.fill = tbkit::formats::FillMode::kNext;
  int keyed = 0;
  for (const Material& m : tables) {
    const SolvedTable& t = *set.find(m);
    const std::vector<StorageOrder> orders = candidate_orders(t.scheme);
    for (Color side : {Color::kWhite, Color::kBlack}) {
      const NoBetterMarks marks = no_better_marks(t, side, set, arena);
      for (const std::size_t o : {std::size_t{0}, orders.size() - 1}) {
        const StoredSide stored{side, marks, orders[o], {}, {}};
        tbkit::formats::TableInfo info;
        info.material = m.name();
        info.index_scheme = orders[o].file_id();
        info.positions_per_side = t.scheme.size();
        for (const auto* options : {&lzma, &wide, &zstd, &next}) {
          INFO(m.name() << " side " << int(side) << " order " << o << " option set " << (options == &lzma ? 0 : options == &wide ? 1 : options == &zstd ? 2 : 3));
          const StoredValues values = stored_values(t, stored, arena);
          const tbkit::formats::OneSide one{side, {values.values.data(), values.values.size()},
                                            {values.freedom.data(), values.freedom.size()}};
          auto reference = tbkit::formats::encode_table(info, one, *options);
          REQUIRE(reference.ok());
          auto encoder = tbkit::formats::TableEncoder::create(info, one, *options);
          REQUIRE(encoder.ok());
          REQUIRE(encoder->block_count() > 1);
          keyed += encoder->keyed();
          auto bytes = encode_stored_side(t, stored, info, *options, arena);
          REQUIRE(bytes.ok());
          CHECK(*bytes == *reference);
        }
      }
    }
  }
  CHECK(keyed == 2 * 2 * 2 * 3);  // every option set but kNext's takes keys
  // The stand-in's pick carries its counts and keys, which the file is then coded from.
  for (const Material& m : tables) {
    INFO(m.name());
    const SolvedTable& t = *set.find(m);
    const StoredSide pick = choose_stored_side(t, set, arena);
    REQUIRE(pick.keys.size() == t.scheme.size());
    CHECK(!pick.keys.narrow.empty());  // one byte a key: fewer than 127 symbols
    REQUIRE(pick.counts.size() == 65536);
    tbkit::formats::TableInfo info;
    info.material = m.name();
    info.index_scheme = pick.order.file_id();
    info.positions_per_side = t.scheme.size();
    const StoredValues values = stored_values(t, pick, arena);
    const tbkit::formats::OneSide one{pick.side, {values.values.data(), values.values.size()},
                                      {values.freedom.data(), values.freedom.size()}};
    for (const auto* options : {&lzma, &wide}) {  // the narrow keys make two-byte symbols too
      auto reference = tbkit::formats::encode_table(info, one, *options);
      REQUIRE(reference.ok());
      auto bytes = encode_stored_side(t, pick, info, *options, arena);
      REQUIRE(bytes.ok());
      CHECK(*bytes == *reference);
    }
  }
}

TEST_CASE("Format version 4 files of KQvK, KBNvK and KRvKP rebuild every value of both sides", "[gen][format4]") {
  TableSet set;
  tbb::task_arena arena(2);
  const std::vector<Material> wanted = {mat("KQvK"), mat("KBNvK"), mat("KRvKP")};
  solve_into(set, wanted, arena);
  const std::vector<Material> plan = dependency_closure(wanted);
  auto write = write_options_named("balanced", "one");
  REQUIRE(write.ok());
  write->format_version = 4;
  const OneSideReload counts = write_and_reload(
      set, plan, arena, *write, "v4",
      [](const tbkit::formats::TableFile& file, const SolvedTable&, const SolvedTable&, const TableSet&) {
        CHECK(file.format_version() == 4);
        CHECK(file.codec() == tbkit::formats::BlockCodec::kStatic);
        CHECK(file.capture_resolved());
        CHECK(file.verify().ok());
      });
  CHECK(counts.black_stored > 0);
  CHECK(counts.reordered > 0);
}
