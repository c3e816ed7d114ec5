#include "player/match.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <sstream>
#include <vector>

#include "chess/fen.h"
#include "player/learning.h"
#include "chess/movegen.h"
#include "chess/notation.h"
#include "player/uci.h"
#include "player/uci_process.h"

namespace tbkit::player {
namespace {

constexpr std::int64_t kHandshakeMs = 20000;

// One engine of the match: its process (restarted after a crash or a hang) and its name.
class Player {
 public:
  explicit Player(const EngineSpec& spec) : spec_(spec) {}

  Status ensure_started() {
    if (process_ && !process_->eof()) return {};
    process_.reset();
    auto p = UciProcess::start(spec_.command);
    if (!p) return p.error();
    process_ = std::make_unique<UciProcess>(std::move(*p));
    if (Status st = process_->send("uci"); !st) return st;
    std::vector<std::string> offered;  // the option names the engine announces
    while (true) {
      auto line = process_->read_line(kHandshakeMs);
      if (!line) return make_error(ErrorCode::kIo, "engine '" + spec_.command + "' did not answer 'uci' with 'uciok'");
      if (line->rfind("id name ", 0) == 0 && name_.empty()) name_ = line->substr(8);
      if (line->rfind("option name ", 0) == 0) {
        const auto type = line->find(" type ", 12);
        offered.push_back(line->substr(12, type == std::string::npos ? std::string::npos : type - 12));
      }
      if (*line == "uciok") break;
    }
    if (!spec_.name.empty()) name_ = spec_.name;
    if (name_.empty()) name_ = spec_.command;
    // A misspelt option would otherwise play the whole match with the engine's default: refuse.
    for (const auto& [k, v] : spec_.options) {
      const std::string& option = k;  // (clang 14 lambdas cannot capture a structured binding)
      if (std::none_of(offered.begin(), offered.end(), [&](const std::string& o) { return same_option_name(o, option); }))
        return make_error(ErrorCode::kInvalidArgument, "engine '" + spec_.command + "' has no option '" + k + "'");
      if (Status st = process_->send("setoption name " + k + " value " + v); !st) return st;
    }
    return sync(!spec_.options.empty());
  }

  // isready, then the lines up to readyok. With `check_option_replies`, the engine's complaints
  // about the options just set (they arrive before its readyok: tbkit's "info string error",
  // Stockfish's "No such option") end the match before it starts.
  Status sync(bool check_option_replies = false) {
    if (Status st = process_->send("isready"); !st) return st;
    const auto unanswered = [&] { return make_error(ErrorCode::kIo, "engine '" + spec_.command + "' did not answer 'isready'"); };
    if (!check_option_replies) {
      if (!process_->wait_for("readyok", kHandshakeMs)) return unanswered();
      return {};
    }
    while (true) {
      auto line = process_->read_line(kHandshakeMs);
      if (!line) return unanswered();
      if (*line == "readyok") return {};
      if (line->rfind("info string error", 0) == 0 || line->rfind("No such option", 0) == 0)
        return make_error(ErrorCode::kInvalidArgument, "engine '" + spec_.command + "' rejected an option: " + *line);
    }
  }

  Status new_game() {
    if (Status st = ensure_started(); !st) return st;
    if (Status st = process_->send("ucinewgame"); !st) return st;
    return sync();
  }

  // Asks for a move; returns the bestmove text (may be empty on timeout or crash) and the time used.
  std::pair<std::optional<std::string>, std::int64_t> ask(const std::string& position, const std::string& go,
                                                          std::int64_t timeout_ms) {
    const auto t0 = std::chrono::steady_clock::now();
    if (!process_->send(position) || !process_->send(go)) return {std::nullopt, 0};
    auto line = process_->wait_for("bestmove", timeout_ms);
    const auto used = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    if (!line) {
      // Late or dead: ask it to stop; an engine that still says nothing is restarted next game.
      if (!process_->eof()) {
        (void)process_->send("stop");
        if (!process_->wait_for("bestmove", 2000)) process_.reset();
      } else {
        process_.reset();
      }
      return {std::nullopt, used};
    }
    std::istringstream words(*line);
    std::string word, move;
    words >> word >> move;
    return {move, used};
  }

  // Shows the engine a game's final position (no "go"): an engine that learns sees how it ended.
  void show_final(const std::string& position) {
    if (process_ && !process_->eof()) (void)process_->send(position);
  }

  [[nodiscard]] const std::string& name() const { return name_; }

