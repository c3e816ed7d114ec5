#include "player/uci.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <mutex>
#include <sstream>
#include <string_view>
#include <vector>

#include "chess/fen.h"
#include "chess/movegen.h"
#include "chess/notation.h"
#include "player/engine.h"

namespace tbkit::player {
namespace {

constexpr const char* kEngineName = "tbkit";

std::vector<std::string> split_words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

bool parse_int64(const std::string& s, std::int64_t& out) {
  try {
    std::size_t used = 0;
    out = std::stoll(s, &used);
    return used == s.size();
  } catch (...) {
    return false;
  }
}

class UciSession {
 public:
  // Untied: a read from a tied input flushes the output stream without out_mutex_, racing a
  // search thread's send() (seen as a doubled "bestmove" line). send() flushes every line itself.
  UciSession(std::istream& in, std::ostream& out) : in_(in), out_(out) { in_.tie(nullptr); }

  void run() {
    std::string line;
    while (std::getline(in_, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!handle(line)) {
        engine_.stop();
        record_game();
        return;
      }
    }
    // End of input (a piped script): a bounded search finishes, an infinite one is stopped.
    if (infinite_) engine_.stop();
    else engine_.wait();
    record_game();
  }

 private:
  void send(const std::string& text) {
    std::lock_guard<std::mutex> lock(out_mutex_);
    out_ << text << '\n';
    out_.flush();
  }
  void error(const std::string& text) { send("info string error: " + text); }

  // With BookLearning on, records the game played since the last ucinewgame (if the engine moved
  // in it): the last position's line, plus the engine's reply to it if no position followed.
  // Called with no search running.
  void record_game() {
    if (!game_played_) return;
    game_played_ = false;
    std::vector<chess::Move> moves = game_.moves;
    if (!last_best_.is_none() && last_best_line_ == moves.size()) {
      chess::Position p = game_.pos;
      const auto legal = chess::legal_moves(p);
      if (std::find(legal.begin(), legal.end(), last_best_) != legal.end()) moves.push_back(last_best_);
    }
    last_best_ = chess::Move::none();
    auto recorded = engine_.record_game(game_.start, moves);
    if (!recorded) error("BookLearning: " + recorded.error().message);
    else if (*recorded) send("info string learned from the game (" + std::to_string(moves.size()) + " plies)");
  }

  // Returns false on quit.
  bool handle(const std::string& line) {
    std::istringstream words(line);
    std::string cmd;
    if (!(words >> cmd)) return true;
    std::string rest;
    std::getline(words, rest);
    if (cmd == "uci") {
      send(std::string("id name ") + kEngineName);
      send("id author the tbkit authors");
      send("option name Hash type spin default 16 min 1 max 4096");
      send("option name BookFile type string default <empty>");
      send("option name BookMinGames type spin default 1 min 1 max 1000000");
      send("option name BookSelection type combo default weighted var weighted var best");
      send("option name TablebasePath type string default <empty>");
      send("option name MoveOverhead type spin default 30 min 0 max 5000");
      send("option name BookLearning type check default false");
      send("option name ExperienceFile type string default <empty>");
      send("uciok");
    } else if (cmd == "isready") {
      send("readyok");
    } else if (cmd == "ucinewgame") {
      engine_.stop();
      record_game();
      game_ = PositionLine{};
      engine_.new_game();
      if (Status st = engine_.reload_experience(); !st) error("BookLearning: " + st.error().message);
      position_ = chess::Position();
      position_ok_ = true;
    } else if (cmd == "setoption") {
      engine_.stop();
      set_option(rest);
    } else if (cmd == "position") {
      engine_.stop();
      // A bad command leaves no position: a search of the one before would answer for another game.
      auto p = parse_position_line(rest);
      position_ok_ = p.ok();
      if (!p) {
        error(p.error().message + " (no position until the next good 'position' command; 'go' answers bestmove 0000)");
      } else {
        // A line that does not continue the game so far starts another one (a GUI that sends no
        // ucinewgame): the game so far is recorded first.
        const bool continues = chess::to_fen(p->start) == chess::to_fen(game_.start) && p->moves.size() >= game_.moves.size() &&
                               std::equal(game_.moves.begin(), game_.moves.end(), p->moves.begin());
        if (!continues) record_game();
        position_ = p->pos;
        game_ = std::move(*p);
        // A finished game (mate or a draw by rule) is recorded at once, with its result.
        if (game_played_ && position_.status() != chess::GameStatus::kOngoing) record_game();
      }
    } else if (cmd == "go") {
      go(rest);
    } else if (cmd == "stop") {
      engine_.stop();
    } else if (cmd == "ponderhit") {
      // A ponder search runs like "go infinite"; on a hit its best move so far is played at once.
      engine_.stop();
    } else if (cmd == "quit") {
      return false;
    } else if (cmd == "d") {
      send(chess::to_fen(position_));
    } else {
      error("unknown command '" + cmd + "'");
    }
    return true;
  }

