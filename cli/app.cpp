// The tbkit command line: wires the subcommands together. Each subcommand lives in its own file.
#include "cli/app.h"

#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/common.h"
#include "cli/interrupt.h"
#include "cli/version.h"

namespace tbkit::cli {
namespace {

// `word` names no subcommand of the command `named` ("" for tbkit itself, or e.g. "book").
int no_such_command(const std::string& named, const std::string& word) {
  const std::string prefix = named.empty() ? "" : named + " ";
  std::cerr << "tbkit: no command '" << prefix << word << "'; run 'tbkit " << prefix << "--help' for the list\n";
  return kExitBadInput;
}

}  // namespace

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
  add_explore_command(app, exit_code);

  auto* help = app.add_subcommand("help", "Show help for a command");
  std::vector<std::string> topic;
  help->add_option("command", topic, "The command to describe, with its subcommand if it has them (e.g. 'book build')");
  help->callback([&] {
    const CLI::App* at = &app;
    std::string prefix = app.get_name();  // what the usage line puts before the command's own name
    std::string named;                    // the command named so far, e.g. "book build"
    for (const auto& word : topic) {
      const CLI::App* next = nullptr;
      for (const auto* sub : at->get_subcommands({}))
        if (sub->get_name() == word && sub != help) next = sub;
      if (!next) {
        exit_code = no_such_command(named, word);
        return;
      }
      if (at != &app) prefix += " " + at->get_name();
      named = named.empty() ? word : named + " " + word;
      at = next;
    }
    // app.help() would describe the selected subcommand, this one.
    std::cout << (at == &app ? app.get_formatter()->make_help(&app, app.get_name(), CLI::AppFormatMode::Normal) : at->help(prefix));
  });

  try {
    app.parse(argc, argv);
  } catch (const CLI::RequiredError& e) {
    // "A subcommand is required" after a word that names none (tbkit book dump): say which.
    const CLI::App* at = &app;
    std::string named;
    for (auto subs = app.get_subcommands(); !subs.empty(); subs = at->get_subcommands()) {
      at = subs.front();
      named += (named.empty() ? "" : " ") + at->get_name();
    }
    const auto rest = at->remaining();
    if (at != &app && at->get_require_subcommand_min() > 0 && at->get_subcommands().empty() && !rest.empty())
      return no_such_command(named, rest.front());
    const int code = app.exit(e);
    return code == 0 ? 0 : kExitBadInput;
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kExitBadInput;
  }
  return exit_code;
}

}  // namespace tbkit::cli
