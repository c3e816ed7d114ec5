// tbkit play: a game against the player in the terminal (ASCII board, SAN or UCI input).
#include <atomic>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "chess/fen.h"
#include "chess/movegen.h"
#include "chess/notation.h"
#include "cli/common.h"
#include "cli/interrupt.h"
#include "player/engine.h"
#include "player/pgn_writer.h"
#include "player/search.h"

namespace tbkit::cli {
namespace {

struct PlayOptions {
  std::string book, tables, colour = "white", pgn = "tbkit-game.pgn";
  std::vector<std::string> fen;
  double seconds = 1.0;
  std::uint64_t seed = 0;
  bool no_learn = false;
  std::string experience;
};

std::string score_text(int score) {
  if (const auto m = player::mate_in_moves(score)) return "mate " + std::to_string(*m);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.2f", score / 100.0);
  return buf;
}

int run_play(const PlayOptions& o) {
  auto start = position_from_words(o.fen);
  if (!start) return report(start.error());
  start->clear_history();
  player::Engine engine;
  if (o.seed) engine.set_seed(o.seed);
  if (!o.book.empty())
    if (Status st = engine.set_book(o.book); !st) return report(st.error());
  if (!o.tables.empty())
    if (Status st = engine.set_tablebase_path(o.tables); !st) return report(st.error());
  if (!o.experience.empty())
    if (Status st = engine.set_experience_file(o.experience); !st) return report(st.error());
  if (!o.no_learn && (!o.book.empty() || !o.experience.empty()))
    if (Status st = engine.set_learning(true); !st) return report(st.error());
  const chess::Color human = o.colour == "white" ? chess::Color::kWhite : chess::Color::kBlack;
  player::SearchLimits limits;
  limits.movetime_ms = std::max<std::int64_t>(1, std::int64_t(o.seconds * 1000));
  limits.move_overhead_ms = 0;

  std::vector<chess::Move> moves;
  chess::Position pos = *start;
  std::string result = "*", termination;
  auto replay = [&] {
    pos = *start;
    for (chess::Move m : moves) pos.do_move(m);
  };
  std::cout << "tbkit play: you are " << o.colour << ". Enter moves in SAN (Nf3) or UCI (g1f3);\n"
            << "'undo' takes back your last move, 'hint' suggests one, 'resign' ends the game, 'quit' stops.\n";
  bool show_board = true;
  while (true) {
    const chess::GameStatus status = pos.status();
    if (status != chess::GameStatus::kOngoing) {
      std::cout << board_text(pos, human == chess::Color::kBlack);
      termination = chess::to_string(status);
      result = status == chess::GameStatus::kCheckmate ? (pos.side_to_move() == chess::Color::kWhite ? "0-1" : "1-0") : "1/2-1/2";
      std::cout << "Game over: " << termination << ", " << result << "\n";
      break;
    }
    if (pos.side_to_move() != human) {
      std::atomic<bool> stop{false};
      const player::Decision d = engine.think(pos, limits, stop, nullptr);
      for (const std::string& e : d.table_errors) std::cerr << "tbkit: warning: tables: " << e << " (searching without that table)\n";
      std::string how = d.source == player::MoveSource::kBook ? (d.learned ? "book, learned" : "book")
                        : d.source == player::MoveSource::kTable ? "table"
                                                                  : "search";
      std::cout << "tbkit plays " << chess::to_san(pos, d.best) << " (" << how;
      if (d.source != player::MoveSource::kBook) std::cout << ", " << score_text(d.last_info.score) << ", depth " << d.last_info.depth;
      std::cout << ")\n";
      pos.do_move(d.best);
      moves.push_back(d.best);
      show_board = true;
      continue;
    }
    if (show_board) std::cout << board_text(pos, human == chess::Color::kBlack);
    show_board = false;
    std::cout << "Your move: " << std::flush;
    std::string line;
    if (!std::getline(std::cin, line)) {
      std::cout << "\n";
      termination = "abandoned";
      break;
    }
    std::istringstream words(line);
    std::string word;
    if (!(words >> word)) continue;
    if (word == "quit") {
      termination = "abandoned";
      break;
    }
    if (word == "resign") {
      result = human == chess::Color::kWhite ? "0-1" : "1-0";
      termination = std::string(human == chess::Color::kWhite ? "White" : "Black") + " resigns";
      std::cout << "You resign: " << result << "\n";
      break;
    }
    if (word == "undo") {
      // Take back the engine's reply and the player's move before it.
      if (moves.empty()) {
        std::cout << "Nothing to undo.\n";
        continue;
      }
      moves.pop_back();
      replay();
      if (pos.side_to_move() != human && !moves.empty()) {
        moves.pop_back();
        replay();
      }
      show_board = true;
      continue;
    }
    if (word == "hint") {
      std::atomic<bool> stop{false};
      const player::Decision d = engine.think(pos, limits, stop, nullptr);
      std::cout << "Hint: " << chess::to_san(pos, d.best) << "\n";
      continue;
    }
    if (word == "board") {
      show_board = true;
      continue;
    }
    auto m = chess::parse_san(pos, word);
    if (!m) m = chess::parse_uci(pos, word);
    if (!m) {
      std::cout << "Not a legal move: '" << word << "' (try e.g. " << chess::to_san(pos, chess::legal_moves(pos)[0]) << ")\n";
      continue;
    }
    pos.do_move(*m);
    moves.push_back(*m);
  }

  player::GameRecord rec;
  const bool human_white = human == chess::Color::kWhite;
  rec.tags = {{"Event", "tbkit play"}, {"Site", "terminal"}, {"Date", player::pgn_date_today()}, {"Round", "1"},
              {"White", human_white ? "you" : "tbkit"}, {"Black", human_white ? "tbkit" : "you"}, {"Result", result}};
  rec.start = *start;
  rec.moves = moves;
  rec.result = result;
  rec.termination = termination;
  const std::string tmp = o.pgn + ".tmp";
  const TmpGuard tmp_guard(tmp);  // Ctrl-C while saving removes the unfinished PGN (cli/interrupt.h)
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << player::format_pgn(rec);
    if (!out) {
      std::remove(tmp.c_str());
      return report(make_error(ErrorCode::kIo, tmp + ": cannot write"));
    }
  }
  if (std::rename(tmp.c_str(), o.pgn.c_str()) != 0) {
    std::remove(tmp.c_str());
    return report(make_error(ErrorCode::kIo, o.pgn + ": cannot write"));
  }
  std::cout << "Game saved to " << o.pgn << "\n";
  auto learned = engine.record_game(*start, moves, player::experience_result(result));
  if (!learned) return report(learned.error());
  if (*learned) std::cout << "Learned from the game: " << formats::journal_path(*engine.experience_base()).string() << "\n";
  return kExitOk;
}

}  // namespace