  void set_option(const std::string& args) {
    // setoption name NAME [value VALUE]; names may contain spaces.
    const auto w = split_words(args);
    std::string name, value;
    bool in_value = false;
    for (std::size_t i = 0; i < w.size(); ++i) {
      if (i == 0 && w[i] == "name") continue;
      if (!in_value && w[i] == "value") {
        in_value = true;
        continue;
      }
      std::string& target = in_value ? value : name;
      if (!target.empty()) target += ' ';
      target += w[i];
    }
    const auto named = [&](std::string_view option) { return same_option_name(name, option); };
    std::int64_t n = 0;
    if (named("Hash")) {
      if (!parse_int64(value, n) || n < 1) return error("Hash: expected a number of MiB, got '" + value + "'");
      if (Status st = engine_.set_hash_mb(std::size_t(n)); !st) error(st.error().message);
    } else if (named("BookFile")) {
      if (Status st = engine_.set_book(value); !st) error("BookFile: " + st.error().message);
    } else if (named("BookMinGames")) {
      if (!parse_int64(value, n) || n < 1 || n > 1000000)
        return error("BookMinGames: expected a number from 1 to 1000000, got '" + value + "'");
      BookPolicy p = engine_.options().book;
      p.min_games = std::uint32_t(n);
      engine_.set_book_policy(p);
    } else if (named("BookSelection")) {
      BookPolicy p = engine_.options().book;
      if (value == "weighted") p.selection = BookSelection::kWeighted;
      else if (value == "best") p.selection = BookSelection::kBest;
      else return error("BookSelection: expected weighted or best, got '" + value + "'");
      engine_.set_book_policy(p);
    } else if (named("TablebasePath")) {
      if (Status st = engine_.set_tablebase_path(value); !st) error("TablebasePath: " + st.error().message);
    } else if (named("BookLearning")) {
      if (value != "true" && value != "false") return error("BookLearning: expected true or false, got '" + value + "'");
      if (Status st = engine_.set_learning(value == "true"); !st) error("BookLearning: " + st.error().message);
    } else if (named("ExperienceFile")) {
      if (Status st = engine_.set_experience_file(value); !st) error(st.error().message);
    } else if (named("MoveOverhead")) {
      if (!parse_int64(value, n) || n < 0 || n > 5000)
        return error("MoveOverhead: expected milliseconds from 0 to 5000, got '" + value + "'");
      engine_.set_move_overhead(n);
    } else {
      error("unknown option '" + name + "'");
    }
  }

  void go(const std::string& args) {
    engine_.stop();
    GoCommand cmd = parse_go_command(args, position_);
    for (const std::string& e : cmd.errors) error(e);
    cmd.limits.move_overhead_ms = engine_.options().move_overhead_ms;
    infinite_ = cmd.limits.infinite;
    if (!position_ok_) {
      error("go: no position (the last 'position' command was bad)");
      send("bestmove 0000");
      return;
    }
    if (!chess::has_legal_move(position_)) {
      send("info depth 0 score " + std::string(position_.in_check() ? "mate 0" : "cp 0"));
      send("bestmove 0000");
      return;
    }
    game_played_ = true;
    last_best_ = chess::Move::none();
    last_best_line_ = game_.moves.size();
    engine_.start(
        position_, cmd.limits, [this](const SearchInfo& info) { send(format_info(info)); },
        [this](const Decision& d) {
          last_best_ = d.best;  // read only after the search thread has been joined
          for (const std::string& e : d.table_errors) error("tables: " + e + " (searching without that table)");
          if (d.source == MoveSource::kBook)
            send("info string book move " + chess::to_uci(d.best) + (d.learned ? " (learned: proven)" : ""));
          if (!d.left.empty()) {
            std::string text = "info string learned: left";
            for (chess::Move m : d.left) text += " " + chess::to_uci(m);
            send(text);
          }
          std::string line = "bestmove " + chess::to_uci(d.best);
          if (!d.ponder.is_none()) line += " ponder " + chess::to_uci(d.ponder);
          send(line);
        },
        std::move(cmd.search_moves));
  }

