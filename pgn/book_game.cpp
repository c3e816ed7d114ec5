#include "pgn/book_game.h"

#include <charconv>

#include "formats/polyglot_book.h"

namespace tbkit::pgn {
namespace {

std::uint32_t parse_elo(std::string_view v) {
  std::uint32_t elo = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), elo);
  if (ec != std::errc() || ptr != v.data() + v.size() || elo > 4000) return 0;
  return elo;
}

std::uint32_t parse_digits(std::string_view v) {
  std::uint32_t n = 0;
  for (char c : v) {
    if (c < '0' || c > '9') return 0;
    n = n * 10 + std::uint32_t(c - '0');
  }
  return n;
}

}  // namespace

std::uint32_t parse_pgn_date(std::string_view text) {
  if (text.size() < 4) return 0;
  const std::uint32_t year = parse_digits(text.substr(0, 4));
  if (year == 0) return 0;
  std::uint32_t month = text.size() >= 7 ? parse_digits(text.substr(5, 2)) : 0;
  std::uint32_t day = text.size() >= 10 ? parse_digits(text.substr(8, 2)) : 0;
  if (month > 12) month = 0;
  if (day > 31) day = 0;
  return year * 10000 + month * 100 + day;
}

void BookGameCollector::begin_game(const GameLocation& /*location*/) {
  game_.result = GameResult::kUnknown;
  game_.tag_result = 0;
  game_.white_elo = game_.black_elo = 0;
  game_.plies.clear();
  date_ = 0;
  skip_ = false;
}

void BookGameCollector::tag(std::string_view name, std::string_view value) {
  if (name == "Result") {
    game_.tag_result = value == "1-0" ? 1 : value == "0-1" ? -1 : 0;
  } else if (name == "WhiteElo") {
    game_.white_elo = parse_elo(value);
  } else if (name == "BlackElo") {
    game_.black_elo = parse_elo(value);
  } else if (name == "Date") {
    date_ = parse_pgn_date(value);
  }
}

bool BookGameCollector::game_passes() const {
  if ((filter_.since || filter_.until) && date_ == 0) return false;
  // A partial date ("2021.??.??") passes when any day it may stand for is inside the bounds.
  std::uint32_t latest = date_;
  if (latest % 10000 / 100 == 0) latest += 1200;
  if (latest % 100 == 0) latest += 31;
  if (filter_.since && latest < filter_.since) return false;
  if (filter_.until && date_ > filter_.until) return false;
  if (filter_.min_elo == 0) return true;
  const std::uint32_t w = game_.white_elo, b = game_.black_elo;
  switch (filter_.elo_of) {
    case formats::EloOf::kMover: return true;  // checked per move
    case formats::EloOf::kBoth: return w >= filter_.min_elo && b >= filter_.min_elo;
    case formats::EloOf::kAverage: return w && b && (w + b) / 2 >= filter_.min_elo;
  }
  return true;
}

bool BookGameCollector::begin_moves(const chess::Position& start) {
  start_fullmove_ = start.fullmove_number();
  start_black_ = start.side_to_move() == chess::Color::kBlack;
  skip_ = !game_passes();
  return !skip_;
}

void BookGameCollector::move(const chess::Position& before, chess::Move move, int variation_depth) {
  if (skip_ || move.is_none()) return;
  if (variation_depth > 0 && !filter_.variations) return;
  const bool white = before.side_to_move() == chess::Color::kWhite;
  // Ply from the game's start, valid inside variations too (the fullmove number travels with the position).
  const long ply = 2L * (before.fullmove_number() - start_fullmove_) + (white ? 0 : 1) - (start_black_ ? 1 : 0);
  if (ply < 0 || ply >= long(filter_.max_ply)) return;
  if (filter_.colour == formats::ColourFilter::kWhiteOnly && !white) return;
  if (filter_.colour == formats::ColourFilter::kBlackOnly && white) return;
  if (filter_.min_elo && filter_.elo_of == formats::EloOf::kMover && (white ? game_.white_elo : game_.black_elo) < filter_.min_elo)
    return;
  game_.plies.push_back(BookPly{before.key(), formats::to_polyglot_move(move), white});
}

void BookGameCollector::end_game(GameResult result, const GameError* error) {
  if (error) return;  // a skipped game: its delivered moves are discarded
  if (skip_) {
    ++games_filtered_;
    return;
  }
  game_.result = result;
  if (game_.plies.empty()) return;
  ++games_recorded_;
  sink_(game_);
}

}  // namespace tbkit::pgn
