// tbkit book learn: PGN games into a book's experience store; the learned rows of book probe.
#include "cli/book_learn_command.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <vector>

#include "chess/notation.h"
#include "cli/common.h"
#include "cli/json.h"
#include "formats/experience.h"
#include "formats/polyglot_book.h"
#include "pgn/book_learn.h"

namespace tbkit::cli {
namespace {

std::string learned_pct(double part, double whole) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.1f", whole > 0 ? 100.0 * part / whole : 0.0);
  return buf;
}

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

Result<LearnedSection> describe_learned(const std::filesystem::path& book, const chess::Position& pos) {
  LearnedSection section;
  const auto path = formats::learned_path(book);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) && !std::filesystem::exists(formats::journal_path(book), ec)) return section;
  auto stats = formats::read_experience_stats(book);
  if (!stats) return stats.error();
  section.present = true;
  struct Row {
    std::string san, uci;
    formats::LearnedEntry e;
  };
  std::vector<Row> rows;
  for (const auto& e : stats->lookup(pos.key())) {
    auto m = formats::from_polyglot_move(pos, e.move);
    if (!m) return make_error(ErrorCode::kCorrupt, path.string() + ": key " + hex_key(pos.key()) + ": " + m.error().message);
    rows.push_back(Row{chess::to_san(pos, *m), chess::to_uci(*m), e});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.e.games > b.e.games; });
  section.any = !rows.empty();
  // Score over the games with a known result: a game without one is neither won nor lost.
  const auto score = [](const formats::LearnedEntry& e, const char* none) -> std::string {
    const double decided = double(e.wins) + double(e.draws) + double(e.losses);
    return decided > 0 ? learned_pct(double(e.wins) + 0.5 * double(e.draws), decided) : none;
  };
  std::ostringstream js;
  js << ", \"learned\": {\"games\": " << stats->games << ", \"moves\": [";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& e = rows[i].e;
    js << (i ? ", " : "") << "{\"san\": " << json_string(rows[i].san) << ", \"uci\": \"" << rows[i].uci << "\", \"games\": " << e.games
       << ", \"wins\": " << e.wins << ", \"draws\": " << e.draws << ", \"losses\": " << e.losses
       << ", \"unknown\": " << (e.games - e.wins - e.draws - e.losses) << ", \"score_pct\": " << score(e, "null") << "}";
  }
  js << "]}";
  section.json = js.str();
  std::ostringstream tx;
  tx << "Learned (" << path.filename().string() << ", " << stats->games << " games):";
  if (rows.empty()) tx << " no moves here.\n";
  else {
    tx << '\n';
    char line[160];
    std::snprintf(line, sizeof line, "%-8s %-6s %10s %6s %6s %6s %7s %6s\n", "move", "uci", "games", "wins", "draws", "losses", "unknown", "score%");
    tx << line;
    for (const auto& r : rows) {
      std::snprintf(line, sizeof line, "%-8s %-6s %10u %6u %6u %6u %7u %6s\n", r.san.c_str(), r.uci.c_str(), r.e.games, r.e.wins, r.e.draws,
                    r.e.losses, r.e.games - r.e.wins - r.e.draws - r.e.losses, score(r.e, "-").c_str());
      tx << line;
    }
    tx << "learned wins/draws/losses are for the side to move; score% is over games with a result.\n";
  }
  section.text = tx.str();
  return section;
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
