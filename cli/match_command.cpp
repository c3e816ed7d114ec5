// tbkit match: a referee for games between two UCI engines.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <map>
#include <random>

#include "cli/common.h"
#include "cli/interrupt.h"
#include "player/openings.h"

namespace tbkit::cli {
namespace {

struct MatchOptions {
  std::string engine1, engine2, name1, name2;
  std::vector<std::string> options1, options2;
  std::string openings, book, pgn, colours = "both", learn_into;
  int book_plies = 8;
  int games = 0;
  std::uint32_t book_min_games = 1;
  std::int64_t movetime = 0;
  std::string tc;
  std::int64_t margin = 500;
  int max_plies = 600;
  std::uint64_t seed = 1;
  bool quiet = false;
};

Result<std::vector<std::pair<std::string, std::string>>> parse_engine_options(const std::vector<std::string>& in) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& s : in) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      return make_error(ErrorCode::kInvalidArgument, "engine option '" + s + "': expected NAME=VALUE");
    out.emplace_back(s.substr(0, eq), s.substr(eq + 1));
  }
  return out;
}

Result<player::TimeControl> parse_time(const MatchOptions& o) {
  player::TimeControl t;
  t.margin_ms = o.margin;
  if (o.movetime > 0 && !o.tc.empty()) return make_error(ErrorCode::kInvalidArgument, "--movetime and --tc exclude each other");
  if (o.movetime > 0) {
    t.movetime_ms = o.movetime;
    return t;
  }
  const std::string tc = o.tc.empty() ? "10+0.1" : o.tc;
  try {
    const auto plus = tc.find('+');
    std::size_t used = 0;
    const double base = std::stod(tc.substr(0, plus), &used);
    if (used != tc.substr(0, plus).size() || base <= 0) throw std::invalid_argument("base");
    double inc = 0;
    if (plus != std::string::npos) {
      inc = std::stod(tc.substr(plus + 1), &used);
      if (used != tc.size() - plus - 1 || inc < 0) throw std::invalid_argument("inc");
    }
    t.base_ms = std::int64_t(base * 1000);
    t.inc_ms = std::int64_t(inc * 1000);
  } catch (const std::exception&) {
    return make_error(ErrorCode::kInvalidArgument, "--tc '" + tc + "': expected SECONDS[+INCREMENT], e.g. 10+0.1");
  }
  return t;
}

int run_match_command(const MatchOptions& o) {
  player::MatchConfig config;
  config.engine1 = {o.engine1, o.name1, {}};
  config.engine2 = {o.engine2, o.name2, {}};
  auto opts1 = parse_engine_options(o.options1);
  if (!opts1) return report(opts1.error());
  auto opts2 = parse_engine_options(o.options2);
  if (!opts2) return report(opts2.error());
  config.engine1.options = *opts1;
  config.engine2.options = *opts2;
  auto time = parse_time(o);
  if (!time) return report(time.error());
  config.time = *time;
  config.max_plies = o.max_plies;
  config.experience = o.learn_into;
  const std::map<std::string, player::Assignment> colours = {{"both", player::Assignment::kBoth},
                                                             {"white", player::Assignment::kWhite},
                                                             {"black", player::Assignment::kBlack},
                                                             {"to-move", player::Assignment::kToMove},
                                                             {"not-to-move", player::Assignment::kNotToMove}};
  config.assignment = colours.at(o.colours);

  std::vector<player::Opening> openings;
  std::mt19937_64 rng(o.seed);
  if (!o.openings.empty()) {
    auto r = player::read_openings(o.openings);
    if (!r) return report(r.error());
    openings = std::move(*r);
    if (openings.empty()) return report(make_error(ErrorCode::kInvalidArgument, o.openings + ": no positions"));
  } else if (!o.book.empty()) {
    auto book = player::OpeningBook::open(o.book);
    if (!book) return report(book.error());
    const int per = config.assignment == player::Assignment::kBoth ? 2 : 1;
    const int lines = o.games > 0 ? (o.games + per - 1) / per : 10;
    openings = player::book_openings(*book, lines, o.book_plies, o.book_min_games, rng);
  } else {
    openings.push_back({chess::Position(), {}, "startpos"});
  }
  if (o.games > 0 && (!o.openings.empty() || o.book.empty())) {
    // Cycle through the file's positions (or the initial position) until enough games are scheduled.
    const int per = config.assignment == player::Assignment::kBoth ? 2 : 1;
    const std::size_t want = std::size_t((o.games + per - 1) / per);
    std::vector<player::Opening> cycled;
    for (std::size_t i = 0; i < want; ++i) cycled.push_back(openings[i % openings.size()]);
    openings = std::move(cycled);
  }

  std::ofstream pgn;
  const std::string tmp = o.pgn + ".tmp";
  TmpGuard tmp_guard;  // Ctrl-C during the match removes the unfinished PGN (cli/interrupt.h)
  if (!o.pgn.empty()) {
    tmp_guard.guard(tmp);
    pgn.open(tmp, std::ios::binary | std::ios::trunc);
    if (!pgn) return report(make_error(ErrorCode::kIo, tmp + ": cannot write"));
  }
  int played = 0;
  int w = 0, d = 0, l = 0;
  auto summary = player::run_match(config, openings, [&](const player::GameOutcome& g) {
    if (o.games > 0 && played >= o.games) return;
    ++played;
    const int hp = g.engine1_half_points();
    (hp == 2 ? w : hp == 1 ? d : l)++;
    if (pgn) {
      pgn << g.pgn;
      pgn.flush();
    }
    if (!o.quiet)
      std::printf("game %d: engine1 %s, %s (%s), %d plies, score %d-%d-%d, start %s\n", g.index,
                  g.engine1_white ? "white" : "black", g.result.c_str(), g.reason.c_str(), g.plies, w, l, d,
                  g.start_fen.c_str());
    std::fflush(stdout);
  });
  if (!summary) {
    if (pgn) {
      pgn.close();
      std::remove(tmp.c_str());
    }
    return report(summary.error());
  }
  if (pgn) {
    pgn.close();
    if (!pgn || std::rename(tmp.c_str(), o.pgn.c_str()) != 0) {
      std::remove(tmp.c_str());
      return report(make_error(ErrorCode::kIo, o.pgn + ": cannot write"));
    }
  }
  const int n = w + d + l;
  std::printf("Score of %s vs %s: %d - %d - %d  [%.3f] %d games (W - L - D)\n", summary->name1.c_str(),
              summary->name2.c_str(), w, l, d, n ? (w + 0.5 * d) / n : 0.0, n);
  return kExitOk;
}

}  // namespace

