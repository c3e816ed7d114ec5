// tbkit explore: a local web page over books and tables (docs/explore.md).
#include <iostream>
#include <memory>

#include "cli/common.h"
#include "cli/explore_server.h"
#include "explore/explorer.h"

namespace tbkit::cli {
namespace {

struct ExploreOptions {
  std::vector<std::string> books;
  std::vector<std::string> tables;
  int port = 8048;
};

int run_explore(const ExploreOptions& o) {
  std::vector<std::filesystem::path> books(o.books.begin(), o.books.end());
  std::vector<std::filesystem::path> dirs(o.tables.begin(), o.tables.end());
  auto explorer = explore::Explorer::open(books, dirs);
  if (!explorer) return report(explorer.error());
  for (const auto& w : explorer->warnings()) std::cerr << "tbkit: warning: " << w << '\n';
  ExploreServer server(*explorer);
  auto port = server.bind(o.port);
  if (!port) return report(port.error());
  // The URL on stdout, at once (a script or test reads it to find a free port's number).
  std::cout << "http://127.0.0.1:" << *port << "/" << std::endl;
  std::cerr << "tbkit explore: serving on 127.0.0.1 only; Ctrl-C stops\n";
  // Runs until a signal: the interrupt watcher (cli/interrupt.h) ends the process.
  server.serve();
  return kExitOk;
}

}  // namespace

void add_explore_command(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<ExploreOptions>();
  auto* cmd = app.add_subcommand("explore", "Serve a local web page to explore books and tables (127.0.0.1 only)");
  cmd->add_option("--book", opts->books, "Opening book (.tbb or Polyglot .bin; repeatable); BOOK.learn beside it is shown too");
  cmd->add_option("-d,--tables", opts->tables,
                  "Directory of MATERIAL.dtm tables, and MATERIAL.rtbw/.rtbz Syzygy files (repeatable)");
  cmd->add_option("--port", opts->port, "TCP port on 127.0.0.1 (default 8048; 0: a free one, printed)")->check(CLI::Range(0, 65535));
  cmd->footer(
      "Examples:\n"
      "  tbkit explore --book games.tbb --tables tables\n"
      "  tbkit explore --book a.tbb --book b.bin -d tables -d syzygy --port 0\n"
      "Prints the page's URL (http://127.0.0.1:PORT/) on stdout and serves until Ctrl-C. The JSON API\n"
      "under the page: docs/explore.md.\n"
      "Exit codes: 3 a --book or --tables path cannot be read, or the port is in use; 4 a corrupt\n"
      "book; 130 stopped by Ctrl-C.");
  cmd->callback([opts, &exit_code] { exit_code = run_explore(*opts); });
}

}  // namespace tbkit::cli
