#include "player/pgn_writer.h"

#include <ctime>
#include <sstream>

#include "chess/fen.h"
#include "chess/notation.h"

namespace tbkit::player {

std::string pgn_date_today() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y.%m.%d", &tm);
  return buf;
}

std::string format_pgn(const GameRecord& game) {
  std::ostringstream out;
  auto escape = [](const std::string& s) {
    std::string r;
    for (char c : s) {
      if (c == '"' || c == '\\') r += '\\';
      r += c;
    }
    return r;
  };
  bool has_result = false;
  for (const auto& [k, v] : game.tags) {
    if (k == "Result") {
      has_result = true;
      out << "[Result \"" << game.result << "\"]\n";
    } else {
      out << '[' << k << " \"" << escape(v) << "\"]\n";
    }
  }
  if (!has_result) out << "[Result \"" << game.result << "\"]\n";
  const std::string start_fen = chess::to_fen(game.start);
  if (start_fen != chess::kStartFen) out << "[SetUp \"1\"]\n[FEN \"" << start_fen << "\"]\n";
  if (!game.termination.empty()) out << "[Termination \"" << escape(game.termination) << "\"]\n";
  out << '\n';

  std::string text;
  chess::Position pos = game.start;
  bool first = true;
  for (chess::Move m : game.moves) {
    std::string token;
    if (pos.side_to_move() == chess::Color::kWhite) token = std::to_string(pos.fullmove_number()) + ". ";
    else if (first) token = std::to_string(pos.fullmove_number()) + "... ";
    token += chess::to_san(pos, m);
    text += (first ? "" : " ") + token;
    pos.do_move(m);
    first = false;
  }
  if (!game.termination.empty()) text += (text.empty() ? "{" : " {") + game.termination + "}";
  text += (text.empty() ? "" : " ") + game.result;
  // Wrap at 79 columns.
  std::istringstream words(text);
  std::string line, w;
  while (words >> w) {
    if (!line.empty() && line.size() + 1 + w.size() > 79) {
      out << line << '\n';
      line.clear();
    }
    line += (line.empty() ? "" : " ") + w;
  }
  out << line << "\n\n";
  return out.str();
}

}  // namespace tbkit::player