void add_match_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<MatchOptions>();
  auto* cmd = app.add_subcommand("match", "Referee games between two UCI engines");
  cmd->add_option("--engine1", o->engine1, "First engine: a shell command (e.g. 'tbkit uci')")->required();
  cmd->add_option("--engine2", o->engine2, "Second engine: a shell command (e.g. /usr/games/stockfish)")->required();
  cmd->add_option("--name1", o->name1, "Name of engine 1 in PGN and reports (default: its 'id name')");
  cmd->add_option("--name2", o->name2, "Name of engine 2");
  cmd->add_option("--option1", o->options1, "UCI option for engine 1, NAME=VALUE (repeatable)");
  cmd->add_option("--option2", o->options2, "UCI option for engine 2, NAME=VALUE (repeatable)");
  cmd->add_option("--openings", o->openings, "Start positions: EPD/FEN file, one a line");
  cmd->add_option("--book", o->book, "Start from random lines of this book (.tbb or Polyglot .bin)");
  cmd->add_option("--book-plies", o->book_plies, "Plies of each book line (default 8)")->check(CLI::Range(0, 200));
  cmd->add_option("--book-min-games", o->book_min_games, "Book moves played at least this often (default 1)");
  cmd->add_option("-n,--games", o->games, "Games to play (default: every position, per --colors)")->check(at_least(1));
  cmd->add_option("--colors", o->colours, "Engine 1 plays: both (each position twice), white, black, to-move, not-to-move")
      ->check(CLI::IsMember({"both", "white", "black", "to-move", "not-to-move"}));
  cmd->add_option("--movetime", o->movetime, "Milliseconds per move")->check(at_least(1));
  cmd->add_option("--tc", o->tc, "Clock: SECONDS[+INCREMENT] (default 10+0.1)");
  cmd->add_option("--time-margin", o->margin, "Milliseconds of lateness tolerated before a time forfeit (default 500)")
      ->check(at_least(0));
  cmd->add_option("--max-plies", o->max_plies, "Adjudicate a draw after this many plies (default 600)")->check(at_least(1));
  cmd->add_option("--pgn", o->pgn, "Write the games to this PGN file");
  cmd->add_option("--learn-into", o->learn_into,
                  "Record every game, both engines' moves, in the experience store of this book (BOOK.exp)");
  cmd->add_option("--seed", o->seed, "Seed for choosing book lines (default 1)");
  cmd->add_flag("-q,--quiet", o->quiet, "Only the final score line");
  cmd->footer(
      "Adjudicates checkmate, stalemate, threefold repetition, the fifty-move rule and insufficient\n"
      "material; an illegal move or a move later than the time (plus --time-margin) loses.\n"
      "Prints one line per game and 'Score of A vs B: W - L - D [score] N games'.\n"
      "Examples:\n"
      "  tbkit match --engine1 'tbkit uci' --engine2 /usr/games/stockfish --option2 'Skill Level=5' \\\n"
      "      --book book.tbb --games 40 --movetime 200 --pgn games.pgn\n"
      "  tbkit match --engine1 'tbkit uci' --option1 TablebasePath=tables --engine2 stockfish \\\n"
      "      --openings won.epd --colors to-move --movetime 100\n"
      "  tbkit match --engine1 'tbkit uci' --option1 BookFile=small.tbb --option1 BookLearning=true \\\n"
      "      --engine2 stockfish --option2 'Skill Level=3' --games 400 --movetime 50\n"
      "Exit codes: 0 match played, 2 bad options or start positions, 3 an engine or file failed, 4 bad book.");
  cmd->callback([o, &exit_code] { exit_code = run_match_command(*o); });
}

}  // namespace tbkit::cli
