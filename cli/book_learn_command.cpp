// tbkit book learn: PGN games into a book's experience store; the learned rows of book probe.
#include "cli/book_learn_command.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <vector>

#include "cli/common.h"
#include "formats/experience.h"
#include "pgn/book_learn.h"

namespace tbkit::cli {
namespace {

struct LearnOptions {
  std::vector<std::string> inputs;
  std::string book;
  bool quiet = false;
};

int run_learn(const LearnOptions& o) {
  // No TmpGuard on BOOK.learn.tmp: another process's fold may own it; a leftover one is overwritten
  // by the next fold (docs/formats/experience.md).
  auto summary = pgn::learn_from_pgn(o.inputs, o.book);
  if (!summary) return report(summary.error());
  if (!o.quiet) {
    std::cerr << "book learn: " << summary->games << " games (" << summary->unknown_results << " without a result), " << summary->plies
              << " plies; " << formats::learned_path(o.book).string() << ": " << summary->fold.stats.games << " games, "
              << summary->fold.stats.entries.size() << " moves\n";
    if (summary->fold.torn_tail) std::cerr << "book learn: warning: " << summary->fold.tail_problem << '\n';
  }
  return kExitOk;
}

}  // namespace

std::string learned_text(const explore::LearnedMoves& learned) {
  std::ostringstream tx;
  tx << "Learned (" << learned.file_name << ", " << learned.games << " games):";
  if (learned.moves.empty()) {
    tx << " no moves here.\n";
    return tx.str();
  }
  tx << '\n';
  char line[160];
  std::snprintf(line, sizeof line, "%-8s %-6s %10s %6s %6s %6s %7s %6s\n", "move", "uci", "games", "wins", "draws", "losses", "unknown", "score%");
  tx << line;
  for (const auto& r : learned.moves) {
    const auto& e = r.entry;
    std::snprintf(line, sizeof line, "%-8s %-6s %10u %6u %6u %6u %7u %6s\n", r.san.c_str(), r.uci.c_str(), e.games, e.wins, e.draws,
                  e.losses, e.games - e.wins - e.draws - e.losses, explore::learned_score(e, "-").c_str());
    tx << line;
  }
  tx << "learned wins/draws/losses are for the side to move; score% is over games with a result.\n";
  return tx.str();
}

void add_book_learn_command(CLI::App& book, int& exit_code) {
  auto lo = std::make_shared<LearnOptions>();
  auto* learn = book.add_subcommand("learn", "Learn from games: add them to a book's experience store (BOOK.tbb.exp, folded into BOOK.tbb.learn)");
  learn->add_option("games", lo->inputs, "PGN files (.pgn, .pgn.zst)")->required();
  learn->add_option("--into", lo->book, "The book (.tbb) whose store learns; it need not exist yet")->required();
  learn->add_flag("-q,--quiet", lo->quiet, "No summary on stderr");
  learn->footer(
      "Every game's positions and moves, both sides, with the result from each mover's view; games\n"
      "with '*' count as games of unknown result. A file with an unreadable game is refused whole.\n"
      "Examples:\n"
      "  tbkit book learn my-games.pgn --into games.tbb\n"
      "  tbkit book probe games.tbb --moves \"e4 e5\"   # shows the learned moves too\n"
      "Exit codes: 0 ok, 2 bad option, 3 I/O error, 4 unreadable game (file:line named) or corrupt store.");
  learn->callback([lo, &exit_code] { exit_code = run_learn(*lo); });
}

}  // namespace tbkit::cli
