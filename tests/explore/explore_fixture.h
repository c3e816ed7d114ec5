// Fixtures of the explorer tests, made once per test program by the tbkit binary (TBKIT_BINARY).
#pragma once

#include <filesystem>
#include <string>

#include "explore/explorer.h"

namespace tbkit::test {

struct ExploreFixture {
  std::filesystem::path dir;      // scratch directory, removed at exit
  std::filesystem::path book;     // crafted.pgn as a .tbb, with a learned store beside it
  std::filesystem::path polyglot; // data/books/lasker-trap.bin
  std::filesystem::path tables;   // KQvK.dtm, KRvK.dtm
  std::filesystem::path syzygy;   // data/tablebases/syzygy
};

struct CommandRun {
  int code = -1;
  std::string out, err;
};

// The fixture, made on first use.
const ExploreFixture& explore_fixture();
// An explorer over the fixture's .tbb book (0), Polyglot book (1), tables and Syzygy files.
const explore::Explorer& fixture_explorer();
// `tbkit ARGS` through the shell, stdout and stderr captured.
CommandRun run_tbkit_command(const std::string& args);
// A GET on the explorer, without sockets.
explore::HttpResponse get(const std::string& path, const std::string& query = {});

}  // namespace tbkit::test