 private:
  EngineSpec spec_;
  std::unique_ptr<UciProcess> process_;
  std::string name_;
};

std::string position_command(const Opening& o, const std::vector<chess::Move>& played) {
  std::string s = "position fen " + chess::to_fen(o.start);
  if (!o.moves.empty() || !played.empty()) {
    s += " moves";
    for (chess::Move m : o.moves) s += " " + chess::to_uci(m);
    for (chess::Move m : played) s += " " + chess::to_uci(m);
  }
  return s;
}

const char* result_for_winner(chess::Color winner) { return winner == chess::Color::kWhite ? "1-0" : "0-1"; }

}  // namespace

int GameOutcome::engine1_half_points() const {
  if (result == "1/2-1/2") return 1;
  const bool white_won = result == "1-0";
  return white_won == engine1_white ? 2 : 0;
}

Result<MatchSummary> run_match(const MatchConfig& config, const std::vector<Opening>& openings,
                               const std::function<void(const GameOutcome&)>& on_game) {
  Player p1(config.engine1), p2(config.engine2);
  if (Status st = p1.ensure_started(); !st) return st.error();
  if (Status st = p2.ensure_started(); !st) return st.error();
  MatchSummary summary;
  summary.name1 = p1.name();
  summary.name2 = p2.name();
  int index = 0;
  for (const Opening& opening : openings) {
    chess::Position entry = opening.start;
    for (chess::Move m : opening.moves) entry.do_move(m);
    std::vector<bool> colours;  // engine 1 white?
    switch (config.assignment) {
      case Assignment::kBoth: colours = {true, false}; break;
      case Assignment::kWhite: colours = {true}; break;
      case Assignment::kBlack: colours = {false}; break;
      case Assignment::kToMove: colours = {entry.side_to_move() == chess::Color::kWhite}; break;
      case Assignment::kNotToMove: colours = {entry.side_to_move() == chess::Color::kBlack}; break;
    }
    for (bool engine1_white : colours) {
      GameOutcome g;
      g.index = ++index;
      g.engine1_white = engine1_white;
      g.start_fen = chess::to_fen(entry);
      Player* white = engine1_white ? &p1 : &p2;
      Player* black = engine1_white ? &p2 : &p1;
      if (Status st = white->new_game(); !st) return st.error();
      if (Status st = black->new_game(); !st) return st.error();
      chess::Position pos = entry;
      std::vector<chess::Move> played;
      std::int64_t clock[2] = {config.time.base_ms, config.time.base_ms};
      while (true) {
        const chess::GameStatus status = pos.status();
        if (status != chess::GameStatus::kOngoing) {
          g.reason = chess::to_string(status);
          g.result = status == chess::GameStatus::kCheckmate ? result_for_winner(~pos.side_to_move()) : "1/2-1/2";
          break;
        }
        if (int(played.size()) >= config.max_plies) {
          g.result = "1/2-1/2";
          g.reason = "draw adjudicated after " + std::to_string(config.max_plies) + " plies";
          break;
        }
        const chess::Color us = pos.side_to_move();
        Player* mover = us == chess::Color::kWhite ? white : black;
        std::string go;
        std::int64_t timeout;
        if (config.time.movetime_ms > 0) {
          go = "go movetime " + std::to_string(config.time.movetime_ms);
          timeout = config.time.movetime_ms + config.time.margin_ms;
        } else {
          go = "go wtime " + std::to_string(std::max<std::int64_t>(0, clock[0])) + " btime " +
               std::to_string(std::max<std::int64_t>(0, clock[1])) + " winc " + std::to_string(config.time.inc_ms) +
               " binc " + std::to_string(config.time.inc_ms);
          timeout = clock[chess::index_of(us)] + config.time.margin_ms;
        }
        auto [text, used] = mover->ask(position_command(opening, played), go, timeout);
        if (!text) {
          g.result = result_for_winner(~us);
          g.reason = mover->name() + " lost on time (no move within " + std::to_string(timeout) + " ms)";
          break;
        }
        if (config.time.movetime_ms <= 0) {
          clock[chess::index_of(us)] -= used;
          if (clock[chess::index_of(us)] < -config.time.margin_ms) {
            g.result = result_for_winner(~us);
            g.reason = mover->name() + " lost on time";
            break;
          }
          clock[chess::index_of(us)] += config.time.inc_ms;
        }
        auto m = chess::parse_uci(pos, *text);
        if (!m) {
          g.result = result_for_winner(~us);
          g.reason = mover->name() + " played an illegal move '" + *text + "'";
          break;
        }
        pos.do_move(*m);
        played.push_back(*m);
      }
      g.plies = int(played.size());
      white->show_final(position_command(opening, played));
      black->show_final(position_command(opening, played));
      GameRecord rec;
      rec.tags = {{"Event", config.event},
                  {"Site", "tbkit match"},
                  {"Date", pgn_date_today()},
                  {"Round", std::to_string(g.index)},
                  {"White", white->name()},
                  {"Black", black->name()},
                  {"Result", g.result}};
      if (config.time.movetime_ms > 0) rec.tags.emplace_back("TimeControl", "movetime " + std::to_string(config.time.movetime_ms) + " ms");
      else rec.tags.emplace_back("TimeControl", std::to_string(config.time.base_ms / 1000) + "+" + std::to_string(config.time.inc_ms / 1000));
      rec.start = opening.start;
      rec.start.clear_history();
      rec.moves = opening.moves;
      rec.moves.insert(rec.moves.end(), played.begin(), played.end());
      rec.result = g.result;
      rec.termination = g.reason;
      g.pgn = format_pgn(rec);
      if (!config.experience.empty()) {
        const auto result = experience_result(g.result);
        formats::ExperienceGame exp = experience_of_game(rec.start, rec.moves, result);
        exp.result = result;  // the referee's verdict (a forfeit or an adjudication) stands
        if (Status st = record_experience(config.experience, exp); !st) return st.error();
      }
      const int hp = g.engine1_half_points();
      (hp == 2 ? summary.wins : hp == 1 ? summary.draws : summary.losses)++;
      if (on_game) on_game(g);
    }
  }
  return summary;
}

}  // namespace tbkit::player
