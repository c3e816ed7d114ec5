#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "tests/formats/book_test_util.h"

using namespace tbkit;

namespace {

struct Run {
  int code = -1;
  std::string out, err;
};

// Runs `tbkit ARGS` through the shell, capturing stdout, stderr and the exit code.
Run tbkit_run(const std::string& args, const test::ScratchDir& dir) {
  const char* bin = std::getenv("TBKIT_BINARY");
  REQUIRE(bin);
  const auto out = dir / "stdout.txt", err = dir / "stderr.txt";
  const std::string cmd = std::string(bin) + " " + args + " > '" + out.string() + "' 2> '" + err.string() + "'";
  const int status = std::system(cmd.c_str());
  Run r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  const auto o = test::read_bytes(out), e = test::read_bytes(err);
  r.out.assign(o.begin(), o.end());
  r.err.assign(e.begin(), e.end());
  return r;
}

}  // namespace

TEST_CASE("CLI: book probe on Polyglot and native books", "[pgn][book][cli]") {
  test::ScratchDir dir;
  const std::string lasker = "'" + test::data_path("books/lasker-trap.bin").string() + "'";

  auto r = tbkit_run("book probe " + lasker + " --moves d4", dir);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("d5") && Catch::Contains("d7d5") && Catch::Contains("100.0"));

  r = tbkit_run("book probe " + lasker + " --moves 'd4 d5 c4 e5 dxe5 d4 e3 Bb4+ Bd2 dxe3 Bxb4 exf2+ Ke2' --json", dir);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("\"san\": \"fxg1=N+\"") && Catch::Contains("\"uci\": \"f2g1n\"") && Catch::Contains("\"weight\": 2"));

  r = tbkit_run("book probe " + lasker, dir);  // the start position is not in this book
  CHECK(r.code == 5);
  CHECK_THAT(r.out, Catch::Contains("No book moves"));

  r = tbkit_run("book probe " + lasker + " 'not a fen'", dir);
  CHECK(r.code == 2);

  auto bytes = test::read_bytes(test::data_path("books/lasker-trap.bin"));
  bytes.resize(bytes.size() + 7, '\0');
  test::write_bytes(dir / "partial.bin", bytes);
  r = tbkit_run("book probe '" + (dir / "partial.bin").string() + "' --moves d4", dir);
  CHECK(r.code == 0);
  CHECK_THAT(r.err, Catch::Contains("warning") && Catch::Contains("offset 112"));

  // Build a native book, probe it, merge it with itself (counts double), and reject a damaged copy.
  const std::string pgn = "'" + test::data_path("books/crafted.pgn").string() + "'";
  const std::string tbb = "'" + (dir / "c.tbb").string() + "'";
  r = tbkit_run("book build -q -t 2 " + pgn + " -o " + tbb + " --polyglot '" + (dir / "c.bin").string() + "'", dir);
  REQUIRE(r.code == 0);
  CHECK(r.err.empty());
  r = tbkit_run("book probe " + tbb + " --moves e4 --json", dir);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("\"san\": \"e5\", \"uci\": \"e7e5\"") && Catch::Contains("\"games\": 2") &&
                        Catch::Contains("\"avg_rating\": 2200"));
  r = tbkit_run("book merge -q " + tbb + " " + tbb + " -o '" + (dir / "cc.tbb").string() + "'", dir);
  CHECK(r.code == 0);
  r = tbkit_run("book probe '" + (dir / "cc.tbb").string() + "' --moves e4 --json", dir);
  CHECK_THAT(r.out, Catch::Contains("\"games\": 4"));

  auto tbb_bytes = test::read_bytes(dir / "c.tbb");
  tbb_bytes.resize(tbb_bytes.size() - 20);
  test::write_bytes(dir / "cut.tbb", tbb_bytes);
  r = tbkit_run("book probe '" + (dir / "cut.tbb").string() + "'", dir);
  CHECK(r.code == 4);
  CHECK_THAT(r.err, Catch::Contains("cut.tbb") && Catch::Contains("entries: truncated"));

  r = tbkit_run("book build -q " + pgn + " -o " + tbb + " --uniform", dir);  // make-book options need --polyglot-compat
  CHECK(r.code == 2);
  r = tbkit_run("book build --help", dir);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("Exit codes"));
}

TEST_CASE("CLI: book build refuses outputs that would destroy its input or each other, before reading", "[pgn][book][cli]") {
  test::ScratchDir dir;
  const auto games = dir / "games.pgn";
  const auto original = test::read_bytes(test::data_path("books/crafted.pgn"));
  test::write_bytes(games, original);
  const std::string in = "'" + games.string() + "'";

  // An output that is an input (also spelled differently) is refused, and the games stay as they were.
  for (const std::string& out : {games.string(), (dir / "." / "games.pgn").string()}) {
    for (const char* flag : {"-o", "--polyglot"}) {
      INFO(flag << " " << out);
      auto r = tbkit_run("book build -q " + in + " " + std::string(flag) + " '" + out + "'", dir);
      CHECK(r.code == 2);
      CHECK_THAT(r.err, Catch::Contains("is also an input"));
      CHECK(test::read_bytes(games) == original);
    }
  }
  auto r = tbkit_run("book build -q " + in + " --polyglot-compat -o " + in, dir);
  CHECK(r.code == 2);
  CHECK(test::read_bytes(games) == original);

  // One path for both books: refused, and nothing left behind.
  const auto both = dir / "both.tbb";
  r = tbkit_run("book build -q " + in + " -o '" + both.string() + "' --polyglot '" + both.string() + "'", dir);
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("the book and the Polyglot book are both " + both.string()));
  CHECK_FALSE(std::filesystem::exists(both));
  CHECK_FALSE(std::filesystem::exists(dir / "both.tbb.tmp"));

  // A bad output path fails at once, while stdin still has games to give: the writer on the pipe
  // keeps it open for 20 s (and stops at the first write after tbkit exits), so reading the input
  // before creating the output would take that long.
  const auto start = std::chrono::steady_clock::now();
  const std::string feed = "(cat " + in + "; timeout 20 sh -c 'while :; do echo; sleep 0.1; done')";
  const std::string cmd = feed + " | " + std::getenv("TBKIT_BINARY") + " book build - -o '" + (dir / "missing" / "x.tbb").string() +
                          "' 2> '" + (dir / "err.txt").string() + "'";
  const int status = std::system(cmd.c_str());
  CHECK((WIFEXITED(status) ? WEXITSTATUS(status) : -1) == 3);
  const auto err = test::read_bytes(dir / "err.txt");
  CHECK_THAT(std::string(err.begin(), err.end()), Catch::Contains("missing/x.tbb.tmp: cannot create: No such file or directory"));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));

  // A directory as output: named, with the reason (the rename's error was once lost: "Success").
  std::filesystem::create_directory(dir / "adir");
  r = tbkit_run("book build -q " + in + " -o '" + (dir / "adir").string() + "'", dir);
  CHECK(r.code == 3);
  CHECK_THAT(r.err, Catch::Contains("adir: is a directory"));
}

