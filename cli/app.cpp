// The tbkit command line: wires the subcommands together. Each subcommand lives in its own file.
#include "cli/app.h"

#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/common.h"
#include "cli/interrupt.h"
#include "cli/version.h"

namespace tbkit::cli {

int run(int argc, char** argv) {
  // Before any thread starts: Ctrl-C and friends remove the guarded temporary files (cli/interrupt.h).
  install_interrupt_cleanup();
  CLI::App app{"tbkit: chess endgame tablebases, opening books and probing, offline.", "tbkit"};
  app.set_version_flag("--version", std::string("tbkit ") + kVersion);
  app.require_subcommand(1);
  app.footer("Run 'tbkit help COMMAND' or 'tbkit COMMAND --help' for a command's options and examples.");
  int exit_code = kExitOk;

  add_position_command(app, exit_code);
  add_perft_command(app, exit_code);
  add_bench_command(app, exit_code);
  add_gen_command(app, exit_code);
  add_verify_command(app, exit_code);
  add_stats_command(app, exit_code);
  add_pgn_command(app, exit_code);
  add_book_command(app, exit_code);
  add_probe_command(app, exit_code);
  add_uci_command(app, exit_code);
  add_play_command(app, exit_code);
  add_match_command(app, exit_code);

  auto* help = app.add_subcommand("help", "Show help for a command");
  std::string topic;
  help->add_option("command", topic, "The command to describe");
  help->callback([&] {
    if (topic.empty()) {
      std::cout << app.help();
      return;
    }
    for (auto* sub : app.get_subcommands({})) {
      if (sub->get_name() == topic) {
        std::cout << sub->help(app.get_name());
        return;
      }
    }
    std::cerr << "tbkit: no command '" << topic << "'; run 'tbkit --help' for the list\n";
    exit_code = kExitBadInput;
  });

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kExitBadInput;
  }
  return exit_code;
}

}  // namespace tbkit::cli
