#include "pgn/reader_game.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <unordered_set>
#include <utility>

#include "chess/fen.h"
#include "pgn/reader_san.h"

namespace tbkit::pgn {
namespace {

using chess::Move;
using chess::Position;

constexpr int kMaxFollowedDepth = 64;
constexpr std::size_t kMaxTokenInMessage = 80;
// Tag names of a game are looked up in a list up to this many tags, in a hash set beyond.
constexpr std::size_t kMaxTagList = 32;

bool is_move_number(std::string_view s) {
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

bool parse_result(std::string_view s, GameResult& r) {
  if (s == "1-0") r = GameResult::kWhiteWins;
  else if (s == "0-1") r = GameResult::kBlackWins;
  else if (s == "1/2-1/2") r = GameResult::kDraw;
  else if (s == "*") r = GameResult::kUnknown;
  else return false;
  return true;
}

bool is_null_move(std::string_view s) { return s == "--" || s == "Z0" || s == "0000" || s == "@@@@" || s == "null"; }

bool is_standard_variant(std::string_view v) {
  std::string lower;
  for (char c : v) lower += (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
  return lower.empty() || lower == "standard" || lower == "chess" || lower == "normal" || lower == "from position" ||
         lower == "fromposition";
}

void unescape_into(std::string_view raw, std::string& out) {
  out.clear();
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\\' && i + 1 < raw.size() && (raw[i + 1] == '"' || raw[i + 1] == '\\')) ++i;
    out += raw[i];
  }
}

class GameParser {
 public:
  GameParser(Lexer& lexer, const std::string& source, Visitor& visitor, const ReaderOptions& options, ParseCounts& counts)
      : lx_(lexer), source_(source), v_(visitor), o_(options), c_(counts) {}

  // Parses one game; false when the input is exhausted.
  bool parse_game();

 private:
  struct Frame {
    Position pos;
    Move last;
    std::uint32_t ply = 0;  // plies from the game's start position to pos
    bool has_last = false;
    bool last_null = false;
  };

  // Fails the game at token `t` (the first failure counts; resolving stops).
  void fail(const char* reason, std::string message, const Token& t);
  // A problem at token `t` of the line at `depth`: at depth 0 it fails the game; inside a followed
  // variation only that variation is dropped (from `t` to its ')', deeper ones included), with a
  // warning diagnostic, and the game goes on.
  void reject(const char* reason, std::string message, const Token& t, int depth);
  // False when `name` was already a tag of this game.
  bool is_new_tag(std::string_view name);
  bool read_tags(Token& t);
  bool start_moves();
  // A symbol that is not a result, on the line at `depth`; only while resolving and not skipping.
  void handle_symbol(const Token& t, int depth);
  void open_variation(const Token& t, int depth);
  void finish_game(GameResult result);

  Lexer& lx_;
  const std::string& source_;
  Visitor& v_;
  const ReaderOptions& o_;
  ParseCounts& c_;

  GameLocation location_;
  std::string fen_, variant_, result_tag_, scratch_;
  bool has_fen_ = false;
  std::vector<std::string> pending_comments_;
  std::vector<std::size_t> tag_hashes_;           // hashes of this game's tag names
  std::unordered_set<std::size_t> tag_hash_set_;  // the same, once there are kMaxTagList
  std::vector<Frame> frames_;
  bool has_error_ = false;
  GameError error_;
  std::string shown_token_;  // error_'s token, printable, for the diagnostic
  bool resolving_ = false;  // moves are being resolved and delivered
  int skip_depth_ = -1;     // depth of the variation being skipped, or -1
  bool past_max_ply_ = false;  // the main line passed max_ply: the lexer may skip ignored tokens
};

void GameParser::fail(const char* reason, std::string message, const Token& t) {
  if (has_error_) return;
  has_error_ = true;
  resolving_ = false;
  error_.reason_code = reason;
  error_.message = std::move(message);
  error_.line = lx_.line_of(t.offset);
  std::string_view tok = t.kind == TokenKind::kTag ? std::string_view() : t.text;
  error_.token = std::string(tok.substr(0, kMaxTokenInMessage));
  shown_token_ = printable_token(tok);
}

void GameParser::reject(const char* reason, std::string message, const Token& t, int depth) {
  if (depth == 0) return fail(reason, std::move(message), t);
  skip_depth_ = depth - 1;  // as if the variation had been skipped from its '(' on
  ++c_.dropped_by_reason[reason];
  if (c_.diagnostics.size() >= o_.max_diagnostics) return;
  Diagnostic d{location_, GameError{reason, std::move(message) + "; variation dropped", lx_.line_of(t.offset),
                                    printable_token(t.text)},
               true};
  c_.diagnostics.push_back(std::move(d));
}

bool GameParser::is_new_tag(std::string_view name) {
  const std::size_t h = std::hash<std::string_view>{}(name);
  if (tag_hashes_.size() < kMaxTagList) {
    if (std::find(tag_hashes_.begin(), tag_hashes_.end(), h) != tag_hashes_.end()) return false;
    tag_hashes_.push_back(h);
    if (tag_hashes_.size() == kMaxTagList) tag_hash_set_.insert(tag_hashes_.begin(), tag_hashes_.end());
    return true;
  }
  return tag_hash_set_.insert(h).second;
}

// Reads the tag section; true when it ends at a tag name seen before in this game: that is the
// next game's first tag (a game with neither moves nor result before it).
bool GameParser::read_tags(Token& t) {
  tag_hashes_.clear();
  // A fresh set: clearing a big one would cost its bucket count in every later game.
  if (!tag_hash_set_.empty()) tag_hash_set_ = {};
  for (;; t = lx_.next()) {
    if (t.kind == TokenKind::kComment) {
      pending_comments_.emplace_back(t.text);
    } else if (t.kind == TokenKind::kTag) {
      if (!is_new_tag(t.text)) {
        lx_.unread(t);
        return true;
      }
      std::string_view value = t.value;
      if (t.value_escaped) {
        unescape_into(t.value, scratch_);
        value = scratch_;
      }
      v_.tag(t.text, value);
      if (t.text == "FEN") {
        fen_ = value;
        has_fen_ = true;
      } else if (t.text == "Variant") {
        variant_ = value;
      } else if (t.text == "Result") {
        result_tag_ = value;
      }
    } else if (t.kind == TokenKind::kBadTag) {
      fail("bad_tag", describe_bad_tag(t.text), t);
    } else {
      return false;
    }
  }
}

// Sets up the start position and asks the visitor; false when the game's moves are not wanted.
bool GameParser::start_moves() {
  if (frames_.empty()) frames_.resize(1);
  Frame& root = frames_[0];
  if (has_fen_) {
    auto pos = chess::parse_fen(fen_);
    if (!pos) return false;
    root.pos = std::move(pos.value());
  } else {
    root.pos = Position();
  }
  root.has_last = false;
  root.ply = 0;
  if (!v_.begin_moves(root.pos)) return false;
  for (const auto& text : pending_comments_) v_.comment(text);
  return true;
}

void GameParser::handle_symbol(const Token& t, int depth) {
  Frame& f = frames_[std::size_t(depth)];
  const bool null_move = is_null_move(t.text);
  if (!null_move && is_move_number(t.text)) return;
  // "dxe6 e.p.": the en passant mark on its own belongs to the move before it, like a NAG.
  if (t.text == "e.p.") return;
  if (f.ply >= o_.max_ply) {
    // Past the ply limit: the rest of this line is not wanted ("0000" is a null move, not a number).
    if (depth == 0) {
      resolving_ = false;
      past_max_ply_ = true;
    } else {
      skip_depth_ = depth - 1;  // as if the variation had been skipped from its '(' on
    }
    return;
  }
  if (null_move) {
    if (f.pos.in_check())
      return reject("illegal_null_move", "null move '" + std::string(t.text) + "' while in check", t, depth);
    v_.move(f.pos, Move::none(), depth);
    f.pos.do_null_move();
    f.last = Move::none();
    f.has_last = f.last_null = true;
    ++f.ply;
    return;
  }
  SanFailure why;
  const Move m = resolve_san(f.pos, t.text, why);
  if (m.is_none()) return reject(why.reason_code, std::move(why.message), t, depth);
  v_.move(f.pos, m, depth);
  f.pos.do_move(m);
  f.last = m;
  f.has_last = true;
  f.last_null = false;
  ++f.ply;
}

void GameParser::open_variation(const Token& t, int depth) {
  if (!resolving_ || skip_depth_ >= 0) return;
  if (!o_.follow_variations) {
    skip_depth_ = depth;
    return;
  }
  if (!frames_[std::size_t(depth)].has_last) return reject("bad_variation", "variation before any move", t, depth + 1);
  if (depth + 1 > kMaxFollowedDepth) return reject("too_deep", "variations nested deeper than 64", t, depth + 1);
  if (frames_.size() < std::size_t(depth) + 2) frames_.resize(std::size_t(depth) + 2);
  const Frame& parent = frames_[std::size_t(depth)];
  Frame& child = frames_[std::size_t(depth) + 1];
  child.pos = parent.pos;
  if (parent.last_null) child.pos.undo_null_move();
  else child.pos.undo_move(parent.last);
  child.has_last = false;
  child.ply = parent.ply - 1;
}

void GameParser::finish_game(GameResult result) {
  if (!has_error_) {
    ++c_.games_used;
    v_.end_game(result, nullptr);
    return;
  }
  const bool cut = o_.on_error == ReaderOptions::OnError::kCutGame && error_.reason_code != "variant" &&
                   error_.reason_code != "bad_fen";
  if (cut) {
    ++c_.games_used;
    ++c_.cut_by_reason[error_.reason_code];
  } else {
    ++c_.skipped_by_reason[error_.reason_code];
    result = GameResult::kUnknown;
  }
  if (c_.diagnostics.size() < o_.max_diagnostics) {
    Diagnostic d{location_, error_};
    d.error.token = shown_token_;
    c_.diagnostics.push_back(std::move(d));
  }
  v_.end_game(result, &error_);
}

bool GameParser::parse_game() {
  pending_comments_.clear();
  Token t = lx_.next();
  while (t.kind == TokenKind::kComment) {
    pending_comments_.emplace_back(t.text);
    t = lx_.next();
  }
  if (t.kind == TokenKind::kEnd) return false;

  ++c_.games_read;
  location_ = GameLocation{source_, c_.games_read, lx_.line_of(t.offset), t.offset};
  v_.begin_game(location_);
  fen_.clear();
  variant_.clear();
  result_tag_.clear();
  has_fen_ = false;
  has_error_ = false;
  skip_depth_ = -1;

  const bool next_game_follows = read_tags(t);
  resolving_ = false;
  if (!has_error_) {
    if (!is_standard_variant(variant_)) {
      fail("variant", "variant '" + printable_token(variant_) + "' is not standard chess", t);
    } else if (has_fen_ && !chess::parse_fen(fen_)) {
      fail("bad_fen", "bad FEN tag: " + printable_token(chess::parse_fen(fen_).error().message, 120), t);
      error_.token = fen_.substr(0, kMaxTokenInMessage);
      shown_token_ = printable_token(fen_);
    } else {
      resolving_ = start_moves();
    }
  }

  GameResult result = GameResult::kUnknown;
  bool have_result = false;
  int depth = 0;
  past_max_ply_ = false;
  for (; !next_game_follows; t = past_max_ply_ ? lx_.next_significant() : lx_.next()) {
    switch (t.kind) {
      case TokenKind::kSymbol:
        if (depth == 0 && parse_result(t.text, result)) {
          have_result = true;
          break;
        }
        if (resolving_ && skip_depth_ < 0) handle_symbol(t, depth);
        continue;
      case TokenKind::kAsterisk:
        if (depth == 0) {
          result = GameResult::kUnknown;
          have_result = true;
          break;
        }
        continue;
      case TokenKind::kPeriod:
      case TokenKind::kNag:
        continue;
      case TokenKind::kComment:
        if (resolving_ && skip_depth_ < 0) v_.comment(t.text);
        continue;
      case TokenKind::kOpenParen:
        open_variation(t, depth);
        ++depth;
        continue;
      case TokenKind::kCloseParen:
        // A stray ')' is ignored, as most readers do.
        if (depth == 0) continue;
        --depth;
        if (skip_depth_ == depth) skip_depth_ = -1;
        continue;
      case TokenKind::kTag:
      case TokenKind::kBadTag:
        // A game without a result token ends where the next one's tags begin.
        lx_.unread(t);
        break;
      case TokenKind::kEnd:
        break;
      case TokenKind::kUnterminated:
        fail("unterminated", t.text.front() == '[' ? "input ends inside a tag value" : "input ends inside a comment",
             t);
        continue;
      case TokenKind::kUnknown:
        fail("bad_token", "unexpected character", t);
        continue;
    }
    break;
  }
  if (!have_result) {
    GameResult from_tag = GameResult::kUnknown;
    if (parse_result(result_tag_, from_tag)) result = from_tag;
  }
  finish_game(result);
  return true;
}

}  // namespace

void parse_games(Lexer& lexer, const std::string& source, Visitor& visitor, const ReaderOptions& options,
                 ParseCounts& counts) {
  GameParser parser(lexer, source, visitor, options, counts);
  while (parser.parse_game()) {
  }
}

std::string format_diagnostic(const Diagnostic& d) {
  std::string s = d.location.source + ":" + std::to_string(d.error.line) + ": game " +
                  std::to_string(d.location.game_number) + ": " + (d.warning ? "warning: " : "") + d.error.message +
                  " [" + d.error.reason_code + "]";
  if (!d.error.token.empty()) s += " (token '" + d.error.token + "')";
  return s;
}

void add_counts(ReadSummary& summary, const ParseCounts& counts, std::size_t max_diagnostics) {
  summary.games_read += counts.games_read;
  summary.games_used += counts.games_used;
  for (const auto& [k, n] : counts.skipped_by_reason) summary.skipped_by_reason[k] += n;
  for (const auto& [k, n] : counts.cut_by_reason) summary.cut_by_reason[k] += n;
  for (const auto& [k, n] : counts.dropped_by_reason) summary.dropped_by_reason[k] += n;
  for (const auto& d : counts.diagnostics) {
    if (summary.diagnostics.size() >= max_diagnostics) break;
    summary.diagnostics.push_back(format_diagnostic(d));
  }
}

}  // namespace tbkit::pgn
