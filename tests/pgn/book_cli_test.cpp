#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>

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