void add_play_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<PlayOptions>();
  auto* cmd = app.add_subcommand("play", "Play a game against the player in the terminal");
  cmd->add_option("--book", o->book, "Opening book (.tbb or Polyglot .bin)");
  cmd->add_option("--tables", o->tables, "Directories of DTM tables (*.dtm) and/or Syzygy files (*.rtbw, *.rtbz), joined by ':'");
  cmd->add_option("--color", o->colour, "Your colour: white or black (default white)")->check(CLI::IsMember({"white", "black"}));
  cmd->add_option("--time", o->seconds, "Seconds per engine move (default 1)")->check(CLI::Range(0.001, 3600.0));
  cmd->add_option("--pgn", o->pgn, "Where to save the game (default tbkit-game.pgn)");
  cmd->add_option("--fen", o->fen, "Start position (default: the initial position)")->expected(1, 6);
  cmd->add_option("--seed", o->seed, "Seed for the book's random choice (default: random)");
  cmd->add_option("--experience", o->experience, "Experience store's journal, *.exp (default: BOOK.exp beside --book)");
  cmd->add_flag("--no-learn", o->no_learn, "Neither use nor record the experience store");
  cmd->footer(
      "Commands at the prompt: a move in SAN (Nf3, O-O, e8=Q) or UCI (g1f3), undo, hint, board,\n"
      "resign, quit. The game is saved as PGN when it ends (also after resign, quit or end of input).\n"
      "With a book, the player learns (docs/player.md): its move choice uses the experience store\n"
      "beside the book, and the finished game is recorded there (--no-learn: neither).\n"
      "Examples:\n"
      "  tbkit play --color black --time 2 --book book.tbb --tables tables\n"
      "  tbkit play --fen '8/8/8/4k3/8/8/8/KQ6 w - - 0 1' --tables tables\n"
      "Exit codes: 0 game played, 2 bad option or FEN, 3 the PGN cannot be written, 4 bad book or table.");
  cmd->callback([o, &exit_code] { exit_code = run_play(*o); });
}

}  // namespace tbkit::cli
