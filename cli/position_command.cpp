// tbkit position: board, key, status and legal moves of a position.
#include <iostream>
#include <memory>
#include <sstream>

#include "chess/fen.h"
#include "chess/movegen.h"
#include "chess/notation.h"
#include "cli/common.h"
#include "cli/json.h"

namespace tbkit::cli {
namespace {

struct PositionOptions {
  std::vector<std::string> fen;
  std::vector<std::string> moves;
  bool json = false;
};

std::string status_words(const chess::Position& pos) {
  const chess::GameStatus s = pos.status();
  if (s == chess::GameStatus::kOngoing) return pos.in_check() ? "check" : "normal";
  return to_string(s);
}

int run_position(const PositionOptions& o) {
  auto pos = position_from_words(o.fen);
  if (!pos) return report(pos.error());
  for (const auto& text : o.moves) {
    auto m = chess::parse_san(*pos, text);
    if (!m) m = chess::parse_uci(*pos, text);
    if (!m) return report(make_error(ErrorCode::kIllegal, "--moves: '" + text + "' is not a legal move in " + chess::to_fen(*pos)));
    pos->do_move(*m);
  }
  const chess::Position& p = *pos;
  const chess::MoveList moves = chess::legal_moves(p);
  const std::string side = p.side_to_move() == chess::Color::kWhite ? "white" : "black";
  if (o.json) {
    std::ostringstream out;
    out << "{\"fen\": " << json_string(chess::to_fen(p)) << ", \"side_to_move\": \"" << side << "\", \"key\": \""
        << hex_key(p.key()) << "\", \"in_check\": " << (p.in_check() ? "true" : "false") << ", \"status\": "
        << json_string(status_words(p)) << ", \"legal_moves\": [";
    for (std::size_t i = 0; i < moves.size(); ++i)
      out << (i ? ", " : "") << "{\"san\": " << json_string(chess::to_san(p, moves[i])) << ", \"uci\": \"" << chess::to_uci(moves[i]) << "\"}";
    out << "]}\n";
    std::cout << out.str();
    return kExitOk;
  }
  std::ostringstream out;
  out << board_text(p) << '\n';
  out << "FEN:          " << chess::to_fen(p) << '\n';
  out << "Side to move: " << side << '\n';
  out << "Polyglot key: " << hex_key(p.key()) << '\n';
  out << "Status:       " << status_words(p) << '\n';
  out << "Legal moves:  " << moves.size() << '\n';
  std::string line;
  for (chess::Move m : moves) {
    std::string item = chess::to_san(p, m) + " (" + chess::to_uci(m) + ")";
    if (!line.empty() && line.size() + item.size() + 2 > 78) {
      out << "  " << line << '\n';
      line.clear();
    }
    line += (line.empty() ? "" : "  ") + item;
  }
  if (!line.empty()) out << "  " << line << '\n';
  std::cout << out.str();
  return kExitOk;
}

}  // namespace

void add_position_command(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<PositionOptions>();
  auto* cmd = app.add_subcommand("position", "Show a position: board, Polyglot key, status and legal moves");
  cmd->add_option("fen", opts->fen, "FEN (quoted or as separate words), or 'startpos'");
  cmd->add_option("-m,--moves", opts->moves, "Moves (SAN or UCI) to play from the position first");
  cmd->add_flag("--json", opts->json, "Print JSON (schema in docs/cli-json.md)");
  cmd->footer(
      "Examples:\n"
      "  tbkit position startpos\n"
      "  tbkit position 'r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1' --json\n"
      "  tbkit position startpos --moves e4 e5 Nf3\n"
      "Exit codes: 0 ok, 2 bad FEN or move.");
  cmd->callback([opts, &exit_code] { exit_code = run_position(*opts); });
}

}  // namespace tbkit::cli