TEST_CASE("CLI: book build option values are checked in full", "[pgn][book][cli]") {
  test::ScratchDir dir;
  const std::string in = "'" + test::data_path("books/crafted.pgn").string() + "' -o '" + (dir / "x.tbb").string() + "'";
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {"--since 1x2345678", "--since: '1x2345678' is not a date"},  // once a crash (std::stoul on \"x2345678\")
      {"--since T2020031", "--since: 'T2020031' is not a date"},
      {"--since 2020-13", "--since: '2020-13' is not a date"},
      {"--until 2020-02-32", "--until: '2020-02-32' is not a date"},
      {"--since 2020 --until 2010", "--since 2020 is after --until 2010"},
      {"--memory -5M", "--memory: '-5M' is not a size"},
      {"--memory 99999999999G", "--memory: '99999999999G' is too large"},
      {"--memory 0", "--memory: '0' must be more than 0"},
      {"--memory 5X", "unknown unit 'X'"},
      {"--polyglot-compat --min-elo 2000", "--polyglot-compat does not take --min-elo"},
      {"--polyglot-compat --since 2020", "--polyglot-compat does not take --since"},
      {"--polyglot-compat --variations", "--polyglot-compat does not take --variations"},
      {"--polyglot-compat --elo-of both", "--polyglot-compat does not take --elo-of"},
      {"--polyglot-compat --memory 1G", "--polyglot-compat does not take --memory"},
  };
  for (const auto& c : cases) {
    INFO(c.args);
    auto r = tbkit_run("book build -q " + in + " " + c.args, dir);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains(c.message));
    CHECK_FALSE(std::filesystem::exists(dir / "x.tbb"));
  }
  auto ok = tbkit_run("book build -q " + in + " --since 2020-02-29 --until 2021.12 --memory 64M", dir);
  CHECK(ok.code == 0);
  CHECK(std::filesystem::exists(dir / "x.tbb"));
}

TEST_CASE("CLI: book probe tells a directory, a damaged tbkit book and a non-book apart", "[pgn][book][cli]") {
  test::ScratchDir dir;
  auto r = tbkit_run("book probe '" + dir.path().string() + "'", dir);  // once an uncaught std::ios_base::failure
  CHECK(r.code == 3);
  CHECK_THAT(r.err, Catch::Contains("is a directory"));

  r = tbkit_run("book probe '" + test::data_path("books/crafted.pgn").string() + "'", dir);
  CHECK(r.code == 4);
  CHECK_THAT(r.err, Catch::Contains("crafted.pgn: neither a tbkit book") && Catch::Contains("nor a Polyglot book"));

  r = tbkit_run("book build -q '" + test::data_path("books/crafted.pgn").string() + "' -o '" + (dir / "c.tbb").string() + "'", dir);
  REQUIRE(r.code == 0);
  auto bytes = test::read_bytes(dir / "c.tbb");
  bytes[0] = 'X';
  test::write_bytes(dir / "c.tbb", bytes);
  r = tbkit_run("book probe '" + (dir / "c.tbb").string() + "'", dir);
  CHECK(r.code == 4);
  CHECK_THAT(r.err, Catch::Contains("c.tbb: offset 0: magic"));

  test::write_bytes(dir / "empty.bin", {});
  r = tbkit_run("book probe '" + (dir / "empty.bin").string() + "'", dir);
  CHECK(r.code == 5);
  CHECK_THAT(r.err, Catch::Contains("empty.bin: the book holds no entries"));
}

TEST_CASE("CLI: book build --variations keeps a game whose side line has a bad move, and says so", "[pgn][book][cli]") {
  test::ScratchDir dir;
  const auto pgn = dir / "var.pgn";
  const std::string text = "[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 (1... c5 2. Nf3 (2. Qxf7)) 2. Nf3 Nc6 1-0\n";
  test::write_bytes(pgn, std::vector<char>(text.begin(), text.end()));
  // Once the whole game was skipped ("0 recorded, 1 skipped as bad").
  auto r = tbkit_run("book build -t 1 '" + pgn.string() + "' --variations -o '" + (dir / "v.tbb").string() + "'", dir);
  CHECK(r.code == 0);
  CHECK_THAT(r.err, Catch::Contains("book: 1 games read, 1 recorded, 1 bad variation dropped;") && Catch::Contains("v.tbb: 5 positions, 6 entries"));
  CHECK_THAT(r.err, Catch::Contains("warning: move 'Qxf7'"));
}
