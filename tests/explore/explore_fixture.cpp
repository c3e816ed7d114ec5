#include "tests/explore/explore_fixture.h"

#include <stdlib.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

namespace tbkit::test {
namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Owned {
  ExploreFixture f;
  ~Owned() {
    std::error_code ec;
    if (!f.dir.empty()) std::filesystem::remove_all(f.dir, ec);
  }
};

}  // namespace

CommandRun run_tbkit_command(const std::string& args) {
  const char* bin = std::getenv("TBKIT_BINARY");
  REQUIRE(bin);
  const std::string base = (std::filesystem::temp_directory_path() / ("tbkit-explore-run-" + std::to_string(::getpid()))).string();
  const std::string cmd = std::string(bin) + " " + args + " > '" + base + ".out' 2> '" + base + ".err'";
  const int status = std::system(cmd.c_str());
  CommandRun r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
  std::filesystem::remove(base + ".out");
  std::filesystem::remove(base + ".err");
  return r;
}

const ExploreFixture& explore_fixture() {
  static const Owned owned = [] {
    Owned o;
    std::string pattern = (std::filesystem::temp_directory_path() / "tbkit-explore-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()));
    o.f.dir = pattern;
    const std::filesystem::path data = TBKIT_DATA_DIR;
    o.f.book = o.f.dir / "crafted.tbb";
    o.f.polyglot = data / "books/lasker-trap.bin";
    o.f.tables = o.f.dir / "tables";
    o.f.syzygy = data / "tablebases/syzygy";
    const std::string pgn = "'" + (data / "books/crafted.pgn").string() + "'";
    auto r = run_tbkit_command("book build -q -t 1 " + pgn + " -o '" + o.f.book.string() + "'");
    REQUIRE(r.code == 0);
    r = run_tbkit_command("book learn -q " + pgn + " --into '" + o.f.book.string() + "'");
    REQUIRE(r.code == 0);
    r = run_tbkit_command("gen KQvK KRvK -t 1 -d '" + o.f.tables.string() + "'");
    INFO(r.err);
    REQUIRE(r.code == 0);
    return o;
  }();
  return owned.f;
}

const explore::Explorer& fixture_explorer() {
  static const explore::Explorer explorer = [] {
    const auto& f = explore_fixture();
    auto e = explore::Explorer::open({f.book, f.polyglot}, {f.tables, f.syzygy});
    REQUIRE(e);
    return std::move(*e);
  }();
  return explorer;
}

explore::HttpResponse get(const std::string& path, const std::string& query) {
  return fixture_explorer().handle({"GET", path, query});
}

}  // namespace tbkit::test
