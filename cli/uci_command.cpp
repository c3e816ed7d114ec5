// tbkit uci: the player as a UCI engine on stdin/stdout.
#include <iostream>

#include "cli/common.h"
#include "player/uci.h"

namespace tbkit::cli {

void add_uci_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("uci", "Run the player as a UCI engine (stdin/stdout)");
  cmd->footer(
      "Speaks UCI: uci, isready, ucinewgame, setoption, position startpos|fen ... moves ...,\n"
      "go [wtime btime winc binc movestogo depth nodes movetime infinite searchmoves], stop, quit.\n"
      "Options: Hash (MiB), BookFile (.tbb or Polyglot .bin), BookMinGames, BookSelection\n"
      "(weighted|best), TablebasePath (directories joined by ':' holding DTM tables *.dtm and/or\n"
      "Syzygy files *.rtbw/*.rtbz, both read from the same directories), MoveOverhead (ms).\n"
      "With Syzygy files the player wins under the 50-move rule, the position's halfmove clock\n"
      "included (the DTM-fastest of the moves that win in time); without them it plays by DTM.\n"
      "See docs/player.md.\n"
      "Examples:\n"
      "  tbkit uci\n"
      "  printf 'uci\\nposition startpos\\ngo depth 6\\nquit\\n' | tbkit uci\n"
      "Exit codes: 0 after quit or end of input.");
  cmd->callback([&exit_code] {
    std::ios::sync_with_stdio(false);
    player::run_uci(std::cin, std::cout);
    exit_code = kExitOk;
  });
}

}  // namespace tbkit::cli