  std::istream& in_;
  std::ostream& out_;
  std::mutex out_mutex_;
  chess::Position position_;
  bool position_ok_ = true;  // false after a bad 'position' command, until a good one
  bool infinite_ = false;  // the last go was infinite (or ponder)
  PositionLine game_;                           // the current game's line (the last good position)
  bool game_played_ = false;                    // the engine was asked to move in this game
  chess::Move last_best_ = chess::Move::none(); // its last answer
  std::size_t last_best_line_ = 0;              // game_.moves.size() when it was asked
  Engine engine_;
};

}  // namespace

bool same_option_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::string format_info(const SearchInfo& info) {
  std::ostringstream s;
  s << "info depth " << info.depth << " seldepth " << std::max(info.seldepth, info.depth) << " score ";
  if (const auto m = mate_in_moves(info.score)) s << "mate " << *m;
  else s << "cp " << info.score;
  const std::int64_t ms = std::max<std::int64_t>(1, info.time_ms);
  s << " nodes " << info.nodes << " nps " << (info.nodes * 1000 / std::uint64_t(ms)) << " time " << info.time_ms;
  if (!info.pv.empty()) {
    s << " pv";
    for (chess::Move m : info.pv) s << ' ' << chess::to_uci(m);
  }
  return s.str();
}

Result<chess::Position> parse_position_command(const std::string& args) {
  auto line = parse_position_line(args);
  if (!line) return line.error();
  return std::move(line->pos);
}

Result<PositionLine> parse_position_line(const std::string& args) {
  const auto w = split_words(args);
  if (w.empty()) return make_error(ErrorCode::kInvalidArgument, "position: expected 'startpos' or 'fen'");
  std::size_t i = 0;
  PositionLine line;
  chess::Position pos;
  if (w[0] == "startpos") {
    i = 1;
  } else if (w[0] == "fen") {
    std::string fen;
    for (i = 1; i < w.size() && w[i] != "moves"; ++i) fen += (fen.empty() ? "" : " ") + w[i];
    auto p = chess::parse_fen(fen);
    if (!p) return make_error(p.error().code, "position: " + p.error().message);
    pos = std::move(*p);
  } else {
    return make_error(ErrorCode::kInvalidArgument, "position: expected 'startpos' or 'fen', got '" + w[0] + "'");
  }
  if (i < w.size()) {
    if (w[i] != "moves") return make_error(ErrorCode::kInvalidArgument, "position: unexpected '" + w[i] + "'");
    for (++i; i < w.size(); ++i) {
      auto m = chess::parse_uci(pos, w[i]);
      if (!m) return make_error(m.error().code, "position: move '" + w[i] + "': " + m.error().message);
      if (line.moves.empty()) line.start = pos;
      line.moves.push_back(*m);
      pos.do_move(*m);
    }
  }
  if (line.moves.empty()) line.start = pos;
  line.pos = std::move(pos);
  return line;
}

GoCommand parse_go_command(const std::string& args, const chess::Position& pos) {
  GoCommand go;
  SearchLimits& limits = go.limits;
  const auto w = split_words(args);
  for (std::size_t i = 0; i < w.size(); ++i) {
    const std::string& k = w[i];
    // The number after keyword k, clamped to [lo, hi]; false (and an error) when there is none.
    std::int64_t n = 0;
    auto number = [&](std::int64_t lo, std::int64_t hi) {
      if (i + 1 >= w.size() || !parse_int64(w[i + 1], n)) {
        go.errors.push_back("go: '" + k + "' needs a number");
        return false;
      }
      ++i;
      n = std::clamp(n, lo, hi);
      return true;
    };
    constexpr std::int64_t kMs = kMaxGoMilliseconds;
    if (k == "infinite" || k == "ponder") limits.infinite = true;
    else if (k == "wtime" && number(0, kMs)) limits.time_ms[0] = n;
    else if (k == "btime" && number(0, kMs)) limits.time_ms[1] = n;
    else if (k == "winc" && number(0, kMs)) limits.inc_ms[0] = n;
    else if (k == "binc" && number(0, kMs)) limits.inc_ms[1] = n;
    else if (k == "movestogo" && number(0, 1000)) limits.movestogo = int(n);
    else if (k == "depth" && number(1, kMaxGoDepth)) limits.depth = int(n);
    else if (k == "nodes" && number(1, std::numeric_limits<std::int64_t>::max())) limits.nodes = std::uint64_t(n);
    else if (k == "movetime" && number(1, kMs)) limits.movetime_ms = n;
    else if (k == "mate" && number(1, (kMaxGoDepth - 1) / 2)) limits.depth = int(2 * n + 1);
    else if (k == "searchmoves") {
      while (i + 1 < w.size()) {
        auto m = chess::parse_uci(pos, w[i + 1]);
        if (!m) break;
        go.search_moves.push_back(*m);
        ++i;
      }
    }
  }
  return go;
}

void run_uci(std::istream& in, std::ostream& out) { UciSession(in, out).run(); }

}  // namespace tbkit::player
