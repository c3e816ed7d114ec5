// tbkit verify and stats on the fixture's one-side tables: the progress line on a terminal, and the
// expanded copies of the tables they convert into, which go to a private directory under TMPDIR
// that a signal removes with the rest (cli/interrupt.h). Syzygy files: their checksums, their
// values against DTM tables beside them, and DTM results against them (--against).
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "formats/table_file.h"
#include "model/board.h"
#include "model/index_scheme.h"
#include "model/material.h"
#include "tests/cli/cli_runner.h"

namespace {

namespace fs = std::filesystem;

// Files under `dir`, at any depth.
int files_under(const fs::path& dir) {
  int n = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (!e.is_directory()) ++n;
  return n;
}

}  // namespace

TEST_CASE("verify and stats interrupted leave no expanded copies behind", "[probe][cli]") {
  const fs::path dir = fs::temp_directory_path() / ("tbkit-expanded-cli-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const fs::path tables = dir / "tables", temp = dir / "temp";
  fs::create_directories(tables);
  fs::create_directories(temp);
  // The fixture's one-side 3+4 set, linked. KRvKP converts into, by name: KBvK, KNvK, KPvK, KQvK,
  // KQvKR, ... Reading it makes an expanded copy of KPvK (the others so far convert into nothing),
  // then opens KQvKR: made a FIFO, which blocks the opener until a writer comes (never), so the
  // command waits there with its copy written.
  for (const auto& e : fs::directory_iterator(TBKIT_TEST_TABLES_DIR))
    if (e.path().extension() == ".dtm") fs::create_symlink(e.path(), tables / e.path().filename());
  fs::remove(tables / "KQvKR.dtm");
  REQUIRE(::mkfifo((tables / "KQvKR.dtm").c_str(), 0600) == 0);

  const std::vector<std::vector<std::string>> commands = {
      {"verify", (tables / "KRvKP.dtm").string(), "-t", "1"},
      {"stats", "KRvKP", "-d", tables.string()},
  };
  for (const auto& args : commands) {
    for (int sig : {SIGINT, SIGTERM}) {
      INFO(args[0] << ", signal " << sig);
      const pid_t pid = tbkit::testing::spawn_tbkit(args, -1, -1, temp.string());
      REQUIRE(pid > 0);
      // Wait for the copy (a second; longer under the sanitizers).
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
      int status = 0;
      while (files_under(temp) < 1 && std::chrono::steady_clock::now() < deadline && ::waitpid(pid, &status, WNOHANG) == 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      const bool waiting = ::waitpid(pid, &status, WNOHANG) == 0;
      INFO("still waiting at the FIFO: " << waiting << ", status " << status);
      CHECK(files_under(temp) == 1);  // KPvK.dtm, in one private directory
      CHECK(std::distance(fs::directory_iterator(temp), fs::directory_iterator()) == 1);
      ::kill(pid, sig);
      REQUIRE(::waitpid(pid, &status, 0) == pid);
      CHECK(waiting);
      CHECK(WIFSIGNALED(status));
      CHECK(WTERMSIG(status) == sig);
      CHECK(fs::is_empty(temp));
      for (const auto& e : fs::directory_iterator(temp)) fs::remove_all(e.path());
    }
  }
  fs::remove_all(dir);
}

namespace {

// Runs `tbkit ARGS` with stderr on a terminal and checks that it succeeds, draws every line part
// in `parts` and clears its line at the end (the results go to stdout); then that with -q it draws
// nothing. Returns what the terminal showed the first time.
std::string check_progress_line(std::vector<std::string> args, const std::vector<std::string>& parts) {
  const auto shown = tbkit::testing::run_tbkit_on_terminal(args);
  INFO(shown.err);
  CHECK(shown.exit_code == 0);
  for (const auto& part : parts) CHECK_THAT(shown.err, Catch::Contains(part));
  CHECK(shown.err.size() >= 4);
  CHECK(shown.err.substr(shown.err.size() - 4) == "\r\033[K");
  args.push_back("-q");
  const auto quiet = tbkit::testing::run_tbkit_on_terminal(args);
  CHECK(quiet.exit_code == 0);
  CHECK(quiet.err.empty());
  return shown.err;
}

}  // namespace

TEST_CASE("verify shows each table's place, phase and ETA on a terminal, and -q silences it", "[probe][cli]") {
  const std::string dir = TBKIT_TEST_TABLES_DIR;
  const std::string shown = check_progress_line({"verify", "-t", "1", dir + "/KQvK.dtm", dir + "/KRvK.dtm", dir + "/KPvK.dtm"},
                                                {"[1/3] KQvK: reading it", "[3/3] KPvK: reading KBvK (1 of 4 it converts into)",
                                                 "[3/3] KPvK: rebuilding its other side, 100% of ",
                                                 "[3/3] KPvK: checking, 100% of "});
  // After the first table, the run's ETA (measured on it) shows.
  const auto second = shown.find("[2/3] KRvK: ");
  REQUIRE(second != std::string::npos);
  CHECK(shown.find("; run ETA ", second) != std::string::npos);
}

TEST_CASE("stats shows its phase on a terminal, and -q silences it", "[probe][cli]") {
  // KRvKP converts into KBvK, KNvK, KPvK, KQvK, KQvKR, KRvK, KRvKB, KRvKN and KRvKR.
  const std::string shown = check_progress_line(
      {"stats", "KRvKP", "-d", TBKIT_TEST_TABLES_DIR},
      {"KRvKP: reading KPvK (3 of 9 it converts into)",
       // KPvK converts into tables (made first, expanded alone) and goes through an expanded copy.
       "KRvKP: reading KPvK (3 of 9 it converts into), expanding KQvK, 100% of ",
       "KRvKP: reading KPvK (3 of 9 it converts into), expanding KPvK, 100% of ",
       "KRvKP: reading KQvK (4 of 9 it converts into), expanding KQvK, 100% of ",
       "KRvKP: rebuilding its other side, 100% of ", "KRvKP: counting"});
  CHECK(shown.find("[1/1]") == std::string::npos);  // one table: no place in a run
}

namespace {

// An empty directory under the temporary directory, named for the test and this process.
std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

const std::filesystem::path kOfficialSyzygy = std::filesystem::path(TBKIT_DATA_DIR) / "tablebases" / "syzygy";

}  // namespace

TEST_CASE("verify checks Syzygy files: the official ones pass, a changed byte fails naming the file", "[probe][cli][syzygy]") {
  namespace fs = std::filesystem;
  const fs::path dir = fresh_dir("tbkit-verify-syzygy");
  const fs::path& official = kOfficialSyzygy;
  for (const char* name : {"KQvK.rtbw", "KQvK.rtbz", "KPvKP.rtbw", "KPvKP.rtbz"})
    fs::copy_file(official / name, dir / name);

  const auto good = tbkit::testing::run_tbkit("verify -q " + dir.string());
  INFO(good.out << good.err);
  CHECK(good.exit_code == 0);
  CHECK_THAT(good.out, Catch::Contains((dir / "KQvK.rtbw").string() + ": KQvK, Syzygy WDL50, checksum matches"));
  CHECK_THAT(good.out, Catch::Contains((dir / "KPvKP.rtbz").string() + ": KPvKP, Syzygy DTZ50, checksum matches"));
  CHECK_THAT(good.out, Catch::Contains("4 passed, 0 failed"));

  // One bit of the compressed data changed (just before the 16-byte checksum): the structure still
  // validates, the checksum does not.
  const fs::path bad = dir / "KPvKP.rtbw";
  std::string bytes = tbkit::testing::read_file(bad);
  REQUIRE(bytes.size() > 64);
  bytes[bytes.size() - 17] = char(bytes[bytes.size() - 17] ^ 0x10);
  {
    std::FILE* f = std::fopen(bad.c_str(), "wb");
    REQUIRE(f);
    REQUIRE(std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size());
    std::fclose(f);
  }
  const auto changed = tbkit::testing::run_tbkit("verify -q " + dir.string());
  INFO(changed.out << changed.err);
  CHECK(changed.exit_code == 1);
  CHECK_THAT(changed.out, Catch::Contains("FAIL " + bad.string() + ": "));
  CHECK_THAT(changed.out, Catch::Contains("checksum mismatch"));
  CHECK_THAT(changed.out, Catch::Contains("3 passed, 1 failed"));
  fs::remove_all(dir);
}

TEST_CASE("stats adds the 50-move rule's counts when a Syzygy WDL file is beside the DTM tables", "[probe][cli][syzygy]") {
  namespace fs = std::filesystem;
  const fs::path dir = fresh_dir("tbkit-stats-syzygy");
  for (const auto& e : fs::directory_iterator(TBKIT_TEST_TABLES_DIR))
    if (e.path().extension() == ".dtm") fs::create_symlink(e.path(), dir / e.path().filename());
  fs::copy_file(kOfficialSyzygy / "KRvKP.rtbw", dir / "KRvKP.rtbw");
  // KRvKP's DTZ50 needs KQvK, which it reaches only through KQvKR (a promotion, then a capture):
  // a table solved for a later one, not for the wanted one.
  const auto r = tbkit::testing::run_tbkit("stats KRvKP -q -d " + dir.string());
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  // No KRvKP position is won only past the 50-move rule: WDL50 wins are exactly DTM's.
  CHECK_THAT(r.out, Catch::Contains("White to move: 8100040 legal, 7406204 win, 680382 draw, 13454 loss"));
  CHECK_THAT(r.out, Catch::Contains("White to move, 50-move rule: 7406204 win, 0 cursed win, 680382 draw, 0 blessed loss, 13454 loss"));
  CHECK_THAT(r.out, Catch::Contains("Black to move, 50-move rule: 1633620 win, 0 cursed win, 1743898 draw, 0 blessed loss, 6585490 loss"));
  fs::remove_all(dir);
}

TEST_CASE("verify checks Syzygy values against DTM tables beside them: the official files agree with ours", "[probe][cli][syzygy]") {
  namespace fs = std::filesystem;
  const fs::path dir = fresh_dir("tbkit-verify-values");
  const fs::path& official = kOfficialSyzygy;
  for (const char* m : {"KQvK", "KRvK", "KBvK", "KNvK", "KPvK"}) {
    fs::create_symlink(fs::path(TBKIT_TEST_TABLES_DIR) / (std::string(m) + ".dtm"), dir / (std::string(m) + ".dtm"));
    for (const char* ext : {".rtbw", ".rtbz"}) fs::copy_file(official / (m + std::string(ext)), dir / (m + std::string(ext)));
  }
  const auto r = tbkit::testing::run_tbkit("verify -q " + dir.string());
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  // 5 DTM tables, 10 files, and the values of 5 materials.
  CHECK_THAT(r.out, Catch::Contains("20 passed, 0 failed"));
  CHECK_THAT(r.out, Catch::Contains((dir / "").string() + "KPvK (Syzygy values): 165676 positions consistent with their "
                                    "successors and with DTM; the files agree on WDL50 for 165676, DTZ50 for 165676"));
  CHECK_THAT(r.out, Catch::Contains((dir / "").string() + "KQvK (Syzygy values): 46137 positions consistent"));
  fs::remove_all(dir);
}

TEST_CASE("verify --against compares each DTM position's result with Syzygy's WDL50 and finds a changed one",
          "[probe][cli][syzygy]") {
  namespace fs = std::filesystem;
  using tbkit::formats::DtmValue;
  const fs::path dir = fresh_dir("tbkit-verify-against");
  const std::string official = kOfficialSyzygy.string();
  // A table of both sides, made here (the fixture's tables store one side): a 3-piece one, so the
  // four verify runs stay cheap under the sanitizers.
  const auto made = tbkit::testing::run_tbkit("gen KRvK -q -t 1 --compression fast -d " + dir.string());
  REQUIRE(made.exit_code == 0);
  const fs::path table = dir / "KRvK.dtm";

  const auto good = tbkit::testing::run_tbkit("verify -q -t 2 --against " + official + " " + table.string());
  INFO(good.out << good.err);
  CHECK(good.exit_code == 0);
  // Every legal position both sides to move: the count `tbkit stats` gives as stored. KRvK has no
  // result the 50-move rule changes, so the classes are DTM's.
  CHECK_THAT(good.out, Catch::Contains(table.string() + ": KRvK, 50015 positions agree with WDL50 (wins 21959, "
                                       "cursed wins 0, draws 2796, blessed losses 0, losses 25260)"));
  CHECK_THAT(good.out, Catch::Contains("1 passed, 0 failed"));
  const auto sampled = tbkit::testing::run_tbkit("verify -q -t 1 --every 7 --against " + official + " " + table.string());
  CHECK(sampled.exit_code == 0);
  CHECK_THAT(sampled.out, Catch::Contains("7148 positions (slots that are multiples of 7) agree"));

  // The same table with one white-to-move win turned into a draw: that position, and only it, fails.
  auto file = tbkit::formats::TableFile::open(table);
  REQUIRE(file);
  const std::uint64_t n = file->info().positions_per_side;
  auto white = file->values(tbkit::chess::Color::kWhite, 0, n);
  auto black = file->values(tbkit::chess::Color::kBlack, 0, n);
  REQUIRE(white);
  REQUIRE(black);
  const tbkit::model::IndexScheme scheme(tbkit::model::Material::parse("KRvK").value());
  tbkit::model::SlotBoards boards(scheme, tbkit::chess::Color::kWhite);
  std::uint64_t changed = n;
  for (std::uint64_t i = 0; i < n && changed == n; ++i) {
    const tbkit::model::Board* b = boards.at(i);
    if (b && tbkit::model::is_legal(*b) && (*white)[i].is_win()) changed = i;
  }
  REQUIRE(changed < n);
  (*white)[changed] = DtmValue::draw();
  const std::string fen = tbkit::model::board_to_fen(*boards.at(changed));
  tbkit::formats::TableWriteOptions options;
  options.codec = tbkit::formats::BlockCodec::kZstd;
  auto encoder = tbkit::formats::TableEncoder::create(file->info(), *white, *black, options);
  REQUIRE(encoder);
  std::vector<std::vector<std::byte>> blocks(encoder->block_count());
  for (std::uint64_t k = 0; k < blocks.size(); ++k) blocks[k] = encoder->encode_block(k).value();
  const auto bytes = encoder->assemble(blocks).value();
  const fs::path bad_dir = dir / "changed";
  fs::create_directories(bad_dir);
  const fs::path bad = bad_dir / "KRvK.dtm";
  {
    std::FILE* f = std::fopen(bad.c_str(), "wb");
    REQUIRE(f);
    REQUIRE(std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size());
    std::fclose(f);
  }
  const auto r = tbkit::testing::run_tbkit("verify -q -t 2 --against " + official + " " + bad.string() + " " + table.string());
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out, Catch::Contains("FAIL " + bad.string() + ": 1 of 50015 positions disagree with WDL50, 0 probe "
                                    "errors; first: " + fen + ": DTM draw, WDL50 win"));
  CHECK_THAT(r.out, Catch::Contains("1 passed, 1 failed"));

  // A one-side file, and a material without a WDL file: said, not compared.
  const auto one = tbkit::testing::run_tbkit("verify -q --against " + official + " " + TBKIT_TEST_TABLES_DIR + "/KQvKR.dtm " +
                                             TBKIT_TEST_TABLES_DIR + "/KRvKN.dtm");
  CHECK(one.exit_code == 1);
  CHECK_THAT(one.out, Catch::Contains("KQvKR.dtm: stores one side to move only (--sides one)"));
  CHECK_THAT(one.out, Catch::Contains("KRvKN.dtm: no Syzygy WDL50 file KRvKN.rtbw in " + official));
  CHECK_THAT(one.out, Catch::Contains("0 passed, 2 failed"));
  // Bad use: --every alone (exit 2); a directory with no WDL file (exit 5, naming it).
  CHECK(tbkit::testing::run_tbkit("verify -q --every 7 " + table.string()).exit_code == 2);
  const auto none = tbkit::testing::run_tbkit("verify -q --against " + bad_dir.string() + " " + table.string());
  CHECK(none.exit_code == 5);
  CHECK_THAT(none.err, Catch::Contains("verify --against: no *.rtbw Syzygy files found in " + bad_dir.string()));
  fs::remove_all(dir);
}
