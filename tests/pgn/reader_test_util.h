// A visitor that records every event as text, for the PGN reader tests.
#pragma once

#include <string>
#include <vector>

#include "chess/fen.h"
#include "chess/movegen.h"
#include "chess/notation.h"
#include "pgn/reader.h"

namespace tbkit::pgn::testing {

struct RecordedGame {
  GameLocation location;
  std::vector<std::pair<std::string, std::string>> tags;
  std::string start_fen;
  bool moves_begun = false;
  std::vector<std::string> moves;  // UCI, "--" for null moves, prefixed "(d)" in variations
  std::vector<std::string> comments;
  GameResult result = GameResult::kUnknown;
  bool has_error = false;
  GameError error;
};

class RecordingVisitor : public Visitor {
 public:
  void begin_game(const GameLocation& loc) override {
    games.emplace_back();
    games.back().location = loc;
  }
  void tag(std::string_view name, std::string_view value) override { games.back().tags.emplace_back(name, value); }
  bool begin_moves(const chess::Position& start) override {
    games.back().moves_begun = true;
    games.back().start_fen = chess::to_fen(start);
    return want_moves;
  }
  void move(const chess::Position& before, chess::Move m, int depth) override {
    std::string s = m.is_none() ? "--" : chess::to_uci(m);
    if (!m.is_none() && !chess::legal_moves(before).contains(m)) s += "!ILLEGAL";
    if (depth > 0) s = "(" + std::to_string(depth) + ")" + s;
    games.back().moves.push_back(s);
  }
  void comment(std::string_view text) override { games.back().comments.emplace_back(text); }
  void end_game(GameResult r, const GameError* e) override {
    games.back().result = r;
    games.back().has_error = e != nullptr;
    if (e) games.back().error = *e;
  }
  // All events of all games as one string (for comparing runs).
  [[nodiscard]] std::string digest() const {
    std::string s;
    for (const auto& g : games) {
      s += "G " + std::to_string(g.location.game_number) + " " + std::to_string(g.location.line) + " " +
           std::to_string(g.location.byte_offset) + "\n";
      for (const auto& [k, v] : g.tags) s += "T " + k + "=" + v + "\n";
      s += "S " + g.start_fen + "\n";
      for (const auto& m : g.moves) s += m + " ";
      for (const auto& c : g.comments) s += "{" + c + "}";
      s += std::string("\nE ") + to_string(g.result) + (g.has_error ? " " + g.error.reason_code + " " +
                                                                         std::to_string(g.error.line) + " " + g.error.token
                                                                   : "") + "\n";
    }
    return s;
  }

  bool want_moves = true;
  std::vector<RecordedGame> games;
};

inline std::string data_path(const std::string& rel) { return std::string(TBKIT_DATA_DIR) + "/" + rel; }

}  // namespace tbkit::pgn::testing
